//! Tiled navmeshes (RecastDemo's Tile Mesh sample), built on every core.
//!
//! The build area is cut into square tiles of `settings.tile_size` cells. Each tile is built on
//! its own: the triangles overlapping it (found through a [`ChunkyTriMesh`]) are rasterized into a
//! heightfield that extends `agent radius + 3` cells past the tile on every side, so that erosion
//! and regions near the tile's edge see their neighbours, and then go through the same named
//! stages as a solo build ([`crate::build::Stage`]) up to Detour tile data for grid position
//! (x, y). Detour stitches neighbouring tiles together when they are added.
//!
//! **Parallel and reproducible.** Tiles are independent, so [`crate::NavMeshBuilder::tiled`] builds
//! them on a rayon pool of the requested size (with the `parallel` feature; without it, on the
//! calling thread), each worker with its own Recast context; the tiles are added to the navmesh
//! in grid order afterwards. The tile data does not depend on the number of threads:
//! [`TiledReport::data_hash`] is the same for 1 thread and for 64.
//!
//! **Incremental.** After a level edit ([`TiledNavMesh::set_geometry`]), rebuild, add or remove
//! one tile or every tile in a box; queries made before and after see the navmesh as it is.
//!
//! **Refs.** Detour's 32-bit poly refs are split as RecastDemo splits them: `tile_bits =
//! min(ilog2(next_pow2(tiles)), 14)`, `poly_bits = 22 - tile_bits`. Worlds with more than
//! 2^14 tiles get more tile bits as long as the fullest tile's polygons still fit; beyond that the
//! build fails with an error saying so (use bigger tiles).
//!
//! ```no_run
//! use navkit::{InputGeometry, NavMeshBuilder};
//! let geom = InputGeometry::load("world.gset")?;
//! let tiled = NavMeshBuilder::new(&geom)
//!     .progress(&|done, total| eprintln!("{done}/{total} tiles"))
//!     .tiled()?;
//! println!("{} tiles, data hash {}", tiled.report().tile_count, tiled.report().data_hash);
//! let navmesh = tiled.navmesh();
//! # Ok::<(), navkit::Error>(())
//! ```

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::par::prelude::*;

use crate::Aabb;
use crate::build::budget::{Budget, BuildKind, Guard};
use crate::build::{
    SoloStages, Stage, StageCounts, TileTris, detour_tile, off_mesh_issues, stage_timings,
    tile_walkable_area,
};
use crate::ffi::context::{LogCategory, RecastContext};
use crate::geometry::InputGeometry;
use crate::geometry::spatial::ChunkyTriMesh;
use crate::navmesh::mset::{NavMeshParams, RefLayout, RefWidth};
use crate::navmesh::{NavMesh, TileCoord};
use crate::settings::{BuildSettings, VoxelConfig};
use crate::{Error, Result};

mod grid;
mod report;
#[cfg(feature = "tile-store")]
pub mod shard;
#[cfg(feature = "tile-store")]
pub mod shard_input;
mod stages;
#[cfg(feature = "tile-store")]
pub mod store;
#[cfg(feature = "tile-store")]
pub mod tile_key;

pub use grid::TileGrid;
pub use report::{TileStats, TiledReport, data_hash};
use report::{stage_counts, tile_stats};
#[cfg(feature = "tile-store")]
pub use shard::{Merged, Part, PartInfo, Shard, build_key, merge_parts};
#[cfg(feature = "tile-store")]
pub use shard_input::ShardInput;
pub use stages::TileStages;
pub(crate) use stages::check_tile;
use stages::check_tile_estimate;
#[cfg(feature = "tile-store")]
pub use store::TileStore;
#[cfg(feature = "tile-store")]
pub use tile_key::{RECAST_SYS_VERSION, TILE_FORMAT, TileKey};

/// Triangles per chunk of the spatial index (RecastDemo uses 256).
pub const TRIS_PER_CHUNK: usize = 256;

/// Smallest and largest tile size accepted, in cells.
pub const TILE_SIZE_RANGE: std::ops::RangeInclusive<u32> = 8..=1024;

/// How to run a tiled build.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TiledOptions {
    /// Worker threads; 0 means one per core.
    pub threads: usize,
}

