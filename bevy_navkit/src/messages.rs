//! What builds report, as Bevy messages (read them with a `MessageReader`).

use std::time::Duration;

use bevy::ecs::entity::Entity;
use bevy::ecs::message::Message;

use crate::error::{BuildError, SourceError};

/// A build finished: [`SceneNavMesh`](crate::SceneNavMesh) now holds its navmesh.
#[derive(Message, Clone, Debug)]
pub struct NavMeshBuilt {
    /// The navmesh's generation (one more than the last).
    pub generation: u64,
    /// True if every tile was built (the first build, new settings, or geometry past the tile
    /// grid); false if only the tiles the changes touched were.
    pub full: bool,
    /// Tiles built.
    pub tiles_built: usize,
    /// How long the build ran on its task.
    pub duration: Duration,
}

/// A build failed: the navmesh stays as it was.
#[derive(Message, Clone, Debug)]
pub struct NavMeshBuildFailed {
    /// navkit's error (what and where).
    pub error: BuildError,
}

/// A source's mesh was left out of the navmesh (it is read again when it changes).
#[derive(Message, Clone, Debug)]
pub struct NavMeshSourceSkipped {
    /// The entity with the mesh.
    pub entity: Entity,
    /// Why.
    pub error: SourceError,
}

/// The tile cache refused an obstacle (too many, too large, off the tile grid): the rest are
/// carved. It is tried again when it moves or changes.
#[derive(Message, Clone, Debug)]
pub struct NavObstacleRefused {
    /// The obstacle's entity.
    pub entity: Entity,
    /// navkit's error.
    pub error: BuildError,
}
