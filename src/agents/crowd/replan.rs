//! Replanning stuck agents: every `replan_after` seconds while an agent is stuck
//! ([`super::stuck`]) on plain DetourCrowd, its target is snapped to the navmesh afresh and
//! asked for again, so that DetourCrowd plans over the navmesh as it is now (an obstacle
//! removed, a tile rebuilt).

use super::aside::Ctx;
use super::behaviours::Action;
use super::mind::{Mind, Mode, Snap};
use crate::Result;

/// Counts down and replans `mind`'s agent (slot `slot`) if it is stuck.
pub(super) fn update(
    ctx: &mut Ctx<'_, '_>,
    slot: usize,
    _me: &Snap,
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
    if let Some((poly, p)) = ctx.nearest(goal)? {
        mind.goal = Some((poly, p));
        actions.push(Action::Target(slot, poly, p));
    }
    Ok(())
}
