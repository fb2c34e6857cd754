//! [`NavMeshSettings`]: how the navmesh is built from the scene.

use bevy::ecs::resource::Resource;
use navkit::BuildSettings;
use navkit::tilecache::TileCacheSettings;

/// How the scene's navmesh is built: navkit's [`BuildSettings`] (agent size, cell size, tile
/// size; RecastDemo's defaults) and the worker threads of each build. Changing this resource
/// rebuilds the whole navmesh.
///
/// ```
/// use bevy_navkit::NavMeshSettings;
/// let mut settings = NavMeshSettings::default();
/// settings.build.agent_radius = 0.4;
/// settings.build.tile_size = 32;
/// settings.threads = 2;
/// # let _ = settings;
/// ```
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct NavMeshSettings {
    /// Recast's settings, tiles included (`tile_size` cells a side).
    pub build: BuildSettings,
    /// Threads of a full build (0: one per core). Rebuilds of a few tiles run on the task
    /// alone. Builds run on Bevy's async compute pool either way: frames never wait for them.
    pub threads: usize,
    /// What the navmesh is: tiled (the default), or a tile cache, which carves
    /// [`NavObstacle`](crate::NavObstacle)s.
    pub backend: NavMeshBackend,
}

/// The kind of navmesh built from the scene.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum NavMeshBackend {
    /// navkit's tiled navmesh (RecastDemo's Tile Mesh): a changed source rebuilds only the
    /// tiles it touched, and the navmesh equals a fresh build (`SceneNavMesh::data_hash`).
    /// Obstacles are not carved.
    #[default]
    Tiled,
    /// navkit's tile cache (RecastDemo's Temp Obstacles, with these settings: its own tile
    /// size, 48 cells by default, and its obstacle pool): obstacles are carved by rebuilding
    /// only the tile layers they touch; a changed source rasterizes again only the tiles it
    /// touched ([`TileCache::rebuild_tiles`](navkit::TileCache::rebuild_tiles)), obstacles
    /// carved into them, and the navmesh equals a fresh cache's with the same obstacles.
    TileCache(TileCacheSettings),
}

impl Default for NavMeshSettings {
    fn default() -> Self {
        NavMeshSettings {
            build: BuildSettings::default(),
            threads: 1,
            backend: NavMeshBackend::Tiled,
        }
    }
}

impl NavMeshSettings {
    /// How far around a change its tiles reach: a tile is built from the geometry within its
    /// border (the agent radius plus three cells, as Recast's tiled build), plus one cell.
    pub(crate) fn tile_reach(&self) -> f32 {
        let cs = self.build.cell_size;
        let radius_cells = (self.build.agent_radius / cs).ceil();
        (radius_cells + 4.0) * cs
    }
}
