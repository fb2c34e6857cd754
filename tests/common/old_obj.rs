//! The OBJ reader before the streaming one, kept as a reference for tests: the same results
//! and the same errors are expected of the new one. It parses with `tobj` (a dev-dependency).
#![allow(dead_code)]

use navkit::geometry::MAX_FACE_VERTS;
use navkit::{Error, Result, TriMesh};
use std::fmt::Write as _;
use std::path::Path;

/// At most 40 characters of `s`, for error messages.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// navkit's OBJ reader until the streaming one replaced it, unchanged: pre-scans the OBJ text
/// (line numbers for errors, RecastDemo's rules), hands it to tobj with each vertex tagged by
/// its index, and rebuilds RecastDemo's arrays from tobj's models.
pub fn parse_obj(text: &str, path: &Path) -> Result<TriMesh> {
    let perr = |line: usize, message: String| Error::Parse {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut tagged = String::with_capacity(text.len() + text.len() / 4 + 64);
    let mut nverts: usize = 0;
    for (i, raw) in text.split('\n').enumerate() {
        let ln = i + 1;
        let mut words = raw.split_whitespace();
        let Some(kw) = words.next() else { continue };
        if kw.starts_with('#') || kw.starts_with("vt") || kw.starts_with("vn") {
            continue;
        }
        if kw == "v" {
            let mut xyz = [""; 3];
            for (k, slot) in xyz.iter_mut().enumerate() {
                let w = words
                    .next()
                    .ok_or_else(|| perr(ln, format!("vertex has {k} coordinates, expected 3")))?;
                match w.parse::<f32>() {
                    Ok(x) if x.is_finite() => *slot = w,
                    Ok(_) => {
                        return Err(perr(ln, format!("vertex coordinate `{w}` is not finite")));
                    }
                    Err(_) => {
                        let w = shorten(w);
                        return Err(perr(ln, format!("vertex coordinate `{w}` is not a number")));
                    }
                }
            }
            // The colour (index / 4096, index % 4096, 0) tags the vertex; f32 holds both exactly.
            let [x, y, z] = xyz;
            let _ = writeln!(
                tagged,
                "v {x} {y} {z} {} {} 0",
                nverts >> 12,
                nverts & 0xfff
            );
            nverts += 1;
        } else if kw == "f" {
            tagged.push('f');
            // A `#` ends the face. RecastDemo reads it as an invalid index, which drops the
            // triangles that use it but not later ones, so numbers after it are an error.
            let toks: Vec<&str> = words.take(MAX_FACE_VERTS).collect();
            let hash = toks.iter().position(|w| w.starts_with('#'));
            let (toks, comment) = toks.split_at(hash.unwrap_or(toks.len()));
            let atoi_reads_a_number = |w: &&str| {
                let w = w.strip_prefix(['+', '-']).unwrap_or(w);
                w.starts_with(|c: char| c.is_ascii_digit())
            };
            if comment.iter().any(atoi_reads_a_number) {
                return Err(perr(ln, "vertex indices after a `#` in a face".into()));
            }
            for w in toks {
                let pos = w.split('/').next().unwrap_or("");
                let ok = match pos.parse::<i64>() {
                    Ok(0) => Err("vertex index 0 (OBJ indices start at 1)".to_string()),
                    Ok(v) if v.unsigned_abs() <= nverts as u64 => Ok(()),
                    Ok(v) => Err(format!(
                        "face refers to vertex {v} but only {nverts} vertices are defined before this line"
                    )),
                    Err(_) => Err(format!("invalid face vertex `{}`", shorten(w))),
                };
                ok.map_err(|m| perr(ln, m))?;
                tagged.push(' ');
                tagged.push_str(pos);
            }
            tagged.push('\n');
        } else if kw.starts_with('v') || kw.starts_with('f') {
            let what = if kw.starts_with('v') {
                "vertex"
            } else {
                "face"
            };
            return Err(perr(
                ln,
                format!(
                    "unsupported statement `{}` (RecastDemo would read it as a {what})",
                    shorten(kw)
                ),
            ));
        }
        // o, g, usemtl, mtllib, s, l, p ...: ignored, as RecastDemo does.
    }
    if nverts == 0 {
        return Err(Error::Geometry(format!(
            "{}: empty mesh: no vertices",
            path.display()
        )));
    }
    // A last model whose one face lists every vertex: tobj then returns all of them, in order.
    tagged.push_str("g navkit_all_vertices\nf");
    for i in 1..=nverts {
        let _ = write!(tagged, " {i}");
    }
    tagged.push('\n');

    // Defaults: no single index, no triangulation, points and lines kept: faces as written.
    let options = tobj::LoadOptions::default();
    let (models, _) = tobj::load_obj_buf(&mut tagged.as_bytes(), &options, |_| {
        Err(tobj::LoadError::OpenFileFailed)
    })
    .map_err(|e| perr(0, format!("OBJ parser (tobj): {e}")))?;
    let internal = |what: &str| perr(0, format!("internal error reading tobj's output: {what}"));
    let (all, faced) = models.split_last().ok_or_else(|| internal("no models"))?;
    let tag = |m: &tobj::Mesh, local: usize| -> Option<usize> {
        let c = m.vertex_color.get(local * 3..local * 3 + 2)?;
        Some(c[0] as usize * 4096 + c[1] as usize)
    };
    let all = &all.mesh;
    if all.positions.len() != nverts * 3 || (0..nverts).any(|i| tag(all, i) != Some(i)) {
        return Err(internal("vertex array"));
    }

    let mut tris: Vec<i32> = Vec::new();
    for model in faced {
        let m = &model.mesh;
        let orig = (0..m.positions.len() / 3)
            .map(|l| tag(m, l).map(|v| v as i32))
            .collect::<Option<Vec<i32>>>()
            .ok_or_else(|| internal("vertex tags"))?;
        let corner = |k: u32| {
            orig.get(k as usize)
                .copied()
                .ok_or_else(|| internal("index"))
        };
        let mut fan = |face: &[u32]| -> Result<()> {
            for i in 2..face.len() {
                tris.extend([corner(face[0])?, corner(face[i - 1])?, corner(face[i])?]);
            }
            Ok(())
        };
        if m.face_arities.is_empty() {
            m.indices.chunks_exact(3).try_for_each(&mut fan)?;
        } else {
            let mut start = 0usize;
            for &n in &m.face_arities {
                let end = start + n as usize;
                fan(m
                    .indices
                    .get(start..end)
                    .ok_or_else(|| internal("face arity"))?)?;
                start = end;
            }
        }
    }
    let mesh = TriMesh {
        verts: all.positions.clone(),
        tris,
        source: None,
        warnings: Vec::new(),
    };
    if mesh.tris.is_empty() {
        return Err(Error::Geometry(format!(
            "{}: empty mesh: no triangles",
            path.display()
        )));
    }
    mesh.validate().map_err(|e| perr(0, e.to_string()))?;
    Ok(mesh)
}
