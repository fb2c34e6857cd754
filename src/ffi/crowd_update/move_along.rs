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
    // SAFETY: agent `i` is this task's (the caller's promise); its filter is the crowd's.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return;
        }
        let npos = (*ag).npos;
        move_agent(ag, npos, query, view.filter(ag));
    }
}

/// Moves walking agent `ag`'s corridor towards `to` along the navmesh surface
/// (`dtPathCorridor::movePosition`) and gives the agent the constrained position; an agent
/// without a path keeps a one-polygon corridor. As `dtCrowd::update` moves an agent.
///
/// # Safety
/// `ag` a live, active agent of a live crowd that nothing else touches meanwhile; `query` and
/// `filter` valid for the crowd's navmesh and not used by another thread meanwhile.
pub(in crate::ffi) unsafe fn move_agent(
    ag: *mut sys::dtCrowdAgent,
    to: [f32; 3],
    query: *mut sys::dtNavMeshQuery,
    filter: *const sys::dtQueryFilter,
) {
    // SAFETY: the caller's promises; pointers to the agent's fields and a local, read during
    // the calls only.
    unsafe {
        let corridor = &raw mut (*ag).corridor;
        sys::dtPathCorridor_movePosition(corridor, to.as_ptr(), query, filter);
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
