//! Replanning stuck agents: every `replan_after` seconds while an agent is stuck
//! ([`super::stuck`]) on plain DetourCrowd: blocked by agents, it takes a way around the
//! polygons under the agents close ahead if the navmesh has one ([`super::detour`]); else its
//! target is snapped to the navmesh afresh and asked for again, so that DetourCrowd plans over
//! the navmesh as it is now (an obstacle removed, a tile rebuilt).

use std::collections::BTreeSet;

use glam::Vec3;

use super::StuckCause;
use super::aside::Ctx;
use super::behaviours::Action;
use super::mind::{Mind, Mode, Snap};
use crate::Result;
use crate::query::PolyRef;

/// Counts down and replans `mind`'s agent (slot `slot`) if it is stuck.
pub(super) fn update(
    ctx: &mut Ctx<'_, '_>,
    slot: usize,
    me: &Snap,
    mind: &mut Mind,
    actions: &mut Vec<Action>,
) -> Result<()> {
    if mind.stuck.is_none() || !matches!(mind.mode, Mode::Normal) {
        mind.replan_in = ctx.b.replan_after;
        return Ok(());
    }
    mind.replan_in -= ctx.dt;
    if mind.replan_in > 0.0 {
        return Ok(());
    }
    mind.replan_in = ctx.b.replan_after;
    let Some((_, goal)) = mind.goal else {
        return Ok(());
    };
    let Some((goal_poly, goal)) = ctx.nearest(goal)? else {
        return Ok(());
    };
    mind.goal = Some((goal_poly, goal));
    if mind.stuck == Some(StuckCause::BlockedByAgents) {
        if let Some(waypoint) = around(ctx, me, goal_poly)? {
            actions.push(Action::Target(slot, waypoint.0, waypoint.1));
            mind.mode = Mode::Detour {
                waypoint: waypoint.1,
                age: 0.0,
            };
            return Ok(());
        }
    }
    actions.push(Action::Target(slot, goal_poly, goal));
    Ok(())
}

/// A waypoint on a way from `me` to `goal_poly` around the polygons of the agents close ahead
/// of it ([`super::detour`]), snapped.
fn around(ctx: &mut Ctx<'_, '_>, me: &Snap, goal_poly: PolyRef) -> Result<Option<(PolyRef, Vec3)>> {
    let Some((start, _)) = ctx.nearest(me.pos)? else {
        return Ok(None);
    };
    let mut blocked = BTreeSet::new();
    let blockers: Vec<Vec3> = super::stuck::blockers(ctx.snaps, me)
        .map(|o| o.pos)
        .collect();
    for p in blockers {
        if let Some((poly, _)) = ctx.nearest(p)? {
            if poly != start {
                blocked.insert(poly);
            }
        }
    }
    if blocked.is_empty() {
        return Ok(None);
    }
    match super::detour::waypoint(ctx.nav, start, goal_poly, &blocked) {
        Some(w) => ctx.nearest(w),
        None => Ok(None),
    }
}
