//! Dynamic obstacles through Detour's tile cache (RecastDemo's Temp Obstacles sample).
//!
//! A [`TileCache`] keeps, for every tile of the level, the *heightfield layers* Recast found
//! there (walkable floors one above the other), LZ4-compressed. Adding or removing an obstacle
//! (a cylinder, an axis-aligned box or a box turned about y) only queues a request; each
//! [`TileCache::update`] step then rebuilds one touched tile layer from its compressed layer with
//! every obstacle carved out, in well under a millisecond, and swaps it into the [`NavMesh`] the
//! cache owns. No Recast rasterization happens after the build.
//!
//! ```text
//! geometry -> per tile: rasterize (its triangles only) -> filters -> compact -> erode
//!          -> convex volumes -> heightfield layers -> dtBuildTileCacheLayer (LZ4)
//!          -> dtTileCache -> buildNavMeshTilesAt -> NavMesh
//! obstacle add/remove -> update(budget) -> touched layers rebuilt -> NavMesh tiles replaced
//! ```
//!
//! The cache owns its navmesh: [`TileCache::navmesh`] lends it to a
//! [`crate::query::NavMeshQuery`], and [`TileCache::update`] takes `&mut self`, so no query can
//! be alive while tiles are replaced.
//!
//! **Persistence.** [`TileCache::to_tset_bytes`] / [`TileCache::save`] write RecastDemo's `TSET`
//! format (`Sample_TempObstacles::saveAll`): a header `{ int magic = 'TSET', int version = 1, int
//! numTiles, dtNavMeshParams, dtTileCacheParams }`, then per compressed tile `{ dtCompressedTileRef
//! tileRef, int dataSize }` and its data (a `dtTileCacheLayerHeader` and the compressed grids).
//! Everything is little-endian. Obstacles are not saved (as upstream). Loading checks every
//! byte before Detour sees it; see [`read_tset`]. The compressor is navkit's (LZ4 block format),
//! so files written by RecastDemo itself (FastLZ) are rejected as corrupt layers.
//!
//! **Limits kept from Detour, made errors.** At most 64 queued requests between updates, and at
//! most 64 tile layers queued for rebuild by them ([`Error::Detour`] with
//! [`Status::BUFFER_TOO_SMALL`]: call `update` first); at most `max_obstacles` obstacles
//! ([`Status::OUT_OF_MEMORY`]); one obstacle carves at most 8 tile layers
//! ([`Error::InvalidArgument`]). Detour's layer region builder keeps at most 16 neighbours per
//! region without checking the bound (upstream issue #452): navkit's allocator replays the
//! partition before Detour runs it and refuses to build a layer that would overflow (see
//! [`GuardStats`]); such a tile keeps its previous polygons and `update` reports an error.
//!
//! ```no_run
//! use navkit::{InputGeometry, BuildSettings, tilecache::{TileCache, TileCacheSettings}};
//! use navkit::query::{NavMeshQuery, QueryFilter};
//! use glam::Vec3;
//!
//! let geom = InputGeometry::load("nav_test.obj")?;
//! let mut cache = TileCache::build(&geom, &BuildSettings::default(), &TileCacheSettings::default())?;
//! let barrel = cache.add_cylinder(Vec3::new(10.0, 0.0, 5.0), 1.0, 2.0)?;
//! cache.update_until_done()?;
//! {
//!     let mut q = NavMeshQuery::new(cache.navmesh(), 2048)?;
//!     let path = q.find_path_between(Vec3::ZERO, Vec3::new(20.0, 0.0, 5.0), &QueryFilter::default())?;
//!     println!("{} polys around the barrel", path.polys.len());
//! }
//! cache.remove(barrel)?;
//! cache.update_until_done()?;
//! # Ok::<(), navkit::Error>(())
//! ```

use std::collections::HashSet;
use std::mem::{offset_of, size_of};
use std::path::Path;
use std::time::{Duration, Instant};

use glam::Vec3;
use recastnavigation_sys as sys;

use crate::build::settings::{BuildSettings, VoxelConfig, flags};
use crate::build::tile_walkable_area;
use crate::build::tiled::{TRIS_PER_CHUNK, TileGrid};
use crate::ffi::context::{LogCategory, RecastContext};
use crate::ffi::detour::OffMeshInput;
use crate::ffi::recast::HeightfieldLayerSet;
use crate::ffi::tilecache::{
    Compressor, LAYER_HEADER_SIZE, OBSTACLE_EMPTY, OBSTACLE_PROCESSED, OBSTACLE_PROCESSING,
    OBSTACLE_REMOVING, RawObstacle, RawShape, RawTileCache, build_layer, layer_regions_fit,
};
use crate::geometry::spatial::ChunkyTriMesh;
use crate::geometry::{InputGeometry, OffMeshConnection};
use crate::navmesh::NavMesh;
use crate::navmesh::mset::{self, MAX_COORDINATE, MAX_TILES_LIMIT, NavMeshParams};
use crate::par::prelude::*;
use crate::status::Status;
use crate::{Error, Result};

/// Detour's `MAX_REQUESTS` and `MAX_UPDATE` (obstacle requests and tile rebuilds queued at once).
pub const MAX_QUEUED: usize = 64;
/// Detour's `DT_MAX_TOUCHED_TILES`: the most tile layers one obstacle can carve.
pub const MAX_TOUCHED_TILES: usize = 8;
/// The most obstacles a cache can hold (obstacle refs keep 16 bits for the index).
pub const MAX_OBSTACLES_LIMIT: i32 = 0xffff;
/// The largest tile size, in cells (layer dimensions are bytes in Detour's layer header).
pub const MAX_TILE_SIZE: i32 = 255;
/// The smallest tile size, in cells.
pub const MIN_TILE_SIZE: i32 = 8;
/// The most layers one tile may have (a layer index is a byte).
pub const MAX_LAYERS_PER_TILE: usize = 255;
/// RecastDemo's `TILECACHESET_MAGIC`, `'T'<<24 | 'S'<<16 | 'E'<<8 | 'T'`.
pub const TSET_MAGIC: i32 =
    (b'T' as i32) << 24 | (b'S' as i32) << 16 | (b'E' as i32) << 8 | b'T' as i32;
/// RecastDemo's `TILECACHESET_VERSION`.
pub const TSET_VERSION: i32 = 1;

/// Size of the `TSET` header (`TileCacheSetHeader`).
const TSET_HEADER_SIZE: usize =
    12 + size_of::<sys::dtNavMeshParams>() + size_of::<sys::dtTileCacheParams>();
/// Offset of the navmesh params in the `TSET` header.
const TSET_NAV_PARAMS: usize = 12;
/// Offset of the tile cache params in the `TSET` header.
const TSET_CACHE_PARAMS: usize = 12 + size_of::<sys::dtNavMeshParams>();
/// Size of a `TSET` tile header (`TileCacheTileHeader`).
const TSET_TILE_HEADER_SIZE: usize = 8;

/// How a tile cache is cut and sized (RecastDemo's Temp Obstacles values by default).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct TileCacheSettings {
    /// Tile size in cells ([`MIN_TILE_SIZE`]..=[`MAX_TILE_SIZE`]); 48 by default.
    pub tile_size: i32,
    /// Layers (floors) expected per tile, for sizing the cache; 4 by default. More layers than
    /// this are accepted: the cache grows to hold them.
    pub expected_layers_per_tile: i32,
    /// Most obstacles at once (1..=[`MAX_OBSTACLES_LIMIT`]); 128 by default.
    pub max_obstacles: i32,
}

impl Default for TileCacheSettings {
    fn default() -> Self {
        TileCacheSettings {
            tile_size: 48,
            expected_layers_per_tile: 4,
            max_obstacles: 128,
        }
    }
}

impl TileCacheSettings {
    /// Checks the values; errors name the setting.
    pub fn validate(&self) -> Result<()> {
        let bad = |name: &'static str, value: i32, reason: String| Error::Setting {
            name,
            value: value.to_string(),
            reason,
        };
        if !(MIN_TILE_SIZE..=MAX_TILE_SIZE).contains(&self.tile_size) {
            return Err(bad(
                "tile_size",
                self.tile_size,
                format!("must be in {MIN_TILE_SIZE}..={MAX_TILE_SIZE} cells for a tile cache"),
            ));
        }
        if !(1..=64).contains(&self.expected_layers_per_tile) {
            return Err(bad(
                "expected_layers_per_tile",
                self.expected_layers_per_tile,
                "must be in 1..=64".into(),
            ));
        }
        if !(1..=MAX_OBSTACLES_LIMIT).contains(&self.max_obstacles) {
            return Err(bad(
                "max_obstacles",
                self.max_obstacles,
                format!("must be in 1..={MAX_OBSTACLES_LIMIT}"),
            ));
        }
        Ok(())
    }
}

