//! Dynamic obstacles through Detour's tile cache (RecastDemo's Temp Obstacles sample).
//!
//! A [`TileCache`] keeps, for every tile of the level, the *heightfield layers* Recast found
//! there (walkable floors one above the other), compressed (FastLZ, as RecastDemo, or LZ4:
//! [`LayerCompression`]). Adding or removing an obstacle
//! (a cylinder, an axis-aligned box or a box turned about y) only queues a request; each
//! [`TileCache::update`] step then rebuilds one touched tile layer from its compressed layer with
//! every obstacle carved out, in well under a millisecond, and swaps it into the [`NavMesh`] the
//! cache owns. No Recast rasterization happens for obstacles.
//!
//! **Edited levels.** When the level itself changes (a mesh moved, added or removed),
//! [`TileCache::rebuild_tiles`] rasterizes only the named tiles again from the changed geometry,
//! replaces their layers and rebuilds their navmesh tiles with every placed obstacle carved out:
//! the cache then equals one built from the changed level with the same obstacles
//! (`tests/tilecache_rebuild.rs`), and the other tiles keep their polygons and refs.
//!
//! ```text
//! geometry -> per tile: rasterize (its triangles only) -> filters -> compact -> erode
//!          -> convex volumes -> heightfield layers -> dtBuildTileCacheLayer (FastLZ or LZ4)
//!          -> dtTileCache -> per layer: Detour's regions and contours, navkit's poly mesh
//!          -> dtCreateNavMeshData -> NavMesh
//! obstacle add/remove -> update(budget) -> touched layers rebuilt -> NavMesh tiles replaced
//! ```
//!
//! The tile builds and update steps are navkit's own (`src/ffi/tilecache_build.rs`,
//! `src/ffi/tilecache_update.rs`), doing what Detour's `buildNavMeshTile` and `update` do but
//! with navkit's polygon mesh builder (`src/ffi/tile_poly_mesh/`): Detour's
//! `dtBuildTileCachePolyMesh` reads uninitialised memory and writes past its stack arrays on
//! some layers. The tiles are Detour's bytes wherever Detour's are defined.
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
//! byte before Detour sees it; see [`read_tset`].
//!
//! **Layer compression.** RecastDemo compresses layers with FastLZ; so does navkit by default
//! ([`TileCacheSettings::layer_compression`]), and its `TSET` files are then RecastDemo's
//! format byte for byte (version 1): files move both ways. LZ4 (`lz4_flex`) stays available; its
//! files carry version [`TSET_VERSION_LZ4`], which RecastDemo refuses cleanly. navkit's LZ4
//! files from before (version 1) still load: [`read_tset`] tells the formats apart. A cache
//! holds layers of one format, in memory too (Detour decompresses a stored layer with the
//! cache's compressor whenever it rebuilds the tile): a built cache uses its settings' format,
//! a loaded one its file's ([`TileCache::layer_compression`]); [`TileCache::to_tset_bytes_with`]
//! saves in either. FastLZ is compressed by RecastDemo's own fastlz.c and decompressed by
//! navkit's bounds-checked decoder ([`fastlz`]): corrupt streams are errors, never reads or
//! writes out of bounds.
//!
//! **Limits kept from Detour, made errors.** At most 64 queued requests between updates, and at
//! most 64 tile layers queued for rebuild by them ([`Error::QueueFull`]: call `update` first);
//! at most `max_obstacles` obstacles ([`Error::PoolFull`]); one obstacle carves at most 8 tile layers
//! ([`Error::InvalidArgument`]). Detour's layer region builder keeps at most 16 neighbours per
//! region without checking the bound (upstream issue #452): navkit's allocator replays the
//! partition before Detour runs it and refuses to build a layer that would overflow (see
//! [`GuardStats`]); such a tile keeps its previous polygons and `update` reports an error.
//!
//! ```
//! use navkit::{InputGeometry, NavMeshBuilder, ObstacleShape, PathOptions};
//! use navkit::query::{NavMeshQuery, QueryFilter};
//! use glam::Vec3;
//!
//! let geom = InputGeometry::load("meshes/demo_level.gset")?;
//! let mut cache = NavMeshBuilder::new(&geom).tile_cache()?;
//! let barrel = cache.add(&ObstacleShape::Cylinder {
//!     pos: Vec3::new(10.0, 0.0, 5.0),
//!     radius: 1.0,
//!     height: 2.0,
//! })?;
//! cache.update_until_done()?;
//! {
//!     let mut q = NavMeshQuery::new(cache.navmesh(), 2048)?;
//!     let (start, goal) = (Vec3::new(2.0, 0.0, 5.0), Vec3::new(17.0, 0.0, 5.0));
//!     let path = q.path(start, goal, &QueryFilter::default(), &PathOptions::default())?;
//!     assert!(path.is_complete());
//!     println!("{:.1} m around the barrel", path.straight.length());
//! }
//! cache.remove(barrel)?;
//! cache.update_until_done()?;
//! # Ok::<(), navkit::Error>(())
//! ```

