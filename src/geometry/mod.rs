//! Input geometry: triangle meshes read from Wavefront OBJ files exactly as RecastDemo's
//! `rcMeshLoaderObj` reads them, and RecastDemo's `.gset` geometry sets (a mesh plus build
//! settings, off-mesh connections and convex volumes).
//!
//! The OBJ text is parsed by the [`tobj`] crate. tobj re-indexes the vertices of every model in
//! the order they are first referenced and drops unreferenced ones, so each `v` line is handed to
//! tobj with its file index encoded as a vertex colour, and one extra face listing every vertex is
//! appended: this gives back RecastDemo's vertex array (all `v` lines in file order) and the
//! original index of every face corner, bit for bit.

pub mod spatial;

use crate::build::settings::{BuildSettings, Partition};
use crate::{Error, Result};
use glam::Vec3;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Most vertices RecastDemo reads from one OBJ face (its `parseFace` buffer); later ones are ignored.
pub const MAX_FACE_VERTS: usize = 32;
/// Most off-mesh connections in a geometry set (RecastDemo's `MAX_OFFMESH_CONNECTIONS`).
pub const MAX_OFF_MESH_CONNECTIONS: usize = 256;
/// Most convex volumes in a geometry set (RecastDemo's `MAX_VOLUMES`).
pub const MAX_CONVEX_VOLUMES: usize = 256;
/// Most points of one convex volume (RecastDemo's `MAX_CONVEXVOL_PTS`).
pub const MAX_CONVEX_VOLUME_VERTS: usize = 12;
/// Largest area id (`RC_WALKABLE_AREA`; Detour keeps 6 bits of area).
const MAX_AREA: i64 = 63;

/// A triangle soup as Recast consumes it.
///
/// ```
/// use navkit::TriMesh;
/// let obj = "v 0 0 0\nv 1 0 0\nv 1 0 1\nv 0 0 1\nv 5 5 5\nf 1 2 3 4\n";
/// let mesh = TriMesh::from_obj_str(obj, "quad.obj".as_ref())?;
/// assert_eq!((mesh.vert_count(), mesh.tri_count()), (5, 2)); // the unused vertex is kept
/// assert_eq!(mesh.tris, [0, 1, 2, 0, 2, 3]); // fan (f0, f[i-1], f[i])
/// assert_eq!(mesh.bounds().1, glam::Vec3::splat(5.0)); // bounds cover every vertex
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
    pub fn bounds(&self) -> (Vec3, Vec3) {
        let mut chunks = self.verts.chunks_exact(3).map(Vec3::from_slice);
        let Some(first) = chunks.next() else {
            return (Vec3::ZERO, Vec3::ZERO);
        };
        chunks.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v)))
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
fn shorten(s: &str) -> String {
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

/// An off-mesh connection (a jump, ladder, teleport ...), as RecastDemo's off-mesh link tool
/// makes them.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OffMeshConnection {
    /// Start point.
    pub start: Vec3,
    /// End point.
    pub end: Vec3,
    /// Radius within which the end points snap to the navmesh.
    pub radius: f32,
    /// Whether the link can be taken both ways.
    pub bidirectional: bool,
    /// Area id (0..=63), see [`crate::area`].
    pub area: u8,
    /// Poly flags, see [`crate::flags`].
    pub flags: u16,
    /// User id; RecastDemo gives the `i`-th link `1000 + i`.
    pub user_id: u32,
}

/// A convex prism that re-marks the area of the walkable surface inside it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ConvexVolume {
    /// The outline (3..=12 points; only x and z matter for containment).
    pub verts: Vec<Vec3>,
    /// Bottom height.
    pub hmin: f32,
    /// Top height.
    pub hmax: f32,
    /// Area id (0..=63) given to the spans inside.
    pub area: u8,
}

/// Everything a build needs: the mesh plus what a RecastDemo `.gset` file adds to it.
#[derive(Clone, Debug, PartialEq)]
pub struct InputGeometry {
    /// The triangle mesh.
    pub mesh: TriMesh,
    /// Build settings stored with the geometry (`.gset` `s` line), if any.
    pub settings: Option<BuildSettings>,
    /// Off-mesh connections.
    pub off_mesh_connections: Vec<OffMeshConnection>,
    /// Convex area volumes.
    pub convex_volumes: Vec<ConvexVolume>,
    /// The `.obj` or `.gset` file this was read from, if any.
    pub source: Option<PathBuf>,
}