/// The tile cache's parameters (`dtTileCacheParams`), as stored in a `TSET` file.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TileCacheParams {
    /// World-space origin of the tile grid (the navmesh origin).
    pub origin: [f32; 3],
    /// Cell size.
    pub cell_size: f32,
    /// Cell height.
    pub cell_height: f32,
    /// Layer width in cells (the tile size).
    pub width: i32,
    /// Layer height (along z) in cells (the tile size).
    pub height: i32,
    /// Agent height (world units).
    pub walkable_height: f32,
    /// Agent radius (world units).
    pub walkable_radius: f32,
    /// Agent climb (world units).
    pub walkable_climb: f32,
    /// Contour simplification error.
    pub max_simplification_error: f32,
    /// Most compressed tile layers.
    pub max_tiles: i32,
    /// Most obstacles.
    pub max_obstacles: i32,
}

impl TileCacheParams {
    fn to_dt(self) -> sys::dtTileCacheParams {
        sys::dtTileCacheParams {
            orig: self.origin,
            cs: self.cell_size,
            ch: self.cell_height,
            width: self.width,
            height: self.height,
            walkableHeight: self.walkable_height,
            walkableRadius: self.walkable_radius,
            walkableClimb: self.walkable_climb,
            maxSimplificationError: self.max_simplification_error,
            maxTiles: self.max_tiles,
            maxObstacles: self.max_obstacles,
        }
    }

    fn from_dt(p: &sys::dtTileCacheParams) -> Self {
        TileCacheParams {
            origin: p.orig,
            cell_size: p.cs,
            cell_height: p.ch,
            width: p.width,
            height: p.height,
            walkable_height: p.walkableHeight,
            walkable_radius: p.walkableRadius,
            walkable_climb: p.walkableClimb,
            max_simplification_error: p.maxSimplificationError,
            max_tiles: p.maxTiles,
            max_obstacles: p.maxObstacles,
        }
    }

    /// Agent climb in cell heights, as `dtTileCache` computes it.
    fn climb_voxels(&self) -> i32 {
        (self.walkable_climb / self.cell_height) as i32
    }

    /// World width of a tile.
    fn tile_world_size(&self) -> (f32, f32) {
        (
            self.width as f32 * self.cell_size,
            self.height as f32 * self.cell_size,
        )
    }
}

/// An obstacle's reference: its slot and a salt, so that a ref to a removed obstacle is stale.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct ObstacleRef(pub u32);

/// The shape of an obstacle. In JSON (scenario files) it is tagged by `kind`:
/// `{"kind": "cylinder", "pos": [x, y, z], "radius": r, "height": h}`,
/// `{"kind": "box", "bmin": [..], "bmax": [..]}` or
/// `{"kind": "oriented_box", "center": [..], "half_extents": [..], "y_angle": a}`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "serde",
    serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)
)]
pub enum ObstacleShape {
    /// An upright cylinder standing on `pos`.
    Cylinder {
        /// Centre of the base.
        pos: Vec3,
        /// Radius.
        radius: f32,
        /// Height.
        height: f32,
    },
    /// An axis-aligned box.
    Box {
        /// Minimum corner.
        bmin: Vec3,
        /// Maximum corner.
        bmax: Vec3,
    },
    /// A box turned about the y axis.
    OrientedBox {
        /// Centre.
        center: Vec3,
        /// Half extents before the rotation.
        half_extents: Vec3,
        /// Rotation about y in radians (as recovered from Detour's stored form, in -pi..=pi).
        y_angle: f32,
    },
}

impl ObstacleShape {
    /// The box Detour uses to find the tiles the obstacle touches (`getObstacleBounds`; an
    /// oriented box is bounded by a square of half side `1.41 * max(half x, half z)`).
    pub fn bounds(&self) -> (Vec3, Vec3) {
        match *self {
            ObstacleShape::Cylinder {
                pos,
                radius,
                height,
            } => (
                Vec3::new(pos.x - radius, pos.y, pos.z - radius),
                Vec3::new(pos.x + radius, pos.y + height, pos.z + radius),
            ),
            ObstacleShape::Box { bmin, bmax } => (bmin, bmax),
            ObstacleShape::OrientedBox {
                center,
                half_extents,
                ..
            } => {
                let r = 1.41 * half_extents.x.max(half_extents.z);
                (
                    Vec3::new(center.x - r, center.y - half_extents.y, center.z - r),
                    Vec3::new(center.x + r, center.y + half_extents.y, center.z + r),
                )
            }
        }
    }

    /// The footprint's outline on the xz-plane at the shape's base height: a 24-gon for a
    /// cylinder, four corners for a box (turned for an oriented box). For drawing.
    pub fn outline(&self) -> Vec<Vec3> {
        match *self {
            ObstacleShape::Cylinder { pos, radius, .. } => (0..24)
                .map(|i| {
                    let a = i as f32 / 24.0 * std::f32::consts::TAU;
                    pos + Vec3::new(a.cos() * radius, 0.0, a.sin() * radius)
                })
                .collect(),
            ObstacleShape::Box { bmin, bmax } => vec![
                Vec3::new(bmin.x, bmin.y, bmin.z),
                Vec3::new(bmax.x, bmin.y, bmin.z),
                Vec3::new(bmax.x, bmin.y, bmax.z),
                Vec3::new(bmin.x, bmin.y, bmax.z),
            ],
            ObstacleShape::OrientedBox {
                center,
                half_extents: h,
                y_angle,
            } => {
                // Detour turns the box by `y_angle` about y: x' = c x + s z, z' = -s x + c z.
                let (sn, cs) = y_angle.sin_cos();
                [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                    .iter()
                    .map(|&(sx, sz)| {
                        let (x, z) = (sx * h.x, sz * h.z);
                        Vec3::new(
                            center.x + cs * x + sn * z,
                            center.y - h.y,
                            center.z - sn * x + cs * z,
                        )
                    })
                    .collect()
            }
        }
    }

    fn from_raw(s: &RawShape) -> Self {
        match *s {
            RawShape::Cylinder {
                pos,
                radius,
                height,
            } => ObstacleShape::Cylinder {
                pos: Vec3::from_array(pos),
                radius,
                height,
            },
            RawShape::Box { bmin, bmax } => ObstacleShape::Box {
                bmin: Vec3::from_array(bmin),
                bmax: Vec3::from_array(bmax),
            },
            // rotAux = [cos(a/2) sin(-a/2), cos^2(a/2) - 1/2] = [-sin(a) / 2, cos(a) / 2].
            RawShape::OrientedBox {
                center,
                half_extents,
                rot_aux,
            } => ObstacleShape::OrientedBox {
                center: Vec3::from_array(center),
                half_extents: Vec3::from_array(half_extents),
                y_angle: (-rot_aux[0]).atan2(rot_aux[1]),
            },
        }
    }
}

/// Where an obstacle is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum ObstacleState {
    /// Added; some tiles it touches are not rebuilt yet.
    Processing,
    /// Carved into every tile it touches.
    Processed,
    /// Removal requested; some tiles it touched are not rebuilt yet.
    Removing,
}

/// An obstacle, for listing and drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Obstacle {
    /// Its reference.
    pub obstacle: ObstacleRef,
    /// Its shape.
    pub shape: ObstacleShape,
    /// Its state.
    pub state: ObstacleState,
}

/// What an [`TileCache::update`] call did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct UpdateReport {
    /// `dtTileCache::update` steps taken.
    pub steps: usize,
    /// Tile layers rebuilt (one per step at most).
    pub tiles_rebuilt: usize,
    /// True when no request and no rebuild is left.
    pub up_to_date: bool,
    /// Time spent.
    pub elapsed: Duration,
}

/// The layer guard's counts (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GuardStats {
    /// Tile layers checked before Detour partitioned them.
    pub checks: u64,
    /// Tile layers Detour was not allowed to partition (they would overflow its neighbour
    /// lists).
    pub refused: u64,
}

/// What a tile cache build or load made.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileCacheReport {
    /// Tile positions along x.
    pub tiles_x: i32,
    /// Tile positions along z.
    pub tiles_z: i32,
    /// Compressed tile layers in the cache.
    pub layers: usize,
    /// Bytes of compressed layers (headers included).
    pub compressed_bytes: usize,
    /// Bytes the layers take uncompressed (RecastDemo's measure: header + 4 bytes per cell).
    pub raw_bytes: usize,
    /// Navmesh tiles built.
    pub navmesh_tiles: usize,
    /// Tile and poly bits of the navmesh's refs.
    pub ref_bits: (u32, u32),
    /// Wall-clock milliseconds of the build or load.
    pub total_ms: f64,
    /// Recast's warnings.
    pub warnings: Vec<String>,
}

/// Detour's tile cache with its navmesh: see the module docs.
pub struct TileCache {
    raw: RawTileCache,
    navmesh: NavMesh,
    /// Obstacles whose removal is queued in Detour but not yet processed.
    removal_requested: HashSet<u32>,
    /// Tile layers the queued requests will touch (at most [`MAX_QUEUED`] without loss).
    queued_touches: usize,
    report: TileCacheReport,
}

