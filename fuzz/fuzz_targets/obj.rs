//! Wavefront OBJ meshes: parse and validate; a small mesh that passes is also built with the
//! default settings (the hostile OBJ reproducers are small meshes that used to hang or read
//! out of bounds there) with each partition, solo and tiled, and as a tile cache
//! ([`navkit_fuzz::build_every_way`]: every build succeeds with valid tiles or is refused
//! without a validator error), unless it is merely slow, and the solo navmesh is queried.
//!
//! The streaming reader is also checked against itself and a reference: the bytes read whole
//! (`from_obj_bytes`), as lossy UTF-8 text (`from_obj_str`) and streamed in small uneven
//! chunks (`from_obj_reader`) give the same mesh or the same error, and that result is the one
//! of [`reference`], a plain reading of the same rules written here.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::{Error, InputGeometry, NavMeshBuilder, TriMesh};
use std::path::Path;

/// What the reference reading gives: the arrays, or the line of a parse error (0: the mesh has
/// no vertices or no triangles).
type Outcome = Result<(Vec<u32>, Vec<i32>), usize>;

/// navkit's OBJ rules, read simply: a byte-order mark at the start skipped, lines split at
/// `\n`, words at Unicode whitespace, `v` takes three finite `f32`s, `f` all its corners (the
/// index before any `/`, 1-based or relative, within the vertices so far; after a `#` word no
/// word may start like a number), fan triangulation; `vt`/`vn`/`#` lines and other keywords
/// skipped, other `v*`/`f*` keywords refused.
fn reference(text: &str) -> Outcome {
    let (mut verts, mut tris) = (Vec::<u32>::new(), Vec::new());
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    for (i, line) in text.split('\n').enumerate() {
        let mut words = line.split_whitespace();
        let Some(kw) = words.next() else { continue };
        let n = verts.len() as i64 / 3;
        if kw.starts_with('#') || kw.starts_with("vt") || kw.starts_with("vn") {
        } else if kw == "v" {
            for _ in 0..3 {
                match words.next().map(str::parse::<f32>) {
                    Some(Ok(x)) if x.is_finite() => verts.push(x.to_bits()),
                    _ => return Err(i + 1),
                }
            }
        } else if kw == "f" {
            let mut face = Vec::new();
            let mut comment = false;
            for w in words {
                comment |= w.starts_with('#');
                if comment {
                    let d = w.trim_start_matches(['+', '-']);
                    let signs = w.len() - d.len();
                    if signs <= 1 && d.starts_with(|c: char| c.is_ascii_digit()) {
                        return Err(i + 1);
                    }
                    continue;
                }
                match w.split('/').next().unwrap().parse::<i64>() {
                    Ok(v) if v > 0 && v <= n => face.push((v - 1) as i32),
                    Ok(v) if v < 0 && -v <= n => face.push((n + v) as i32),
                    _ => return Err(i + 1),
                }
            }
            for k in 2..face.len() {
                tris.extend([face[0], face[k - 1], face[k]]);
            }
        } else if kw.starts_with('v') || kw.starts_with('f') {
            return Err(i + 1);
        }
    }
    if verts.is_empty() || tris.is_empty() {
        return Err(0);
    }
    Ok((verts, tris))
}

fn outcome(r: &navkit::Result<TriMesh>) -> Outcome {
    match r {
        Ok(m) => Ok((
            m.verts.iter().map(|v| v.to_bits()).collect(),
            m.tris.clone(),
        )),
        Err(Error::Parse { line, .. }) => Err(*line),
        Err(Error::Geometry(m)) if m.contains("empty mesh") => Err(0),
        Err(e) => panic!("unexpected error kind: {e}"),
    }
}

/// Hands out the bytes in chunks of 1 to 16 bytes, sizes taken from the data itself.
struct Chunks<'a>(&'a [u8], usize);

impl std::io::Read for Chunks<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        self.1 = self.1.wrapping_mul(31).wrapping_add(7);
        let n = (1 + self.1 % 16).min(out.len()).min(self.0.len());
        out[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

fuzz_target!(|data: &[u8]| {
    let p = Path::new("fuzz.obj");
    let text = String::from_utf8_lossy(data);
    let whole = TriMesh::from_obj_bytes(data, p);
    let want = outcome(&whole);
    assert_eq!(outcome(&TriMesh::from_obj_str(&text, p)), want, "str");
    let streamed = TriMesh::from_obj_reader(Chunks(data, data.len()), p);
    assert_eq!(outcome(&streamed), want, "streamed");
    if let (Ok(a), Ok(b)) = (&whole, &streamed) {
        assert_eq!(a, b);
    }
    assert_eq!(reference(&text), want, "reference");
    if let (Err(a), Err(b)) = (&whole, &streamed) {
        assert_eq!(a.to_string(), b.to_string());
    }

    let Ok(mesh) = whole else {
        return;
    };
    if mesh.validate().is_err() || mesh.tri_count() > 256 {
        return;
    }
    let geom = InputGeometry::from_mesh(mesh);
    navkit_fuzz::build_every_way(&geom, &navkit::BuildSettings::default());
    if navkit_fuzz::solo_too_slow(&geom, &navkit::BuildSettings::default()) {
        return;
    }
    if let Ok(b) = NavMeshBuilder::new(&geom).solo() {
        let _ = b.navmesh().query().map(|mut q| {
            let c = geom.mesh.bounds().center();
            q.find_nearest_poly(c, glam::Vec3::splat(4.0), &Default::default())
        });
    }
});
