//! Phase 9, per agent: the agent's corridor follows its new position along the navmesh
//! surface, and the agent takes the constrained position; an agent without a path keeps a
//! one-polygon corridor. As `dtCrowd::update`'s move along the navmesh.
//!
//! Reads and writes only its own agent.

use recastnavigation_sys as sys;

use super::{CrowdView, STATE_WALKING, no_path};

/// Moves agent `i` (walking agents) along the navmesh.
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone touches; `query`
/// this worker's navmesh query.
pub(super) unsafe fn update(view: CrowdView, i: usize, query: *mut sys::dtNavMeshQuery) {
    // SAFETY: agent `i` is this task's; pointers to its fields and a local.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return;
        }
        let filter = view.filter(ag);
        let corridor = &raw mut (*ag).corridor;
        let npos = (*ag).npos;
        sys::dtPathCorridor_movePosition(corridor, npos.as_ptr(), query, filter);
        (*ag).npos = (*corridor).m_pos;
        if no_path((*ag).targetState) {
            let first = if (*corridor).m_npath > 0 {
                *(*corridor).m_path
            } else {
                0
            };
            let pos = (*ag).npos;
            sys::dtPathCorridor_reset(corridor, first, pos.as_ptr());
            (*ag).partial = false;
        }
    }
}