fn detour_err(operation: &'static str, status: u32) -> Error {
    Error::Detour {
        operation,
        status: Status(status),
    }
}

/// Detour's `dtNextPow2` / `dtIlog2` on positive values.
fn ilog2_next_pow2(v: u32) -> u32 {
    v.max(1).next_power_of_two().ilog2()
}

/// RecastDemo's flags for each area id (the solo build's [`flags::for_area`]).
fn flag_table() -> [u16; 64] {
    let mut t = [0u16; 64];
    for (a, f) in t.iter_mut().enumerate() {
        *f = flags::for_area(a as u8);
    }
    t
}

/// Off-mesh connections as the mesh process wants them (validated first).
struct OffMeshArrays {
    verts: Vec<f32>,
    radii: Vec<f32>,
    flags: Vec<u16>,
    areas: Vec<u8>,
    dirs: Vec<u8>,
    ids: Vec<u32>,
}

impl OffMeshArrays {
    fn new(cons: &[OffMeshConnection]) -> Result<Self> {
        for (i, c) in cons.iter().enumerate() {
            let finite = c.start.is_finite()
                && c.end.is_finite()
                && c.start.abs().max_element() <= MAX_COORDINATE
                && c.end.abs().max_element() <= MAX_COORDINATE
                && c.radius.is_finite()
                && c.radius > 0.0;
            if !finite || c.area > 63 {
                return Err(Error::InvalidArgument(format!(
                    "off-mesh connection {i} needs finite end points, a finite radius > 0 and an \
                     area <= 63"
                )));
            }
        }
        Ok(OffMeshArrays {
            verts: cons
                .iter()
                .flat_map(|c| [c.start.to_array(), c.end.to_array()].concat())
                .collect(),
            radii: cons.iter().map(|c| c.radius).collect(),
            flags: cons.iter().map(|c| c.flags).collect(),
            areas: cons.iter().map(|c| c.area).collect(),
            dirs: cons.iter().map(|c| u8::from(c.bidirectional)).collect(),
            ids: cons.iter().map(|c| c.user_id).collect(),
        })
    }

    fn input(&self) -> OffMeshInput<'_> {
        OffMeshInput {
            verts: &self.verts,
            radii: &self.radii,
            flags: &self.flags,
            areas: &self.areas,
            dirs: &self.dirs,
            user_ids: &self.ids,
        }
    }
}

/// Offsets of `dtTileCacheLayerHeader` fields.
mod lh {
    use super::*;
    pub const MAGIC: usize = offset_of!(sys::dtTileCacheLayerHeader, magic);
    pub const VERSION: usize = offset_of!(sys::dtTileCacheLayerHeader, version);
    pub const TX: usize = offset_of!(sys::dtTileCacheLayerHeader, tx);
    pub const TY: usize = offset_of!(sys::dtTileCacheLayerHeader, ty);
    pub const TLAYER: usize = offset_of!(sys::dtTileCacheLayerHeader, tlayer);
    pub const BMIN: usize = offset_of!(sys::dtTileCacheLayerHeader, bmin);
    pub const BMAX: usize = offset_of!(sys::dtTileCacheLayerHeader, bmax);
    pub const HMIN: usize = offset_of!(sys::dtTileCacheLayerHeader, hmin);
    pub const HMAX: usize = offset_of!(sys::dtTileCacheLayerHeader, hmax);
    pub const WIDTH: usize = offset_of!(sys::dtTileCacheLayerHeader, width);
    pub const HEIGHT: usize = offset_of!(sys::dtTileCacheLayerHeader, height);
    pub const MINX: usize = offset_of!(sys::dtTileCacheLayerHeader, minx);
    pub const MAXX: usize = offset_of!(sys::dtTileCacheLayerHeader, maxx);
    pub const MINY: usize = offset_of!(sys::dtTileCacheLayerHeader, miny);
    pub const MAXY: usize = offset_of!(sys::dtTileCacheLayerHeader, maxy);
}

/// Offsets of `dtNavMeshParams` and `dtTileCacheParams` fields.
mod pp {
    use super::*;
    pub const N_TILE_WIDTH: usize = offset_of!(sys::dtNavMeshParams, tileWidth);
    pub const N_TILE_HEIGHT: usize = offset_of!(sys::dtNavMeshParams, tileHeight);
    pub const C_ORIG: usize = offset_of!(sys::dtTileCacheParams, orig);
    pub const C_CS: usize = offset_of!(sys::dtTileCacheParams, cs);
    pub const C_CH: usize = offset_of!(sys::dtTileCacheParams, ch);
    pub const C_WIDTH: usize = offset_of!(sys::dtTileCacheParams, width);
    pub const C_HEIGHT: usize = offset_of!(sys::dtTileCacheParams, height);
    pub const C_WALKABLE_HEIGHT: usize = offset_of!(sys::dtTileCacheParams, walkableHeight);
    pub const C_WALKABLE_RADIUS: usize = offset_of!(sys::dtTileCacheParams, walkableRadius);
    pub const C_WALKABLE_CLIMB: usize = offset_of!(sys::dtTileCacheParams, walkableClimb);
    pub const C_MAX_ERROR: usize = offset_of!(sys::dtTileCacheParams, maxSimplificationError);
    pub const C_MAX_TILES: usize = offset_of!(sys::dtTileCacheParams, maxTiles);
    pub const C_MAX_OBSTACLES: usize = offset_of!(sys::dtTileCacheParams, maxObstacles);
}

/// The layer header fields, read from (or written to) bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct LayerHeader {
    tx: i32,
    ty: i32,
    tlayer: i32,
    bmin: [f32; 3],
    bmax: [f32; 3],
    hmin: u16,
    hmax: u16,
    width: u8,
    height: u8,
    minx: u8,
    maxx: u8,
    miny: u8,
    maxy: u8,
}

// Byte readers that never panic: `mset`'s.
use crate::navmesh::mset::{f32_at, i32_at, u8_at, u16_at};

/// A finite float within [`MAX_COORDINATE`], or an error naming it and its offset.
fn coord(v: f32, off: usize, what: &str) -> Result<f32> {
    if !v.is_finite() || v.abs() > MAX_COORDINATE {
        return Err(Error::data(
            off,
            format!("{what} is {v}, must be finite and within +-{MAX_COORDINATE:e}"),
        ));
    }
    Ok(v)
}

fn read_layer_header(data: &[u8], base: usize) -> Result<LayerHeader> {
    let f = |o: usize| f32_at(data, base + o);
    Ok(LayerHeader {
        tx: i32_at(data, base + lh::TX)?,
        ty: i32_at(data, base + lh::TY)?,
        tlayer: i32_at(data, base + lh::TLAYER)?,
        bmin: [f(lh::BMIN)?, f(lh::BMIN + 4)?, f(lh::BMIN + 8)?],
        bmax: [f(lh::BMAX)?, f(lh::BMAX + 4)?, f(lh::BMAX + 8)?],
        hmin: u16_at(data, base + lh::HMIN)?,
        hmax: u16_at(data, base + lh::HMAX)?,
        width: u8_at(data, base + lh::WIDTH)?,
        height: u8_at(data, base + lh::HEIGHT)?,
        minx: u8_at(data, base + lh::MINX)?,
        maxx: u8_at(data, base + lh::MAXX)?,
        miny: u8_at(data, base + lh::MINY)?,
        maxy: u8_at(data, base + lh::MAXY)?,
    })
}

fn layer_header_to_dt(h: &LayerHeader) -> sys::dtTileCacheLayerHeader {
    sys::dtTileCacheLayerHeader {
        magic: sys::DT_TILECACHE_MAGIC,
        version: sys::DT_TILECACHE_VERSION,
        tx: h.tx,
        ty: h.ty,
        tlayer: h.tlayer,
        bmin: h.bmin,
        bmax: h.bmax,
        hmin: h.hmin,
        hmax: h.hmax,
        width: h.width,
        height: h.height,
        minx: h.minx,
        maxx: h.maxx,
        miny: h.miny,
        maxy: h.maxy,
    }
}

