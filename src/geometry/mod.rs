//! Input geometry: triangle meshes read from Wavefront OBJ files exactly as RecastDemo's
//! `rcMeshLoaderObj` reads them ([`mesh`]) or from glTF 2.0 levels (`gltf`, with the `gltf`
//! feature; [`TriMesh::load`] picks by extension), RecastDemo's `.gset` geometry sets (a mesh plus build
//! settings, off-mesh connections and convex volumes; [`gset`]), bounds ([`Aabb`]) and the
//! spatial index tiled builds select triangles with ([`spatial`]).

#[cfg(feature = "gltf")]
#[cfg_attr(docsrs, doc(cfg(feature = "gltf")))]
pub mod gltf;
pub mod gset;
pub mod mesh;
mod obj;
mod paths;
pub mod spatial;

use crate::Aabb;
pub use mesh::{MAX_FACE_VERTS, TriMesh};
pub use paths::LoadOptions;
#[cfg(feature = "tools")]
pub(crate) use paths::{folder_of, resolve_named_file};

use crate::ffi::validate::MAX_COORDINATE;
use crate::settings::BuildSettings;
use crate::{Error, Result};
use glam::Vec3;
use std::path::{Path, PathBuf};

/// Most off-mesh connections in a geometry set (RecastDemo's `MAX_OFFMESH_CONNECTIONS`).
pub const MAX_OFF_MESH_CONNECTIONS: usize = 256;
/// Most convex volumes in a geometry set (RecastDemo's `MAX_VOLUMES`).
pub const MAX_CONVEX_VOLUMES: usize = 256;
/// Most points of one convex volume (RecastDemo's `MAX_CONVEXVOL_PTS`).
pub const MAX_CONVEX_VOLUME_VERTS: usize = 12;
/// Largest area id (`RC_WALKABLE_AREA`; Detour keeps 6 bits of area).
const MAX_AREA: i64 = 63;

/// An off-mesh connection (a jump, ladder, teleport ...): a link between two points of the
/// navmesh that paths may take although no polygon joins them.
///
/// [`OffMeshConnection::new`] makes one as RecastDemo's off-mesh link tool does; the `with_`
/// methods change what differs. Detour connects each end to the nearest polygon within
/// `radius` in x and z and the agent's climb in y; a link whose end finds none, or that no
/// query filter includes (flags 0, the `.gset` default, or only [`crate::flags::DISABLED`]), is
/// built but never used: the build reports list such links (`off_mesh_issues`, see
/// [`crate::build::OffMeshIssue`]).
///
/// ```
/// use glam::Vec3;
/// use navkit::{OffMeshConnection, area, flags};
/// let ladder = OffMeshConnection::new(Vec3::new(1.0, 0.0, 2.0), Vec3::new(1.0, 4.0, 2.5), 0.6)
///     .one_way()
///     .with_area(area::DOOR)           // the area's flags too: WALK | DOOR
///     .with_user_id(7);                // Detour hands it back: which ladder the agent is on
/// assert_eq!(ladder.flags, flags::WALK | flags::DOOR);
/// let jump = OffMeshConnection::new(Vec3::ZERO, Vec3::new(0.0, 2.0, 3.0), 0.6);
/// assert!(jump.bidirectional);
/// assert_eq!((jump.area, jump.flags), (area::JUMP, flags::JUMP));
/// ```
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OffMeshConnection {
    /// Start point.
    pub start: Vec3,
    /// End point.
    pub end: Vec3,
    /// Radius within which the end points snap to the navmesh (in x and z; in y they snap
    /// within the agent's climb). RecastDemo uses the agent radius.
    pub radius: f32,
    /// Whether the link can be taken both ways (else only from `start` to `end`).
    pub bidirectional: bool,
    /// Area id (0..=63), see [`crate::area`]: the cost of taking the link, per query filter.
    pub area: u8,
    /// Poly flags, see [`crate::flags`]: a query filter takes the link only if these share a
    /// bit with its include flags and none with its exclude flags (0: never).
    pub flags: u16,
    /// The caller's own number for the link. Detour stores it with the connection and gives it
    /// back (`navkit::navmesh::view::TileOffMeshConnection::user_id`), e.g. to tell which door
    /// or ladder an agent is taking and play the right animation. RecastDemo (and the `.gset`
    /// reader) gives the `i`-th link `1000 + i`; [`OffMeshConnection::new`] gives 0.
    pub user_id: u32,
}

