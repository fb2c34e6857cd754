//! Phase 3, sequential: corridor topology optimisation. Every walking agent with a path and
//! the flag counts the time since its last optimisation; of those past half a second, the one
//! waiting longest (the first in agent order on a tie) is re-optimised this frame. As
//! `dtCrowd::updateTopologyOptimization`, on the crowd's own navmesh query.

use recastnavigation_sys as sys;

use super::{CrowdView, OPTIMIZE_TOPO, STATE_WALKING, no_path};

/// Seconds between optimisations of one agent.
const OPT_TIME_THR: f32 = 0.5;

/// Counts time and optimises at most one agent.
///
/// # Safety
/// `view` of a live crowd in an update, with no task running; `active` its active agents.
pub(super) unsafe fn update(view: CrowdView, active: &[usize], dt: f32) {
    // SAFETY: the whole crowd is this call's; indices of `active` are agents of it.
    unsafe {
        let mut chosen: Option<*mut sys::dtCrowdAgent> = None;
        for &i in active {
            let ag = view.agent(i);
            if (*ag).state != STATE_WALKING
                || no_path((*ag).targetState)
                || (*ag).params.updateFlags & OPTIMIZE_TOPO == 0
            {
                continue;
            }
            (*ag).topologyOptTime += dt;
            if (*ag).topologyOptTime >= OPT_TIME_THR {
                // A queue of one: a later agent takes the place only if it waited strictly
                // longer (on a tie the earlier agent keeps it).
                chosen = match chosen {
                    Some(c) if (*ag).topologyOptTime > (*c).topologyOptTime => Some(ag),
                    Some(c) => Some(c),
                    None => Some(ag),
                };
            }
        }
        if let Some(ag) = chosen {
            sys::dtPathCorridor_optimizePathTopology(
                &raw mut (*ag).corridor,
                (*view.crowd).m_navquery,
                view.filter(ag),
            );
            (*ag).topologyOptTime = 0.0;
        }
    }
}