/// Checks tile cache parameters: everything `dtTileCache::init` and the tile builds rely on.
/// Error offsets are relative to the start of `dtTileCacheParams`.
pub fn validate_cache_params(p: &TileCacheParams) -> Result<()> {
    for (a, &v) in p.origin.iter().enumerate() {
        coord(
            v,
            pp::C_ORIG + 4 * a,
            &format!("tile cache params orig[{a}]"),
        )?;
    }
    for (name, v, off, min, max) in [
        ("cs", p.cell_size, pp::C_CS, 1e-3, 1e4),
        ("ch", p.cell_height, pp::C_CH, 1e-3, 1e4),
        (
            "walkableHeight",
            p.walkable_height,
            pp::C_WALKABLE_HEIGHT,
            1e-6,
            1e6,
        ),
        (
            "walkableRadius",
            p.walkable_radius,
            pp::C_WALKABLE_RADIUS,
            0.0,
            1e6,
        ),
        (
            "walkableClimb",
            p.walkable_climb,
            pp::C_WALKABLE_CLIMB,
            0.0,
            1e6,
        ),
        (
            "maxSimplificationError",
            p.max_simplification_error,
            pp::C_MAX_ERROR,
            0.0,
            1e4,
        ),
    ] {
        if !(v.is_finite() && v >= min && v <= max) {
            return Err(Error::data(
                off,
                format!("tile cache params {name} is {v}, must be in {min}..={max}"),
            ));
        }
    }
    if p.walkable_climb / p.cell_height > 255.0 {
        return Err(Error::data(
            pp::C_WALKABLE_CLIMB,
            format!(
                "tile cache params walkableClimb {} is more than 255 cell heights",
                p.walkable_climb
            ),
        ));
    }
    for (name, v, off) in [
        ("width", p.width, pp::C_WIDTH),
        ("height", p.height, pp::C_HEIGHT),
    ] {
        if !(1..=MAX_TILE_SIZE).contains(&v) {
            return Err(Error::data(
                off,
                format!("tile cache params {name} is {v}, must be in 1..={MAX_TILE_SIZE}"),
            ));
        }
    }
    if !(1..=MAX_TILES_LIMIT).contains(&p.max_tiles) {
        return Err(Error::data(
            pp::C_MAX_TILES,
            format!(
                "tile cache params maxTiles is {}, must be in 1..={MAX_TILES_LIMIT}",
                p.max_tiles
            ),
        ));
    }
    if !(1..=MAX_OBSTACLES_LIMIT).contains(&p.max_obstacles) {
        return Err(Error::data(
            pp::C_MAX_OBSTACLES,
            format!(
                "tile cache params maxObstacles is {}, must be in 1..={MAX_OBSTACLES_LIMIT}",
                p.max_obstacles
            ),
        ));
    }
    Ok(())
}

/// Checks one compressed tile layer against the cache parameters: header magic, version,
/// position and bounds consistent with the tile grid, dimensions equal to the tile size, usable
/// sub-region inside the layer, grids that decompress to exactly `3 * width * height` bytes,
/// area ids `<= 63`, connections only towards cells inside the layer, and a region partition
/// that fits Detour's neighbour lists. Offsets in errors are relative to the start of `data`.
fn validate_layer(data: &[u8], p: &TileCacheParams, comp: &mut Compressor) -> Result<LayerHeader> {
    if data.len() <= LAYER_HEADER_SIZE {
        return Err(Error::data(
            data.len(),
            format!(
                "tile layer is {} bytes, not more than its {LAYER_HEADER_SIZE}-byte header",
                data.len()
            ),
        ));
    }
    let magic = i32_at(data, lh::MAGIC)?;
    if magic != sys::DT_TILECACHE_MAGIC {
        return Err(Error::data(
            lh::MAGIC,
            format!(
                "layer magic is 0x{magic:08x}, expected 0x{:08x} ('DTLR')",
                sys::DT_TILECACHE_MAGIC
            ),
        ));
    }
    let version = i32_at(data, lh::VERSION)?;
    if version != sys::DT_TILECACHE_VERSION {
        return Err(Error::data(
            lh::VERSION,
            format!(
                "layer version is {version}, expected {}",
                sys::DT_TILECACHE_VERSION
            ),
        ));
    }
    let h = read_layer_header(data, 0)?;
    const TILE_LIMIT: i32 = 1 << 20;
    for (name, v, off) in [("tx", h.tx, lh::TX), ("ty", h.ty, lh::TY)] {
        if !(-TILE_LIMIT..=TILE_LIMIT).contains(&v) {
            return Err(Error::data(
                off,
                format!("layer {name} is {v}, beyond +-{TILE_LIMIT}"),
            ));
        }
    }
    if !(0..MAX_LAYERS_PER_TILE as i32).contains(&h.tlayer) {
        return Err(Error::data(
            lh::TLAYER,
            format!(
                "layer index is {}, must be in 0..{MAX_LAYERS_PER_TILE}",
                h.tlayer
            ),
        ));
    }
    for a in 0..3 {
        coord(h.bmin[a], lh::BMIN + 4 * a, &format!("layer bmin[{a}]"))?;
        coord(h.bmax[a], lh::BMAX + 4 * a, &format!("layer bmax[{a}]"))?;
    }
    if h.bmin[1] > h.bmax[1] {
        return Err(Error::data(
            lh::BMIN + 4,
            format!("layer bmin.y {} > bmax.y {}", h.bmin[1], h.bmax[1]),
        ));
    }
    // Where the tile grid puts this tile, and how big the layer is in world units.
    let (tw, th) = p.tile_world_size();
    let expect = [
        (
            lh::BMIN,
            h.bmin[0],
            p.origin[0] + h.tx as f32 * tw,
            "bmin.x",
        ),
        (
            lh::BMIN + 8,
            h.bmin[2],
            p.origin[2] + h.ty as f32 * th,
            "bmin.z",
        ),
        (lh::BMAX, h.bmax[0], h.bmin[0] + tw, "bmax.x"),
        (lh::BMAX + 8, h.bmax[2], h.bmin[2] + th, "bmax.z"),
    ];
    for (off, got, want, name) in expect {
        let tol = 0.05 * p.cell_size + 1e-5 * want.abs();
        if (got - want).abs() > tol {
            return Err(Error::data(
                off,
                format!(
                    "layer {name} is {got}, but tile ({}, {}) of the grid puts it at {want}",
                    h.tx, h.ty
                ),
            ));
        }
    }
    if h.hmin > h.hmax {
        return Err(Error::data(
            lh::HMIN,
            format!("layer hmin {} > hmax {}", h.hmin, h.hmax),
        ));
    }
    if i32::from(h.width) != p.width || i32::from(h.height) != p.height {
        return Err(Error::data(
            lh::WIDTH,
            format!(
                "layer is {} x {} cells, the cache's tiles are {} x {}",
                h.width, h.height, p.width, p.height
            ),
        ));
    }
    if h.minx > h.maxx || h.maxx >= h.width {
        return Err(Error::data(
            lh::MINX,
            format!(
                "layer x range {}..={} is not inside its width {}",
                h.minx, h.maxx, h.width
            ),
        ));
    }
    if h.miny > h.maxy || h.maxy >= h.height {
        return Err(Error::data(
            lh::MINY,
            format!(
                "layer z range {}..={} is not inside its height {}",
                h.miny, h.maxy, h.height
            ),
        ));
    }
    let (w, hh) = (h.width as usize, h.height as usize);
    let cells = w * hh;
    let grids = comp
        .decompress_grids(&data[LAYER_HEADER_SIZE..], cells)
        .map_err(|_| {
            Error::data(
                LAYER_HEADER_SIZE,
                format!(
                    "layer grids do not decompress (LZ4 block) to exactly {} bytes ({w} x {hh} \
                     cells x heights, areas, connections)",
                    cells * 3
                ),
            )
        })?;
    let (heights, rest) = grids.split_at(cells);
    let (areas, cons) = rest.split_at(cells);
    if let Some(i) = areas.iter().position(|&a| a > 63) {
        return Err(Error::data(
            LAYER_HEADER_SIZE,
            format!("layer cell {i} has area {} > 63", areas[i]),
        ));
    }
    for (i, &c) in cons.iter().enumerate() {
        let (x, z) = (i % w, i / w);
        // Connection bits 0..4: -x, +z, +x, -z (Detour's direction order).
        let outside = [x == 0, z + 1 == hh, x + 1 == w, z == 0];
        if let Some(dir) = (0..4).find(|&d| c & (1 << d) != 0 && outside[d]) {
            return Err(Error::data(
                LAYER_HEADER_SIZE,
                format!("layer cell ({x}, {z}) connects in direction {dir}, outside the layer"),
            ));
        }
    }
    if !layer_regions_fit(w, hh, heights, areas, p.climb_voxels()) {
        return Err(Error::data(
            LAYER_HEADER_SIZE,
            "layer regions would overflow Detour's 16 neighbours per region (upstream issue \
             #452)",
        ));
    }
    Ok(h)
}

/// The contents of a `TSET` file, validated.
#[derive(Clone, Debug, PartialEq)]
pub struct TileCacheSet {
    /// The navmesh parameters.
    pub navmesh: NavMeshParams,
    /// The tile cache parameters.
    pub cache: TileCacheParams,
    /// The compressed tiles in file order: the ref they had and their data.
    pub tiles: Vec<(u32, Vec<u8>)>,
}

