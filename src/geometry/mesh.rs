//! [`TriMesh`]: triangle meshes read from Wavefront OBJ files exactly as RecastDemo's
//! `rcMeshLoaderObj` reads them.
//!
//! The OBJ text is read in one pass, streamed from the file in chunks (no copy of the whole
//! file is kept), giving RecastDemo's vertex array (all `v` lines in file order) and fan
//! triangulation bit for bit.

use super::Aabb;
use crate::settings::{MAX_BUILD_COORDINATE, VoxelConfig};
use crate::{Error, Result};
use glam::Vec3;
use std::path::{Path, PathBuf};

/// Most vertices RecastDemo reads from one OBJ face (its `parseFace` buffer; it ignores later
/// ones, cutting the face short). navkit triangulates longer faces whole and says so in
/// [`TriMesh::warnings`].
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
    /// What the reader did that the file's author may not expect, for the user to see (the
    /// CLI prints these): faces of more than [`MAX_FACE_VERTS`] vertices, which RecastDemo
    /// would cut short, triangulated whole. Empty for meshes made in code.
    pub warnings: Vec<String>,
}

impl TriMesh {
    /// Reads an OBJ file as RecastDemo does: every `v` line in file order (also unreferenced
    /// ones), every face of every object and group in file order, fan-triangulated as
    /// `(f[0], f[i-1], f[i])`, relative (negative) indices resolved; texture coordinates,
    /// normals, materials, groups, `w` and colour components are ignored and faces with fewer
    /// than three vertices give no triangle.
    ///
    /// Unlike RecastDemo, which silently skips or misreads them, malformed lines (non-numeric
    /// or non-finite coordinates, a face index 0 or beyond the vertices read so far, a line
    /// longer than [`crate::text::MAX_LINE_BYTES`] ...) are [`Error::Parse`] errors naming the
    /// line; a mesh without vertices or triangles is an [`Error::Geometry`] error. Invalid
    /// UTF-8 is replaced, not rejected; a byte-order mark at the start is skipped. A face of
    /// more than [`MAX_FACE_VERTS`] vertices, which RecastDemo cuts short, is triangulated
    /// whole, and [`TriMesh::warnings`] says so.
    ///
    /// The file is read in one pass, a chunk at a time: beyond the resulting arrays it costs a
    /// buffer of at most 256 KiB (more only for a longer line).
    pub fn from_obj(path: impl AsRef<Path>) -> Result<TriMesh> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let size = file.metadata().ok().map(|m| m.len());
        let mut mesh = super::obj::parse_obj_reader(file, path, size)?;
        mesh.source = Some(path.to_path_buf());
        Ok(mesh)
    }

    /// Reads OBJ text as [`TriMesh::from_obj`] does; `path_for_errors` only names the text in
    /// errors (the result's `source` is `None`).
    pub fn from_obj_str(text: &str, path_for_errors: &Path) -> Result<TriMesh> {
        super::obj::parse_obj_bytes(text.as_bytes(), path_for_errors)
    }

    /// Reads OBJ text from `reader` as [`TriMesh::from_obj`] reads a file (a chunk at a time,
    /// for example from an archive or a network stream); `path_for_errors` only names the text
    /// in errors (the result's `source` is `None`). Read errors are [`Error::Io`].
    ///
    /// ```
    /// use navkit::TriMesh;
    /// let obj: &[u8] = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
    /// let mesh = TriMesh::from_obj_reader(obj, "in-memory.obj".as_ref())?;
    /// assert_eq!(mesh.tris, [0, 1, 2]);
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn from_obj_reader(reader: impl std::io::Read, path_for_errors: &Path) -> Result<TriMesh> {
        super::obj::parse_obj_reader(reader, path_for_errors, None)
    }

    /// Reads OBJ bytes as [`TriMesh::from_obj`] does (invalid UTF-8 is replaced, not rejected);
    /// `path_for_errors` only names the text in errors (the result's `source` is `None`).
    pub fn from_obj_bytes(bytes: &[u8], path_for_errors: &Path) -> Result<TriMesh> {
        super::obj::parse_obj_bytes(bytes, path_for_errors)
    }

    /// A mesh from raw arrays, checked with [`TriMesh::validate`].
    pub fn new(verts: Vec<f32>, tris: Vec<i32>) -> Result<TriMesh> {
        let mesh = TriMesh {
            verts,
            tris,
            source: None,
            warnings: Vec::new(),
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
        self.validate_with(false)
    }

    /// [`TriMesh::validate`], allowing no triangle if `no_triangles` (a part of a level).
    pub(crate) fn validate_with(&self, no_triangles: bool) -> Result<()> {
        let name = match &self.source {
            Some(p) => format!("{}: ", p.display()),
            None => String::new(),
        };
        let fail = |msg: String| Err(Error::Geometry(format!("{name}{msg}")));
        let n = self.vert_count();
        if self.verts.is_empty() {
            return fail("empty mesh: no vertices".into());
        }
        if self.tris.is_empty() && !no_triangles {
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

impl TriMesh {
    /// Refuses, with [`Error::Geometry`], vertices beyond +-[`MAX_BUILD_COORDINATE`]: no cell
    /// size builds a level out there, so the error names the farthest vertex, its line in the
    /// OBJ file it was read from, and how far it lies from the rest.
    pub(crate) fn check_build_reach(&self) -> Result<()> {
        match far_vertex_message(self) {
            None => Ok(()),
            Some(message) => Err(Error::Geometry(match &self.source {
                Some(p) => format!("{}: {message}", p.display()),
                None => message,
            })),
        }
    }
}

/// The error message for the vertices of `mesh` that lie beyond
/// [`MAX_BUILD_COORDINATE`] on some axis, if any: no cell size can build such a level, so the
/// message names the farthest vertex (its number as OBJ counts them, its line in the OBJ file
/// it came from, its coordinates) and how far it lies from the rest of the level.
fn far_vertex_message(mesh: &TriMesh) -> Option<String> {
    let beyond = |v: Vec3| v.abs().max_element() > MAX_BUILD_COORDINATE;
    let (mut far, mut count) = (None::<(usize, Vec3)>, 0usize);
    let mut rest: Option<Aabb> = None;
    for (i, c) in mesh.verts.chunks_exact(3).enumerate() {
        let v = Vec3::from_slice(c);
        if !beyond(v) {
            rest = Some(rest.map_or(Aabb::new(v, v), |b| Aabb::new(b.min.min(v), b.max.max(v))));
            continue;
        }
        count += 1;
        if far.is_none_or(|(_, f)| v.abs().max_element() > f.abs().max_element()) {
            far = Some((i, v));
        }
    }
    let (i, v) = far?;
    let line = mesh
        .source
        .as_deref()
        .and_then(|p| obj_vertex_line(p, i, mesh.vert_count()))
        .map_or(String::new(), |l| format!(" (line {l})"));
    let others = match count {
        1 => String::new(),
        n => format!(" and {} other vertices", n - 1),
    };
    let from_rest = match rest {
        Some(b) => {
            let (v, lo, hi) = (v.as_dvec3(), b.min.as_dvec3(), b.max.as_dvec3());
            let gap = (lo - v).max(v - hi).max(glam::DVec3::ZERO).length();
            format!(
                "{} m from the rest of the level, whose vertices lie within {} .. {}",
                number(gap as f32),
                point(b.min),
                point(b.max)
            )
        }
        None => "as every vertex of the level does".to_string(),
    };
    Some(format!(
        "OBJ vertex {}{line} at {}{others} lies beyond +-{MAX_BUILD_COORDINATE:e} m of the \
         origin, {from_rest}; a level must lie within +-{MAX_BUILD_COORDINATE:e} m of the origin \
         (navmesh data holds coordinates within +-{:e} m), whatever the cell size: remove or fix \
         the vertex",
        i + 1,
        point(v),
        crate::ffi::validate::MAX_COORDINATE,
    ))
}

/// `x` for a message: as is, or in scientific notation when large (`3e38`, not 39 digits).
fn number(x: f32) -> String {
    if x.abs() >= 1e7 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// `v` for a message: `(x, y, z)`, each as [`number`] writes it.
fn point(v: Vec3) -> String {
    format!("({}, {}, {})", number(v.x), number(v.y), number(v.z))
}

/// The line of the OBJ file `path` where its `index`-th (0-based) `v` statement is, if the
/// file reads as an OBJ with `count` vertices (so that it still is the file the mesh came from).
fn obj_vertex_line(path: &Path, index: usize, count: usize) -> Option<usize> {
    if !path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"))
    {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut lines = crate::text::LineReader::new(std::io::BufReader::new(file), path);
    let (mut seen, mut found) = (0usize, None);
    while let Some((n, raw)) = lines.next_line().ok()? {
        let text = String::from_utf8_lossy(raw);
        if text.split_whitespace().next() == Some("v") {
            if seen == index {
                found = Some(n);
            }
            seen += 1;
        }
    }
    found.filter(|_| seen == count)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::InputGeometry;
    use crate::geometry::test_support::*;

    /// Independent reading of `v`/`f` lines following rcMeshLoaderObj::load (atoi, skipping
    /// triangles with an index out of range), but for faces of more than 32 vertices, which
    /// it reads whole where RecastDemo cuts them short.
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
        // lines, a 34-gon (which RecastDemo cuts at 32 vertices; read whole, with a warning),
        // CRLF, texture/normal indices, comments.
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
        assert_eq!(mesh.tri_count(), 2 + 1 + 2 + 32);
        assert_eq!(
            mesh.warnings,
            [
                "q.obj:57: a face of 34 vertices, more than RecastDemo reads (32); all are \
              triangulated (as a fan from its first vertex)"
            ]
        );
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
        assert_eq!(
            TriMesh::from_obj_str(&long, p).unwrap().tri_count(),
            299_998
        );
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

/// An axis-aligned rectangle on the xz-plane: `min` and `max` corners, (x, z) each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct XzRect {
    pub min: [f32; 2],
    pub max: [f32; 2],
}

impl XzRect {
    /// The xz bounds of triangle `tri`: vertex indices into `verts` (x, y, z triples), which
    /// the caller has checked are in range.
    pub fn of_triangle(verts: &[f32], tri: [i32; 3]) -> XzRect {
        let (mut min, mut max) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for v in tri {
            let i = v as usize * 3;
            min = [min[0].min(verts[i]), min[1].min(verts[i + 2])];
            max = [max[0].max(verts[i]), max[1].max(verts[i + 2])];
        }
        XzRect { min, max }
    }

    /// The bounds of `cfg`'s voxel grid on the xz-plane.
    pub fn of_grid(cfg: &VoxelConfig) -> XzRect {
        XzRect {
            min: [cfg.bmin[0], cfg.bmin[2]],
            max: [cfg.bmax[0], cfg.bmax[2]],
        }
    }

    /// Whether the two overlap or touch (as Recast's `overlapBounds` counts them).
    pub fn touches(&self, o: &XzRect) -> bool {
        self.min[0] <= o.max[0]
            && self.max[0] >= o.min[0]
            && self.min[1] <= o.max[1]
            && self.max[1] >= o.min[1]
    }
}