/// The 21 values of a `.gset` `s` line, for error messages.
const SETTING_NAMES: [&str; 21] = [
    "cellSize",
    "cellHeight",
    "agentHeight",
    "agentRadius",
    "agentMaxClimb",
    "agentMaxSlope",
    "regionMinSize",
    "regionMergeSize",
    "edgeMaxLen",
    "edgeMaxError",
    "vertsPerPoly",
    "detailSampleDist",
    "detailSampleMaxError",
    "partitionType",
    "navMeshBMin.x",
    "navMeshBMin.y",
    "navMeshBMin.z",
    "navMeshBMax.x",
    "navMeshBMax.y",
    "navMeshBMax.z",
    "tileSize",
];

fn parse_f32(tok: &str, what: &str) -> std::result::Result<f32, String> {
    match tok.parse::<f32>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(format!("{what} `{tok}` is not finite")),
        Err(_) => Err(format!("{what} `{}` is not a number", shorten(tok))),
    }
}

fn parse_int(tok: &str, what: &str, min: i64, max: i64) -> std::result::Result<i64, String> {
    match tok.parse::<i64>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{what} {v} is out of range {min}..={max}")),
        Err(_) => Err(format!("{what} `{}` is not an integer", shorten(tok))),
    }
}

fn parse_vec3(toks: &[&str], what: &str) -> std::result::Result<Vec3, String> {
    Ok(Vec3::new(
        parse_f32(toks[0], what)?,
        parse_f32(toks[1], what)?,
        parse_f32(toks[2], what)?,
    ))
}

/// Where a `.gset` `f` path points: absolute as is; relative to the `.gset`'s directory, or,
/// if nothing is there, to its parent (RecastDemo writes paths like `Meshes/x.obj`, relative to
/// its working directory, one level above `Meshes/`).
fn resolve_mesh_path(dir: &Path, name: &str) -> PathBuf {
    let p = Path::new(name);
    if p.is_absolute() {
        return p.to_path_buf();
    }
    let primary = dir.join(p);
    if !primary.exists() {
        if let Some(alt) = dir.parent().map(|d| d.join(p)).filter(|a| a.exists()) {
            return alt;
        }
    }
    primary
}

/// Loads the mesh of a `.gset` `f` line; errors are messages for that line.
fn load_gset_mesh(dir: &Path, name: &str) -> std::result::Result<TriMesh, String> {
    if name.is_empty() {
        return Err("`f` line without a mesh path".into());
    }
    let p = resolve_mesh_path(dir, name);
    TriMesh::from_obj(&p).map_err(|e| match e {
        Error::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            format!("mesh file `{}` not found", p.display())
        }
        other => format!("cannot load mesh `{}`: {other}", p.display()),
    })
}

/// The 21 values of a `.gset` `s` line, in file order (the partition code as a float).
fn settings_values(s: &BuildSettings, (bmin, bmax): (Vec3, Vec3)) -> [f32; 21] {
    [
        s.cell_size,
        s.cell_height,
        s.agent_height,
        s.agent_radius,
        s.agent_max_climb,
        s.agent_max_slope,
        s.region_min_size,
        s.region_merge_size,
        s.edge_max_len,
        s.edge_max_error,
        s.verts_per_poly,
        s.detail_sample_dist,
        s.detail_sample_max_error,
        s.partition.code() as f32,
        bmin.x,
        bmin.y,
        bmin.z,
        bmax.x,
        bmax.y,
        bmax.z,
        s.tile_size,
    ]
}