impl TiledOptions {
    /// The number of threads these options give on this machine (always 1 without the
    /// `parallel` feature, which builds on the calling thread with the same bytes).
    pub fn effective_threads(&self) -> usize {
        if !cfg!(feature = "parallel") {
            1
        } else if self.threads == 0 {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        } else {
            self.threads
        }
    }
}

/// One built tile.
#[derive(Clone, Debug, PartialEq)]
pub struct TileData {
    /// The tile's position (layer 0).
    pub tile: TileCoord,
    /// Detour tile data as built.
    pub data: Vec<u8>,
}

/// What a tiled build reuses, and which of its tiles it builds.
#[derive(Clone, Debug, Default)]
pub(crate) struct TilePlan {
    /// The store tiles are looked up in first and kept in.
    #[cfg(feature = "tile-store")]
    pub store: Option<TileStore>,
    /// The one shard to build (else every tile).
    #[cfg(feature = "tile-store")]
    pub shard: Option<Shard>,
    /// The whole build's key, when the geometry is only the shard's part of it
    /// ([`ShardInput`]): it may then have no triangle.
    #[cfg(feature = "tile-store")]
    pub build_key: Option<[u8; 32]>,
}

impl TilePlan {
    /// The tiles of `grid` to build.
    fn tiles(&self, grid: &TileGrid) -> Vec<TileCoord> {
        #[cfg(feature = "tile-store")]
        if let Some(s) = self.shard {
            return s.tiles(grid);
        }
        grid.all_tiles()
    }
}

struct Built {
    x: i32,
    z: i32,
    /// Taken from a tile store instead of built.
    reused: bool,
    /// A store entry for it was refused (damaged, or another tile's) and replaced.
    refused: bool,
    data: Option<Vec<u8>>,
    polys: usize,
    counts: StageCounts,
    ms: f64,
    stage_ms: Vec<(Stage, f64)>,
    warnings: Vec<String>,
}

/// Builds tiles of one geometry: the geometry, its spatial index, the settings and the grid.
struct TileBuilder {
    geom: InputGeometry,
    index: ChunkyTriMesh,
    settings: BuildSettings,
    base: VoxelConfig,
    grid: TileGrid,
    #[cfg(feature = "tile-store")]
    store: Option<TileStore>,
}

impl TileBuilder {
    /// A builder for `geom`, which the caller has validated.
    fn new(geom: InputGeometry, settings: &BuildSettings) -> Result<TileBuilder> {
        let (bmin, bmax) = geom.mesh.bounds().into();
        let grid = TileGrid::new(bmin, bmax, settings)?;
        let base = settings.to_config(bmin, bmax)?;
        let index = ChunkyTriMesh::new(&geom.mesh, TRIS_PER_CHUNK);
        Ok(TileBuilder {
            geom,
            index,
            settings: settings.clone(),
            base,
            grid,
            #[cfg(feature = "tile-store")]
            store: None,
        })
    }

    /// The parts a tile build reads.
    fn parts(&self) -> TileParts<'_> {
        TileParts {
            geom: &self.geom,
            index: &self.index,
            settings: &self.settings,
            base: &self.base,
            grid: &self.grid,
            #[cfg(feature = "tile-store")]
            store: self.store.as_ref(),
        }
    }

    fn build_tile(&self, ctx: &mut RecastContext, guard: &Guard, x: i32, z: i32) -> Result<Built> {
        self.parts().build_tile(ctx, guard, x, z, None)
    }

    /// Builds `tiles` on the current rayon pool's workers, in the order given, calling
    /// `progress(done, total)` after each tile.
    fn build_tiles(
        &self,
        tiles: &[TileCoord],
        guard: &Guard,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<Vec<Built>> {
        let total = tiles.len();
        let done = AtomicUsize::new(0);
        let work = |ctx: &mut RecastContext, t: &TileCoord| {
            let b = self.build_tile(ctx, guard, t.x, t.z);
            progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
            b
        };
        if crate::par::current_num_threads() <= 1 {
            let mut ctx = RecastContext::new();
            return tiles.iter().map(|t| work(&mut ctx, t)).collect();
        }
        tiles
            .par_iter()
            .with_max_len(1)
            .map_init(RecastContext::new, work)
            .collect()
    }
}

