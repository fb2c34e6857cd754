//! Which meshes are sources, and what changed since the last build: [`track_sources`] reads
//! each source's triangles in world space when it appears, moves or changes, and records the
//! boxes where the navmesh must change (where a source was, and where it is).

use std::sync::Arc;

use bevy::asset::{AssetEvent, AssetId, Assets};
use bevy::ecs::change_detection::DetectChanges;
use bevy::ecs::entity::Entity;
use bevy::ecs::hierarchy::ChildOf;
use bevy::ecs::message::{MessageReader, MessageWriter};
use bevy::ecs::query::With;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::{Query, Res, ResMut};
use bevy::ecs::world::Ref;
use bevy::mesh::{Mesh, Mesh3d};
use bevy::platform::collections::{HashMap, HashSet};
use bevy::transform::components::GlobalTransform;
use navkit::Aabb;

use crate::error::SourceError;
use crate::messages::NavMeshSourceSkipped;
use crate::source::{NavMeshSource, SourceGeometry, world_triangles};

/// A source as last read.
#[derive(Debug)]
pub(crate) struct Tracked {
    mesh: AssetId<Mesh>,
    /// Its triangles, or `None` while its mesh is not loaded or was skipped (shared with the
    /// builds that read them).
    pub geometry: Option<Arc<SourceGeometry>>,
}

/// Every source's triangles, and the boxes changed since the last build started.
#[derive(Resource, Debug, Default)]
pub(crate) struct Sources {
    pub tracked: HashMap<Entity, Tracked>,
    pub dirty: Vec<Aabb>,
}

impl Sources {
    /// Replaces `entity`'s triangles, marking the old and new bounds dirty if they differ.
    fn set(&mut self, entity: Entity, mesh: AssetId<Mesh>, geometry: Option<SourceGeometry>) {
        let geometry = geometry.map(Arc::new);
        let old = self.tracked.insert(entity, Tracked { mesh, geometry });
        let old = old.and_then(|t| t.geometry);
        let new = self.tracked[&entity].geometry.as_ref();
        if old.as_ref() == new {
            return;
        }
        self.dirty.extend(old.and_then(|g| g.bounds));
        self.dirty.extend(new.and_then(|g| g.bounds));
    }

    /// Forgets `entity`, marking where it was dirty.
    fn remove(&mut self, entity: Entity) {
        if let Some(t) = self.tracked.remove(&entity) {
            self.dirty.extend(t.geometry.and_then(|g| g.bounds));
        }
    }
}

/// True if `entity` or one of its ancestors is marked [`NavMeshSource`].
fn is_source(
    entity: Entity,
    marked: &Query<(), With<NavMeshSource>>,
    parents: &Query<&ChildOf>,
) -> bool {
    let mut at = entity;
    // A hierarchy has no cycles; the bound only keeps a corrupt one from hanging a frame.
    for _ in 0..4096 {
        if marked.contains(at) {
            return true;
        }
        match parents.get(at) {
            Ok(parent) => at = parent.parent(),
            Err(_) => return false,
        }
    }
    false
}

/// Reads the sources that appeared, moved or changed since the last frame, and forgets those
/// gone (despawned, unmarked, or their mesh removed).
#[allow(clippy::too_many_arguments)]
pub(crate) fn track_sources(
    meshes_q: Query<(Entity, Ref<Mesh3d>, Ref<GlobalTransform>)>,
    marked: Query<(), With<NavMeshSource>>,
    parents: Query<&ChildOf>,
    meshes: Res<Assets<Mesh>>,
    mut asset_events: MessageReader<AssetEvent<Mesh>>,
    mut sources: ResMut<Sources>,
    mut skipped: MessageWriter<NavMeshSourceSkipped>,
) {
    let changed_assets: HashSet<AssetId<Mesh>> = asset_events
        .read()
        .filter_map(|e| match e {
            AssetEvent::Added { id }
            | AssetEvent::Modified { id }
            | AssetEvent::LoadedWithDependencies { id } => Some(*id),
            _ => None,
        })
        .collect();
    let mut seen = HashSet::new();
    for (entity, mesh3d, transform) in &meshes_q {
        if !is_source(entity, &marked, &parents) {
            continue;
        }
        seen.insert(entity);
        let id = mesh3d.id();
        let stale = match sources.tracked.get(&entity) {
            None => true,
            Some(t) => t.mesh != id || transform.is_changed() || changed_assets.contains(&id),
        };
        if !stale {
            continue;
        }
        let geometry = match meshes.get(id).map(|m| world_triangles(m, &transform)) {
            None => None,
            Some(Ok(g)) => Some(g),
            Some(Err(SourceError::NotTriangles(_))) => None,
            Some(Err(error)) => {
                skipped.write(NavMeshSourceSkipped { entity, error });
                None
            }
        };
        sources.set(entity, id, geometry);
    }
    let gone: Vec<Entity> = sources
        .tracked
        .keys()
        .filter(|e| !seen.contains(*e))
        .copied()
        .collect();
    for entity in gone {
        sources.remove(entity);
    }
}
