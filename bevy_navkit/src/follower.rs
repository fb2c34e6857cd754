//! Agents moved by navkit's turn-boundary follower ([`AgentMover::Follower`]): a path planned
//! on the scene's navmesh when the target or the navmesh changes, followed each fixed step.

use bevy::ecs::change_detection::DetectChanges;
use bevy::ecs::component::Component;
use bevy::ecs::entity::Entity;
use bevy::ecs::system::{Commands, Query, Res};
use bevy::ecs::world::Ref;
use bevy::time::Time;
use bevy::transform::components::Transform;
use navkit::agents::crowd::Activity;
use navkit::agents::follower::{Follower, navmesh_ground};
use navkit::query::DEFAULT_MAX_NODES;
use navkit::{NavMeshQuery, PathOptions, PathStatus, QueryFilter};

use crate::agent::{AgentMover, AgentStatus, AgentTarget, NavAgent};
use crate::scene_navmesh::SceneNavMesh;

/// A follower agent's follower, and the navmesh generation its path was planned on.
#[derive(Component)]
pub(crate) struct Following {
    follower: Follower,
    generation: u64,
}

/// What [`follow_paths`] reads and writes of each agent.
type FollowerItems = (
    Entity,
    &'static NavAgent,
    Option<Ref<'static, AgentTarget>>,
    &'static mut Transform,
    &'static mut AgentStatus,
    Option<&'static mut Following>,
);

/// Plans and follows the paths of [`AgentMover::Follower`] agents.
pub(crate) fn follow_paths(
    mut commands: Commands,
    time: Res<Time>,
    navmesh: Res<SceneNavMesh>,
    mut agents: Query<FollowerItems>,
) {
    let followers = agents
        .iter()
        .any(|(_, agent, ..)| matches!(agent.mover, AgentMover::Follower(_)));
    let Some(nav) = navmesh.get().filter(|_| followers) else {
        return;
    };
    let Ok(mut q) = NavMeshQuery::new(nav, DEFAULT_MAX_NODES) else {
        return;
    };
    let filter = QueryFilter::default();
    for (entity, agent, target, mut transform, mut status, following) in &mut agents {
        let AgentMover::Follower(settings) = agent.mover else {
            continue;
        };
        let Some(target) = target else {
            if following.is_some() {
                commands.entity(entity).remove::<Following>();
            }
            status.activity = Some(Activity::Idle);
            continue;
        };
        let stale = following
            .as_ref()
            .is_none_or(|f| f.generation != navmesh.generation());
        if stale || target.is_changed() {
            let here = transform.translation;
            let options = PathOptions {
                smooth: None,
                ..PathOptions::default()
            };
            let Ok(path) = q.path(here, target.0, &filter, &options) else {
                *status = AgentStatus::default();
                continue;
            };
            let points: Vec<_> = path.straight.points.iter().skip(1).map(|p| p.pos).collect();
            let follower = Follower::new(here, &points, settings);
            status.path_status = Some(path.status());
            commands.entity(entity).insert(Following {
                follower,
                generation: navmesh.generation(),
            });
            continue;
        }
        let Some(mut f) = following else {
            continue;
        };
        let before = f.follower.position();
        f.follower
            .step(time.delta_secs(), &mut navmesh_ground(&mut q, &filter));
        transform.translation = f.follower.position();
        let finished = f.follower.finished();
        let dt = time.delta_secs().max(1e-6);
        status.on_navmesh = true;
        status.position = transform.translation;
        status.velocity = (transform.translation - before) / dt;
        status.desired_velocity = status.velocity;
        status.activity = Some(if finished {
            if status.path_status == Some(PathStatus::Complete) {
                Activity::Arrived
            } else {
                Activity::Idle
            }
        } else {
            Activity::Moving
        });
    }
}
