//! [`SceneNavMesh`]: the navmesh built from the scene, for systems to read.

use std::sync::Arc;

use bevy::ecs::resource::Resource;
use navkit::NavMesh;

/// The navmesh built from the scene's [`NavMeshSource`](crate::NavMeshSource)s, with a
/// generation counter that grows by one with each build.
///
/// A build replaces the navmesh whole (an [`Arc`]): a system that keeps the old one keeps a
/// valid navmesh, and [`NavMeshBuilt`](crate::NavMeshBuilt) says when a new one arrived.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_navkit::SceneNavMesh;
/// fn count_tiles(navmesh: Res<SceneNavMesh>) {
///     if let Some(mesh) = navmesh.get() {
///         info!("generation {}: {} tiles", navmesh.generation(), mesh.tile_count());
///     }
/// }
/// # let _ = count_tiles;
/// ```
#[derive(Resource, Clone, Debug, Default)]
pub struct SceneNavMesh {
    navmesh: Option<Arc<NavMesh>>,
    data_hash: Option<String>,
    generation: u64,
}

impl SceneNavMesh {
    /// The navmesh, or `None` before the first build (or when no source has triangles).
    pub fn get(&self) -> Option<&Arc<NavMesh>> {
        self.navmesh.as_ref()
    }

    /// How many builds have finished (0 before the first).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The hash of the navmesh's tiles as built: the `data_hash` of navkit's tiled build
    /// ([`TiledNavMesh::data_hash`](navkit::build::tiled::TiledNavMesh::data_hash), and
    /// `navkit build --tiled --json`) of the same triangles with the same settings. `None`
    /// for a tile cache, or before the first build.
    pub fn data_hash(&self) -> Option<&str> {
        self.data_hash.as_deref()
    }

    /// Puts a new navmesh in place, with its data hash (or none); its generation.
    pub(crate) fn replace(&mut self, navmesh: Option<(NavMesh, Option<String>)>) -> u64 {
        let (navmesh, hash) = navmesh.unzip();
        self.navmesh = navmesh.map(Arc::new);
        self.data_hash = hash.flatten();
        self.generation += 1;
        self.generation
    }
}