fn parse_settings(toks: &[&str]) -> std::result::Result<BuildSettings, String> {
    if toks.len() != 21 {
        return Err(format!(
            "settings (`s`) line has {} values, expected 21",
            toks.len()
        ));
    }
    let mut v = [0f32; 21];
    for (k, t) in toks.iter().enumerate().filter(|(k, _)| *k != 13) {
        v[k] = parse_f32(t, SETTING_NAMES[k])?;
    }
    let code = parse_int(toks[13], "partitionType", i32::MIN.into(), i32::MAX.into())?;
    let partition = Partition::from_code(code as i32).ok_or_else(|| {
        format!("unknown partitionType {code} (0 watershed, 1 monotone, 2 layers)")
    })?;
    let vec = |i: usize| Vec3::new(v[i], v[i + 1], v[i + 2]);
    Ok(BuildSettings {
        cell_size: v[0],
        cell_height: v[1],
        agent_height: v[2],
        agent_radius: v[3],
        agent_max_climb: v[4],
        agent_max_slope: v[5],
        region_min_size: v[6],
        region_merge_size: v[7],
        edge_max_len: v[8],
        edge_max_error: v[9],
        verts_per_poly: v[10],
        detail_sample_dist: v[11],
        detail_sample_max_error: v[12],
        partition,
        bounds: Some((vec(14), vec(17))),
        tile_size: v[20],
        ..BuildSettings::default()
    })
}

fn parse_connection(toks: &[&str], user_id: u32) -> std::result::Result<OffMeshConnection, String> {
    if toks.len() != 8 && toks.len() != 10 {
        let n = toks.len();
        return Err(format!(
            "off-mesh connection (`c`) line has {n} values, expected 10 (or 8)"
        ));
    }
    let radius = parse_f32(toks[6], "radius")?;
    if radius <= 0.0 {
        return Err(format!("off-mesh connection radius {radius} must be > 0"));
    }
    let (area, flags) = match toks.len() {
        10 => (
            parse_int(toks[8], "area", 0, MAX_AREA)?,
            parse_int(toks[9], "flags", 0, 0xffff)?,
        ),
        _ => (0, 0),
    };
    Ok(OffMeshConnection {
        start: parse_vec3(&toks[0..3], "start coordinate")?,
        end: parse_vec3(&toks[3..6], "end coordinate")?,
        radius,
        bidirectional: parse_int(toks[7], "bidir", 0, 1)? == 1,
        area: area as u8,
        flags: flags as u16,
        user_id,
    })
}

/// A volume without points from a `v nverts area hmin hmax` line, and `nverts`.
fn parse_volume_header(toks: &[&str]) -> std::result::Result<(ConvexVolume, usize), String> {
    if toks.len() != 4 {
        return Err(format!(
            "convex volume (`v`) line has {} values, expected 4",
            toks.len()
        ));
    }
    let max = MAX_CONVEX_VOLUME_VERTS as i64;
    let n = parse_int(toks[0], "convex volume point count", 3, max)? as usize;
    let area = parse_int(toks[1], "area", 0, MAX_AREA)? as u8;
    let (hmin, hmax) = (parse_f32(toks[2], "hmin")?, parse_f32(toks[3], "hmax")?);
    if hmin > hmax {
        return Err(format!("convex volume hmin {hmin} > hmax {hmax}"));
    }
    let verts = Vec::with_capacity(n);
    Ok((
        ConvexVolume {
            verts,
            hmin,
            hmax,
            area,
        },
        n,
    ))
}

impl InputGeometry {
    /// Geometry with just a mesh, no settings, connections or volumes.
    pub fn from_mesh(mesh: TriMesh) -> Self {
        InputGeometry {
            source: mesh.source.clone(),
            mesh,
            settings: None,
            off_mesh_connections: Vec::new(),
            convex_volumes: Vec::new(),
        }
    }

