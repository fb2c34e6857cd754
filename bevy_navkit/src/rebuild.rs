//! When builds run: [`start_build`] starts one on Bevy's async compute pool when sources have
//! changed and none is running; [`finish_build`] takes in its result without waiting for it.

use std::mem;
use std::sync::Arc;
use std::time::Duration;

use bevy::ecs::change_detection::DetectChanges;
use bevy::ecs::message::MessageWriter;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::{Res, ResMut};
use bevy::log::warn_once;
use bevy::tasks::futures::check_ready;
use bevy::tasks::{AsyncComputeTaskPool, Task};
use navkit::Aabb;

use crate::job::{Backend, Done, Job, Work, fits, touched_tiles};
use crate::messages::{NavMeshBuildFailed, NavMeshBuilt, NavObstacleRefused};
use crate::obstacle::Obstacles;
use crate::scene_geometry::SceneGeometry;
use crate::scene_navmesh::SceneNavMesh;
use crate::settings::{NavMeshBackend, NavMeshSettings};
use crate::tracking::Sources;

/// The navmesh being built on, and the build running (which holds it meanwhile).
#[derive(Resource, Default)]
pub(crate) struct Builder {
    backend: Option<Backend>,
    task: Option<Task<Done>>,
    /// The next build must build everything (the settings changed).
    full: bool,
}

/// Starts a build if sources or (on a tile cache) obstacles changed since the last one
/// started, and none is running.
pub(crate) fn start_build(
    settings: Res<NavMeshSettings>,
    mut sources: ResMut<Sources>,
    mut obstacles: ResMut<Obstacles>,
    mut builder: ResMut<Builder>,
    mut navmesh: ResMut<SceneNavMesh>,
    mut built: MessageWriter<NavMeshBuilt>,
) {
    if settings.is_changed() {
        builder.full = true;
    }
    if builder.task.is_some() {
        return;
    }
    let carves = matches!(builder.backend, Some(Backend::Cache { .. }));
    if obstacles.changed && !carves && settings.backend == NavMeshBackend::Tiled {
        warn_once!("bevy_navkit: NavObstacle is carved only by NavMeshBackend::TileCache");
    }
    let moved = mem::take(&mut obstacles.changed) && carves;
    let (geometry, work) = if sources.dirty.is_empty() && !builder.full {
        if !moved {
            return;
        }
        (None, Work::Obstacles)
    } else {
        let dirty = mem::take(&mut sources.dirty);
        match SceneGeometry::of(&sources) {
            Some(g) => {
                let work = work_for(&builder, &g, &dirty, &settings);
                (Some(g), work)
            }
            None => {
                builder.full = false;
                if builder.backend.take().is_some() || navmesh.get().is_some() {
                    let generation = navmesh.replace(None);
                    built.write(NavMeshBuilt {
                        generation,
                        full: true,
                        tiles_built: 0,
                        duration: Duration::ZERO,
                    });
                }
                return;
            }
        }
    };
    builder.full = false;
    if matches!(&work, Work::Tiles(t) if t.is_empty()) {
        return;
    }
    let job = Job {
        geometry,
        settings: settings.clone(),
        backend: builder.backend.take(),
        work,
        obstacles: obstacles.shapes.clone(),
    };
    builder.task = Some(AsyncComputeTaskPool::get().spawn(async move { job.run() }));
}

/// What a build for changes in `dirty` must do: rebuild the tiles they touched (of the tiled
/// navmesh or the tile cache, its obstacles kept), if the navmesh is not to be built anew and
/// its grid holds the geometry; else everything.
fn work_for(
    builder: &Builder,
    geometry: &SceneGeometry,
    dirty: &[Aabb],
    settings: &NavMeshSettings,
) -> Work {
    match builder.backend.as_ref().and_then(Backend::grid) {
        Some(grid) if !builder.full && fits(&grid, &geometry.bounds) => {
            Work::Tiles(touched_tiles(&grid, dirty, settings.tile_reach()))
        }
        _ => Work::Full,
    }
}

/// Takes in the running build's result if it has finished: the new navmesh in
/// [`SceneNavMesh`] and a [`NavMeshBuilt`], or a [`NavMeshBuildFailed`].
pub(crate) fn finish_build(
    mut builder: ResMut<Builder>,
    mut navmesh: ResMut<SceneNavMesh>,
    mut built: MessageWriter<NavMeshBuilt>,
    mut failed: MessageWriter<NavMeshBuildFailed>,
    mut refused: MessageWriter<NavObstacleRefused>,
) {
    let Some(task) = builder.task.as_mut() else {
        return;
    };
    let Some(done) = check_ready(task) else {
        return;
    };
    builder.task = None;
    builder.backend = done.backend;
    for (entity, error) in done.refused {
        refused.write(NavObstacleRefused {
            entity,
            error: Arc::new(error),
        });
    }
    match done.result {
        Ok(b) => {
            let generation = navmesh.replace(Some((b.navmesh, b.data_hash)));
            built.write(NavMeshBuilt {
                generation,
                full: b.full,
                tiles_built: b.tiles_built,
                duration: b.duration,
            });
        }
        Err(error) => {
            failed.write(NavMeshBuildFailed {
                error: Arc::new(error),
            });
        }
    }
}
