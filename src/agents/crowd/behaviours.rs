//! The crowd behaviours: what navkit's [`Crowd`] adds around DetourCrowd's step so that agents
//! get where they are sent ([`CrowdBehaviours`], on by default), and the per-frame driver that
//! runs them after each `dtCrowd::update`.
//!
//! ```no_run
//! # fn f(navmesh: &navkit::navmesh::NavMesh) -> navkit::Result<()> {
//! use navkit::agents::crowd::{Crowd, CrowdBehaviours};
//! let mut crowd = Crowd::new(navmesh, 100, 0.6)?;
//! // The default: every behaviour on. Turn one off, or tune it:
//! crowd.set_behaviours(CrowdBehaviours { queue: false, ..CrowdBehaviours::default() })?;
//! // Exactly DetourCrowd (bit for bit what a raw dtCrowd does):
//! crowd.set_behaviours(CrowdBehaviours::detour_crowd())?;
//! # Ok(()) }
//! ```

use super::mind::{Mind, Mode, Snap};
use super::{Crowd, CrowdNavMesh};
use crate::ffi::crowd::RawAgentState;
use crate::query::{NavMeshQuery, PolyRef};
use crate::{Error, Result};
use glam::Vec3;

/// Which crowd behaviours run, and their tunables. [`Default`]: all on; [`Self::detour_crowd`]:
/// all off (the crowd is then exactly DetourCrowd).
///
/// An agent has *arrived* when it is within `max(radius, arrive_distance)` (in xz) of its
/// target with a complete path (DetourCrowd itself has no arrival; [`super::Activity::Arrived`]
/// reports this one, with or without behaviours).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CrowdBehaviours {
    /// Arrived and idle agents step aside along the navmesh when a moving agent needs to pass,
    /// and return to their place when it has been clear for `resume_after`.
    pub give_way: bool,
    /// Two moving agents stalled face to face resolve it: the one of lower priority (a strict
    /// order: the agent that has yielded (or been held up walking slowly outside a
    /// queue) longest, by 4 s steps, then the agent added earlier;
    /// an agent stepping aside carries the priority of the one it makes way for) side-steps, or
    /// backs off along the other's path to a wider place, waits there until its lane has been
    /// clear for `resume_after`, and resumes.
    pub head_on: bool,
    /// An agent close behind another going its way matches that one's speed instead of
    /// pushing it.
    pub queue: bool,
    /// Report [`AgentState::stuck`](super::AgentState::stuck) with its cause.
    pub stuck_detection: bool,
    /// Push apart agents pressed deeper into each other than half the sum of their radii (a
    /// crowd squeezing them against a wall), along the navmesh, after each update.
    pub separation: bool,
    /// Agents walking at each other pass on an agreed side (lanes): each turns its desired
    /// velocity a little to its right (or away from the other, when already clearly to one
    /// side) where the navmesh has room, instead of both braking. Needs navkit's update
    /// ([`CrowdEngine::Navkit`](super::CrowdEngine::Navkit), the default); upstream's ignores it.
    pub lanes: bool,
    /// Replan stuck agents: a stuck agent asks for its target again every `replan_after` (snapped
    /// afresh: the navmesh may have changed), so that DetourCrowd plans over the navmesh as it is
    /// now; one blocked by agents that long takes a way around the polygons under them if the
    /// navmesh has one.
    pub replan: bool,
    /// Arrival distance (m, xz), see the type's docs.
    pub arrive_distance: f32,
    /// Extra room (m) kept beyond the sum of two agents' radii when judging who is in whose way.
    pub margin: f32,
    /// How far ahead along its path (m) an agent looks for agents in its way.
    pub look_ahead: f32,
    /// Seconds two agents walking against each other in each other's way must have stalled (one
    /// slower than a quarter of its speed, the other too or no nearer its target) before one
    /// yields.
    pub head_on_after: f32,
    /// Seconds the way must be clear before an agent that stepped aside resumes.
    pub resume_after: f32,
    /// Gap (m, between the agents' edges) an agent keeps behind one going its way.
    pub queue_gap: f32,
    /// Seconds without progress along its path after which an agent is reported stuck.
    pub stuck_after: f32,
    /// Seconds stuck before a replan.
    pub replan_after: f32,
}