/// What building one tile reads: the geometry, its triangle index, the settings, the whole
/// build's voxel grid and the tile grid (borrowed from a [`TileBuilder`], or for
/// one tile's stages).
struct TileParts<'a> {
    geom: &'a InputGeometry,
    index: &'a ChunkyTriMesh,
    settings: &'a BuildSettings,
    base: &'a VoxelConfig,
    grid: &'a TileGrid,
    /// Where built tiles are looked up first and kept.
    #[cfg(feature = "tile-store")]
    store: Option<&'a TileStore>,
}

impl TileParts<'_> {
    /// The voxel grid of tile (x, z): the tile plus its border.
    fn tile_config(&self, x: i32, z: i32) -> VoxelConfig {
        tile_config(self.base, self.grid, TileCoord::new(x, z))
    }

    /// The stages of `tile`, which the caller has checked is in the grid.
    fn stages(&self, guard: &Guard, tile: TileCoord) -> Result<TileStages> {
        let started = Instant::now();
        let mut ctx = RecastContext::new();
        let mut stages = SoloStages::default();
        let built = self.build_tile(&mut ctx, guard, tile.x, tile.z, Some(&mut stages))?;
        Ok(TileStages {
            tile,
            grid: *self.grid,
            config: self.tile_config(tile.x, tile.z),
            stages,
            counts: built.counts,
            data: built.data,
            stage_ms: built.stage_ms,
            ms: started.elapsed().as_secs_f64() * 1e3,
            warnings: built.warnings,
        })
    }

    /// Builds tile (x, z), copying its stages into `capture` when given.
    fn build_tile(
        &self,
        ctx: &mut RecastContext,
        guard: &Guard,
        x: i32,
        z: i32,
        mut capture: Option<&mut SoloStages>,
    ) -> Result<Built> {
        guard.check(Stage::Rasterize)?;
        let started = Instant::now();
        ctx.reset_timers();
        ctx.take_logs();
        let cfg = self.tile_config(x, z);
        let near = TileTris::gather(self.geom, self.index, &cfg);
        #[cfg(feature = "tile-store")]
        let key = match (self.store, &capture) {
            (Some(store), None) => {
                let (key, found) = self.stored(store, &cfg, TileCoord::new(x, z), &near);
                match found {
                    Ok(reused) => return Ok(reused),
                    Err(note) => Some((store, key, note)),
                }
            }
            _ => None,
        };
        let mut built = Built {
            x,
            z,
            reused: false,
            refused: false,
            data: None,
            polys: 0,
            counts: StageCounts::default(),
            ms: 0.0,
            stage_ms: Vec::new(),
            warnings: Vec::new(),
        };
        let mut detour_ms = 0.0;
        if let Some((chf, spans, tris)) = tile_walkable_area(
            ctx,
            guard,
            self.geom,
            &near,
            &cfg,
            self.settings,
            capture.as_deref_mut(),
        )? {
            let p = detour_tile(
                ctx,
                guard,
                self.geom,
                self.settings,
                &cfg,
                chf,
                [x, z],
                // The tiles are built side by side already: each detail mesh in one piece.
                1,
                capture,
            )?;
            built.counts = StageCounts {
                rasterized_tris: tris,
                spans: spans.max(0) as usize,
                ..p.counts()
            };
            if p.data.is_some() {
                built.polys = p.polymesh_polys;
                detour_ms = p.detour_ms;
                built.data = p.data;
            }
        }
        built.stage_ms = stage_timings(ctx, detour_ms);
        built.warnings = ctx
            .take_logs()
            .into_iter()
            .filter(|l| l.category != LogCategory::Progress)
            .map(|l| format!("tile ({x}, {z}): {}", l.text))
            .collect();
        #[cfg(feature = "tile-store")]
        if let Some((store, key, note)) = key {
            store.put(&key, TileCoord::new(x, z), built.data.as_deref())?;
            built.refused = note.is_some();
            built.warnings.extend(note);
        }
        built.ms = started.elapsed().as_secs_f64() * 1e3;
        Ok(built)
    }
}

