//! A tile's key: a BLAKE3 hash of exactly what decides its bytes, the address of the tile in a
//! [`TileStore`](super::TileStore).
//!
//! What a tile build reads, and so what the key hashes:
//! - the triangles near the tile (those whose xz bounds overlap its
//!   border-expanded grid), in the mesh's order, each as its three vertices' coordinates and
//!   its area;
//! - the convex volumes and the off-mesh links that reach into that grid (in the geometry's
//!   order: a later volume paints over an earlier one);
//! - the tile's position and voxel grid (which carries the level's height range and the grid's
//!   origin), and every build setting;
//! - what could build other bytes from the same input: navkit's version and [`TILE_FORMAT`],
//!   the Recast sources' version, the width of Detour's refs, the pointer width and byte order.
//!
//! The same key therefore means the same bytes; an edit anywhere else in the level leaves a
//! tile's key as it was (unless it moves the level's bounds, which moves every tile's grid).

use crate::build::TileTris;
use crate::geometry::InputGeometry;
use crate::geometry::mesh::XzRect;
use crate::navmesh::TileCoord;
use crate::poly_ref::RefWidth;
use crate::settings::{BuildSettings, VoxelConfig};

/// The version of the tile bytes navkit builds from a given input, beside its own version:
/// raised whenever a change (to the pipeline, to Recast's build flags) can give other bytes
/// for the same input and settings, so that no store hands out tiles an older navkit built.
pub const TILE_FORMAT: u32 = 1;

/// The version of the `recastnavigation-sys` sources navkit was built with.
pub const RECAST_SYS_VERSION: &str = env!("NAVKIT_RECAST_SYS_VERSION");

/// A tile's key: 32 bytes of BLAKE3, shown as 64 hex digits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileKey(pub [u8; 32]);

impl TileKey {
    /// The key as 64 lower-case hex digits.
    pub fn to_hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl std::fmt::Display for TileKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl std::fmt::Debug for TileKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TileKey({})", self.to_hex())
    }
}

/// What any of navkit's builds hashes first: its version, Recast's, the tile format and the
/// platform facts that size or order tile bytes.
pub(crate) fn versions(h: &mut blake3::Hasher) {
    h.update(&TILE_FORMAT.to_le_bytes());
    for s in [env!("CARGO_PKG_VERSION"), RECAST_SYS_VERSION] {
        h.update(&(s.len() as u64).to_le_bytes());
        h.update(s.as_bytes());
    }
    h.update(&[
        (RefWidth::NATIVE == RefWidth::Bits64) as u8,
        std::mem::size_of::<usize>() as u8,
        cfg!(target_endian = "little") as u8,
    ]);
}

/// Hashes `text` with its length (so that no two sequences of texts hash alike).
fn text(h: &mut blake3::Hasher, s: &str) {
    h.update(&(s.len() as u64).to_le_bytes());
    h.update(s.as_bytes());
}

/// Whether the xz rectangle `min`..`max` overlaps (or touches) `cfg`'s grid.
fn reaches(cfg: &VoxelConfig, min: [f32; 2], max: [f32; 2]) -> bool {
    XzRect { min, max }.touches(&XzRect::of_grid(cfg))
}

/// The key of `tile`, whose grid is `cfg`, built from `geom` with `settings`; `near` is the
/// tile's triangles.
pub(crate) fn tile_key(
    geom: &InputGeometry,
    settings: &BuildSettings,
    cfg: &VoxelConfig,
    tile: TileCoord,
    near: &TileTris,
) -> TileKey {
    let mut h = blake3::Hasher::new();
    h.update(b"navkit tile\0");
    versions(&mut h);
    // Debug prints every field, floats exactly (shortest round trip); navkit's version is in
    // the key, so a change of that text can only miss, never hit wrongly.
    text(&mut h, &format!("{settings:?}"));
    text(&mut h, &format!("{cfg:?}"));
    h.update(&tile.x.to_le_bytes());
    h.update(&tile.z.to_le_bytes());
    h.update(&(near.ids.len() as u64).to_le_bytes());
    let (v, areas) = (&geom.mesh.verts, geom.triangle_areas.as_deref());
    for (k, &id) in near.ids.iter().enumerate() {
        for &vi in &near.tris[k * 3..k * 3 + 3] {
            let i = vi as usize * 3;
            for c in &v[i..i + 3] {
                h.update(&c.to_le_bytes());
            }
        }
        // No areas and ground areas build the same bytes: hash them alike.
        let a = areas.and_then(|a| a.get(id as usize).copied());
        h.update(&[a.unwrap_or(crate::area::GROUND)]);
    }
    for vol in &geom.convex_volumes {
        let lo = vol
            .verts
            .iter()
            .fold([f32::INFINITY; 2], |m, p| [m[0].min(p.x), m[1].min(p.z)]);
        let hi = vol.verts.iter().fold([f32::NEG_INFINITY; 2], |m, p| {
            [m[0].max(p.x), m[1].max(p.z)]
        });
        if reaches(cfg, lo, hi) {
            text(&mut h, &format!("volume {vol:?}"));
        }
    }
    for con in &geom.off_mesh_connections {
        let near_end = |p: glam::Vec3| reaches(cfg, [p.x, p.z], [p.x, p.z]);
        if near_end(con.start) || near_end(con.end) {
            text(&mut h, &format!("link {con:?}"));
        }
    }
    TileKey(*h.finalize().as_bytes())
}
