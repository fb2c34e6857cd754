//! Why an agent is stuck: the cause a crowd reports per agent ([`super::AgentState::stuck`]).

/// Why an agent that has a target makes no progress towards it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum StuckCause {
    /// Other agents stand in its way.
    BlockedByAgents,
    /// The navmesh in its way is blocked (an obstacle, or a wall its corridor runs into), with
    /// no agent near enough to blame.
    BlockedByObstacle,
    /// No path leads to the target: the agent's path ends short of it ([`super::PathStatus::Partial`])
    /// and it has reached that end, or no path could be found at all.
    Unreachable,
}

impl StuckCause {
    /// A short lower-case name (`blocked_by_agents`, `blocked_by_obstacle`, `unreachable`), as in
    /// JSON.
    pub fn name(self) -> &'static str {
        match self {
            StuckCause::BlockedByAgents => "blocked_by_agents",
            StuckCause::BlockedByObstacle => "blocked_by_obstacle",
            StuckCause::Unreachable => "unreachable",
        }
    }
}

impl std::fmt::Display for StuckCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

use super::aside::Ctx;
use super::behaviours::Action;
use super::mind::{Mind, Mode, Snap, TARGET_FAILED, TARGET_VALID};
use super::polyline::{dist_xz, flat};
use crate::Result;

/// The least shortening of the remaining path (m) that counts as progress.
const PROGRESS: f32 = 0.25;
/// How far (m) an agent must have moved from where it last made progress for that to count as
/// progress too (the remaining path is only known along the next four corners, so on a winding
/// path it may grow as the agent walks).
const MOVED: f32 = 1.5;
/// How many times `stuck_after` an agent may stand aside or queue before it counts as stuck.
const PATIENCE: f32 = 3.0;

/// Progress and stuck causes of every agent with a target, then replans ([`super::replan`]).
///
/// Progress is the remaining path length to the user's target (along the next corners, then
/// straight on) shrinking by [`PROGRESS`], or the agent having moved [`MOVED`] from where it
/// last made progress; an agent on its way with none for `stuck_after`
/// seconds (or [`PATIENCE`] times that while it stands aside or queues on purpose) is stuck:
/// [`StuckCause::Unreachable`] at once when its path is partial and it has reached the path's
/// end, or its request failed; [`StuckCause::BlockedByAgents`] when an agent is close ahead
/// ([`blockers`]); else [`StuckCause::BlockedByObstacle`].
pub(super) fn update(
    ctx: &mut Ctx<'_, '_>,
    minds: &mut [Mind],
    actions: &mut Vec<Action>,
) -> Result<()> {
    let (stuck_after, dt) = (ctx.b.stuck_after, ctx.dt);
    for (slot, mind) in minds.iter_mut().enumerate() {
        let Some(me) = ctx.snaps.get(slot).copied().flatten() else {
            continue;
        };
        if mind.goal.is_none() || mind.arrived {
            mind.stuck = None;
            mind.no_progress = 0.0;
            mind.best_remaining = f32::INFINITY;
            mind.anchor = None;
            continue;
        }
        let normal = matches!(mind.mode, Mode::Normal);
        let moved = mind.anchor.is_none_or(|a| dist_xz(a, me.pos) >= MOVED);
        if normal && (me.remaining < mind.best_remaining - PROGRESS || moved) {
            mind.best_remaining = me.remaining;
            mind.anchor = Some(me.pos);
            mind.no_progress = 0.0;
        } else {
            mind.no_progress += dt;
        }
        if !normal {
            // Measured against the behaviour's own target: start afresh when it resumes.
            mind.best_remaining = f32::INFINITY;
        }
        let limit = if normal && !mind.queued {
            stuck_after
        } else {
            PATIENCE * stuck_after
        };
        let unreachable = normal
            && (me.target_state == TARGET_FAILED
                || me.partial
                    && me.target_state == TARGET_VALID
                    && dist_xz(me.pos, me.last_corner) <= me.radius.max(ctx.b.arrive_distance));
        mind.stuck = if unreachable {
            Some(StuckCause::Unreachable)
        } else if mind.no_progress >= limit {
            Some(cause(ctx.snaps, &me))
        } else {
            None
        };
        if ctx.b.replan {
            super::replan::update(ctx, slot, &me, mind, actions)?;
        }
        if !ctx.b.stuck_detection {
            mind.stuck = None;
        }
    }
    Ok(())
}

/// How close (m, beyond the sum of radii) an agent ahead of a stuck one must be to be blamed.
const BLAME: f32 = 1.0;

/// The agents close ahead of `me` (within the sum of radii plus [`BLAME`], in front of it).
pub(super) fn blockers<'s>(
    snaps: &'s [Option<Snap>],
    me: &'s Snap,
) -> impl Iterator<Item = Snap> + 's {
    let heading = if me.heading == glam::Vec3::ZERO {
        flat(me.target - me.pos).normalize_or_zero()
    } else {
        me.heading
    };
    me.neighbours()
        .filter_map(|n| snaps.get(n).copied().flatten())
        .filter(move |o| {
            let d = flat(o.pos - me.pos);
            d.length() < me.radius + o.radius + BLAME && d.dot(heading) > 0.0
        })
}

/// Agents, or something else, in the way of stuck `me`.
fn cause(snaps: &[Option<Snap>], me: &Snap) -> StuckCause {
    if blockers(snaps, me).next().is_some() {
        StuckCause::BlockedByAgents
    } else {
        StuckCause::BlockedByObstacle
    }
}
