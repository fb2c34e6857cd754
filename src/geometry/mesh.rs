//! [`TriMesh`]: triangle meshes read from Wavefront OBJ files exactly as RecastDemo's
//! `rcMeshLoaderObj` reads them.
//!
//! The OBJ text is parsed by the [`tobj`] crate. tobj re-indexes the vertices of every model in
//! the order they are first referenced and drops unreferenced ones, so each `v` line is handed to
//! tobj with its file index encoded as a vertex colour, and one extra face listing every vertex is
//! appended: this gives back RecastDemo's vertex array (all `v` lines in file order) and the
//! original index of every face corner, bit for bit.

use super::Aabb;
use crate::{Error, Result};
use glam::Vec3;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Most vertices RecastDemo reads from one OBJ face (its `parseFace` buffer); later ones are ignored.
pub const MAX_FACE_VERTS: usize = 32;
/// A triangle soup as Recast consumes it.
///
/// ```
/// use navkit::TriMesh;
/// let obj = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 5 5 5\nf 1 2 3 4\n";
/// let mesh = TriMesh::from_obj_str(obj, "quad.obj".as_ref())?;
/// assert_eq!((mesh.vert_count(), mesh.tri_count()), (5, 2)); // the unused vertex is kept
/// assert_eq!(mesh.tris, [0, 1, 2, 0, 2, 3]); // fan (f0, f[i-1], f[i])
/// assert_eq!(mesh.bounds().max, glam::Vec3::splat(5.0)); // bounds cover every vertex
/// # Ok::<(), navkit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TriMesh {
    /// Vertex positions, `x, y, z` triples.
    pub verts: Vec<f32>,
    /// Triangles, triples of vertex indices.
    pub tris: Vec<i32>,
    /// The file the mesh was read from, if any.
    pub source: Option<PathBuf>,
}

impl TriMesh {
    /// Reads an OBJ file as RecastDemo does: every `v` line in file order (also unreferenced
    /// ones), every face of every object and group in file order, fan-triangulated as
    /// `(f[0], f[i-1], f[i])`, relative (negative) indices resolved; texture coordinates,
    /// normals, materials, groups, `w` and colour components are ignored, faces with fewer than
    /// three vertices give no triangle and vertices past the 32nd of a face are ignored.
    ///
    /// Unlike RecastDemo, which silently skips or misreads them, malformed lines (non-numeric
    /// or non-finite coordinates, a face index 0 or beyond the vertices read so far ...) are
    /// [`Error::Parse`] errors naming the line; a mesh without vertices or triangles is an
    /// [`Error::Geometry`] error. Invalid UTF-8 is replaced, not rejected.
    pub fn from_obj(path: impl AsRef<Path>) -> Result<TriMesh> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        let mut mesh = parse_obj(&String::from_utf8_lossy(&bytes), path)?;
        mesh.source = Some(path.to_path_buf());
        Ok(mesh)
    }

    /// Reads OBJ text as [`TriMesh::from_obj`] does; `path_for_errors` only names the text in
    /// errors (the result's `source` is `None`).
    pub fn from_obj_str(text: &str, path_for_errors: &Path) -> Result<TriMesh> {
        parse_obj(text, path_for_errors)
    }

    /// A mesh from raw arrays, checked with [`TriMesh::validate`].
    pub fn new(verts: Vec<f32>, tris: Vec<i32>) -> Result<TriMesh> {
        let mesh = TriMesh {
            verts,
            tris,
            source: None,
        };
        mesh.validate()?;
        Ok(mesh)
    }

    /// Number of vertices.
    pub fn vert_count(&self) -> usize {
        self.verts.len() / 3
    }

    /// Number of triangles.
    pub fn tri_count(&self) -> usize {
        self.tris.len() / 3
    }

    /// Vertex `i`.
    ///
    /// # Panics
    /// If `i >= self.vert_count()`.
    pub fn vertex(&self, i: usize) -> Vec3 {
        Vec3::from_slice(&self.verts[i * 3..i * 3 + 3])
    }

    /// The axis-aligned bounds of all vertices, referenced or not, as `rcCalcBounds` computes
    /// them. `(0, 0)` for a mesh without vertices.
    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(self.verts.chunks_exact(3).map(Vec3::from_slice)).unwrap_or_default()
    }

    /// Checks that the mesh has vertices and triangles, whole triples, finite coordinates and
    /// triangle indices in range.
    pub fn validate(&self) -> Result<()> {
        let name = match &self.source {
            Some(p) => format!("{}: ", p.display()),
            None => String::new(),
        };
        let fail = |msg: String| Err(Error::Geometry(format!("{name}{msg}")));
        let n = self.vert_count();
        if self.verts.is_empty() {
            return fail("empty mesh: no vertices".into());
        }
        if self.tris.is_empty() {
            return fail("empty mesh: no triangles".into());
        }
        if !self.verts.len().is_multiple_of(3) || !self.tris.len().is_multiple_of(3) {
            return fail(format!(
                "{} coordinates and {} triangle indices: both must be multiples of 3",
                self.verts.len(),
                self.tris.len()
            ));
        }
        if n > i32::MAX as usize {
            return fail(format!("{n} vertices: at most {} are supported", i32::MAX));
        }
        if let Some(i) = self.verts.iter().position(|c| !c.is_finite()) {
            return fail(format!("vertex {} has a non-finite coordinate", i / 3));
        }
        if let Some(i) = self.tris.iter().position(|&t| t < 0 || t as usize >= n) {
            return fail(format!(
                "triangle {} refers to vertex {} but the mesh has {n} vertices",
                i / 3,
                self.tris[i]
            ));
        }
        Ok(())
    }
}

