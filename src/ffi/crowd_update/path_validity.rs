//! Phase 1, per agent: is the agent still on a valid polygon, is its target still there, is
//! the start of its corridor still passable? If not, re-place it (or mark it invalid) and ask
//! for a replan. As `dtCrowd::checkPathValidity`.
//!
//! Reads and writes only its own agent (position, corridor, boundary, state, target fields).

use recastnavigation_sys as sys;

use super::{CrowdView, STATE_INVALID, STATE_WALKING, TARGET_FAILED, TARGET_NONE};
use super::{TARGET_REQUESTING, TARGET_VALID, no_path};

/// Corridor polygons checked ahead.
const CHECK_LOOKAHEAD: i32 = 10;
/// Seconds before a path that ends short of its target is replanned.
const TARGET_REPLAN_DELAY: f32 = 1.0;

/// Checks agent `i` (walking agents only) with `query`.
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone touches; `query`
/// this worker's navmesh query over the crowd's navmesh.
pub(super) unsafe fn check(view: CrowdView, i: usize, query: *mut sys::dtNavMeshQuery, dt: f32) {
    // SAFETY: agent `i` is this task's alone (the caller's contract); the query is this
    // worker's; every pointer given to Detour is to this agent's fields or to locals.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return;
        }
        (*ag).targetReplanTime += dt;
        let filter = view.filter(ag);
        let Some((agent_ref, agent_pos, mut replan)) = check_position(view, ag, query, filter)
        else {
            return;
        };
        if no_path((*ag).targetState) {
            return;
        }
        if (*ag).targetState != TARGET_FAILED {
            replan |= recover_target(view, ag, query, filter);
            if (*ag).targetRef == 0 {
                sys::dtPathCorridor_reset(&raw mut (*ag).corridor, agent_ref, agent_pos.as_ptr());
                (*ag).partial = false;
                (*ag).targetState = TARGET_NONE;
            }
        }
        if !sys::dtPathCorridor_isValid(&raw mut (*ag).corridor, CHECK_LOOKAHEAD, query, filter) {
            replan = true;
        }
        if (*ag).targetState == TARGET_VALID {
            let corridor = &raw const (*ag).corridor;
            let npath = (*corridor).m_npath;
            let last = if npath > 0 {
                *(*corridor).m_path.add(npath as usize - 1)
            } else {
                0
            };
            if (*ag).targetReplanTime > TARGET_REPLAN_DELAY
                && npath < CHECK_LOOKAHEAD
                && last != (*ag).targetRef
            {
                replan = true;
            }
        }
        if replan && (*ag).targetState != TARGET_NONE {
            request_replan(ag);
        }
    }
}

/// The agent's polygon and position, re-placed on the nearest polygon if its first corridor
/// polygon is no longer valid (then also whether to replan: true); `None` if no polygon is
/// near, after marking the agent invalid.
///
/// # Safety
/// As [`check`], `ag` being agent `i` and `filter` its filter.
unsafe fn check_position(
    view: CrowdView,
    ag: *mut sys::dtCrowdAgent,
    query: *mut sys::dtNavMeshQuery,
    filter: *const sys::dtQueryFilter,
) -> Option<(sys::dtPolyRef, [f32; 3], bool)> {
    // SAFETY: as `check`'s.
    unsafe {
        let corridor = &raw mut (*ag).corridor;
        let mut agent_ref = if (*corridor).m_npath > 0 {
            *(*corridor).m_path
        } else {
            0
        };
        let mut agent_pos = (*ag).npos;
        if sys::dtNavMeshQuery_isValidPolyRef(query, agent_ref, filter) {
            return Some((agent_ref, agent_pos, false));
        }
        let half = view.half_extents();
        let mut nearest = agent_pos;
        agent_ref = 0;
        sys::dtNavMeshQuery_findNearestPoly(
            query,
            (*ag).npos.as_ptr(),
            half.as_ptr(),
            filter,
            &mut agent_ref,
            nearest.as_mut_ptr(),
        );
        agent_pos = nearest;
        if agent_ref == 0 {
            sys::dtPathCorridor_reset(corridor, 0, agent_pos.as_ptr());
            (*ag).partial = false;
            sys::dtLocalBoundary_reset(&raw mut (*ag).boundary);
            (*ag).state = STATE_INVALID;
            return None;
        }
        sys::dtPathCorridor_fixPathStart(corridor, agent_ref, agent_pos.as_ptr());
        sys::dtLocalBoundary_reset(&raw mut (*ag).boundary);
        (*ag).npos = agent_pos;
        Some((agent_ref, agent_pos, true))
    }
}

/// Re-places the agent's target on the nearest polygon if its polygon is no longer valid;
/// whether it did (a replan is due).
///
/// # Safety
/// As [`check_position`].
unsafe fn recover_target(
    view: CrowdView,
    ag: *mut sys::dtCrowdAgent,
    query: *mut sys::dtNavMeshQuery,
    filter: *const sys::dtQueryFilter,
) -> bool {
    // SAFETY: as `check`'s.
    unsafe {
        if sys::dtNavMeshQuery_isValidPolyRef(query, (*ag).targetRef, filter) {
            return false;
        }
        let half = view.half_extents();
        let mut nearest = (*ag).targetPos;
        (*ag).targetRef = 0;
        let target = (*ag).targetPos;
        sys::dtNavMeshQuery_findNearestPoly(
            query,
            target.as_ptr(),
            half.as_ptr(),
            filter,
            &raw mut (*ag).targetRef,
            nearest.as_mut_ptr(),
        );
        (*ag).targetPos = nearest;
        true
    }
}

/// Asks for a new path to the agent's current target, keeping what it can of the old one
/// (`dtCrowd::requestMoveTargetReplan`).
///
/// # Safety
/// `ag` a live agent this task alone touches.
unsafe fn request_replan(ag: *mut sys::dtCrowdAgent) {
    // SAFETY: the caller's contract.
    unsafe {
        (*ag).targetPathqRef = sys::DT_PATHQ_INVALID as sys::dtPathQueueRef;
        (*ag).targetReplan = true;
        (*ag).targetState = if (*ag).targetRef != 0 {
            TARGET_REQUESTING
        } else {
            TARGET_FAILED
        };
    }
}
