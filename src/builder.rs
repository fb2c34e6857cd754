//! [`NavMeshBuilder`]: the one way to build from input geometry: a solo navmesh
//! ([`SoloBuild`]), a tiled one built on every core ([`TiledNavMesh`]), a tile cache for
//! run-time obstacles ([`TileCache`]) or the mesh-derived grid ([`MeshGrid`]), all with the
//! same settings.

#[cfg(feature = "tile-store")]
use crate::build::tiled::{Shard, TileStore};
use crate::build::tiled::{TilePlan, TiledNavMesh, TiledOptions};
use crate::build::{Budget, BuildEstimate, SoloBuild};
use crate::grid::mesh::MeshGrid;
use crate::tilecache::{TileCache, TileCacheSettings};
use crate::{BuildSettings, InputGeometry, Result};

/// A progress callback: `(tiles_done, tiles_total)`, called from worker threads.
pub type Progress<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// Builds navmeshes (and the mesh-derived grid) from one geometry with one set of settings.
///
/// The settings start as the geometry's own (a `.gset` file's `s` line) or RecastDemo's
/// defaults; [`settings`](Self::settings), [`tile_size`](Self::tile_size),
/// [`threads`](Self::threads), [`progress`](Self::progress), [`budget`](Self::budget),
/// [`cache_settings`](Self::cache_settings) and [`capture_stages`](Self::capture_stages) change
/// them; then [`solo`](Self::solo), [`tiled`](Self::tiled), [`tile_cache`](Self::tile_cache)
/// or [`grid`](Self::grid) builds. A builder can build several times.
///
/// ```
/// use navkit::{InputGeometry, NavMeshBuilder};
/// let geom = InputGeometry::load("meshes/demo_level.gset")?;
/// let solo = NavMeshBuilder::new(&geom).solo()?;                       // RecastDemo's Solo Mesh
/// let tiled = NavMeshBuilder::new(&geom)
///     .tile_size(64)
///     .threads(0)                                                      // every core
///     .progress(&|done, total| eprint!("\r{done}/{total} tiles"))
///     .tiled()?;                                                       // RecastDemo's Tile Mesh
/// let cache = NavMeshBuilder::new(&geom).tile_size(48).tile_cache()?;  // Temp Obstacles
/// let grid = NavMeshBuilder::new(&geom).grid()?;                       // the same walkable area
/// println!("{} / {} / {} tiles, {} cells", solo.navmesh().tile_count(),
///          tiled.navmesh().tile_count(), cache.navmesh().tile_count(), grid.walkable_count());
/// for issue in &solo.report().off_mesh_issues {
///     eprintln!("{issue}");                                            // links paths cannot take
/// }
/// # Ok::<(), navkit::Error>(())
/// ```
pub struct NavMeshBuilder<'a> {
    geom: &'a InputGeometry,
    settings: BuildSettings,
    tile_size: Option<u32>,
    threads: usize,
    cache: TileCacheSettings,
    progress: Option<&'a Progress<'a>>,
    budget: Budget,
    capture_stages: bool,
    plan: TilePlan,
}

impl std::fmt::Debug for NavMeshBuilder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavMeshBuilder")
            .field("settings", &self.settings)
            .field("tile_size", &self.tile_size)
            .field("threads", &self.threads)
            .field("cache", &self.cache)
            .field("progress", &self.progress.is_some())
            .field("budget", &self.budget)
            .field("capture_stages", &self.capture_stages)
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

impl<'a> NavMeshBuilder<'a> {
    /// A builder for `geom`, with its own settings (from a `.gset` file) or RecastDemo's
    /// defaults, every core, no progress callback, no limits, no stage copies.
    pub fn new(geom: &'a InputGeometry) -> Self {
        NavMeshBuilder {
            geom,
            settings: geom.settings.clone().unwrap_or_default(),
            tile_size: None,
            threads: 0,
            cache: TileCacheSettings::default(),
            progress: None,
            budget: Budget::default(),
            capture_stages: false,
            plan: TilePlan::default(),
        }
    }