/// Parses and validates a `TSET` file.
///
/// Checks the header (magic, version, tile count within both caches' limits and the file), the
/// navmesh parameters ([`mset::validate_params`]), the tile cache parameters
/// ([`validate_cache_params`]) and that both describe the same tile grid, every tile header (ref
/// non-zero, decoding to a distinct tile index below `maxTiles` with a non-zero salt, data size
/// within the file), every layer (see the module docs: magic, version, position, dimensions,
/// exact decompressed size, areas, connections, region partition), that no two layers share a
/// position, and that nothing follows the last tile. Offsets in errors are file offsets.
pub fn read_tset(bytes: &[u8]) -> Result<TileCacheSet> {
    let num_tiles =
        mset::read_set_header(bytes, TSET_HEADER_SIZE, TSET_MAGIC, TSET_VERSION, "TSET")?;
    let n = TSET_NAV_PARAMS;
    let navmesh = mset::read_checked_params(bytes, n)?;
    let c = TSET_CACHE_PARAMS;
    let cache = TileCacheParams {
        origin: [
            f32_at(bytes, c + pp::C_ORIG)?,
            f32_at(bytes, c + pp::C_ORIG + 4)?,
            f32_at(bytes, c + pp::C_ORIG + 8)?,
        ],
        cell_size: f32_at(bytes, c + pp::C_CS)?,
        cell_height: f32_at(bytes, c + pp::C_CH)?,
        width: i32_at(bytes, c + pp::C_WIDTH)?,
        height: i32_at(bytes, c + pp::C_HEIGHT)?,
        walkable_height: f32_at(bytes, c + pp::C_WALKABLE_HEIGHT)?,
        walkable_radius: f32_at(bytes, c + pp::C_WALKABLE_RADIUS)?,
        walkable_climb: f32_at(bytes, c + pp::C_WALKABLE_CLIMB)?,
        max_simplification_error: f32_at(bytes, c + pp::C_MAX_ERROR)?,
        max_tiles: i32_at(bytes, c + pp::C_MAX_TILES)?,
        max_obstacles: i32_at(bytes, c + pp::C_MAX_OBSTACLES)?,
    };
    validate_cache_params(&cache).map_err(|e| match e {
        Error::NavMeshData { offset, message } => Error::data(c + offset, message),
        other => other,
    })?;
    // Both parameter sets must describe one tile grid.
    let (tw, th) = cache.tile_world_size();
    for a in 0..3 {
        if (navmesh.origin[a] - cache.origin[a]).abs() > 1e-3 * cache.cell_size {
            return Err(Error::data(
                c + pp::C_ORIG + 4 * a,
                format!(
                    "tile cache origin[{a}] {} differs from the navmesh origin {}",
                    cache.origin[a], navmesh.origin[a]
                ),
            ));
        }
    }
    for (name, got, want, off) in [
        ("tileWidth", navmesh.tile_width, tw, n + pp::N_TILE_WIDTH),
        ("tileHeight", navmesh.tile_height, th, n + pp::N_TILE_HEIGHT),
    ] {
        if (got - want).abs() > 1e-3 * cache.cell_size {
            return Err(Error::data(
                off,
                format!(
                    "navmesh {name} {got} is not the tile cache's tile size x cell size {want}"
                ),
            ));
        }
    }
    let num_tiles = usize::try_from(num_tiles)
        .map_err(|_| Error::data(8, format!("numTiles is {num_tiles}, must be >= 0")))?;
    let limit = (cache.max_tiles.min(navmesh.max_tiles)) as usize;
    if num_tiles > limit {
        return Err(Error::data(
            8,
            format!(
                "numTiles {num_tiles} exceeds the cache's maxTiles {} or the navmesh's {}",
                cache.max_tiles, navmesh.max_tiles
            ),
        ));
    }
    let rest = bytes.len() - TSET_HEADER_SIZE;
    if num_tiles > rest / (TSET_TILE_HEADER_SIZE + LAYER_HEADER_SIZE + 1) {
        return Err(Error::data(
            8,
            format!(
                "numTiles {num_tiles} cannot fit in the {rest} bytes after the header (each tile \
                 needs at least {} bytes)",
                TSET_TILE_HEADER_SIZE + LAYER_HEADER_SIZE + 1
            ),
        ));
    }

    // Tile refs as dtTileCache::init splits them.
    let tile_bits = ilog2_next_pow2(cache.max_tiles as u32);
    let salt_bits = 31.min(32 - tile_bits);
    let mut comp = Compressor::new();
    let mut by_index: HashSet<u32> = HashSet::new();
    let mut by_position: HashSet<(i32, i32, i32)> = HashSet::new();
    let mut tiles = Vec::with_capacity(num_tiles);
    let mut pos = TSET_HEADER_SIZE;
    for t in 0..num_tiles {
        let header_at = pos;
        let (tile_ref, data) = mset::read_tile_record(bytes, pos, t, num_tiles)?;
        pos += TSET_TILE_HEADER_SIZE;
        let index = tile_ref & ((1u32 << tile_bits) - 1);
        let salt = (u64::from(tile_ref) >> tile_bits) as u32;
        if index >= cache.max_tiles as u32 || salt == 0 || u64::from(salt) >= 1u64 << salt_bits {
            return Err(Error::data(
                header_at,
                format!(
                    "tile {t} ref 0x{tile_ref:08x} is not a tile cache ref (index {index} of \
                     maxTiles {}, salt {salt})",
                    cache.max_tiles
                ),
            ));
        }
        if !by_index.insert(index) {
            return Err(Error::data(
                header_at,
                format!("tile {t} ref 0x{tile_ref:08x} uses tile index {index} a second time"),
            ));
        }
        let size = data.len();
        let h = validate_layer(data, &cache, &mut comp).map_err(|e| match e {
            Error::NavMeshData { offset, message } => Error::data(
                pos + offset,
                format!("tile {t} (data at byte {pos}): {message}"),
            ),
            other => other,
        })?;
        if !by_position.insert((h.tx, h.ty, h.tlayer)) {
            return Err(Error::data(
                pos + lh::TX,
                format!(
                    "tile {t} is at (x {}, y {}, layer {}), as an earlier tile is",
                    h.tx, h.ty, h.tlayer
                ),
            ));
        }
        tiles.push((tile_ref, data.to_vec()));
        pos += size;
    }
    mset::check_no_trailing(bytes, pos, num_tiles)?;
    Ok(TileCacheSet {
        navmesh,
        cache,
        tiles,
    })
}

/// Serialises a tile cache set in RecastDemo's `TSET` format (little-endian). Does not
/// validate; [`read_tset`] does.
pub fn write_tset(set: &TileCacheSet) -> Vec<u8> {
    let clamp = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    let mut out = Vec::with_capacity(
        TSET_HEADER_SIZE
            + set
                .tiles
                .iter()
                .map(|(_, d)| TSET_TILE_HEADER_SIZE + d.len())
                .sum::<usize>(),
    );
    out.extend_from_slice(&TSET_MAGIC.to_le_bytes());
    out.extend_from_slice(&TSET_VERSION.to_le_bytes());
    out.extend_from_slice(&clamp(set.tiles.len()).to_le_bytes());
    mset::write_params(&mut out, &set.navmesh);
    let put = |buf: &mut [u8], off: usize, b: [u8; 4]| buf[off..off + 4].copy_from_slice(&b);
    let mut cache = [0u8; size_of::<sys::dtTileCacheParams>()];
    let cp = &set.cache;
    for a in 0..3 {
        put(&mut cache, pp::C_ORIG + 4 * a, cp.origin[a].to_le_bytes());
    }
    put(&mut cache, pp::C_CS, cp.cell_size.to_le_bytes());
    put(&mut cache, pp::C_CH, cp.cell_height.to_le_bytes());
    put(&mut cache, pp::C_WIDTH, cp.width.to_le_bytes());
    put(&mut cache, pp::C_HEIGHT, cp.height.to_le_bytes());
    put(
        &mut cache,
        pp::C_WALKABLE_HEIGHT,
        cp.walkable_height.to_le_bytes(),
    );
    put(
        &mut cache,
        pp::C_WALKABLE_RADIUS,
        cp.walkable_radius.to_le_bytes(),
    );
    put(
        &mut cache,
        pp::C_WALKABLE_CLIMB,
        cp.walkable_climb.to_le_bytes(),
    );
    put(
        &mut cache,
        pp::C_MAX_ERROR,
        cp.max_simplification_error.to_le_bytes(),
    );
    put(&mut cache, pp::C_MAX_TILES, cp.max_tiles.to_le_bytes());
    put(
        &mut cache,
        pp::C_MAX_OBSTACLES,
        cp.max_obstacles.to_le_bytes(),
    );
    out.extend_from_slice(&cache);
    for (r, data) in &set.tiles {
        out.extend_from_slice(&r.to_le_bytes());
        out.extend_from_slice(&clamp(data.len()).to_le_bytes());
        out.extend_from_slice(data);
    }
    out
}

