//! Phase 5a, per agent: the next corners of the agent's corridor (at most 4) to steer to, and,
//! with `OPTIMIZE_VIS`, a shortcut of the corridor towards the second corner where it is in
//! sight. As the corner part of `dtCrowd::update`.
//!
//! Reads and writes only its own agent's corridor and corners.

use recastnavigation_sys as sys;

use super::{CrowdView, OPTIMIZE_VIS, STATE_WALKING, no_path};

/// The most corners kept (`DT_CROWDAGENT_MAX_CORNERS`).
const MAX_CORNERS: i32 = sys::DT_CROWDAGENT_MAX_CORNERS;

/// Finds agent `i`'s corners (walking agents that follow a path).
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone touches; `query`
/// this worker's navmesh query.
pub(super) unsafe fn update(view: CrowdView, i: usize, query: *mut sys::dtNavMeshQuery) {
    // SAFETY: agent `i` is this task's; pointers to its fields.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING || no_path((*ag).targetState) {
            return;
        }
        let filter = view.filter(ag);
        let corridor = &raw mut (*ag).corridor;
        (*ag).ncorners = sys::dtPathCorridor_findCorners(
            corridor,
            (*ag).cornerVerts.as_mut_ptr(),
            (*ag).cornerFlags.as_mut_ptr(),
            (*ag).cornerPolys.as_mut_ptr(),
            MAX_CORNERS,
            query,
            filter,
        );
        let n = (*ag).ncorners;
        if (*ag).params.updateFlags & OPTIMIZE_VIS != 0 && n > 0 {
            let at = (1.min(n - 1) * 3) as usize;
            let target = [
                (*ag).cornerVerts[at],
                (*ag).cornerVerts[at + 1],
                (*ag).cornerVerts[at + 2],
            ];
            sys::dtPathCorridor_optimizePathVisibility(
                corridor,
                target.as_ptr(),
                (*ag).params.pathOptimizationRange,
                query,
                filter,
            );
        }
    }
}