impl OffMeshConnection {
    /// A link from `start` to `end` as RecastDemo's off-mesh link tool makes it: ends snapping
    /// within `radius` (RecastDemo passes the agent radius), both ways, the jump area with its
    /// flags ([`crate::area::JUMP`], [`crate::flags::JUMP`]), user id 0.
    pub fn new(start: Vec3, end: Vec3, radius: f32) -> Self {
        OffMeshConnection {
            start,
            end,
            radius,
            bidirectional: true,
            area: crate::area::JUMP,
            flags: Self::flags_for_area(crate::area::JUMP),
            user_id: 0,
        }
    }

    /// The flags RecastDemo gives a link of `area`: [`crate::flags::JUMP`] for the jump area
    /// (its off-mesh link tool's), else those its sample gives a polygon of that area
    /// ([`crate::flags::for_area`]: walk for ground, grass and road, swim for water, walk and
    /// door for doors, none for other areas).
    pub fn flags_for_area(area: u8) -> u16 {
        if area == crate::area::JUMP {
            crate::flags::JUMP
        } else {
            crate::flags::for_area(area)
        }
    }

    /// Only from `start` to `end`.
    pub fn one_way(self) -> Self {
        self.with_bidirectional(false)
    }

    /// Both ways (`true`, the default) or only from `start` to `end`.
    pub fn with_bidirectional(mut self, bidirectional: bool) -> Self {
        self.bidirectional = bidirectional;
        self
    }

    /// The area id, and that area's flags ([`flags_for_area`](Self::flags_for_area); call
    /// [`with_flags`](Self::with_flags) after this for others).
    pub fn with_area(mut self, area: u8) -> Self {
        self.area = area;
        self.flags = Self::flags_for_area(area);
        self
    }

    /// The poly flags.
    pub fn with_flags(mut self, flags: u16) -> Self {
        self.flags = flags;
        self
    }

    /// The user id Detour hands back for the link.
    pub fn with_user_id(mut self, user_id: u32) -> Self {
        self.user_id = user_id;
        self
    }
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
    /// An area id (0..=63, [`crate::area`]) per triangle of the mesh, if given: the walkable
    /// surface a triangle makes gets its area ([`crate::area::GROUND`], 0, is ground), where
    /// Recast would make it ground. A triangle's slope still decides whether it is walkable,
    /// and convex volumes still re-mark what lies inside them. `None` (every file format, and
    /// [`InputGeometry::from_mesh`]): every walkable triangle is ground, as in RecastDemo.
    pub triangle_areas: Option<Vec<u8>>,
    /// The mesh (`.obj`, `.gltf`, `.glb`) or `.gset` file this was read from, if any.
    pub source: Option<PathBuf>,
}

/// The file extensions (lower case) of the mesh formats [`TriMesh::load`] reads; `gltf` and
/// `glb` need the `gltf` feature (without it they are an error saying so).
pub const MESH_EXTENSIONS: [&str; 3] = ["obj", "gltf", "glb"];

/// Sees a mesh as it is read and picks the triangles kept ([`InputGeometry::load_picked`]):
/// how a shard of a tiled build reads only its part of a level file.
pub trait TrianglePicker {
    /// Each vertex, in file order (every vertex is kept).
    fn vertex(&mut self, _xyz: [f32; 3]) {}
    /// Each triangle, in file order (faces fan-triangulated): its vertex indices into `verts`,
    /// the vertices read so far. `true` keeps it.
    fn triangle(&mut self, verts: &[f32], tri: [i32; 3]) -> bool;
}

