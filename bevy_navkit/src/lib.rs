//! # bevy_navkit
//!
//! [navkit](https://docs.rs/navkit) in Bevy: navmeshes built from the scene, on Bevy's async
//! compute pool, rebuilt tile by tile where the scene changes.
//!
//! Add [`NavkitPlugin`], mark the meshes to walk on (or a scene's root) with
//! [`NavMeshSource`], and read [`SceneNavMesh`] in your systems; [`NavMeshBuilt`] and
//! [`NavMeshBuildFailed`] say when builds end.
//!
//! Agents: spawn an entity with [`NavAgent`] and an [`AgentTarget`]; navkit's crowd (whose
//! agents arrive: giving way, queues, lanes, replanning) moves it in `FixedUpdate`, writing its
//! `Transform` or, with [`AgentMover::Velocity`], only a desired velocity for a character
//! controller ([`AgentStatus`]); or, with [`AgentMover::Follower`], navkit's turn-boundary
//! path follower moves it along its path instead. [`CrowdSettings`] sizes the crowd.
//!
//! Obstacles: with [`NavMeshBackend::TileCache`] in [`NavMeshSettings`], entities with a
//! [`NavObstacle`] (cylinder, box, oriented box) are carved out of the navmesh through navkit's
//! tile cache, and move with their entity.
//!
//! Queries: [`NavQueries`] (a system parameter) gives paths (Detour's straight and smooth
//! paths, and the optimal one), nearest points and raycasts; [`PathRequests`] computes paths on
//! worker threads and answers with [`PathFound`] messages.
//!
//! ```no_run
//! use bevy::prelude::*;
//! use bevy_navkit::{NavMeshBuilt, NavMeshSource, NavkitPlugin, SceneNavMesh};
//!
//! fn setup(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>) {
//!     let floor = meshes.add(Plane3d::default().mesh().size(40.0, 40.0));
//!     commands.spawn((Mesh3d(floor), Transform::default(), NavMeshSource::default()));
//! }
//!
//! fn report(mut built: MessageReader<NavMeshBuilt>, navmesh: Res<SceneNavMesh>) {
//!     for b in built.read() {
//!         let tiles = navmesh.get().map_or(0, |n| n.tile_count());
//!         info!("navmesh {}: {} tiles built, {tiles} in all", b.generation, b.tiles_built);
//!     }
//! }
//!
//! App::new()
//!     .add_plugins((DefaultPlugins, NavkitPlugin))
//!     .add_systems(Startup, setup)
//!     .add_systems(Update, report)
//!     .run();
//! ```
//!
//! The navmesh is navkit's own ([`navkit::NavMesh`]), in the same `glam` types as Bevy's: a
//! `Vec3` from a `Transform` goes straight into navkit's queries.

mod agent;
mod crowd;
mod error;
mod follower;
#[cfg(feature = "gizmos")]
mod gizmos;
mod job;
mod messages;
mod obstacle;
mod path_requests;
mod queries;
mod rebuild;
mod scene_geometry;
mod scene_navmesh;
mod settings;
mod source;
mod tracking;

use bevy::app::{App, FixedUpdate, Plugin, PostUpdate};
use bevy::ecs::schedule::IntoScheduleConfigs;
use bevy::transform::TransformSystems;

pub use agent::{AgentMover, AgentStatus, AgentTarget, NavAgent};
pub use crowd::CrowdSettings;
pub use error::{BuildError, QueryError, SourceError};
#[cfg(feature = "gizmos")]
pub use gizmos::{GizmoLine, NavGizmos, gizmo_lines, navmesh_picture};
pub use messages::{NavMeshBuildFailed, NavMeshBuilt, NavMeshSourceSkipped, NavObstacleRefused};
pub use navkit;
pub use obstacle::NavObstacle;
pub use path_requests::{PathFound, PathRequests};
pub use queries::NavQueries;
pub use scene_navmesh::SceneNavMesh;
pub use settings::{NavMeshBackend, NavMeshSettings};
pub use source::NavMeshSource;

/// Builds the navmesh from the scene's [`NavMeshSource`]s and keeps it up to date in
/// [`SceneNavMesh`]. Needs Bevy's asset plugin with meshes (as `DefaultPlugins` has) and its
/// transform plugin.
///
/// Each frame, after transforms propagate (`PostUpdate`), the plugin reads the sources that
/// appeared, moved or changed, takes in a finished build, and starts the next one when there
/// are changes and no build is running.
#[derive(Debug, Default, Clone, Copy)]
pub struct NavkitPlugin;

impl Plugin for NavkitPlugin {
    fn build(&self, app: &mut App) {
        app.init_resource::<NavMeshSettings>()
            .init_resource::<SceneNavMesh>()
            .init_resource::<tracking::Sources>()
            .init_resource::<rebuild::Builder>()
            .init_resource::<CrowdSettings>()
            .init_resource::<crowd::SceneCrowd>()
            .add_message::<NavMeshBuilt>()
            .add_message::<NavMeshBuildFailed>()
            .add_message::<NavMeshSourceSkipped>()
            .add_message::<NavObstacleRefused>()
            .init_resource::<obstacle::Obstacles>()
            .init_resource::<PathRequests>()
            .add_message::<PathFound>()
            .add_systems(
                PostUpdate,
                (
                    tracking::track_sources,
                    obstacle::track_obstacles,
                    rebuild::finish_build,
                    rebuild::start_build,
                    path_requests::serve_paths,
                )
                    .chain()
                    .after(TransformSystems::Propagate),
            )
            .add_systems(
                FixedUpdate,
                (
                    crowd::refresh_crowd,
                    crowd::sync_agents,
                    crowd::step_crowd,
                    follower::follow_paths,
                )
                    .chain(),
            );
        #[cfg(feature = "gizmos")]
        app.init_resource::<NavGizmos>()
            .add_systems(bevy::app::Update, gizmos::draw_gizmos);
    }
}