    /// Reads a `.obj` mesh ([`TriMesh::from_obj`]) or a `.gset` geometry set
    /// ([`InputGeometry::from_gset`]), by extension, case-insensitively; other extensions
    /// are an error.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("obj") => Ok(Self::from_mesh(TriMesh::from_obj(path)?)),
            Some("gset") => Self::from_gset(path),
            _ => Err(Error::parse(
                path,
                0,
                "unsupported file type: expected a `.obj` mesh or a `.gset` geometry set",
            )),
        }
    }

    /// Reads a RecastDemo geometry set; see [`InputGeometry::from_gset_str`].
    pub fn from_gset(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_gset_str(&String::from_utf8_lossy(&bytes), path)
    }

    /// Parses a RecastDemo geometry set (`InputGeom::loadGeomSet`'s format). `gset_path` names
    /// the file in errors and locates relative mesh paths.
    ///
    /// Lines (blank lines and `#` comments are skipped):
    /// - `f <mesh path>`: the OBJ mesh, exactly once, absolute or relative to the `.gset`'s
    ///   directory (or, failing that, to its parent, as RecastDemo's own files are).
    ///   RecastDemo discards connections and volumes read before an `f` line and replaces the mesh
    ///   at a second one; here `c`/`v` lines may come before `f` and keep their order, and a second
    ///   `f` line is an error.
    /// - `s` + 21 numbers: build settings (`partitionType` an integer code, see
    ///   [`Partition::from_code`]; the bounds become [`BuildSettings::bounds`]; span filters keep
    ///   their defaults). At most once.
    /// - `c sx sy sz ex ey ez radius bidir [area flags]`: an off-mesh connection (radius > 0,
    ///   bidir 0 or 1, area 0..=63, flags 0..=65535; area and flags default to 0 as in RecastDemo);
    ///   the `i`-th gets user id `1000 + i`. At most 256.
    /// - `v nverts area hmin hmax` and `nverts` lines `x y z`: a convex volume of 3..=12 points,
    ///   `hmin <= hmax`. At most 256.
    ///
    /// RecastDemo silently ignores extra connections, volumes and malformed numbers; here any
    /// malformed line is an [`Error::Parse`] naming it.
    pub fn from_gset_str(text: &str, gset_path: &Path) -> Result<Self> {
        let perr = |line: usize, msg: String| Error::parse(gset_path, line, msg);
        let dir = gset_path.parent().unwrap_or(Path::new(""));
        let mut geom = InputGeometry::from_mesh(TriMesh::default());
        let mut have_mesh = false;
        let mut lines = text
            .split('\n')
            .enumerate()
            .map(|(i, l)| (i + 1, l.trim()))
            .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
        while let Some((ln, line)) = lines.next() {
            let mut words = line.split_whitespace();
            let kw = words.next().unwrap_or("");
            let toks: Vec<&str> = words.collect();
            let (conns, vols) = (geom.off_mesh_connections.len(), geom.convex_volumes.len());
            match kw {
                "f" if have_mesh => {
                    return Err(perr(
                        ln,
                        "a second `f` line: a geometry set has one mesh".into(),
                    ));
                }
                "f" => {
                    geom.mesh = load_gset_mesh(dir, line[1..].trim()).map_err(|m| perr(ln, m))?;
                    have_mesh = true;
                }
                "s" if geom.settings.is_some() => {
                    return Err(perr(ln, "a second settings (`s`) line".into()));
                }
                "s" => geom.settings = Some(parse_settings(&toks).map_err(|m| perr(ln, m))?),
                "c" if conns >= MAX_OFF_MESH_CONNECTIONS => {
                    let msg = format!("more than {MAX_OFF_MESH_CONNECTIONS} off-mesh connections");
                    return Err(perr(ln, msg));
                }
                "c" => {
                    let c =
                        parse_connection(&toks, 1000 + conns as u32).map_err(|m| perr(ln, m))?;
                    geom.off_mesh_connections.push(c);
                }
                "v" if vols >= MAX_CONVEX_VOLUMES => {
                    return Err(perr(
                        ln,
                        format!("more than {MAX_CONVEX_VOLUMES} convex volumes"),
                    ));
                }
                "v" => {
                    let (mut vol, n) = parse_volume_header(&toks).map_err(|m| perr(ln, m))?;
                    while vol.verts.len() < n {
                        let Some((pl, p)) = lines.next() else {
                            let have = vol.verts.len();
                            return Err(perr(
                                ln,
                                format!("convex volume has {have} of its {n} points"),
                            ));
                        };
                        let pt: Vec<&str> = p.split_whitespace().collect();
                        if pt.len() != 3 {
                            let msg =
                                format!("convex volume point has {} values, expected 3", pt.len());
                            return Err(perr(pl, msg));
                        }
                        vol.verts
                            .push(parse_vec3(&pt, "point coordinate").map_err(|m| perr(pl, m))?);
                    }
                    geom.convex_volumes.push(vol);
                }
                _ => {
                    let msg = format!(
                        "unknown line type `{}` (expected f, s, c or v)",
                        shorten(kw)
                    );
                    return Err(perr(ln, msg));
                }
            }
        }
        if !have_mesh {
            return Err(perr(0, "no `f <mesh file>` line".into()));
        }
        geom.source = Some(gset_path.to_path_buf());
        Ok(geom)
    }

    /// Writes RecastDemo's `.gset` format (`InputGeom::saveGeomSet`, numbers as `%f`, six
    /// decimals) with `f mesh_path_in_file` as the mesh line. Settings without bounds are
    /// written with the mesh bounds, as RecastDemo does; user ids are not stored.
    ///
    /// ```
    /// use navkit::{InputGeometry, TriMesh};
    /// let mesh = TriMesh::new(vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0], vec![0, 1, 2])?;
    /// let geom = InputGeometry::from_mesh(mesh);
    /// assert_eq!(geom.to_gset_string("Meshes/tri.obj"), "f Meshes/tri.obj\n");
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn to_gset_string(&self, mesh_path_in_file: &str) -> String {
        let mut s = format!("f {mesh_path_in_file}\n");
        if let Some(st) = &self.settings {
            let bounds = st.bounds.unwrap_or_else(|| self.mesh.bounds());
            s.push('s');
            for (k, v) in settings_values(st, bounds).iter().enumerate() {
                let _ = match k {
                    13 => write!(s, " {}", st.partition.code()),
                    _ => write!(s, " {v:.6}"),
                };
            }
            s.push('\n');
        }
        for c in &self.off_mesh_connections {
            let (a, b) = (c.start, c.end);
            let _ = writeln!(
                s,
                "c {:.6} {:.6} {:.6}  {:.6} {:.6} {:.6}  {:.6} {} {} {}",
                a.x, a.y, a.z, b.x, b.y, b.z, c.radius, c.bidirectional as i32, c.area, c.flags
            );
        }
        for v in &self.convex_volumes {
            let _ = writeln!(
                s,
                "v {} {} {:.6} {:.6}",
                v.verts.len(),
                v.area,
                v.hmin,
                v.hmax
            );
            for p in &v.verts {
                let _ = writeln!(s, "{:.6} {:.6} {:.6}", p.x, p.y, p.z);
            }
        }
        s
    }

    /// Writes [`InputGeometry::to_gset_string`] to `path`.
    pub fn save_gset(&self, path: impl AsRef<Path>, mesh_path_in_file: &str) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_gset_string(mesh_path_in_file)).map_err(|e| Error::io(path, e))
    }

    /// Checks the mesh ([`TriMesh::validate`]), the settings if any
    /// ([`BuildSettings::validate`]), the connections (at most 256, finite, radius > 0,
    /// area <= 63) and the volumes (at most 256, 3..=12 finite points, finite `hmin <= hmax`,
    /// area <= 63).
    pub fn validate(&self) -> Result<()> {
        self.mesh.validate()?;
        if let Some(s) = &self.settings {
            s.validate()?;
        }
        let fail = |msg: String| Err(Error::Geometry(msg));
        let (nc, nv) = (self.off_mesh_connections.len(), self.convex_volumes.len());
        if nc > MAX_OFF_MESH_CONNECTIONS || nv > MAX_CONVEX_VOLUMES {
            return fail(format!(
                "{nc} off-mesh connections and {nv} convex volumes: at most {MAX_OFF_MESH_CONNECTIONS} of each"
            ));
        }
        for (i, c) in self.off_mesh_connections.iter().enumerate() {
            if !c.start.is_finite()
                || !c.end.is_finite()
                || !c.radius.is_finite()
                || c.radius <= 0.0
            {
                return fail(format!(
                    "off-mesh connection {i} needs finite end points and a finite radius > 0"
                ));
            }
            if i64::from(c.area) > MAX_AREA {
                return fail(format!(
                    "off-mesh connection {i} has area {} > {MAX_AREA}",
                    c.area
                ));
            }
        }
        for (i, v) in self.convex_volumes.iter().enumerate() {
            if !(3..=MAX_CONVEX_VOLUME_VERTS).contains(&v.verts.len()) {
                return fail(format!(
                    "convex volume {i} has {} points, expected 3..=12",
                    v.verts.len()
                ));
            }
            if v.verts.iter().any(|p| !p.is_finite()) || !v.hmin.is_finite() || !v.hmax.is_finite()
            {
                return fail(format!("convex volume {i} has a non-finite coordinate"));
            }
            if v.hmin > v.hmax {
                return fail(format!(
                    "convex volume {i} has hmin {} > hmax {}",
                    v.hmin, v.hmax
                ));
            }
            if i64::from(v.area) > MAX_AREA {
                return fail(format!(
                    "convex volume {i} has area {} > {MAX_AREA}",
                    v.area
                ));
            }
        }
        Ok(())
    }

    /// The build bounds: the settings' bounds if set, else the mesh bounds (RecastDemo's
    /// `getNavMeshBoundsMin/Max`).
    pub fn nav_bounds(&self) -> (Vec3, Vec3) {
        self.settings
            .as_ref()
            .and_then(|s| s.bounds)
            .unwrap_or_else(|| self.mesh.bounds())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
    }

    fn mesh_path(name: &str) -> PathBuf {
        shared_dir().join("meshes/recastdemo").join(name)
    }

    /// A fresh, empty temporary directory.
    fn temp_dir(tag: &str) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("navkit-geom-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

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
            assert_eq!(mesh.bounds(), (lo, hi), "{name}");
            assert_eq!(mesh.source.as_deref(), Some(path.as_path()));
            let geom = InputGeometry::load(&path).unwrap();
            assert_eq!(geom.nav_bounds(), (lo, hi));
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
        assert_eq!(mesh.bounds().1, Vec3::new(16.5, 1089.0, 9.0));
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

    fn sample_geometry() -> InputGeometry {
        let mut g = InputGeometry::from_mesh(TriMesh::from_obj(mesh_path("nav_test.obj")).unwrap());
        g.settings = Some(BuildSettings {
            cell_size: 0.25,
            agent_max_slope: 50.5,
            partition: Partition::Layers,
            bounds: Some((Vec3::new(-1.5, -2.25, -3.125), Vec3::new(10.0, 20.5, 30.75))),
            ..BuildSettings::default()
        });
        g.off_mesh_connections = (0..3)
            .map(|i| OffMeshConnection {
                start: Vec3::new(1.25 + i as f32, 2.0, -3.5),
                end: Vec3::new(4.0, 5.123456, 6.0),
                radius: 0.6,
                bidirectional: i != 1,
                area: crate::area::JUMP,
                flags: crate::flags::JUMP | (0x100 * i as u16),
                user_id: 1000 + i,
            })
            .collect();
        g.convex_volumes = vec![ConvexVolume {
            verts: vec![
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(3.5, 1.0, 0.0),
                Vec3::new(3.5, 1.5, -2.0),
                Vec3::new(0.0, 1.2, -2.0),
            ],
            hmin: -0.5,
            hmax: 4.25,
            area: crate::area::WATER,
        }];
        g
    }

    #[test]
    fn gset_round_trip_and_relative_paths() {
        let g = sample_geometry();
        g.validate().unwrap();
        let dir = temp_dir("rt");
        let abs = mesh_path("nav_test.obj").canonicalize().unwrap();
        let gset = dir.join("level.GSET");
        g.save_gset(&gset, abs.to_str().unwrap()).unwrap();
        let back = InputGeometry::load(&gset).unwrap();
        assert_eq!(back.mesh.verts, g.mesh.verts);
        assert_eq!(back.mesh.tris, g.mesh.tris);
        assert_eq!(back.settings, g.settings);
        assert_eq!(back.off_mesh_connections, g.off_mesh_connections);
        assert_eq!(back.convex_volumes, g.convex_volumes);
        assert_eq!(back.source.as_deref(), Some(gset.as_path()));
        assert_eq!(
            back.nav_bounds(),
            g.settings.as_ref().unwrap().bounds.unwrap()
        );
        let text = g.to_gset_string("Meshes/nav_test.obj");
        assert!(text.contains("\ns 0.250000 0.200000 2.000000 0.600000 0.900000 50.500000 8.000000 20.000000 12.000000 1.300000 6.000000 6.000000 1.000000 2 -1.500000 -2.250000 -3.125000 10.000000 20.500000 30.750000 32.000000\n"), "{text}");
        assert!(
            text.contains(
                "\nc 1.250000 2.000000 -3.500000  4.000000 5.123456 6.000000  0.600000 1 5 8\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("\nv 4 1 -0.500000 4.250000\n0.000000 1.000000 0.000000\n"),
            "{text}"
        );

        // Relative to the .gset's directory, and RecastDemo's layout (relative to its parent).
        std::fs::create_dir_all(dir.join("Meshes")).unwrap();
        std::fs::copy(&abs, dir.join("Meshes/m.obj")).unwrap();
        std::fs::write(dir.join("Meshes/a.gset"), "# mesh\n\nf m.obj\r\n").unwrap();
        std::fs::write(
            dir.join("Meshes/b.gset"),
            "c 0 0 0 1 1 1 0.5 1\nf Meshes/m.obj\n",
        )
        .unwrap();
        let a = InputGeometry::load(dir.join("Meshes/a.gset")).unwrap();
        assert_eq!(
            (a.mesh.vert_count(), a.mesh.tri_count(), &a.settings),
            (884, 1612, &None)
        );
        assert_eq!(a.nav_bounds(), a.mesh.bounds());
        let b = InputGeometry::from_gset(dir.join("Meshes/b.gset")).unwrap();
        assert_eq!(b.mesh.verts, a.mesh.verts);
        assert_eq!(
            (
                b.off_mesh_connections[0].area,
                b.off_mesh_connections[0].flags
            ),
            (0, 0)
        );
        // Settings without bounds are written with the mesh bounds.
        let mut c = b.clone();
        c.settings = Some(BuildSettings::default());
        let back =
            InputGeometry::from_gset_str(&c.to_gset_string("m.obj"), &dir.join("Meshes/c.gset"))
                .unwrap();
        let (lo, hi) = back.nav_bounds();
        assert!(
            (lo - a.mesh.bounds().0).abs().max_element() < 1e-6
                && (hi - a.mesh.bounds().1).abs().max_element() < 1e-6
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn gset_errors_name_the_line() {
        let dir = temp_dir("bad");
        let abs = mesh_path("nav_test.obj").canonicalize().unwrap();
        let f = format!("f {}\n", abs.display());
        let s = "s 0.3 0.2 2 0.6 0.9 45 8 20 12 1.3 6 6 1 0 0 0 0 1 1 1 32\n";
        let c = "c 0 0 0 1 1 1 0.5 1 5 8\n";
        let vol = "v 3 1 0 1\n0 0 0\n1 0 0\n1 0 1\n";
        let cases: Vec<(String, usize, &str)> = vec![
            (format!("{f}x 1 2 3\n"), 2, "unknown line type"),
            (format!("{f}{f}"), 2, "second `f`"),
            ("f\n".into(), 1, "without a mesh path"),
            ("f nowhere.obj\n".into(), 1, "not found"),
            ("f bad.obj\n".into(), 1, "bad.obj:2"),
            (c.to_string(), 0, "no `f"),
            (format!("{f}{s}{s}"), 3, "second settings"),
            (format!("{f}s 0.3 0.2 2\n"), 2, "3 values"),
            (
                format!("{f}{}", s.replace(" 45 ", " nan ")),
                2,
                "agentMaxSlope `nan` is not finite",
            ),
            (
                format!("{f}{}", s.replace(" 1 0 0 ", " 1 7 0 ")),
                2,
                "partitionType 7",
            ),
            (
                format!("{f}{}", s.replace(" 1 0 0 ", " 1 1.5 0 ")),
                2,
                "not an integer",
            ),
            (format!("{f}c 0 0 0 1 1 1 0.5\n"), 2, "7 values"),
            (format!("{f}c 0 0 0 1 1 1 0 1 5 8\n"), 2, "radius"),
            (format!("{f}c 0 0 0 1 1 1 0.5 2 5 8\n"), 2, "bidir 2"),
            (format!("{f}c 0 0 0 1 1 1 0.5 1 64 8\n"), 2, "area 64"),
            (
                format!("{f}c 0 0 0 1 1 1 0.5 1 5 65536\n"),
                2,
                "flags 65536",
            ),
            (format!("{f}c 0 0 x 1 1 1 0.5 1 5 8\n"), 2, "not a number"),
            (format!("{f}{}", c.repeat(257)), 258, "more than 256"),
            (
                format!("{f}{}", vol.repeat(257)),
                2 + 256 * 4,
                "more than 256",
            ),
            (format!("{f}v 2 1 0 1\n0 0 0\n1 0 0\n"), 2, "point count 2"),
            (format!("{f}v 13 1 0 1\n"), 2, "point count 13"),
            (
                format!("{f}v 3 1 2 1\n0 0 0\n1 0 0\n1 0 1\n"),
                2,
                "hmin 2 > hmax 1",
            ),
            (
                format!("{f}v 3 1 0 1\n0 0 0\n\n# c\n1 0\n1 0 1\n"),
                6,
                "2 values",
            ),
            (
                format!("{f}v 3 1 0 1\n0 0 0\n1 0 inf\n1 0 1\n"),
                4,
                "not finite",
            ),
            (
                format!("{f}v 3 1 0 1\n0 0 0\n1 0 0\n"),
                2,
                "2 of its 3 points",
            ),
            (format!("{f}v 3 1 0\n"), 2, "3 values"),
        ];
        std::fs::write(dir.join("bad.obj"), "v 0 0 0\nv 1 x 0\n").unwrap();
        let gset = dir.join("t.gset");
        for (text, line, what) in &cases {
            match InputGeometry::from_gset_str(text, &gset) {
                Err(Error::Parse {
                    path,
                    line: l,
                    message,
                }) => {
                    assert_eq!((path.as_path(), l), (gset.as_path(), *line), "{message}");
                    assert!(message.contains(what), "{what:?} not in {message:?}");
                }
                other => panic!("{text:.200}: {:?}", other.map(|g| g.source)),
            }
        }
        // At the limits is fine.
        let ok = InputGeometry::from_gset_str(
            &format!("{}{f}{}", c.repeat(256), vol.repeat(256)),
            &gset,
        )
        .unwrap();
        assert_eq!(
            (ok.off_mesh_connections.len(), ok.convex_volumes.len()),
            (256, 256)
        );
        assert_eq!(ok.off_mesh_connections[255].user_id, 1255);
        ok.validate().unwrap();
        // Unreadable file and unknown extension.
        assert!(matches!(
            InputGeometry::from_gset(dir.join("none.gset")),
            Err(Error::Io { .. })
        ));
        assert!(matches!(
            InputGeometry::load(dir.join("x.txt")),
            Err(Error::Parse { line: 0, .. })
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn validate_rejects_bad_extras() {
        let good = sample_geometry();
        let mut bad = Vec::new();
        let mut g = good.clone();
        g.off_mesh_connections[0].radius = 0.0;
        bad.push(g);
        let mut g = good.clone();
        g.off_mesh_connections[1].end.y = f32::INFINITY;
        bad.push(g);
        let mut g = good.clone();
        g.convex_volumes[0].verts.truncate(2);
        bad.push(g);
        let mut g = good.clone();
        g.convex_volumes[0].verts = vec![Vec3::ONE; 13];
        bad.push(g);
        let mut g = good.clone();
        g.convex_volumes[0].hmin = 5.0;
        bad.push(g);
        let mut g = good.clone();
        g.convex_volumes[0].area = 64;
        bad.push(g);
        for g in bad {
            assert!(matches!(g.validate(), Err(Error::Geometry(_))), "{g:?}");
        }
        let mut g = good;
        g.settings.as_mut().unwrap().cell_size = 0.0;
        assert!(matches!(g.validate(), Err(Error::Setting { .. })));
    }
}
