//! The crowd on the scene's navmesh, stepped in `FixedUpdate`: [`sync_agents`] adds, changes
//! and removes agents as their components do, [`step_crowd`] moves them and writes back.
//! A new navmesh (a finished build) gets a new crowd, with every agent placed again where it
//! stands, at the velocity it had, and sent on to its target: agents keep their pace however
//! often the navmesh is rebuilt.

use std::sync::{Arc, Mutex, PoisonError};

use bevy::ecs::change_detection::DetectChanges;
use bevy::ecs::entity::Entity;
use bevy::ecs::lifecycle::RemovedComponents;
use bevy::ecs::resource::Resource;
use bevy::ecs::system::{Query, Res, ResMut};
use bevy::ecs::world::Ref;
use bevy::platform::collections::HashMap;
use bevy::time::Time;
use bevy::transform::components::Transform;
use glam::Vec3;
use navkit::agents::crowd::{AgentHandle, AgentState, CrowdBehaviours};
use navkit::{Crowd, NavMesh};

use crate::agent::{AgentMover, AgentStatus, AgentTarget, NavAgent};
use crate::scene_navmesh::SceneNavMesh;

/// The crowd's size and behaviours. Changing it makes a new crowd (agents are placed again).
#[derive(Resource, Clone, Debug, PartialEq)]
pub struct CrowdSettings {
    /// Agents at most (1..=navkit's `MAX_AGENTS`); agents past it stay out of the crowd
    /// ([`AgentStatus::on_navmesh`] false).
    pub max_agents: usize,
    /// The widest agent's radius (m).
    pub max_agent_radius: f32,
    /// navkit's behaviours around DetourCrowd's step: arrival, giving way, queues, lanes,
    /// stuck detection and replanning (all on: agents arrive; `CrowdBehaviours::detour_crowd()`
    /// for DetourCrowd's own movement).
    pub behaviours: CrowdBehaviours,
}

impl Default for CrowdSettings {
    fn default() -> Self {
        CrowdSettings {
            max_agents: 256,
            max_agent_radius: 2.0,
            behaviours: CrowdBehaviours::default(),
        }
    }
}

/// The crowd, the navmesh generation it walks on, and each agent entity's handle.
#[derive(Resource, Default)]
pub(crate) struct SceneCrowd {
    /// In a mutex only to be `Sync` (systems reach it through `ResMut`: never locked).
    crowd: Option<Mutex<Crowd<Arc<NavMesh>>>>,
    generation: u64,
    agents: HashMap<Entity, AgentHandle>,
    /// The velocities of the agents of the crowd replaced last, until they are placed again.
    carried: HashMap<Entity, Vec3>,
}

impl SceneCrowd {
    /// Every agent's state, for drawing.
    #[cfg_attr(not(feature = "gizmos"), allow(dead_code))]
    pub(crate) fn agent_states(&self) -> Vec<AgentState> {
        let Some(crowd) = self.crowd.as_ref() else {
            return Vec::new();
        };
        let crowd = crowd.lock().unwrap_or_else(PoisonError::into_inner);
        self.agents
            .values()
            .filter_map(|&h| crowd.agent(h).ok())
            .collect()
    }

    /// Every agent's corridor (the polygons of its path), drawn on the crowd's own navmesh.
    #[cfg(feature = "gizmos")]
    pub(crate) fn corridors_layer(&self) -> Option<navkit::debug_draw::Layer> {
        use navkit::debug_draw::{Color, navmesh::polys_by_ref};
        let crowd = self.crowd.as_ref()?;
        let crowd = crowd.lock().unwrap_or_else(PoisonError::into_inner);
        let refs: Vec<_> = self
            .agents
            .values()
            .filter_map(|&h| crowd.corridor(h).ok())
            .flat_map(|(polys, _)| polys)
            .collect();
        let color = Color::rgba(255, 196, 0, 64);
        Some(polys_by_ref(crowd.navmesh(), CORRIDORS_LAYER, &refs, color))
    }
}

/// The gizmo layer of the agents' corridors.
#[cfg(feature = "gizmos")]
pub(crate) const CORRIDORS_LAYER: &str = "crowd.corridors";

/// A new crowd when the navmesh or the settings changed (every agent is then added again).
pub(crate) fn refresh_crowd(
    navmesh: Res<SceneNavMesh>,
    settings: Res<CrowdSettings>,
    mut crowd: ResMut<SceneCrowd>,
) {
    if crowd.generation == navmesh.generation() && !settings.is_changed() {
        return;
    }
    crowd.generation = navmesh.generation();
    let crowd = &mut *crowd;
    crowd.carried = match crowd.crowd.as_mut().map(crowd_of) {
        Some(old) => crowd
            .agents
            .iter()
            .filter_map(|(&e, &h)| Some((e, old.agent(h).ok()?.velocity)))
            .collect(),
        None => HashMap::default(),
    };
    crowd.agents.clear();
    crowd.crowd = navmesh.get().and_then(|nav| {
        let mut c = Crowd::shared(
            Arc::clone(nav),
            settings.max_agents,
            settings.max_agent_radius,
        )
        .ok()?;
        c.set_behaviours(settings.behaviours.clone()).ok()?;
        Some(Mutex::new(c))
    });
}