/// Compresses layer grids (heights, areas and connections, one byte per cell each) through
/// navkit's tile cache compressor, exactly as Detour does when it stores a layer.
pub fn compress_layer_grids(grids: &[u8]) -> Result<Vec<u8>> {
    if !grids.len().is_multiple_of(3) {
        return Err(Error::InvalidArgument(format!(
            "layer grids are 3 bytes per cell; got {} bytes",
            grids.len()
        )));
    }
    Compressor::new()
        .compress(grids)
        .map_err(|s| detour_err("dtTileCacheCompressor::compress", s))
}

/// Decompresses the grids of a `cells`-cell layer through navkit's tile cache compressor,
/// exactly as Detour does before rebuilding a tile: corrupt data, or data that does not come
/// out at exactly `3 * cells` bytes, is an error.
pub fn decompress_layer_grids(compressed: &[u8], cells: usize) -> Result<Vec<u8>> {
    Compressor::new()
        .decompress_grids(compressed, cells)
        .map_err(|s| detour_err("dtTileCacheCompressor::decompress", s))
}

/// The voxel grid of tile (x, z): the tile plus `border` cells on every side (RecastDemo's
/// `rasterizeTileLayers`).
fn tile_config(base: &VoxelConfig, grid: &TileGrid, x: i32, z: i32) -> VoxelConfig {
    let mut cfg = base.clone();
    let ts = grid.tile_size;
    let border = cfg.walkable_radius + 3;
    cfg.tile_size = ts;
    cfg.border_size = border;
    cfg.width = ts + border * 2;
    cfg.height = ts + border * 2;
    let (tmin, tmax) = grid.tile_bounds(x, z);
    let b = border as f32 * cfg.cs;
    cfg.bmin = [tmin.x - b, base.bmin[1], tmin.z - b];
    cfg.bmax = [tmax.x + b, base.bmax[1], tmax.z + b];
    cfg
}

/// A tile's compressed layers (in layer order) and Recast's warnings.
type TileLayers = (Vec<Vec<u8>>, Vec<String>);

/// Rasterizes tile (x, z) into heightfield layers and compresses each: the layers' data, in
/// layer order, and Recast's warnings.
#[allow(clippy::too_many_arguments)]
fn tile_layers(
    ctx: &mut RecastContext,
    comp: &mut Compressor,
    geom: &InputGeometry,
    index: &ChunkyTriMesh,
    settings: &BuildSettings,
    base: &VoxelConfig,
    grid: &TileGrid,
    (x, z): (i32, i32),
) -> Result<TileLayers> {
    ctx.take_logs();
    let cfg = tile_config(base, grid, x, z);
    let mut out = Vec::new();
    if let Some(chf) = tile_walkable_area(ctx, geom, index, &cfg, settings)? {
        let mut lset = HeightfieldLayerSet::new();
        if !lset.build(ctx, &chf, cfg.border_size, cfg.walkable_height) {
            let logs: Vec<String> = ctx
                .take_logs()
                .into_iter()
                .filter(|l| l.category != LogCategory::Progress)
                .map(|l| l.text)
                .collect();
            return Err(Error::Build {
                stage: "heightfield_layers",
                message: format!(
                    "tile ({x}, {z}): rcBuildHeightfieldLayers failed; {}",
                    logs.join("; ")
                ),
            });
        }
        let layers = lset.layers();
        if layers.len() > MAX_LAYERS_PER_TILE {
            return Err(Error::Build {
                stage: "heightfield_layers",
                message: format!(
                    "tile ({x}, {z}) has {} layers; at most {MAX_LAYERS_PER_TILE} fit",
                    layers.len()
                ),
            });
        }
        for (i, l) in layers.iter().enumerate() {
            let dims_ok = l.width == grid.tile_size
                && l.height == grid.tile_size
                && (0..=l.maxx).contains(&l.minx)
                && l.maxx < l.width
                && (0..=l.maxy).contains(&l.miny)
                && l.maxy < l.height
                && (0..=l.hmax).contains(&l.hmin)
                && l.hmax <= i32::from(u16::MAX);
            if !dims_ok {
                return Err(Error::Build {
                    stage: "heightfield_layers",
                    message: format!(
                        "tile ({x}, {z}) layer {i} is {} x {} cells (x {}..={}, z {}..={}, h \
                         {}..={}); expected {} x {}",
                        l.width,
                        l.height,
                        l.minx,
                        l.maxx,
                        l.miny,
                        l.maxy,
                        l.hmin,
                        l.hmax,
                        grid.tile_size,
                        grid.tile_size
                    ),
                });
            }
            let header = LayerHeader {
                tx: x,
                ty: z,
                tlayer: i as i32,
                bmin: l.bmin,
                bmax: l.bmax,
                hmin: l.hmin as u16,
                hmax: l.hmax as u16,
                width: l.width as u8,
                height: l.height as u8,
                minx: l.minx as u8,
                maxx: l.maxx as u8,
                miny: l.miny as u8,
                maxy: l.maxy as u8,
            };
            let data = build_layer(
                comp,
                &layer_header_to_dt(&header),
                l.heights,
                l.areas,
                l.cons,
            )
            .map_err(|s| detour_err("dtBuildTileCacheLayer", s))?;
            out.push(data);
        }
    }
    let warnings = ctx
        .take_logs()
        .into_iter()
        .filter(|l| l.category != LogCategory::Progress)
        .map(|l| format!("tile ({x}, {z}): {}", l.text))
        .collect();
    Ok((out, warnings))
}

/// Offset of `polyCount` in a navmesh tile's header.
const MESH_POLY_COUNT: usize = offset_of!(sys::dtMeshHeader, polyCount);

impl TileCache {
    /// Builds the tile cache of `geom` with `settings` (cell sizes, agent, filters, region and
    /// contour settings; `settings.tile_size` is replaced by `cache.tile_size`) and fills its
    /// navmesh, as RecastDemo's Temp Obstacles sample: each tile rasterizes only the triangles
    /// near it, with a border of `agent radius + 3` cells, then its heightfield layers are
    /// compressed into the cache and built into navmesh tiles. Tiles are rasterized in parallel;
    /// the result does not depend on the number of threads. The geometry's convex volumes and
    /// off-mesh connections are used.
    pub fn build(
        geom: &InputGeometry,
        settings: &BuildSettings,
        cache: &TileCacheSettings,
    ) -> Result<TileCache> {
        let started = Instant::now();
        geom.validate()?;
        cache.validate()?;
        let mut settings = settings.clone();
        settings.tile_size = cache.tile_size as f32;
        let (bmin, bmax) = geom.mesh.bounds();
        let grid = TileGrid::new(bmin, bmax, &settings)?;
        let base = settings.to_config(bmin, bmax)?;
        let index = ChunkyTriMesh::new(&geom.mesh, TRIS_PER_CHUNK);
        let positions = grid.all_tiles();
        let built: Vec<Result<TileLayers>> = positions
            .par_iter()
            .map_init(
                || (RecastContext::new(), Compressor::new()),
                |(ctx, comp), &pos| {
                    tile_layers(ctx, comp, geom, &index, &settings, &base, &grid, pos)
                },
            )
            .collect();
        let mut layers = Vec::new();
        let mut warnings = Vec::new();
        for b in built {
            let (l, w) = b?;
            layers.extend(l);
            warnings.extend(w);
        }

        // Sizes as RecastDemo, grown if the level has more layers than expected.
        let expected = grid.tile_count() * cache.expected_layers_per_tile as usize;
        let cache_tiles = expected.max(layers.len()).max(1);
        if cache_tiles > MAX_TILES_LIMIT as usize {
            return Err(Error::Build {
                stage: "tile_cache",
                message: format!(
                    "{cache_tiles} tile layers; at most {MAX_TILES_LIMIT} fit (use bigger tiles)"
                ),
            });
        }
        let tile_bits = ilog2_next_pow2(expected.max(1) as u32)
            .min(14)
            .max(ilog2_next_pow2(layers.len().max(1) as u32));
        if tile_bits > 22 {
            return Err(Error::Build {
                stage: "tile_cache",
                message: format!(
                    "{} tile layers need {tile_bits} tile bits; at most 22 fit in a poly ref",
                    layers.len()
                ),
            });
        }
        let nav_params = NavMeshParams {
            origin: base.bmin,
            tile_width: grid.tile_width(),
            tile_height: grid.tile_width(),
            max_tiles: 1 << tile_bits,
            max_polys: 1 << (22 - tile_bits),
        };
        let params = TileCacheParams {
            origin: base.bmin,
            cell_size: base.cs,
            cell_height: base.ch,
            width: grid.tile_size,
            height: grid.tile_size,
            walkable_height: settings.agent_height,
            walkable_radius: settings.agent_radius,
            walkable_climb: settings.agent_max_climb,
            max_simplification_error: settings.edge_max_error,
            max_tiles: cache_tiles as i32,
            max_obstacles: cache.max_obstacles,
        };
        let off = OffMeshArrays::new(&geom.off_mesh_connections)?;
        let mut tc = Self::empty(&nav_params, &params, &off)?;
        for data in &layers {
            tc.raw
                .add_tile(data)
                .map_err(|s| detour_err("dtTileCache::addTile", s))?;
        }
        let order: Vec<(i32, i32)> = positions;
        tc.build_navmesh_tiles(&order)?;
        tc.report = TileCacheReport {
            tiles_x: grid.tiles_x,
            tiles_z: grid.tiles_z,
            layers: layers.len(),
            compressed_bytes: layers.iter().map(Vec::len).sum(),
            raw_bytes: layers.len()
                * (LAYER_HEADER_SIZE + 4 * (grid.tile_size * grid.tile_size) as usize),
            navmesh_tiles: tc.navmesh.tile_count(),
            ref_bits: (tile_bits, 22 - tile_bits),
            total_ms: started.elapsed().as_secs_f64() * 1e3,
            warnings,
        };
        Ok(tc)
    }