#[cfg(feature = "tile-store")]
impl TileParts<'_> {
    /// `tile`'s key, and the store's tile for it if it holds a good one (else a note on the
    /// entry refused, if one was).
    fn stored(
        &self,
        store: &TileStore,
        cfg: &VoxelConfig,
        tile: TileCoord,
        near: &TileTris,
    ) -> (TileKey, std::result::Result<Built, Option<String>>) {
        let key = tile_key::tile_key(self.geom, self.settings, cfg, tile, near);
        let data = match store.get(&key, tile) {
            store::Lookup::Tile(d) => Some(d),
            store::Lookup::Empty => None,
            store::Lookup::Missing => return (key, Err(None)),
            store::Lookup::Corrupt(why) => {
                return (
                    key,
                    Err(Some(format!(
                        "tile store: entry refused, tile rebuilt: {why}"
                    ))),
                );
            }
        };
        let polys = data.as_deref().map_or(0, |d| {
            crate::navmesh::mset::validate_tile_data(d).map_or(0, |i| i.detail_mesh_count)
        });
        let built = Built {
            x: tile.x,
            z: tile.z,
            reused: true,
            refused: false,
            data,
            polys,
            counts: StageCounts::default(),
            ms: 0.0,
            stage_ms: Vec::new(),
            warnings: Vec::new(),
        };
        (key, Ok(built))
    }
}

/// The voxel grid of `tile` of `grid`: the tile plus `agent radius + 3` cells of border on
/// every side, the rest of `base` (RecastDemo's `buildTileMesh` and `rasterizeTileLayers`).
pub(crate) fn tile_config(base: &VoxelConfig, grid: &TileGrid, tile: TileCoord) -> VoxelConfig {
    let mut cfg = base.clone();
    let ts = grid.tile_size;
    let border = cfg.walkable_radius + 3;
    cfg.tile_size = ts;
    cfg.border_size = border;
    cfg.width = ts + border * 2;
    cfg.height = ts + border * 2;
    let (tmin, tmax) = grid.tile_bounds(tile).into();
    let b = border as f32 * cfg.cs;
    cfg.bmin = [tmin.x - b, base.bmin[1], tmin.z - b];
    cfg.bmax = [tmax.x + b, base.bmax[1], tmax.z + b];
    cfg
}

/// What a rebuild did to one tile position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum TileChange {
    /// A tile was added where there was none.
    Added,
    /// The tile was replaced.
    Replaced,
    /// The tile was removed (it is empty now, or removal was asked for).
    Removed,
    /// Nothing there before or after.
    Empty,
}

/// A tiled navmesh with the geometry and settings it was built from, so tiles can be rebuilt.
///
/// [`TiledNavMesh::navmesh`] lends the navmesh to queries; rebuilding takes `&mut self`, so no
/// query can be alive across a change.
pub struct TiledNavMesh {
    builder: TileBuilder,
    navmesh: NavMesh,
    /// Each grid position's tile data as built (Detour writes links into the copy it holds).
    as_built: Vec<Option<Vec<u8>>>,
    report: TiledReport,
    /// The budget of rebuilds: its token, and its time limit for each rebuild call.
    budget: Budget,
    /// The whole build's key, for a shard built from its part of the level.
    #[cfg(feature = "tile-store")]
    part_key: Option<[u8; 32]>,
}

impl TiledNavMesh {
    /// Builds every tile with `options` (see [`crate::NavMeshBuilder::tiled`]), calling
    /// `progress(tiles_done, tiles_total)` from the worker threads as tiles finish. Within
    /// `budget`: refused before building if the [`estimate`](crate::build::estimate) shows
    /// stray vertices or its memory for one tile per thread is over the budget (the grid-cell
    /// limit applies to the whole grid); stopped at the next tile or stage after the budget's
    /// token is cancelled or its time runs out.
    pub(crate) fn build(
        geom: InputGeometry,
        settings: &BuildSettings,
        options: &TiledOptions,
        plan: &TilePlan,
        budget: &Budget,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<TiledNavMesh> {
        let guard = budget.start();
        let threads = options.effective_threads();
        // Everything runs on a pool of exactly `threads` threads: the triangle index too.
        let pool = crate::par::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| Error::Threads {
                threads,
                source: std::sync::Arc::new(e),
            })?;
        pool.install(|| {
            Self::build_in_pool(geom, settings, threads, plan, budget, &guard, progress)
        })
    }

