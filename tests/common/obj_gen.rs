//! Generated OBJ terrains for the OBJ reader's tests and benchmark: a height-field grid written
//! as RecastDemo-style text (`v` lines with six decimals, `f` lines), mixing quads, triangle
//! pairs, `v/vt/vn` corners and relative indices, so every face form is exercised at scale.
#![allow(dead_code)]

use std::io::Write;
use std::path::Path;

/// Writes a grid of `cells` x `cells` cells (`2 * cells^2` triangles once fanned) to `path`.
/// Every third row's cells are written as two triangles, the others as quads; every fifth
/// face uses `v/vt/vn` corners, every seventh relative (negative) indices.
pub fn write_grid_obj(path: &Path, cells: usize) -> std::io::Result<()> {
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(path)?);
    let n = cells + 1;
    writeln!(w, "# navkit generated terrain: {cells} x {cells} cells")?;
    writeln!(w, "o terrain")?;
    for j in 0..n {
        for i in 0..n {
            let (x, z) = (i as f32 * 0.5 - 100.0, j as f32 * 0.5 - 100.0);
            let y = ((i * 7919 + j * 104_729) % 1000) as f32 * 0.003_117 - 1.0;
            writeln!(w, "v {x:.6} {y:.6} {z:.6}")?;
        }
    }
    writeln!(w, "vt 0 0\nvn 0 1 0\ng ground\nusemtl grass")?;
    let total = n * n;
    let mut face = 0usize;
    for j in 0..cells {
        for i in 0..cells {
            let a = j * n + i + 1;
            let corners = [a, a + 1, a + 1 + n, a + n];
            let polys: Vec<Vec<usize>> = if j.is_multiple_of(3) {
                vec![
                    vec![corners[0], corners[1], corners[2]],
                    vec![corners[0], corners[2], corners[3]],
                ]
            } else {
                vec![corners.to_vec()]
            };
            for p in polys {
                face += 1;
                w.write_all(b"f")?;
                for v in p {
                    if face.is_multiple_of(7) {
                        write!(w, " {}", v as i64 - total as i64 - 1)?;
                    } else if face.is_multiple_of(5) {
                        write!(w, " {v}/1/1")?;
                    } else {
                        write!(w, " {v}")?;
                    }
                }
                w.write_all(b"\n")?;
            }
        }
    }
    w.flush()
}