    /// An empty cache and navmesh with these (checked) parameters.
    fn empty(
        nav_params: &NavMeshParams,
        params: &TileCacheParams,
        off: &OffMeshArrays,
    ) -> Result<TileCache> {
        mset::validate_params(nav_params)?;
        validate_cache_params(params)?;
        let navmesh = NavMesh::new(nav_params)?;
        let raw = RawTileCache::new(&params.to_dt(), &flag_table(), &off.input())
            .map_err(|s| detour_err("dtTileCache::init", s))?;
        Ok(TileCache {
            raw,
            navmesh,
            removal_requested: HashSet::new(),
            queued_touches: 0,
            report: TileCacheReport {
                tiles_x: 0,
                tiles_z: 0,
                layers: 0,
                compressed_bytes: 0,
                raw_bytes: 0,
                navmesh_tiles: 0,
                ref_bits: (0, 0),
                total_ms: 0.0,
                warnings: Vec::new(),
            },
        })
    }

    /// Builds the navmesh tiles of every layer at these positions, in this order.
    fn build_navmesh_tiles(&mut self, order: &[(i32, i32)]) -> Result<()> {
        for &(x, z) in order {
            let st = self.raw.build_tiles_at(x, z, self.navmesh.raw_mut());
            if st & Status::FAILURE != 0 {
                return Err(self.tile_build_error(
                    "dtTileCache::buildNavMeshTilesAt",
                    st,
                    0,
                    &format!("tile ({x}, {z})"),
                ));
            }
        }
        self.check_poly_bits()
    }

    /// The error for a failed tile build: the guard's if it refused a layer, Detour's otherwise.
    fn tile_build_error(
        &self,
        operation: &'static str,
        st: u32,
        refused_before: u64,
        which: &str,
    ) -> Error {
        if self.raw.guard_stats().1 > refused_before {
            Error::Build {
                stage: "tile_cache_regions",
                message: format!(
                    "{which}: a tile layer's regions would overflow Detour's 16 neighbours per \
                     region (upstream issue #452: e.g. many small obstacles in a row); the layer \
                     was not rebuilt and keeps its previous polygons"
                ),
            }
        } else {
            detour_err(operation, st)
        }
    }

    /// Checks every navmesh tile's polygon count against the poly bits of the refs.
    fn check_poly_bits(&self) -> Result<()> {
        let layout = self.navmesh.params().ref_layout();
        let max = 1usize << layout.poly_bits;
        for (_, data) in self.navmesh.raw().tile_data() {
            let polys = i32_at(data, MESH_POLY_COUNT)?.max(0) as usize;
            if polys > max {
                return Err(Error::Build {
                    stage: "tile_cache",
                    message: format!(
                        "a navmesh tile has {polys} polys; the refs address at most {max} per tile \
                         (use smaller tiles)"
                    ),
                });
            }
        }
        Ok(())
    }

    /// The navmesh, for queries (`NavMeshQuery::new(cache.navmesh(), ...)`).
    pub fn navmesh(&self) -> &NavMesh {
        &self.navmesh
    }

    /// What the build or load made.
    pub fn report(&self) -> &TileCacheReport {
        &self.report
    }

    /// The tile cache parameters.
    pub fn params(&self) -> TileCacheParams {
        TileCacheParams::from_dt(&self.raw.params())
    }

    /// The layer guard's counts (see the module docs).
    pub fn guard_stats(&self) -> GuardStats {
        let (checks, refused, _) = self.raw.guard_stats();
        GuardStats { checks, refused }
    }

    /// True when no obstacle request and no tile rebuild is pending.
    pub fn is_up_to_date(&self) -> bool {
        self.raw.pending() == (0, 0)
    }

    /// Checks a new obstacle's box and counts the tile layers it touches: the box must be
    /// finite, near the tile grid (so Detour's float-to-int conversions stay in range), span at
    /// most 8 x 8 tile positions, and touch at most [`MAX_TOUCHED_TILES`] layers; the queued
    /// requests must leave room for its tiles.
    fn admit(&self, bmin: Vec3, bmax: Vec3) -> Result<usize> {
        let p = self.params();
        let origin = Vec3::from_array(p.origin);
        let unit = p.cell_size.min(p.cell_height);
        for v in [bmin, bmax] {
            if !v.is_finite() || ((v - origin).abs().max_element() / unit) >= 1.0e8 {
                return Err(Error::InvalidArgument(format!(
                    "obstacle bounds {bmin} .. {bmax} are not finite or too far from the tile \
                     grid at {origin}"
                )));
            }
        }
        if bmin.cmpgt(bmax).any() {
            return Err(Error::InvalidArgument(format!(
                "obstacle bounds {bmin} .. {bmax} have min > max"
            )));
        }
        let (tw, th) = p.tile_world_size();
        let span_x = ((bmax.x - origin.x) / tw).floor() - ((bmin.x - origin.x) / tw).floor() + 1.0;
        let span_z = ((bmax.z - origin.z) / th).floor() - ((bmin.z - origin.z) / th).floor() + 1.0;
        if span_x > 8.0 || span_z > 8.0 {
            return Err(Error::InvalidArgument(format!(
                "obstacle bounds {bmin} .. {bmax} span {span_x} x {span_z} tiles; an obstacle \
                 carves at most {MAX_TOUCHED_TILES} tile layers"
            )));
        }
        let touched =
            self.raw
                .count_tiles_touching(bmin.to_array(), bmax.to_array(), MAX_QUEUED + 1);
        if touched > MAX_TOUCHED_TILES {
            return Err(Error::InvalidArgument(format!(
                "obstacle bounds {bmin} .. {bmax} touch {touched} tile layers; Detour carves at \
                 most {MAX_TOUCHED_TILES} per obstacle"
            )));
        }
        self.room_for(touched)?;
        Ok(touched)
    }

    /// An error unless the queued requests leave room for `touched` more tile rebuilds.
    fn room_for(&self, touched: usize) -> Result<()> {
        let (requests, _) = self.raw.pending();
        if requests >= MAX_QUEUED || self.queued_touches + touched > MAX_QUEUED {
            return Err(Error::Detour {
                operation: "dtTileCache obstacle request (queue full: call update first)",
                status: Status(Status::FAILURE | Status::BUFFER_TOO_SMALL),
            });
        }
        Ok(())
    }

    fn queued(&mut self, r: Result<u32, u32>, touched: usize) -> Result<ObstacleRef> {
        let r = r.map_err(|s| detour_err("dtTileCache::addObstacle", s))?;
        self.queued_touches += touched;
        Ok(ObstacleRef(r))
    }