    fn build_in_pool(
        geom: InputGeometry,
        settings: &BuildSettings,
        threads: usize,
        plan: &TilePlan,
        budget: &Budget,
        guard: &Guard,
        progress: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<TiledNavMesh> {
        let started = Instant::now();
        #[cfg(feature = "tile-store")]
        let part_of_level = plan.build_key.is_some();
        #[cfg(not(feature = "tile-store"))]
        let part_of_level = false;
        if part_of_level {
            geom.validate_part()?;
        } else {
            geom.validate()?;
        }
        budget.check_estimate_for(
            &crate::build::budget::estimate_validated(&geom, settings)?,
            BuildKind::Tiled(threads),
        )?;
        #[allow(unused_mut)] // mut with the tile store
        let mut builder = TileBuilder::new(geom, settings)?;
        #[cfg(feature = "tile-store")]
        {
            builder.store = plan.store.clone();
        }
        let index_ms = started.elapsed().as_secs_f64() * 1e3;
        check_tile_count(&builder.grid, settings)?;
        let tiles = plan.tiles(&builder.grid);
        let tiles_started = Instant::now();
        let built = builder.build_tiles(&tiles, guard, progress)?;
        let tiles_ms = tiles_started.elapsed().as_secs_f64() * 1e3;

        let max_polys = built.iter().map(|b| b.polys).max().unwrap_or(0);
        let (tile_bits, poly_bits) = ref_bits(&builder.grid, max_polys)?;
        let params = NavMeshParams {
            origin: builder.grid.bmin.to_array(),
            tile_width: builder.grid.tile_width(),
            tile_height: builder.grid.tile_width(),
            max_tiles: 1 << tile_bits,
            max_polys: 1 << poly_bits,
        };
        let mut navmesh = NavMesh::new(&params)?;
        for b in &built {
            if let Some(d) = &b.data {
                navmesh.add_tile(d)?;
            }
        }
        let stats = tile_stats(&built);
        let (totals, max, tile_counts) = stage_counts(&built);
        let warnings = built.iter().flat_map(|b| b.warnings.clone()).collect();
        let tiles_reused = built.iter().filter(|b| b.reused).count();
        let store_entries_refused = built.iter().filter(|b| b.refused).count();
        let tiles_built = built.len() - tiles_reused;
        let mut as_built = vec![None; builder.grid.tile_count()];
        let tiles_x = builder.grid.tiles_x as usize;
        for b in built {
            as_built[b.z as usize * tiles_x + b.x as usize] = b.data;
        }
        let off_mesh_issues = off_mesh_issues(
            &navmesh,
            &builder.geom.off_mesh_connections,
            settings.agent_max_climb,
        );
        let mut report = TiledReport {
            grid: builder.grid,
            tile_count: navmesh.tile_count(),
            tile_bits,
            poly_bits,
            threads,
            input_tris: builder.geom.mesh.tri_count(),
            tiles: stats,
            totals,
            max,
            tile_counts,
            off_mesh_issues,
            data_hash: String::new(),
            total_ms: 0.0,
            tiles_ms,
            index_ms,
            warnings,
            tiles_built,
            tiles_reused,
            store_entries_refused,
            #[cfg(feature = "tile-store")]
            shard: plan.shard,
        };
        let mut tiled = TiledNavMesh {
            builder,
            navmesh,
            as_built,
            report: report.clone(),
            budget: budget.clone(),
            #[cfg(feature = "tile-store")]
            part_key: plan.build_key,
        };
        report.data_hash = tiled.data_hash();
        report.total_ms = started.elapsed().as_secs_f64() * 1e3;
        tiled.report = report;
        Ok(tiled)
    }

    /// The navmesh, for queries.
    pub fn navmesh(&self) -> &NavMesh {
        &self.navmesh
    }

    /// Gives up the builder and keeps the navmesh.
    pub fn into_navmesh(self) -> NavMesh {
        self.navmesh
    }

    /// The tile grid.
    pub fn grid(&self) -> &TileGrid {
        &self.builder.grid
    }

    /// The report of the full build (tile count and hash as they were then).
    pub fn report(&self) -> &TiledReport {
        &self.report
    }

    /// The geometry tiles are built from.
    pub fn geometry(&self) -> &InputGeometry {
        &self.builder.geom
    }

    fn slot(&self, x: i32, z: i32) -> usize {
        z as usize * self.builder.grid.tiles_x as usize + x as usize
    }

    /// Every tile in the navmesh, with its data as built (before Detour wrote its links into
    /// its own copy), in grid order.
    pub fn tiles(&self) -> Vec<TileData> {
        self.builder
            .grid
            .all_tiles()
            .into_iter()
            .zip(&self.as_built)
            .filter_map(|(tile, d)| {
                d.as_ref().map(|d| TileData {
                    tile,
                    data: d.clone(),
                })
            })
            .collect()
    }

    /// The shard's part file (see [`shard`](crate::build::tiled::Shard)): RecastDemo's `MSET`
    /// with the whole navmesh's parameters and this shard's tiles as built, then navkit's
    /// shard trailer. An error unless this is a shard's build
    /// ([`NavMeshBuilder::shard`](crate::NavMeshBuilder::shard)).
    #[cfg(feature = "tile-store")]
    pub fn part_bytes(&self) -> Result<Vec<u8>> {
        let shard = self.report.shard.ok_or_else(|| {
            Error::InvalidArgument("a part file is written by a shard's build only".into())
        })?;
        let grid = &self.builder.grid;
        let tiles: Vec<(TileCoord, &[u8])> = grid
            .all_tiles()
            .into_iter()
            .zip(&self.as_built)
            .filter_map(|(t, d)| d.as_deref().map(|d| (t, d)))
            .collect();
        let key = self
            .part_key
            .unwrap_or_else(|| build_key(&self.builder.geom, &self.builder.settings));
        shard::write_part(&self.navmesh.params(), grid, shard, key, &tiles)
    }

    /// [`data_hash`] of the navmesh's tiles as built, as they are now.
    pub fn data_hash(&self) -> String {
        data_hash(
            self.builder
                .grid
                .all_tiles()
                .into_iter()
                .zip(&self.as_built)
                .filter_map(|(tile, d)| d.as_deref().map(|d| (tile, d))),
        )
    }

    /// The budget of later rebuilds ([`rebuild_tile`](Self::rebuild_tile),
    /// [`rebuild_box`](Self::rebuild_box)): its cancellation token stops them, and its time limit
    /// applies to each call anew; a stopped rebuild leaves the navmesh as it was. It starts as
    /// the budget of the build.
    pub fn set_budget(&mut self, budget: Budget) {
        self.budget = budget;
    }

    /// Replaces the geometry (after a level edit) and re-indexes it. Tiles are not rebuilt until
    /// asked ([`TiledNavMesh::rebuild_box`]); the tile grid stays as it was built, so geometry
    /// outside it is never part of the navmesh.
    pub fn set_geometry(&mut self, geom: InputGeometry) -> Result<()> {
        geom.validate()?;
        self.builder.index = ChunkyTriMesh::new(&geom.mesh, TRIS_PER_CHUNK);
        self.builder.geom = geom;
        Ok(())
    }

    /// Rebuilds (or adds) `tile` from the current geometry.
    pub fn rebuild_tile(&mut self, tile: TileCoord) -> Result<TileChange> {
        let (x, z) = (tile.x, tile.z);
        if !(0..self.grid().tiles_x).contains(&x) || !(0..self.grid().tiles_z).contains(&z) {
            return Err(Error::InvalidArgument(format!(
                "tile ({x}, {z}) is outside the {} x {} tile grid",
                self.grid().tiles_x,
                self.grid().tiles_z
            )));
        }
        Ok(self.rebuild(&[tile], 1)?[0].1)
    }

    /// Rebuilds (or adds) every tile overlapping `area` on `options.threads` workers;
    /// returns each tile position and what happened to it.
    pub fn rebuild_box(
        &mut self,
        area: Aabb,
        options: &TiledOptions,
    ) -> Result<Vec<(TileCoord, TileChange)>> {
        let tiles = self.grid().tiles_in_box(area);
        self.rebuild(&tiles, options.effective_threads())
    }

    fn rebuild(
        &mut self,
        tiles: &[TileCoord],
        threads: usize,
    ) -> Result<Vec<(TileCoord, TileChange)>> {
        // Build everything first, so a failure leaves the navmesh untouched.
        let guard = self.budget.start();
        let built = if threads <= 1 {
            let mut ctx = RecastContext::new();
            tiles
                .iter()
                .map(|t| self.builder.build_tile(&mut ctx, &guard, t.x, t.z))
                .collect::<Result<Vec<_>>>()?
        } else {
            crate::par::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map_err(|e| Error::Threads {
                    threads,
                    source: std::sync::Arc::new(e),
                })?
                .install(|| self.builder.build_tiles(tiles, &guard, &|_, _| {}))?
        };
        let max_polys = 1usize << self.navmesh.params().ref_layout().poly_bits;
        if let Some(b) = built.iter().find(|b| b.polys > max_polys) {
            return Err(Error::Build {
                stage: Stage::DetourData,
                message: format!(
                    "tile ({}, {}) has {} polys; this navmesh's refs address at most {max_polys}",
                    b.x, b.z, b.polys
                ),
            });
        }
        let mut out = Vec::with_capacity(built.len());
        for b in built {
            let had = self.navmesh.remove_tile(TileCoord::new(b.x, b.z))?;
            let slot = self.slot(b.x, b.z);
            self.as_built[slot] = None;
            let change = match (&b.data, had) {
                (Some(d), had) => {
                    self.navmesh.add_tile(d)?;
                    self.as_built[slot] = b.data.clone();
                    if had {
                        TileChange::Replaced
                    } else {
                        TileChange::Added
                    }
                }
                (None, true) => TileChange::Removed,
                (None, false) => TileChange::Empty,
            };
            out.push((TileCoord::new(b.x, b.z), change));
        }
        Ok(out)
    }

    /// The Recast stages of `tile` from the current geometry, with a copy of each stage (as
    /// RecastDemo's Tile Mesh sample shows those of the tile the user builds by clicking): the
    /// same pipeline the build runs for that tile (its border-expanded bounds, the triangles of
    /// the chunks overlapping them, the same settings). Only that tile is built, and the
    /// navmesh is not changed.
    ///
    /// Within `budget`: refused before building if one tile's grid (with its border) is over
    /// the budget's cell or memory limit, or the level has stray vertices; stopped once its
    /// time runs out or its token is cancelled. A tile outside the grid, or on a layer other
    /// than 0, is an [`Error::InvalidArgument`].
    ///
    /// ```
    /// # fn main() -> navkit::Result<()> {
    /// let floor = navkit::TriMesh::new(
    ///     vec![0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0],
    ///     vec![0, 1, 2, 0, 2, 3],
    /// )?;
    /// let geom = navkit::InputGeometry::from_mesh(floor);
    /// let tiled = navkit::NavMeshBuilder::new(&geom).tile_size(32).tiled()?;
    /// let budget = navkit::build::Budget::default();
    /// let t = tiled.tile_stages(navkit::TileCoord::new(1, 0), &budget)?;
    /// assert_eq!(t.stages.poly_mesh.polys.len(), t.counts.polymesh_polys);
    /// assert!(tiled.tile_stages(navkit::TileCoord::new(9, 0), &budget).is_err());
    /// # Ok(())
    /// # }
    /// ```
    pub fn tile_stages(&self, tile: TileCoord, budget: &Budget) -> Result<TileStages> {
        let guard = budget.start();
        check_tile(&self.builder.grid, tile)?;
        check_tile_estimate(
            &self.builder.geom,
            &self.builder.settings,
            &self.builder.base,
            &self.builder.grid,
            budget,
        )?;
        self.builder.parts().stages(&guard, tile)
    }

    /// Removes `tile`; returns whether there was one.
    pub fn remove_tile(&mut self, tile: TileCoord) -> Result<bool> {
        let removed = self.navmesh.remove_tile(tile.with_layer(0))?;
        if removed {
            let slot = self.slot(tile.x, tile.z);
            self.as_built[slot] = None;
        }
        Ok(removed)
    }

    /// Removes every tile overlapping `area`; returns how many there were.
    pub fn remove_box(&mut self, area: Aabb) -> Result<usize> {
        let mut n = 0;
        for tile in self.grid().tiles_in_box(area) {
            n += self.remove_tile(tile)? as usize;
        }
        Ok(n)
    }
}

impl std::fmt::Debug for TiledNavMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TiledNavMesh")
            .field("grid", &self.builder.grid)
            .field("tiles", &self.navmesh.tile_count())
            .finish()
    }
}