impl Default for CrowdBehaviours {
    fn default() -> Self {
        CrowdBehaviours {
            give_way: true,
            head_on: true,
            queue: true,
            stuck_detection: true,
            replan: true,
            separation: true,
            lanes: true,
            arrive_distance: 0.5,
            margin: 0.2,
            look_ahead: 3.0,
            head_on_after: 2.0,
            resume_after: 0.75,
            queue_gap: 0.1,
            stuck_after: 4.0,
            replan_after: 4.0,
        }
    }
}

impl CrowdBehaviours {
    /// Every behaviour off: the crowd moves its agents exactly as DetourCrowd does.
    pub fn detour_crowd() -> Self {
        CrowdBehaviours {
            give_way: false,
            head_on: false,
            queue: false,
            stuck_detection: false,
            replan: false,
            separation: false,
            lanes: false,
            ..CrowdBehaviours::default()
        }
    }

    /// True when no behaviour runs.
    pub fn all_off(&self) -> bool {
        !(self.give_way
            || self.head_on
            || self.queue
            || self.stuck_detection
            || self.replan
            || self.separation
            || self.lanes)
    }

    fn check(&self) -> Result<()> {
        let v = [
            ("arrive_distance", self.arrive_distance),
            ("margin", self.margin),
            ("look_ahead", self.look_ahead),
            ("head_on_after", self.head_on_after),
            ("resume_after", self.resume_after),
            ("queue_gap", self.queue_gap),
            ("stuck_after", self.stuck_after),
            ("replan_after", self.replan_after),
        ];
        for (name, x) in v {
            if !(x.is_finite() && (0.0..1e6).contains(&x)) {
                return Err(Error::InvalidArgument(format!(
                    "crowd behaviour {name} = {x}: must be finite, not negative and below 1e6"
                )));
            }
        }
        Ok(())
    }
}

/// What an agent is doing, as the crowd behaviours see it ([`super::AgentState::activity`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Activity {
    /// No target.
    Idle,
    /// On its way.
    Moving,
    /// Reached its target (see [`CrowdBehaviours`]).
    Arrived,
    /// Arrived or idle, stepping aside for a moving agent (or walking back to its place).
    GivingWay,
    /// Met an agent of higher priority head-on: stepping aside or waiting for the way to clear.
    Yielding,
    /// Held back behind an agent going its way.
    Queued,
}

/// A change the behaviours make to a dtCrowd agent.
#[derive(Clone, Copy, Debug)]
pub(super) enum Action {
    /// Move towards this point (a behaviour's own target, or the user's again).
    Target(usize, PolyRef, Vec3),
    /// No target.
    Reset(usize),
    /// Cap (or restore) the maximum speed.
    MaxSpeed(usize, f32),
}

impl<N: CrowdNavMesh> Crowd<N> {
    /// Sets which behaviours run ([`CrowdBehaviours`]); anything in progress is cancelled
    /// (agents go on to their own targets). Errors for a non-finite or negative tunable.
    pub fn set_behaviours(&mut self, behaviours: CrowdBehaviours) -> Result<()> {
        behaviours.check()?;
        for slot in 0..self.minds.len() {
            if self.slots[slot].1 {
                self.cancel_behaviour(slot);
            }
        }
        self.behaviours = behaviours;
        self.raw.clear_steer_bias();
        Ok(())
    }

    /// The behaviours that run.
    pub fn behaviours(&self) -> &CrowdBehaviours {
        &self.behaviours
    }

    /// Undoes whatever a behaviour set on agent `slot` (its target, its speed) and forgets it,
    /// keeping the user's goal and arrival.
    fn cancel_behaviour(&mut self, slot: usize) {
        let overrides = self.minds[slot].overrides_target();
        let (goal, arrived) = (self.minds[slot].goal, self.minds[slot].arrived);
        self.forget_behaviour(slot, goal);
        self.minds[slot].arrived = arrived;
        if overrides {
            self.apply(&[match goal {
                Some((poly, p)) => Action::Target(slot, poly, p),
                None => Action::Reset(slot),
            }]);
        }
    }

    /// Gives agent `slot` back the user's speed and a fresh memory with the user's `goal`,
    /// leaving its dtCrowd target as it is (the caller sets it).
    pub(super) fn forget_behaviour(&mut self, slot: usize, goal: Option<(PolyRef, Vec3)>) {
        if let Some(speed) = self.minds[slot].user_max_speed.take() {
            if let Some(mut p) = self.raw.agent(slot as i32).map(|a| a.params) {
                p.max_speed = speed;
                self.raw.update_agent_parameters(slot as i32, p);
            }
        }
        self.minds[slot] = Mind::with_goal(goal);
    }