/// `path`'s extension in lower case.
fn extension(path: &Path) -> Option<String> {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
}

impl TriMesh {
    /// [`TriMesh::load`] keeping only the triangles `picker` picks (every vertex is kept): an
    /// OBJ streamed through it, any other format read whole and then shown to it.
    pub fn load_picked(path: impl AsRef<Path>, picker: &mut dyn TrianglePicker) -> Result<TriMesh> {
        let path = path.as_ref();
        if extension(path).as_deref() == Some("obj") {
            let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
            let size = file.metadata().ok().map(|m| m.len());
            let mut mesh = obj::parse_obj_picked(file, path, size, Some(picker))?;
            mesh.source = Some(path.to_path_buf());
            return Ok(mesh);
        }
        let mut mesh = TriMesh::load(path)?;
        for v in mesh.verts.chunks_exact(3) {
            picker.vertex([v[0], v[1], v[2]]);
        }
        let mut kept = Vec::new();
        for t in mesh.tris.chunks_exact(3) {
            if picker.triangle(&mesh.verts, [t[0], t[1], t[2]]) {
                kept.extend_from_slice(t);
            }
        }
        mesh.tris = kept;
        Ok(mesh)
    }

    /// Reads a mesh by its extension, case-insensitively: `.obj` ([`TriMesh::from_obj`]),
    /// `.gltf` or `.glb` (`TriMesh::from_gltf`, with the `gltf` feature); other extensions are
    /// an [`Error::Parse`] error, as are glTF files without the `gltf` feature.
    pub fn load(path: impl AsRef<Path>) -> Result<TriMesh> {
        let path = path.as_ref();
        match extension(path).as_deref() {
            Some("obj") => TriMesh::from_obj(path),
            #[cfg(feature = "gltf")]
            Some("gltf" | "glb") => TriMesh::from_gltf(path),
            #[cfg(not(feature = "gltf"))]
            Some("gltf" | "glb") => Err(Error::parse(
                path,
                0,
                "glTF levels need navkit's `gltf` cargo feature",
            )),
            _ => Err(Error::parse(
                path,
                0,
                "unsupported mesh file type: expected `.obj`, `.gltf` or `.glb`",
            )),
        }
    }
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
            triangle_areas: None,
        }
    }

    /// Reads a mesh ([`TriMesh::load`]: `.obj`, or `.gltf`/`.glb` with the `gltf` feature) or
    /// a `.gset` geometry set ([`InputGeometry::from_gset`], whose mesh must lie inside its
    /// folder), by extension, case-insensitively; other extensions are an error.
    pub fn load(path: impl AsRef<Path>) -> Result<Self> {
        Self::load_with(path, &LoadOptions::default())
    }

    /// [`InputGeometry::load_with`], showing every vertex and triangle of the mesh to `picker`
    /// as it is read and keeping only the triangles it picks (all the vertices), so that the
    /// triangles left out never take memory (an OBJ is streamed; a glTF level is read whole
    /// first). The result may have no triangle; it is the input of one shard of a tiled build
    /// (`navkit::build::tiled::ShardInput`, feature `tile-store`).
    pub fn load_picked(
        path: impl AsRef<Path>,
        options: &LoadOptions,
        picker: &mut dyn TrianglePicker,
    ) -> Result<Self> {
        let path = path.as_ref();
        match extension(path).as_deref() {
            Some("gset") => gset::parse_gset_file(path, options, Some(picker)),
            Some(e) if MESH_EXTENSIONS.contains(&e) => {
                Ok(Self::from_mesh(TriMesh::load_picked(path, picker)?))
            }
            _ => Self::load_with(path, options),
        }
    }

    /// [`InputGeometry::load`] with `options` saying where a `.gset`'s mesh may lie.
    pub fn load_with(path: impl AsRef<Path>, options: &LoadOptions) -> Result<Self> {
        let path = path.as_ref();
        match extension(path).as_deref() {
            Some("gset") => Self::from_gset_with(path, options),
            Some(e) if MESH_EXTENSIONS.contains(&e) => Ok(Self::from_mesh(TriMesh::load(path)?)),
            _ => Err(Error::parse(
                path,
                0,
                "unsupported file type: expected a `.obj`, `.gltf` or `.glb` mesh or a `.gset` geometry set",
            )),
        }
    }

    /// Checks the mesh ([`TriMesh::validate`], and its vertices within
    /// +-[`MAX_BUILD_COORDINATE`](crate::build::MAX_BUILD_COORDINATE), beyond which no cell size
    /// builds a level: the error names the farthest vertex, its line in the OBJ file it came
    /// from and how far it lies from the rest), the settings if any
    /// ([`BuildSettings::validate`]), the connections (at most 256, finite, end points and
    /// radius within +-[`MAX_COORDINATE`], radius > 0, area <= 63) and the volumes (at most 256,
    /// 3..=12 finite points, finite `hmin <= hmax`, area <= 63).
    pub fn validate(&self) -> Result<()> {
        self.mesh.validate()?;
        self.validate_rest()
    }

    /// [`InputGeometry::validate`] for a part of a level ([`InputGeometry::load_picked`]),
    /// which may have no triangle.
    pub(crate) fn validate_part(&self) -> Result<()> {
        self.mesh.validate_with(true)?;
        self.validate_rest()
    }

    /// Everything [`InputGeometry::validate`] checks after the mesh.
    fn validate_rest(&self) -> Result<()> {
        self.mesh.check_build_reach()?;
        if let Some(s) = &self.settings {
            s.validate()?;
        }
        let fail = |msg: String| Err(Error::Geometry(msg));
        self.check_triangle_areas()?;
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
            // The tile validator (which every built tile passes through) takes no coordinate
            // or radius beyond MAX_COORDINATE: say so here, before a build packs them.
            let far = c.start.abs().max_element().max(c.end.abs().max_element());
            if far > MAX_COORDINATE || c.radius > MAX_COORDINATE {
                return fail(format!(
                    "off-mesh connection {i} has an end point coordinate of {far} and a radius \
                     of {}: both must be within +-{MAX_COORDINATE:e}",
                    c.radius
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

    /// [`InputGeometry::triangle_areas`], if given: one per triangle, each at most 63.
    fn check_triangle_areas(&self) -> Result<()> {
        let Some(areas) = &self.triangle_areas else {
            return Ok(());
        };
        if areas.len() != self.mesh.tri_count() {
            return Err(Error::Geometry(format!(
                "{} triangle areas for {} triangles: one per triangle",
                areas.len(),
                self.mesh.tri_count()
            )));
        }
        match areas.iter().position(|&a| i64::from(a) > MAX_AREA) {
            Some(i) => Err(Error::Geometry(format!(
                "triangle {i} has area {} > {MAX_AREA}",
                areas[i]
            ))),
            None => Ok(()),
        }
    }

    /// The build bounds: the settings' bounds if set, else the mesh bounds (RecastDemo's
    /// `getNavMeshBoundsMin/Max`).
    pub fn nav_bounds(&self) -> Aabb {
        self.settings
            .as_ref()
            .and_then(|s| s.bounds)
            .unwrap_or_else(|| self.mesh.bounds())
    }
}

#[cfg(test)]
mod test_support {
    use std::path::{Path, PathBuf};

    pub fn shared_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared")
    }

    pub fn mesh_path(name: &str) -> PathBuf {
        shared_dir().join("meshes/recastdemo").join(name)
    }

    /// A fresh, empty temporary directory.
    pub fn temp_dir(tag: &str) -> PathBuf {
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        let n = N.fetch_add(1, Ordering::SeqCst);
        let dir =
            std::env::temp_dir().join(format!("navkit-geom-{}-{tag}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gset::tests::sample_geometry;

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