mod decoded;
pub use crate::ffi::fastlz::codec as fastlz;
#[cfg(test)]
mod differential_tests;
mod layers;
mod obstacles;
mod rebuild;
mod settings;
mod tset;
mod validate;

pub use decoded::{
    DecodedLayer, LayerBuild, LayerContour, LayerPoly, LayerPolyMesh, NO_HEIGHT, NO_REGION,
};
pub use layers::{compress_layer_grids, decompress_layer_grids};
pub use obstacles::{Obstacle, ObstacleRef, ObstacleShape, ObstacleState};
pub use settings::{LayerCompression, TileCacheParams, TileCacheSettings};
pub use tset::{TSET_MAGIC, TSET_VERSION, TSET_VERSION_LZ4, TileCacheSet, read_tset, write_tset};
pub use validate::validate_cache_params;

use crate::ffi::validate::layer::lh;
use layers::*;
use tset::*;

use std::collections::HashSet;
use std::mem::offset_of;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::par::prelude::*;
use recastnavigation_sys as sys;

use crate::build::budget::{Budget, Guard};
use crate::build::tiled::{TRIS_PER_CHUNK, TileGrid};
use crate::build::{OffMeshArrays, OffMeshIssue, off_mesh_issues};
use crate::ffi::context::RecastContext;
use crate::ffi::tilecache::{Compressor, LAYER_HEADER_SIZE, RawTileCache};
use crate::geometry::spatial::ChunkyTriMesh;
use crate::geometry::{InputGeometry, OffMeshConnection};
use crate::navmesh::NavMesh;
use crate::navmesh::params::{self, MAX_COORDINATE, MAX_TILES_LIMIT, NavMeshParams};
use crate::settings::{BuildSettings, flags};
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
pub use crate::ffi::validate::layer::MAX_LAYERS_PER_TILE;

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
    /// The off-mesh links paths can never take (no usable flags, or an end on no polygon), as
    /// the navmesh was built (or loaded).
    pub off_mesh_issues: Vec<OffMeshIssue>,
    /// Wall-clock milliseconds of the build or load.
    pub total_ms: f64,
    /// Recast's warnings, and one of navkit's if its tile polygon mesh builder kept border
    /// vertices or walled one-sided links where Detour's builder would read uninitialised
    /// memory or build an invalid tile.
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
    /// The rasterization counts of the build (zero for a loaded cache).
    build_counts: crate::build::StageCounts,
    /// What the build was made with, to rebuild tiles from changed geometry (`None` for a
    /// loaded cache).
    frame: Option<Box<rebuild::BuildFrame>>,
}

use crate::status::detour_err;

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

/// Off-mesh connections as the mesh process wants them, validated first.
fn off_mesh_arrays(cons: &[OffMeshConnection]) -> Result<OffMeshArrays> {
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
    Ok(OffMeshArrays::new(cons))
}

// Byte readers that never panic.
use crate::ffi::bytes::{f32_at, i32_at};

/// Offset of `polyCount` in a navmesh tile's header.
const MESH_POLY_COUNT: usize = offset_of!(sys::dtMeshHeader, polyCount);