/// `Err` if `grid` has more tile positions than a navmesh holds.
fn check_tile_count(grid: &TileGrid, settings: &BuildSettings) -> Result<()> {
    let positions = grid.tile_count() as u64;
    if positions > u64::from(crate::navmesh::mset::MAX_TILES_LIMIT as u32) {
        return Err(Error::Setting {
            name: "tile_size",
            value: settings.tile_size.to_string(),
            reason: format!(
                "gives {} x {} = {positions} tiles; a navmesh holds at most {} (use bigger tiles)",
                grid.tiles_x,
                grid.tiles_z,
                crate::navmesh::mset::MAX_TILES_LIMIT
            ),
        });
    }
    Ok(())
}

/// The tile and poly bits of the refs of a navmesh over `grid` whose fullest tile has
/// `max_polys` polys: RecastDemo's, or more tile bits if the grid has more tiles than they
/// address (`Err` if the polys then do not fit).
fn ref_bits(grid: &TileGrid, max_polys: usize) -> Result<(u32, u32)> {
    let (mut tile_bits, mut poly_bits) = grid.ref_bits();
    let needed_tile_bits = (grid.tile_count() as u32)
        .max(1)
        .next_power_of_two()
        .ilog2();
    if needed_tile_bits > tile_bits {
        tile_bits = needed_tile_bits;
        // 64-bit refs (`large-refs`) have 20 poly bits whatever the tile bits.
        poly_bits = if cfg!(feature = "large-refs") {
            RefLayout::LARGE.poly_bits
        } else {
            22u32.saturating_sub(tile_bits)
        };
        let max_tile_bits = if cfg!(feature = "large-refs") { 20 } else { 22 };
        if tile_bits > max_tile_bits || (max_polys as u64) > (1u64 << poly_bits) {
            return Err(Error::Build {
                stage: Stage::DetourData,
                message: format!(
                    "{} tiles with up to {max_polys} polys each do not fit Detour's {} \
                     refs ({tile_bits} tile bits leave {poly_bits} poly bits); use bigger tiles{}",
                    grid.tile_count(),
                    RefWidth::NATIVE,
                    if cfg!(feature = "large-refs") {
                        ""
                    } else {
                        " or navkit's `large-refs` feature (64-bit refs)"
                    }
                ),
            });
        }
    }
    Ok((tile_bits, poly_bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    #[test]
    fn grid_maths() {
        let s = BuildSettings::default();
        let g = TileGrid::new(Vec3::ZERO, Vec3::new(20.0, 5.0, 10.0), &s).unwrap();
        // 20 / 0.3 + 0.5 = 67 cells -> 3 tiles of 32; 10 / 0.3 + 0.5 = 33 -> 2.
        assert_eq!((g.tiles_x, g.tiles_z), (3, 2));
        assert_eq!(
            g.tile_at(Vec3::new(10.0, 0.0, 1.0)),
            Some(TileCoord::new(1, 0))
        );
        assert_eq!(g.tile_at(Vec3::new(-1.0, 0.0, 1.0)), None);
        assert_eq!(
            g.tiles_in_box(Aabb::new(
                Vec3::new(9.0, 0.0, 9.0),
                Vec3::new(100.0, 0.0, 100.0)
            )),
            [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)].map(|(x, z)| TileCoord::new(x, z))
        );
        assert!(
            g.tiles_in_box(Aabb::new(Vec3::splat(f32::NAN), Vec3::splat(1.0)))
                .is_empty()
        );
        assert_eq!(g.ref_bits(), (3, 19));
        let bad = BuildSettings { tile_size: 4, ..s };
        assert!(TileGrid::new(Vec3::ZERO, Vec3::ONE, &bad).is_err());
    }

    #[test]
    fn hash_depends_on_position_and_data() {
        let t = TileCoord::new;
        let a = data_hash([(t(0, 0), &b"abc"[..])]);
        assert_ne!(a, data_hash([(t(1, 0), &b"abc"[..])]));
        assert_ne!(a, data_hash([(t(0, 0), &b"abd"[..])]));
        assert_eq!(a, data_hash([(t(0, 0), &b"abc"[..])]));
        // The hash of the published format: x, z, length, data (as before TileCoord).
        assert_eq!(data_hash([(t(0, 0), &b""[..])]).len(), 16);
    }
}