/// At most 40 characters of `s`, for error messages.
pub(super) fn shorten(s: &str) -> String {
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

/// Pre-scans the OBJ text (line numbers for errors, RecastDemo's rules), hands it to tobj with
/// each vertex tagged by its index, and rebuilds RecastDemo's arrays from tobj's models.
fn parse_obj(text: &str, path: &Path) -> Result<TriMesh> {
    let perr = |line: usize, msg: String| Error::parse(path, line, msg);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::InputGeometry;
    use crate::geometry::test_support::*;

    /// Independent reading of `v`/`f` lines following rcMeshLoaderObj::load (atoi, skipping
    /// triangles with an index out of range).
    fn reference(text: &str) -> (Vec<f32>, Vec<i32>) {
        let (mut verts, mut tris) = (Vec::new(), Vec::new());
        for line in text.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix("v ") {
                let xyz = rest
                    .split_whitespace()
                    .take(3)
                    .map(|t| t.parse::<f32>().unwrap());
                verts.extend(xyz);
            } else if let Some(rest) = line.strip_prefix("f ") {
                let n = (verts.len() / 3) as i32;
                let f: Vec<i32> = rest
                    .split_whitespace()
                    .take(32)
                    .map(|t| {
                        // atoi: optional sign, leading digits, 0 if none.
                        let (neg, d) = match t.strip_prefix('-') {
                            Some(d) => (true, d),
                            None => (false, t.strip_prefix('+').unwrap_or(t)),
                        };
                        let digits: String = d.chars().take_while(char::is_ascii_digit).collect();
                        let v = digits.parse::<i32>().unwrap_or(0);
                        if neg { -v } else { v }
                    })
                    .map(|i| if i < 0 { i + n } else { i - 1 })
                    .collect();
                for i in 2..f.len() {
                    let t = [f[0], f[i - 1], f[i]];
                    if t.iter().all(|&x| (0..n).contains(&x)) {
                        tris.extend(t);
                    }
                }
            }
        }
        (verts, tris)
    }

    #[test]
    fn real_meshes_match_recastdemo() {
        // nav_test.obj has 792 faces (mostly quads) that fan out into 1612 triangles.
        for (name, nv, nt) in [
            ("dungeon.obj", 5101, 10133),
            ("nav_test.obj", 884, 1612),
            ("undulating.obj", 2800, 5202),
        ] {
            let path = mesh_path(name);
            let mesh = TriMesh::from_obj(&path).unwrap();
            assert_eq!((mesh.vert_count(), mesh.tri_count()), (nv, nt), "{name}");
            let (rv, rt) = reference(&std::fs::read_to_string(&path).unwrap());
            assert!(
                mesh.verts
                    .iter()
                    .map(|v| v.to_bits())
                    .eq(rv.iter().map(|v| v.to_bits())),
                "{name}"
            );
            assert_eq!(mesh.tris, rt, "{name}");
            let mut lo = Vec3::from_slice(&rv[0..3]);
            let mut hi = lo;
            for c in rv.chunks(3) {
                for k in 0..3 {
                    lo[k] = if c[k] < lo[k] { c[k] } else { lo[k] };
                    hi[k] = if c[k] > hi[k] { c[k] } else { hi[k] };
                }
            }
            assert_eq!(mesh.bounds(), Aabb::new(lo, hi), "{name}");
            assert_eq!(mesh.source.as_deref(), Some(path.as_path()));
            let geom = InputGeometry::load(&path).unwrap();
            assert_eq!(geom.nav_bounds(), Aabb::new(lo, hi));
            geom.validate().unwrap();
        }
    }

    #[test]
    fn obj_quirks_match_recastdemo() {
        // Groups, materials, unreferenced and duplicate vertices, relative indices, points and
        // lines, a 34-gon (cut at 32 vertices), CRLF, texture/normal indices, comments.
        let mut obj = String::from(
            "# c\r\nmtllib x.mtl\r\no a\r\nv 0 0 0\r\nv 1 0 0\r\nv 9 9 9\r\nv 1 0 1\r\nv 0 0 1\r\n",
        );
        obj += "vt 0 0\nvn 0 1 0\ng b\nusemtl m\nf 1/1/1 2//1 4 5\nv 1 0 0\nv 0 0 1 1\nl 1 2\nf -3 -2 -1\nf 1\nf 1 2\n";
        obj += "o c\nf 7 6 2\n\tf 2 7 6 # c x4\n";
        for i in 0..34 {
            obj += &format!("v {} {} 0\n", i as f32 * 0.5, (i * i) as f32);
        }
        obj += "f";
        for i in 0..34 {
            obj += &format!(" {}", i - 34);
        }
        obj += "\n";
        let mesh = TriMesh::from_obj_str(&obj, Path::new("q.obj")).unwrap();
        let (rv, rt) = reference(&obj);
        assert_eq!(mesh.verts, rv);
        assert_eq!(mesh.tris, rt);
        assert_eq!(mesh.tri_count(), 2 + 1 + 2 + 30);
        assert_eq!(
            &mesh.tris[..15],
            &[0, 1, 3, 0, 3, 4, 4, 5, 6, 6, 5, 1, 1, 6, 5]
        );
        assert_eq!(mesh.bounds().max, Vec3::new(16.5, 1089.0, 9.0));
        assert_eq!(mesh.source, None);
    }

    #[test]
    fn obj_errors_name_the_line() {
        let p = Path::new("bad.obj");
        let cases: &[(&str, usize, &str)] = &[
            ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 4\n", 4, "vertex 4"),
            ("v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 0 1\n", 3, "vertex 3"),
            ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 0 1 2\n", 4, "index 0"),
            ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf -4 1 2\n", 4, "vertex -4"),
            (
                "v 0 0 0\nv 1 0 0\nv 0 0 1\n\nf 1 2 99999999999999999999999\n",
                5,
                "invalid face",
            ),
            ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 x 2\n", 4, "invalid face"),
            ("v 0 0 0\nv 1 0 0\nv 0 0 1\nf /1 2 3\n", 4, "invalid face"),
            ("v 0 0 0\nv 1 zero 0\n", 2, "not a number"),
            ("v 0 0 0\nv 1 0\n", 2, "2 coordinates"),
            ("v 0 0 0\n# x\nv 1 0 nan\n", 3, "not finite"),
            ("v 0 0 0\nv inf 0 0\n", 2, "not finite"),
            ("vp 0 0\n", 1, "vp"),
            (
                "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3 # 1 2\n",
                4,
                "after a `#`",
            ),
            ("v 0 0 0\nv 1 0 0\nv 0 0 1\nfo 1 2 3\n", 4, "fo"),
        ];
        for (text, line, what) in cases {
            match TriMesh::from_obj_str(text, p) {
                Err(Error::Parse {
                    path,
                    line: l,
                    message,
                }) => {
                    assert_eq!((path.as_path(), l), (p, *line), "{text:?}: {message}");
                    assert!(message.contains(what), "{text:?}: {message}");
                }
                other => panic!("{text:?}: {other:?}"),
            }
        }
        for text in [
            "",
            "# nothing\n",
            "v 0 0 0\nv 1 0 0\n",
            "v 0 0 0\nv 1 0 0\nf 1 2\nf 1\nf\n",
        ] {
            let err = TriMesh::from_obj_str(text, p).unwrap_err();
            assert!(
                matches!(&err, Error::Geometry(m) if m.contains("empty")),
                "{text:?}: {err}"
            );
        }
        // Odd inputs: no panic.
        let long = format!(
            "v 0 0 0\nv 1 0 0\nv 0 0 1\nf {}\n",
            "1 2 3 ".repeat(100_000)
        );
        assert_eq!(TriMesh::from_obj_str(&long, p).unwrap().tri_count(), 30);
        let bytes = b"v 0 0 0\nv 1 0 0\n# \xff\xfe\nv 0 0 1\nf 1 2 3\nv \xff 0 0\n";
        let err = TriMesh::from_obj_str(&String::from_utf8_lossy(bytes), p).unwrap_err();
        assert!(matches!(err, Error::Parse { line: 6, .. }), "{err}");
        let err = TriMesh::from_obj(p.with_extension("missing.obj")).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{err}");
    }

    #[test]
    fn trimesh_new_validates() {
        assert!(
            TriMesh::new(
                vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                vec![0, 1, 2]
            )
            .is_ok()
        );
        for (v, t) in [
            (vec![], vec![0, 1, 2]),
            (vec![0.0; 9], vec![]),
            (vec![0.0; 8], vec![0, 1, 2]),
            (vec![0.0; 9], vec![0, 1]),
            (vec![0.0; 9], vec![0, 1, 3]),
            (vec![0.0; 9], vec![0, -1, 2]),
            (
                vec![0.0, f32::NAN, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
                vec![0, 1, 2],
            ),
        ] {
            assert!(
                matches!(TriMesh::new(v.clone(), t.clone()), Err(Error::Geometry(_))),
                "{v:?} {t:?}"
            );
        }
    }
}