    /// Replaces the build settings (a tile size given with [`tile_size`](Self::tile_size)
    /// still wins).
    pub fn settings(mut self, settings: BuildSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Tile size in cells, for [`tiled`](Self::tiled) (default: the settings' `tile_size`,
    /// 32) and [`tile_cache`](Self::tile_cache) (default 48). Ignored by [`solo`](Self::solo)
    /// and [`grid`](Self::grid).
    pub fn tile_size(mut self, cells: u32) -> Self {
        self.tile_size = Some(cells);
        self
    }

    /// Worker threads of a tiled build; 0 (the default) means one per core. The tiles are the
    /// same bytes for any count.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The tile cache's layers per tile and obstacle pool (its tile size comes from
    /// [`tile_size`](Self::tile_size) if given).
    pub fn cache_settings(mut self, cache: TileCacheSettings) -> Self {
        self.cache = cache;
        self
    }

    /// Called as the tiles of a tiled build finish: `(tiles_done, tiles_total)`, from the
    /// worker threads.
    pub fn progress(mut self, progress: &'a Progress<'a>) -> Self {
        self.progress = Some(progress);
        self
    }

    /// Limits for the builds: a cancellation token, a time limit, limits on grid cells and
    /// estimated memory, the stray-vertex check (see [`Budget`]). A tiled navmesh keeps it for
    /// its later rebuilds.
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Whether [`solo`](Self::solo) also keeps owned copies of Recast's intermediate stages
    /// (the heightfield after the filters, the partitioned compact heightfield, the contours,
    /// the poly mesh and the detail mesh: [`SoloBuild::stages`]), for looking at them, for
    /// example with `navkit::debug_draw::stages`. Copying costs time and memory in proportion
    /// to the heightfield; off by default. (One tile's stages of a tiled build:
    /// [`TiledNavMesh::tile_stages`].)
    ///
    /// ```
    /// # fn main() -> navkit::Result<()> {
    /// let floor = navkit::TriMesh::new(
    ///     vec![0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 0.0, 10.0, 10.0, 0.0, 0.0],
    ///     vec![0, 1, 2, 0, 2, 3],
    /// )?;
    /// let geom = navkit::InputGeometry::from_mesh(floor);
    /// let built = navkit::NavMeshBuilder::new(&geom).capture_stages(true).solo()?;
    /// let stages = built.stages().unwrap();
    /// let walkable = stages.heightfield.spans.iter().filter(|s| s.area != 0).count();
    /// assert_eq!(walkable, built.report().spans as usize);
    /// assert_eq!(stages.contours.contours.len(), built.report().contours as usize);
    /// # Ok(())
    /// # }
    /// ```
    pub fn capture_stages(mut self, capture: bool) -> Self {
        self.capture_stages = capture;
        self
    }

    /// Tiled builds look each tile up in `store` first (by its [`TileKey`](crate::build::tiled::TileKey))
    /// and keep the tiles they build there, so that only tiles whose input changed are built
    /// (see [`TileStore`]). The report counts `tiles_built` and `tiles_reused`.
    #[cfg(feature = "tile-store")]
    pub fn tile_store(mut self, store: &TileStore) -> Self {
        self.plan.store = Some(store.clone());
        self
    }

    /// Tiled builds build only `shard`'s tiles (see [`Shard`]); save them with
    /// [`TiledNavMesh::part_bytes`] and put every shard together with
    /// [`merge_parts`](crate::build::tiled::merge_parts).
    #[cfg(feature = "tile-store")]
    pub fn shard(mut self, shard: Shard) -> Self {
        self.plan.shard = Some(shard);
        self
    }

    /// [`shard`](Self::shard) of a geometry that is only that shard's part of the level,
    /// whose whole build has key `build_key` ([`ShardInput::builder`](crate::build::tiled::ShardInput::builder)).
    #[cfg(feature = "tile-store")]
    pub(crate) fn shard_of(mut self, shard: Shard, build_key: [u8; 32]) -> Self {
        self.plan.shard = Some(shard);
        self.plan.build_key = Some(build_key);
        self
    }

    /// What a solo build would cost (grid cells, spans, memory) and any stray vertices, without
    /// building: see [`crate::build::estimate`].
    pub fn estimate(&self) -> Result<BuildEstimate> {
        crate::build::estimate(self.geom, &self.build_settings())
    }

    /// The settings a build will use.
    pub fn build_settings(&self) -> BuildSettings {
        let mut s = self.settings.clone();
        if let Some(ts) = self.tile_size {
            s.tile_size = ts;
        }
        s
    }

    /// One navmesh tile over the whole level: RecastDemo's Solo Mesh, within the
    /// [`budget`](Self::budget), with its stages if [`capture_stages`](Self::capture_stages).
    /// The report lists the off-mesh links paths can never take.
    pub fn solo(&self) -> Result<SoloBuild> {
        crate::build::build_solo(self.geom, &self.settings, &self.budget, self.capture_stages)
    }

    /// A tiled navmesh, its tiles built on [`threads`](Self::threads) workers: RecastDemo's
    /// Tile Mesh. The result keeps a copy of the geometry so that tiles can be rebuilt later.
    pub fn tiled(&self) -> Result<TiledNavMesh> {
        let options = TiledOptions {
            threads: self.threads,
        };
        TiledNavMesh::build(
            self.geom.clone(),
            &self.build_settings(),
            &options,
            &self.plan,
            &self.budget,
            self.progress.unwrap_or(&|_, _| {}),
        )
    }

    /// A tile cache (RecastDemo's Temp Obstacles): compressed heightfield layers per tile,
    /// obstacles added and removed at run time.
    pub fn tile_cache(&self) -> Result<TileCache> {
        let mut cache = self.cache.clone();
        if let Some(ts) = self.tile_size {
            cache.tile_size = ts;
        }
        TileCache::build(self.geom, &self.settings, &cache, &self.budget)
    }

    /// The mesh-derived grid: the walkable spans of the same pipeline up to erosion and convex
    /// volumes, with the same settings as the navmesh builds (so a grid and a navmesh of one
    /// builder cover the same walkable area), and the geometry's off-mesh links.
    pub fn grid(&self) -> Result<MeshGrid> {
        MeshGrid::build(self.geom, &self.settings)
    }
}
