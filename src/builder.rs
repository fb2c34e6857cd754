//! [`NavMeshBuilder`]: one way to build every kind of navmesh from input geometry: a solo
//! navmesh ([`crate::build::build_solo`]), a tiled one built on every core
//! ([`crate::build::tiled::TiledNavMesh`]) or a tile cache for run-time obstacles
//! ([`crate::tilecache::TileCache`]).

use crate::build::tiled::{TiledNavMesh, TiledOptions};
use crate::build::{Budget, BuildEstimate, SoloBuild, build_solo_with};
use crate::tilecache::{TileCache, TileCacheSettings};
use crate::{BuildSettings, InputGeometry, Result};

/// A progress callback: `(tiles_done, tiles_total)`, called from worker threads.
pub type Progress<'a> = dyn Fn(usize, usize) + Sync + 'a;

/// Builds navmeshes from one geometry with one set of settings.
///
/// The settings start as the geometry's own (a `.gset` file's `s` line) or RecastDemo's
/// defaults; [`settings`](Self::settings), [`tile_size`](Self::tile_size),
/// [`threads`](Self::threads) and [`progress`](Self::progress) change them; then
/// [`solo`](Self::solo), [`tiled`](Self::tiled) or [`tile_cache`](Self::tile_cache) builds.
///
/// ```no_run
/// use navkit::{InputGeometry, NavMeshBuilder};
/// let geom = InputGeometry::load("level.gset")?;
/// let solo = NavMeshBuilder::new(&geom).solo()?;                       // RecastDemo's Solo Mesh
/// let tiled = NavMeshBuilder::new(&geom)
///     .tile_size(64)
///     .threads(0)                                                      // every core
///     .progress(&|done, total| eprint!("\r{done}/{total} tiles"))
///     .tiled()?;                                                       // RecastDemo's Tile Mesh
/// let cache = NavMeshBuilder::new(&geom).tile_size(48).tile_cache()?;  // Temp Obstacles
/// println!("{} / {} / {} tiles", solo.navmesh.tile_count(), tiled.navmesh().tile_count(),
///          cache.navmesh().tile_count());
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
            .finish_non_exhaustive()
    }
}

impl<'a> NavMeshBuilder<'a> {
    /// A builder for `geom`, with its own settings (from a `.gset` file) or RecastDemo's
    /// defaults, every core, no progress callback.
    pub fn new(geom: &'a InputGeometry) -> Self {
        NavMeshBuilder {
            geom,
            settings: geom.settings.clone().unwrap_or_default(),
            tile_size: None,
            threads: 0,
            cache: TileCacheSettings::default(),
            progress: None,
            budget: Budget::default(),
        }
    }

    /// Replaces the build settings (a tile size given with [`tile_size`](Self::tile_size)
    /// still wins).
    pub fn settings(mut self, settings: BuildSettings) -> Self {
        self.settings = settings;
        self
    }

    /// Tile size in cells, for [`tiled`](Self::tiled) (default: the settings' `tile_size`,
    /// 32) and [`tile_cache`](Self::tile_cache) (default 48). Ignored by [`solo`](Self::solo).
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
    /// estimated memory, the stray-vertex check (see [`Budget`]).
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
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

    /// One navmesh tile over the whole level: RecastDemo's Solo Mesh.
    pub fn solo(&self) -> Result<SoloBuild> {
        build_solo_with(self.geom, &self.settings, &self.budget)
    }

    /// A tiled navmesh, its tiles built on [`threads`](Self::threads) workers: RecastDemo's
    /// Tile Mesh. The result keeps a copy of the geometry so that tiles can be rebuilt later.
    pub fn tiled(&self) -> Result<TiledNavMesh> {
        let options = TiledOptions {
            threads: self.threads,
        };
        TiledNavMesh::build_with_budget(
            self.geom.clone(),
            &self.build_settings(),
            &options,
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
        TileCache::build_with_budget(self.geom, &self.settings, &cache, &self.budget)
    }
}