    /// Adds an upright cylinder standing on `pos` (RecastDemo's obstacle: radius 1, height 2).
    /// It is carved out at the next [`TileCache::update`]s. Note that the walkable area is not
    /// eroded around obstacles: add the agent radius to `radius` to keep agents' centres away.
    pub fn add_cylinder(&mut self, pos: Vec3, radius: f32, height: f32) -> Result<ObstacleRef> {
        if !(radius.is_finite() && radius > 0.0 && height.is_finite() && height > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "cylinder radius {radius} and height {height} must be finite and > 0"
            )));
        }
        let shape = ObstacleShape::Cylinder {
            pos,
            radius,
            height,
        };
        let (bmin, bmax) = shape.bounds();
        let touched = self.admit(bmin, bmax)?;
        let r = self.raw.add_cylinder(pos.to_array(), radius, height);
        self.queued(r, touched)
    }

    /// Adds an obstacle of any shape (see [`TileCache::add_cylinder`], [`TileCache::add_box`],
    /// [`TileCache::add_oriented_box`]).
    pub fn add(&mut self, shape: &ObstacleShape) -> Result<ObstacleRef> {
        match *shape {
            ObstacleShape::Cylinder {
                pos,
                radius,
                height,
            } => self.add_cylinder(pos, radius, height),
            ObstacleShape::Box { bmin, bmax } => self.add_box(bmin, bmax),
            ObstacleShape::OrientedBox {
                center,
                half_extents,
                y_angle,
            } => self.add_oriented_box(center, half_extents, y_angle),
        }
    }

    /// Adds an axis-aligned box obstacle.
    pub fn add_box(&mut self, bmin: Vec3, bmax: Vec3) -> Result<ObstacleRef> {
        let touched = self.admit(bmin, bmax)?;
        let r = self.raw.add_box(bmin.to_array(), bmax.to_array());
        self.queued(r, touched)
    }

    /// Adds a box obstacle with these half extents, turned by `y_angle` radians about y.
    pub fn add_oriented_box(
        &mut self,
        center: Vec3,
        half_extents: Vec3,
        y_angle: f32,
    ) -> Result<ObstacleRef> {
        if !(half_extents.is_finite()
            && half_extents.cmpgt(Vec3::ZERO).all()
            && y_angle.is_finite())
        {
            return Err(Error::InvalidArgument(format!(
                "oriented box half extents {half_extents} must be finite and > 0, and its angle \
                 {y_angle} finite"
            )));
        }
        let shape = ObstacleShape::OrientedBox {
            center,
            half_extents,
            y_angle,
        };
        let (bmin, bmax) = shape.bounds();
        let touched = self.admit(bmin, bmax)?;
        let r = self
            .raw
            .add_oriented_box(center.to_array(), half_extents.to_array(), y_angle);
        self.queued(r, touched)
    }

    /// Requests the removal of an obstacle; its tiles are rebuilt without it at the next
    /// [`TileCache::update`]s. A stale ref (never issued, already removed, or removal already
    /// requested) is an [`Error::InvalidArgument`].
    pub fn remove(&mut self, obstacle: ObstacleRef) -> Result<()> {
        let live = self.raw.obstacle(obstacle.0).is_some_and(|o| {
            (o.state == OBSTACLE_PROCESSING || o.state == OBSTACLE_PROCESSED)
                && !self.removal_requested.contains(&obstacle.0)
        });
        let Some(ob) = self.obstacle(obstacle).filter(|_| live) else {
            return Err(Error::InvalidArgument(format!(
                "obstacle ref {:#x} is stale: never issued, removed, or being removed",
                obstacle.0
            )));
        };
        let (bmin, bmax) = ob.shape.bounds();
        let touched = self
            .raw
            .count_tiles_touching(bmin.to_array(), bmax.to_array(), MAX_QUEUED + 1)
            .min(MAX_TOUCHED_TILES);
        self.room_for(touched)?;
        Status(self.raw.remove_obstacle(obstacle.0)).check("dtTileCache::removeObstacle")?;
        self.removal_requested.insert(obstacle.0);
        self.queued_touches += touched;
        Ok(())
    }

    fn to_obstacle(r: u32, o: &RawObstacle, removal_requested: bool) -> Option<Obstacle> {
        let state = match o.state {
            _ if removal_requested => ObstacleState::Removing,
            OBSTACLE_PROCESSING => ObstacleState::Processing,
            OBSTACLE_PROCESSED => ObstacleState::Processed,
            OBSTACLE_REMOVING => ObstacleState::Removing,
            OBSTACLE_EMPTY => return None,
            _ => return None,
        };
        Some(Obstacle {
            obstacle: ObstacleRef(r),
            shape: ObstacleShape::from_raw(&o.shape),
            state,
        })
    }

    /// The obstacle `obstacle` refers to, if it is live (or being removed).
    pub fn obstacle(&self, obstacle: ObstacleRef) -> Option<Obstacle> {
        let o = self.raw.obstacle(obstacle.0)?;
        Self::to_obstacle(obstacle.0, &o, self.removal_requested.contains(&obstacle.0))
    }

    /// Every obstacle, with its shape and state, in slot order.
    pub fn obstacles(&self) -> Vec<Obstacle> {
        self.raw
            .obstacles()
            .iter()
            .filter_map(|(r, o)| Self::to_obstacle(*r, o, self.removal_requested.contains(r)))
            .collect()
    }

    /// Runs `dtTileCache::update` until the cache is up to date or `budget` is spent (at least
    /// one step when anything is pending). Each step processes the queued requests or rebuilds
    /// one tile layer.
    ///
    /// A failed tile rebuild is an error; the cache stays consistent (that layer keeps its
    /// previous navmesh tile) and later calls carry on with the remaining work.
    pub fn update(&mut self, budget: Duration) -> Result<UpdateReport> {
        let started = Instant::now();
        let mut report = UpdateReport {
            steps: 0,
            tiles_rebuilt: 0,
            up_to_date: self.is_up_to_date(),
            elapsed: Duration::ZERO,
        };
        while !report.up_to_date && (report.steps == 0 || started.elapsed() < budget) {
            let (_, refused_before, builds_before) = self.raw.guard_stats();
            let (st, up_to_date) = self.raw.update(self.navmesh.raw_mut());
            report.steps += 1;
            if self.raw.pending().0 == 0 {
                self.removal_requested.clear();
                self.queued_touches = 0;
            }
            let (_, _, builds) = self.raw.guard_stats();
            report.tiles_rebuilt += (builds - builds_before) as usize;
            report.up_to_date = up_to_date;
            if st & Status::FAILURE != 0 {
                return Err(self.tile_build_error(
                    "dtTileCache::update",
                    st,
                    refused_before,
                    "update",
                ));
            }
        }
        self.check_poly_bits()?;
        report.elapsed = started.elapsed();
        Ok(report)
    }

    /// Runs [`TileCache::update`] until every request is processed and every touched tile
    /// layer rebuilt.
    pub fn update_until_done(&mut self) -> Result<UpdateReport> {
        self.update(Duration::MAX)
    }

    /// The cache in RecastDemo's `TSET` format (obstacles are not saved).
    pub fn to_tset_bytes(&self) -> Vec<u8> {
        write_tset(&TileCacheSet {
            navmesh: self.navmesh.params(),
            cache: self.params(),
            tiles: self
                .raw
                .tiles()
                .into_iter()
                .map(|(r, d)| (r, d.to_vec()))
                .collect(),
        })
    }

    /// Saves the cache in RecastDemo's `TSET` format (obstacles are not saved).
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        std::fs::write(path, self.to_tset_bytes()).map_err(|e| Error::io(path, e))
    }

    /// Reads a cache from RecastDemo's `TSET` format, validating every byte first
    /// ([`read_tset`]), and builds its navmesh. Off-mesh connections are not part of the file:
    /// pass the level's (as RecastDemo does from its geometry), or none. Tiles are built in grid
    /// order, as [`TileCache::build`] does, so a cache saved right after its build loads with
    /// the same poly refs.
    pub fn from_tset_bytes(
        bytes: &[u8],
        off_mesh_connections: &[OffMeshConnection],
    ) -> Result<TileCache> {
        let started = Instant::now();
        let set = read_tset(bytes)?;
        let off = OffMeshArrays::new(off_mesh_connections)?;
        let mut tc = Self::empty(&set.navmesh, &set.cache, &off)?;
        let mut positions: Vec<(i32, i32)> = Vec::new();
        for (_, data) in &set.tiles {
            tc.raw
                .add_tile(data)
                .map_err(|s| detour_err("dtTileCache::addTile", s))?;
            positions.push((i32_at(data, lh::TX)?, i32_at(data, lh::TY)?));
        }
        positions.sort_by_key(|&(x, z)| (z, x));
        positions.dedup();
        tc.build_navmesh_tiles(&positions)?;
        let layout = set.navmesh.ref_layout();
        let cells = (set.cache.width * set.cache.height) as usize;
        tc.report = TileCacheReport {
            tiles_x: positions.iter().map(|p| p.0 + 1).max().unwrap_or(0),
            tiles_z: positions.iter().map(|p| p.1 + 1).max().unwrap_or(0),
            layers: set.tiles.len(),
            compressed_bytes: set.tiles.iter().map(|(_, d)| d.len()).sum(),
            raw_bytes: set.tiles.len() * (LAYER_HEADER_SIZE + 4 * cells),
            navmesh_tiles: tc.navmesh.tile_count(),
            ref_bits: (layout.tile_bits, layout.poly_bits),
            total_ms: started.elapsed().as_secs_f64() * 1e3,
            warnings: Vec::new(),
        };
        Ok(tc)
    }

    /// Loads a cache saved in RecastDemo's `TSET` format; see [`TileCache::from_tset_bytes`].
    pub fn load(
        path: impl AsRef<Path>,
        off_mesh_connections: &[OffMeshConnection],
    ) -> Result<TileCache> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_tset_bytes(&bytes, off_mesh_connections)
    }
}

impl std::fmt::Debug for TileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileCache")
            .field("params", &self.params())
            .field("layers", &self.report.layers)
            .field("navmesh", &self.navmesh)
            .field("obstacles", &self.obstacles().len())
            .finish()
    }
}