/// The crowd out of its mutex (never locked: systems hold the resource exclusively).
fn crowd_of(m: &mut Mutex<Crowd<Arc<NavMesh>>>) -> &mut Crowd<Arc<NavMesh>> {
    m.get_mut().unwrap_or_else(PoisonError::into_inner)
}

/// What [`sync_agents`] reads of each agent.
type AgentItems = (
    Entity,
    Ref<'static, NavAgent>,
    &'static Transform,
    Option<Ref<'static, AgentTarget>>,
);

/// Adds agents not yet in the crowd (and those moved away from where it put them), passes on
/// changed parameters and targets, and removes agents whose component or entity is gone.
pub(crate) fn sync_agents(
    mut scene: ResMut<SceneCrowd>,
    agents: Query<AgentItems>,
    mut gone: RemovedComponents<NavAgent>,
    mut stopped: RemovedComponents<AgentTarget>,
) {
    let scene = &mut *scene;
    let Some(crowd) = scene.crowd.as_mut().map(crowd_of) else {
        gone.clear();
        stopped.clear();
        return;
    };
    let handles = &mut scene.agents;
    for entity in gone.read() {
        if let Some(h) = handles.remove(&entity) {
            let _ = crowd.remove_agent(h);
        }
    }
    for entity in stopped.read() {
        if let Some(&h) = handles.get(&entity) {
            let _ = crowd.reset_move_target(h);
        }
    }
    for (entity, agent, transform, target) in &agents {
        let here = transform.translation;
        let placed = handles.get(&entity).copied();
        if matches!(agent.mover, AgentMover::Follower(_)) {
            // Moved by its follower (follower.rs), not the crowd.
            if let Some(h) = placed {
                let _ = crowd.remove_agent(h);
                handles.remove(&entity);
            }
            continue;
        }
        match placed.filter(|&h| !moved_away(crowd, h, here, agent.params.radius)) {
            Some(h) => {
                if agent.is_changed() {
                    let _ = crowd.set_agent_params(h, agent.params);
                }
                if let Some(t) = target.filter(|t| t.is_changed()) {
                    let _ = crowd.request_move_target(h, t.0);
                }
            }
            None => {
                if let Some(h) = placed {
                    let _ = crowd.remove_agent(h);
                    handles.remove(&entity);
                }
                let Ok(h) = crowd.add_agent(here, agent.params) else {
                    continue;
                };
                handles.insert(entity, h);
                if let Some(t) = &target {
                    let _ = crowd.request_move_target(h, t.0);
                }
                if let Some(v) = scene.carried.remove(&entity) {
                    let _ = crowd.set_agent_velocity(h, v);
                }
            }
        }
    }
    scene.carried.clear();
}

/// True if the entity at `here` is more than half the agent's radius (on the xz-plane) from
/// where the crowd has agent `h`: something else moved it.
fn moved_away(crowd: &Crowd<Arc<NavMesh>>, h: AgentHandle, here: Vec3, radius: f32) -> bool {
    crowd.agent(h).is_ok_and(|s| {
        let d = s.position - here;
        d.x.hypot(d.z) > radius * 0.5
    })
}

/// Steps the crowd by the fixed time step and writes back each agent's status (and, for
/// [`AgentMover::Transform`], its translation).
pub(crate) fn step_crowd(
    time: Res<Time>,
    mut scene: ResMut<SceneCrowd>,
    mut agents: Query<(Entity, &NavAgent, &mut Transform, &mut AgentStatus)>,
) {
    let scene = &mut *scene;
    let crowd = scene.crowd.as_mut().map(crowd_of);
    let crowd = match crowd {
        Some(c) => {
            let _ = c.update(time.delta_secs());
            Some(&*c)
        }
        None => None,
    };
    for (entity, agent, mut transform, mut status) in &mut agents {
        if matches!(agent.mover, AgentMover::Follower(_)) {
            continue;
        }
        let state = scene
            .agents
            .get(&entity)
            .and_then(|&h| crowd?.agent(h).ok());
        let Some(s) = state else {
            if status.on_navmesh {
                *status = AgentStatus::default();
            }
            continue;
        };
        if agent.mover == AgentMover::Transform {
            transform.translation = s.position;
        }
        *status = AgentStatus {
            on_navmesh: true,
            velocity: s.velocity,
            desired_velocity: s.desired_velocity,
            position: s.position,
            target_state: Some(s.target_state),
            path_status: Some(s.path_status),
            activity: Some(s.activity),
        };
    }
}
