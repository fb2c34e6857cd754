//! The components of an agent: [`NavAgent`] (its size and speed, and what it moves),
//! [`AgentTarget`] (where it goes; remove it to stop) and [`AgentStatus`] (what the crowd did).

use bevy::ecs::component::Component;
use bevy::transform::components::Transform;
use glam::Vec3;
use navkit::AgentParams;
use navkit::PathStatus;
use navkit::agents::crowd::{Activity, TargetState};
use navkit::agents::follower::FollowerSettings;

/// An agent of navkit's crowd on the scene's navmesh, at its entity's `Transform` (agents are
/// top-level entities: their `Transform` is their place in the world).
///
/// Stepped in `FixedUpdate`. With [`AgentMover::Transform`] the crowd moves the entity; with
/// [`AgentMover::Velocity`] it only writes [`AgentStatus::desired_velocity`] for a character
/// controller to apply, and follows the entity wherever the controller takes it. An entity
/// moved more than half the agent's radius away from where the crowd put it (a teleport) is
/// placed on the navmesh again there, keeping its target. Despawning the entity, or removing
/// this component, frees its slot.
///
/// ```
/// use bevy::prelude::*;
/// use bevy_navkit::{AgentTarget, NavAgent};
/// fn spawn(mut commands: Commands) {
///     commands.spawn((
///         NavAgent::with_radius(0.4),
///         Transform::from_xyz(1.0, 0.0, 1.0),
///         AgentTarget(Vec3::new(20.0, 0.0, 5.0)),
///     ));
/// }
/// # let _ = spawn;
/// ```
#[derive(Component, Clone, Debug, PartialEq)]
#[require(Transform, AgentStatus)]
pub struct NavAgent {
    /// navkit's (DetourCrowd's) agent parameters: radius, height, speed, acceleration,
    /// avoidance, filter.
    pub params: AgentParams,
    /// What the crowd moves.
    pub mover: AgentMover,
}

impl Default for NavAgent {
    /// RecastDemo's agent (radius 0.6 m, 3.5 m/s), moved by its `Transform`.
    fn default() -> Self {
        NavAgent {
            params: AgentParams::default(),
            mover: AgentMover::Transform,
        }
    }
}

impl NavAgent {
    /// RecastDemo's agent of radius `radius`, moved by its `Transform`.
    pub fn with_radius(radius: f32) -> Self {
        NavAgent {
            params: AgentParams::with_radius(radius),
            ..NavAgent::default()
        }
    }

    /// The same agent with `mover`.
    pub fn with_mover(mut self, mover: AgentMover) -> Self {
        self.mover = mover;
        self
    }
}

/// What moves an agent each step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AgentMover {
    /// The crowd, writing the entity's `Transform` translation.
    #[default]
    Transform,
    /// The crowd, writing only [`AgentStatus::desired_velocity`] (as landmass does), for a
    /// character controller or physics body to apply.
    Velocity,
    /// navkit's turn-boundary path follower (Sebastian Lague's), along the straight path to
    /// the target, outside the crowd (no avoidance): smooth turns that cut corners by
    /// `turn_dist`, slowing down over `stopping_dist`. Writes the `Transform`, its height on
    /// the navmesh. A new target or a new navmesh plans the path again.
    Follower(FollowerSettings),
}

/// Where an agent goes (snapped to the navmesh). Removing it stops the agent where it is.
#[derive(Component, Clone, Copy, Debug, PartialEq)]
pub struct AgentTarget(pub Vec3);

/// What the crowd did with an agent on its last step (written in `FixedUpdate`).
#[derive(Component, Clone, Debug, Default, PartialEq)]
pub struct AgentStatus {
    /// True while the agent is in the crowd: false before the navmesh exists, or while its
    /// position is off the navmesh (it is tried again each step).
    pub on_navmesh: bool,
    /// Its velocity after the step.
    pub velocity: Vec3,
    /// The velocity it wanted (before collision avoidance): what
    /// [`AgentMover::Velocity`] asks a controller to apply.
    pub desired_velocity: Vec3,
    /// Where it stands on the navmesh.
    pub position: Vec3,
    /// Its target request's state (`None` without one).
    pub target_state: Option<TargetState>,
    /// Whether its path reaches the target, or only leads as near as it can be reached.
    pub path_status: Option<PathStatus>,
    /// What it is doing: walking, arrived, giving way, queueing...
    pub activity: Option<Activity>,
}

impl AgentStatus {
    /// True once the agent has arrived at its target.
    pub fn arrived(&self) -> bool {
        self.activity == Some(Activity::Arrived)
    }
}