impl TileCache {
    /// Builds the tile cache of `geom` with `settings` (cell sizes, agent, filters, region and
    /// contour settings; `settings.tile_size` is replaced by `cache.tile_size`) and fills its
    /// navmesh, as RecastDemo's Temp Obstacles sample (see
    /// [`crate::NavMeshBuilder::tile_cache`]): each tile rasterizes only the triangles near it,
    /// with a border of `agent radius + 3` cells, then its heightfield layers are compressed
    /// into the cache and built into navmesh tiles. Tiles are rasterized in parallel; the result
    /// does not depend on the number of threads. The geometry's convex volumes and off-mesh
    /// connections are used. Within `budget`: refused before building if the
    /// [`estimate`](crate::build::estimate) shows stray vertices or is over the budget's cell
    /// limit, or its memory ([`BuildKind::TileCache`](crate::build::BuildKind::TileCache)) is
    /// over the memory limit, stopped at the next tile or stage after the budget's token is cancelled or its
    /// time runs out.
    pub(crate) fn build(
        geom: &InputGeometry,
        settings: &BuildSettings,
        cache: &TileCacheSettings,
        budget: &Budget,
    ) -> Result<TileCache> {
        let started = Instant::now();
        let guard = budget.start();
        geom.validate()?;
        cache.validate()?;
        let mut settings = settings.clone();
        settings.tile_size = cache.tile_size;
        let estimate = crate::build::budget::estimate_validated(geom, &settings)?;
        // Layers are built a tile per thread at a time, and kept compressed.
        let threads = crate::par::current_num_threads();
        budget.check_estimate_for(
            &estimate,
            crate::build::budget::BuildKind::TileCache(threads),
        )?;
        let (bmin, bmax) = geom.mesh.bounds().into();
        let grid = TileGrid::new(bmin, bmax, &settings)?;
        let base = settings.to_config(bmin, bmax)?;
        let positions = grid.all_tiles();
        let (layers, warnings, counts) =
            every_tile_layer(geom, (&settings, cache), &base, &grid, &positions, &guard)?;
        let (tile_bits, cache_tiles) = cache_size(&grid, cache, layers.len())?;
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
            max_obstacles: cache.max_obstacles as i32, // at most 0xffff: validated
        };
        let off = off_mesh_arrays(&geom.off_mesh_connections)?;
        let mut tc = Self::empty(&nav_params, &params, &off, cache.layer_compression)?;
        for layer in &layers {
            tc.raw
                .add_tile(layer)
                .map_err(|s| detour_err("dtTileCache::addTile", s))?;
        }
        let order: Vec<(i32, i32)> = positions.iter().map(|t| (t.x, t.z)).collect();
        tc.build_navmesh_tiles(&order, &guard)?;
        tc.build_counts = counts;
        tc.frame = Some(Box::new(rebuild::BuildFrame::new(
            geom,
            settings.clone(),
            cache,
            &grid,
        )));
        let mut warnings = warnings;
        warnings.extend(tc.poly_mesh_warning());
        tc.report = TileCacheReport {
            tiles_x: grid.tiles_x,
            tiles_z: grid.tiles_z,
            layers: layers.len(),
            compressed_bytes: layers.iter().map(|l| l.bytes().len()).sum(),
            raw_bytes: layers.len()
                * (LAYER_HEADER_SIZE + 4 * (grid.tile_size * grid.tile_size) as usize),
            navmesh_tiles: tc.navmesh.tile_count(),
            ref_bits: (tile_bits, 22 - tile_bits),
            off_mesh_issues: off_mesh_issues(
                &tc.navmesh,
                &geom.off_mesh_connections,
                settings.agent_max_climb,
            ),
            total_ms: started.elapsed().as_secs_f64() * 1e3,
            warnings,
        };
        Ok(tc)
    }

    /// An empty cache and navmesh with these (checked) parameters, for layers of `compression`.
    fn empty(
        nav_params: &NavMeshParams,
        params: &TileCacheParams,
        off: &OffMeshArrays,
        compression: LayerCompression,
    ) -> Result<TileCache> {
        params::validate_params(nav_params)?;
        validate_cache_params(params)?;
        let navmesh = NavMesh::new(nav_params)?;
        let raw = RawTileCache::new(&params.to_dt(), &flag_table(), &off.input(), compression)
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
                off_mesh_issues: Vec::new(),
                total_ms: 0.0,
                warnings: Vec::new(),
            },
            build_counts: crate::build::StageCounts::default(),
            frame: None,
        })
    }

    /// Builds the navmesh tiles of every layer at these positions, in this order.
    fn build_navmesh_tiles(&mut self, order: &[(i32, i32)], guard: &Guard) -> Result<()> {
        for &(x, z) in order {
            guard.check(crate::build::Stage::TileCache)?;
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

    /// The report's line on the tile polygon meshes built so far where navkit's builder did
    /// otherwise than Detour's (undefined or invalid there), if it did.
    fn poly_mesh_warning(&self) -> Option<String> {
        let (kept, walled) = self.raw.poly_mesh_fixes();
        (kept + walled > 0).then(|| {
            format!(
                "tile polygon meshes: {kept} border vertices kept where Detour's vertex removal \
                 would read uninitialised memory (a hole that does not close), {walled} \
                 one-sided neighbour links made walls (contours that run over themselves)"
            )
        })
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
                stage: crate::build::Stage::TileCacheRegions,
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
                    stage: crate::build::Stage::TileCache,
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

    /// Gives up the cache (no more obstacles) and keeps the navmesh as it is now.
    pub fn into_navmesh(self) -> NavMesh {
        self.navmesh
    }

    /// What the build or load made.
    pub fn report(&self) -> &TileCacheReport {
        &self.report
    }

    /// The tile cache parameters.
    pub fn params(&self) -> TileCacheParams {
        TileCacheParams::from_dt(&self.raw.params())
    }

    /// The counts of RecastDemo's build log that a tile cache has: the build's rasterized
    /// triangles, spans and compact spans summed over the tiles (zero for a cache loaded from a
    /// file), and, read from the navmesh tiles Detour built from the layers as they are now,
    /// poly mesh vertices and polys (without off-mesh connections), detail meshes, vertices and
    /// triangles and navmesh bytes. Contours, `max_distance` and `max_regions` stay zero:
    /// Detour's tile cache partitions and traces each layer itself and does not report them.
    pub fn counts(&self) -> crate::build::StageCounts {
        let mut c = self.build_counts;
        for t in self.navmesh.tiles() {
            let h = t.header();
            c.polymesh_verts += h.vert_count - 2 * h.off_mesh_con_count;
            c.polymesh_polys += h.off_mesh_base;
            c.detail_meshes += h.detail_mesh_count;
            c.detail_verts += h.detail_vert_count;
            c.detail_tris += h.detail_tri_count;
            c.navmesh_bytes += t.data_size();
        }
        c
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

    /// The format of the cache's compressed layers: its settings' for a built cache, its
    /// file's for a loaded one.
    pub fn layer_compression(&self) -> LayerCompression {
        self.raw.compression()
    }

    /// The cache's contents as a [`TileCacheSet`]: parameters and compressed layers (in their
    /// format, [`TileCache::layer_compression`]), in tile-array order as RecastDemo saves them.
    pub fn to_tile_cache_set(&self) -> TileCacheSet {
        TileCacheSet {
            navmesh: self.navmesh.params(),
            cache: self.params(),
            tiles: self
                .raw
                .tiles()
                .into_iter()
                .map(|(r, d)| (r, d.to_vec()))
                .collect(),
            compression: self.raw.compression(),
        }
    }

    /// The cache in RecastDemo's `TSET` format, its layers as they are (obstacles are not
    /// saved). With FastLZ layers (the default) this is exactly the file RecastDemo's `saveAll`
    /// writes; with LZ4 layers the version is [`TSET_VERSION_LZ4`].
    pub fn to_tset_bytes(&self) -> Vec<u8> {
        write_tset(&self.to_tile_cache_set())
    }

    /// The cache in `TSET` format with its layers in `compression` (recompressed if the cache
    /// holds the other format; see [`TileCacheSet::recompressed`]).
    pub fn to_tset_bytes_with(&self, compression: LayerCompression) -> Result<Vec<u8>> {
        Ok(write_tset(
            &self.to_tile_cache_set().recompressed(compression)?,
        ))
    }

    /// Saves the cache in RecastDemo's `TSET` format, its layers as they are (obstacles are not
    /// saved); see [`TileCache::to_tset_bytes`].
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        crate::atomic_file::write(path, &self.to_tset_bytes())
    }

    /// Saves the cache in `TSET` format with its layers in `compression`; see
    /// [`TileCache::to_tset_bytes_with`].
    pub fn save_with(&self, path: impl AsRef<Path>, compression: LayerCompression) -> Result<()> {
        let path = path.as_ref();
        crate::atomic_file::write(path, &self.to_tset_bytes_with(compression)?)
    }

    /// Reads a cache from RecastDemo's `TSET` format, validating every byte first
    /// ([`read_tset`]), and builds its navmesh. Off-mesh connections are not part of the file:
    /// pass the level's (as RecastDemo does from its geometry), or none.
    ///
    /// The layers are taken in file order, as RecastDemo's `loadAll` takes them: each is added
    /// to the cache (`dtTileCache::addTile`) and its navmesh tile built at once
    /// (`buildNavMeshTile`), so navmesh tile indices and poly refs are RecastDemo's for the same
    /// file. (A build makes its navmesh position by position, each position's layers at once,
    /// as RecastDemo's build does: where a position has more than one layer, a cache saved right
    /// after its build loads with the same polygons under other tile indices, as in
    /// RecastDemo.) A tile build that fails is an error (RecastDemo goes on without the tile).
    pub fn from_tset_bytes(
        bytes: &[u8],
        off_mesh_connections: &[OffMeshConnection],
    ) -> Result<TileCache> {
        let started = Instant::now();
        let set = read_valid_tset(bytes)?;
        let off = off_mesh_arrays(off_mesh_connections)?;
        let mut tc = Self::empty(&set.navmesh, &set.cache, &off, set.compression)?;
        let mut positions: Vec<(i32, i32)> = Vec::new();
        for (i, (_, layer)) in set.tiles.iter().enumerate() {
            let tile_ref = tc
                .raw
                .add_tile(layer)
                .map_err(|s| detour_err("dtTileCache::addTile", s))?;
            let st = tc.raw.build_tile(tile_ref, tc.navmesh.raw_mut());
            if st & Status::FAILURE != 0 {
                return Err(tc.tile_build_error(
                    "dtTileCache::buildNavMeshTile",
                    st,
                    0,
                    &format!("tile {i} of the file"),
                ));
            }
            let data = layer.bytes();
            positions.push((i32_at(data, lh::TX)?, i32_at(data, lh::TY)?));
        }
        tc.check_poly_bits()?;
        let layout = set.navmesh.ref_layout();
        let cells = (set.cache.width * set.cache.height) as usize;
        tc.report = TileCacheReport {
            tiles_x: positions.iter().map(|p| p.0 + 1).max().unwrap_or(0),
            tiles_z: positions.iter().map(|p| p.1 + 1).max().unwrap_or(0),
            layers: set.tiles.len(),
            compressed_bytes: set.tiles.iter().map(|(_, l)| l.bytes().len()).sum(),
            raw_bytes: set.tiles.len() * (LAYER_HEADER_SIZE + 4 * cells),
            navmesh_tiles: tc.navmesh.tile_count(),
            ref_bits: (layout.tile_bits, layout.poly_bits),
            off_mesh_issues: off_mesh_issues(
                &tc.navmesh,
                off_mesh_connections,
                set.cache.walkable_climb,
            ),
            total_ms: started.elapsed().as_secs_f64() * 1e3,
            warnings: tc.poly_mesh_warning().into_iter().collect(),
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
        Self::from_tset_bytes(&bytes, off_mesh_connections).map_err(|e| e.in_file(path))
    }
}

/// The compressed layers of the tiles at `positions` of `grid` (rasterized in parallel, in the
/// order given), Recast's warnings and the rasterization counts summed over the tiles.
fn every_tile_layer(
    geom: &InputGeometry,
    settings: (&BuildSettings, &TileCacheSettings),
    base: &crate::settings::VoxelConfig,
    grid: &TileGrid,
    positions: &[crate::navmesh::TileCoord],
    guard: &Guard,
) -> Result<TileLayers> {
    let mut layers = Vec::new();
    let mut warnings = Vec::new();
    let mut counts = crate::build::StageCounts::default();
    for (l, w, c) in layers_per_tile(geom, settings, base, grid, positions, guard)? {
        layers.extend(l);
        warnings.extend(w);
        counts.accumulate(&c);
    }
    Ok((layers, warnings, counts))
}

/// [`every_tile_layer`]'s layers, warnings and counts of each tile apart, in the order given.
fn layers_per_tile(
    geom: &InputGeometry,
    (settings, cache): (&BuildSettings, &TileCacheSettings),
    base: &crate::settings::VoxelConfig,
    grid: &TileGrid,
    positions: &[crate::navmesh::TileCoord],
    guard: &Guard,
) -> Result<Vec<TileLayers>> {
    let index = ChunkyTriMesh::new(&geom.mesh, TRIS_PER_CHUNK);
    positions
        .par_iter()
        .map_init(
            || {
                (
                    RecastContext::new(),
                    Compressor::new(cache.layer_compression),
                )
            },
            |(ctx, comp), &pos| {
                tile_layers(ctx, guard, comp, geom, &index, settings, base, grid, pos)
            },
        )
        .collect()
}

/// The tile bits of the navmesh's refs and the cache's tile count for `layers` layers over
/// `grid`: RecastDemo's sizes, grown if the level has more layers than expected.
fn cache_size(grid: &TileGrid, cache: &TileCacheSettings, layers: usize) -> Result<(u32, usize)> {
    let expected = grid.tile_count() * cache.expected_layers_per_tile as usize;
    let cache_tiles = expected.max(layers).max(1);
    if cache_tiles > MAX_TILES_LIMIT as usize {
        return Err(Error::Build {
            stage: crate::build::Stage::TileCache,
            message: format!(
                "{cache_tiles} tile layers; at most {MAX_TILES_LIMIT} fit (use bigger tiles)"
            ),
        });
    }
    let tile_bits = ilog2_next_pow2(expected.max(1) as u32)
        .min(14)
        .max(ilog2_next_pow2(layers.max(1) as u32));
    if tile_bits > 22 {
        return Err(Error::Build {
            stage: crate::build::Stage::TileCache,
            message: format!(
                "{layers} tile layers need {tile_bits} tile bits; at most 22 fit in a poly ref"
            ),
        });
    }
    Ok((tile_bits, cache_tiles))
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