    /// The behaviours' step, after DetourCrowd's (see the module docs).
    pub(super) fn behaviours_after(&mut self, dt: f32) -> Result<()> {
        if self.behaviours.all_off() {
            return Ok(());
        }
        let snaps = self.snapshots();
        let b = self.behaviours.clone();
        super::arrival::update(&snaps, &mut self.minds, &b, dt);
        let requests = super::give_way::requests(&snaps, &self.minds, &b);
        let mut actions = Vec::new();
        let mut turns = Vec::new();
        {
            let nav = self.raw.owner().navmesh();
            let mut query: Option<NavMeshQuery<'_>> = None;
            let mut ctx = super::aside::Ctx {
                nav,
                query: &mut query,
                filter: &self.filter,
                snaps: &snaps,
                b: &b,
                dt,
            };
            super::aside::update(&mut ctx, &requests, &mut self.minds, &mut actions)?;
            if b.stuck_detection || b.replan {
                super::stuck::update(&mut ctx, &mut self.minds, &mut actions)?;
            }
            if b.lanes && self.engine == super::CrowdEngine::Navkit {
                turns = super::lanes::update(&mut ctx, &self.minds)?;
            }
        }
        self.raw.clear_steer_bias();
        for (slot, angle) in turns {
            self.raw.set_steer_bias(slot as i32, angle);
        }
        if b.queue {
            super::queue::update(&snaps, &mut self.minds, &b, &mut actions);
        }
        self.apply(&actions);
        if b.separation {
            self.separate(&snaps);
        }
        Ok(())
    }

    /// Every live agent's view for this frame, by slot.
    fn snapshots(&self) -> Vec<Option<Snap>> {
        let look = self.behaviours.look_ahead;
        (0..self.slots.len())
            .map(|slot| {
                if !self.slots[slot].1 {
                    return None;
                }
                let a = self.raw.agent(slot as i32)?;
                let neis = self.raw.neighbours(slot as i32);
                Some(Snap::new(slot, &a, neis, &self.minds[slot], look))
            })
            .collect()
    }

    fn apply(&mut self, actions: &[Action]) {
        for &a in actions {
            match a {
                Action::Target(slot, poly, p) => {
                    // A tile cache may have rebuilt the tile since the point was snapped.
                    let snapped = if self.navmesh().is_valid(poly) {
                        Some((poly, p))
                    } else {
                        self.snap("target", p).ok()
                    };
                    if let Some((poly, p)) = snapped {
                        self.raw
                            .request_move_target(slot as i32, poly.0, p.to_array());
                    }
                }
                Action::Reset(slot) => {
                    self.raw.reset_move_target(slot as i32);
                }
                Action::MaxSpeed(slot, v) => {
                    if let Some(mut p) = self.raw.agent(slot as i32).map(|a| a.params) {
                        p.max_speed = v;
                        self.raw.update_agent_parameters(slot as i32, p);
                    }
                }
            }
        }
    }

    /// Agent `slot`'s activity from its dtCrowd state `a` (with behaviours off: idle, moving or
    /// arrived).
    pub(super) fn activity_of(&self, slot: usize, a: &RawAgentState) -> Activity {
        let mind = &self.minds[slot];
        let has_target = matches!(a.target_state, 2..=5);
        let arrived_now = |goal: Vec3| {
            super::polyline::dist_xz(Vec3::from_array(a.position), goal)
                <= a.params.radius.max(self.behaviours.arrive_distance)
                && !a.partial
                && a.target_state == super::mind::TARGET_VALID
        };
        match mind.mode {
            Mode::Aside { kind, .. } => match kind {
                super::mind::AsideKind::GiveWay => Activity::GivingWay,
                super::mind::AsideKind::Yield => Activity::Yielding,
            },
            Mode::Returning { .. } => Activity::GivingWay,
            Mode::Normal | Mode::Detour { .. } if mind.queued => Activity::Queued,
            Mode::Detour { .. } => Activity::Moving,
            Mode::Normal => match mind.goal {
                None if !has_target => Activity::Idle,
                _ if mind.arrived => Activity::Arrived,
                Some((_, goal)) if arrived_now(goal) => Activity::Arrived,
                _ => Activity::Moving,
            },
        }
    }
}
