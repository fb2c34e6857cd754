//! Phase 2, sequential: move requests. New targets get a quick search of a few iterations
//! from the corridor's start; a path that does not reach its target waits for the path queue,
//! which takes at most 8 agents a frame (the longest waiting first) and runs a budget of
//! iterations; finished queue results are merged into the corridors. As
//! `dtCrowd::updateMoveRequest`, on the crowd's own navmesh query and path queue.

use recastnavigation_sys as sys;

use super::{CrowdView, STATE_INVALID, TARGET_FAILED, TARGET_REQUESTING, TARGET_VALID};
use super::{TARGET_WAITING_FOR_PATH, TARGET_WAITING_FOR_QUEUE, no_path};

/// Agents sent to the path queue per frame.
const PATH_MAX_AGENTS: usize = 8;
/// Path queue iterations per frame.
const MAX_ITERS_PER_UPDATE: i32 = 100;
/// Polygons of the quick search's path.
const MAX_RES: usize = 32;
/// Iterations of the quick search.
const MAX_ITER: i32 = 20;

/// True if `status` has Detour's failure bit.
fn failed(status: sys::dtStatus) -> bool {
    status & sys::DT_FAILURE != 0
}

/// Handles every agent's move request, in agent order.
///
/// # Safety
/// `view` of a live crowd in an update, with no task running.
pub(super) unsafe fn update(view: CrowdView) {
    // SAFETY: the whole crowd is this call's (no task runs); agents are indexed below
    // m_maxAgents.
    unsafe {
        let max_agents = (*view.crowd).m_maxAgents.max(0) as usize;
        let mut queue: Vec<*mut sys::dtCrowdAgent> = Vec::new();
        for i in 0..max_agents {
            let ag = view.agent(i);
            if !(*ag).active || (*ag).state == STATE_INVALID || no_path((*ag).targetState) {
                continue;
            }
            if (*ag).targetState == TARGET_REQUESTING {
                quick_search(view, ag);
            }
            if (*ag).targetState == TARGET_WAITING_FOR_QUEUE {
                add_to_path_queue(&mut queue, ag);
            }
        }
        let pathq = &raw mut (*view.crowd).m_pathq;
        for &ag in &queue {
            (*ag).targetPathqRef = sys::dtPathQueue_request(
                pathq,
                last_poly(ag),
                (*ag).targetRef,
                (*ag).corridor.m_target.as_ptr(),
                (*ag).targetPos.as_ptr(),
                view.filter(ag),
            );
            if (*ag).targetPathqRef != sys::DT_PATHQ_INVALID as sys::dtPathQueueRef {
                (*ag).targetState = TARGET_WAITING_FOR_PATH;
            }
        }
        sys::dtPathQueue_update(pathq, MAX_ITERS_PER_UPDATE);
        for i in 0..max_agents {
            let ag = view.agent(i);
            if (*ag).active && (*ag).targetState == TARGET_WAITING_FOR_PATH {
                poll_path(view, ag);
            }
        }
    }
}

/// The last polygon of the agent's corridor (0 if empty).
///
/// # Safety
/// `ag` a live agent.
unsafe fn last_poly(ag: *const sys::dtCrowdAgent) -> sys::dtPolyRef {
    // SAFETY: live agent; the corridor's path holds `m_npath` refs.
    unsafe {
        let c = &raw const (*ag).corridor;
        match (*c).m_npath {
            n if n > 0 => *(*c).m_path.add(n as usize - 1),
            _ => 0,
        }
    }
}

/// Inserts `ag` into the path queue, longest waiting first, ties after those already in; a
/// full queue keeps its first `PATH_MAX_AGENTS`.
///
/// # Safety
/// Live agents.
unsafe fn add_to_path_queue(queue: &mut Vec<*mut sys::dtCrowdAgent>, ag: *mut sys::dtCrowdAgent) {
    // SAFETY: live agents (the caller's contract).
    let time = |a: *mut sys::dtCrowdAgent| unsafe { (*a).targetReplanTime };
    let t = time(ag);
    let at = match queue.last() {
        None => 0,
        Some(&last) if t <= time(last) => {
            if queue.len() >= PATH_MAX_AGENTS {
                return;
            }
            queue.len()
        }
        Some(_) => queue
            .iter()
            .position(|&q| t >= time(q))
            .unwrap_or(queue.len()),
    };
    queue.insert(at, ag);
    queue.truncate(PATH_MAX_AGENTS);
}

/// The quick search towards a newly requested target: the corridor is set to what it found
/// (or to the agent's polygon), and the request is done if it reached the target polygon or
/// goes to the path queue.
///
/// # Safety
/// `ag` a live agent of the crowd of `view`, with no task running.
unsafe fn quick_search(view: CrowdView, ag: *mut sys::dtCrowdAgent) {
    // SAFETY: live crowd and agent, nothing else running; pointers to its fields and locals.
    unsafe {
        let q = (*view.crowd).m_navquery;
        let filter = view.filter(ag);
        let corridor = &raw mut (*ag).corridor;
        let (path, npath) = ((*corridor).m_path, (*corridor).m_npath);
        let mut req_path: [sys::dtPolyRef; MAX_RES] = [0; MAX_RES];
        let mut req_count: i32 = 0;
        let mut req_pos = [0.0f32; 3];
        let target_ref = (*ag).targetRef;
        let first = if npath > 0 { *path } else { 0 };
        sys::dtNavMeshQuery_initSlicedFindPath(
            q,
            first,
            target_ref,
            (*ag).npos.as_ptr(),
            (*ag).targetPos.as_ptr(),
            filter,
            0,
        );
        sys::dtNavMeshQuery_updateSlicedFindPath(q, MAX_ITER, std::ptr::null_mut());
        let out = req_path.as_mut_ptr();
        let mut status = if (*ag).targetReplan {
            sys::dtNavMeshQuery_finalizeSlicedFindPathPartial(
                q,
                path,
                npath,
                out,
                &mut req_count,
                MAX_RES as i32,
            )
        } else {
            sys::dtNavMeshQuery_finalizeSlicedFindPath(q, out, &mut req_count, MAX_RES as i32)
        };
        if !failed(status) && req_count > 0 {
            let last = req_path[req_count as usize - 1];
            if last != target_ref {
                status = sys::dtNavMeshQuery_closestPointOnPoly(
                    q,
                    last,
                    (*ag).targetPos.as_ptr(),
                    req_pos.as_mut_ptr(),
                    std::ptr::null_mut(),
                );
                if failed(status) {
                    req_count = 0;
                }
            } else {
                req_pos = (*ag).targetPos;
            }
        } else {
            req_count = 0;
        }
        if req_count == 0 {
            req_pos = (*ag).npos;
            req_path[0] = first;
            req_count = 1;
        }
        sys::dtPathCorridor_setCorridor(corridor, req_pos.as_ptr(), req_path.as_ptr(), req_count);
        sys::dtLocalBoundary_reset(&raw mut (*ag).boundary);
        (*ag).partial = false;
        if req_path[req_count as usize - 1] == target_ref {
            (*ag).targetState = TARGET_VALID;
            (*ag).targetReplanTime = 0.0;
        } else {
            (*ag).targetState = TARGET_WAITING_FOR_QUEUE;
        }
    }
}

/// Takes the agent's path-queue result if its search is done: on failure the request is made
/// again (or fails without a target polygon); on success the new path is joined to the old
/// corridor and set.
///
/// # Safety
/// As [`quick_search`].
unsafe fn poll_path(view: CrowdView, ag: *mut sys::dtCrowdAgent) {
    // SAFETY: as `quick_search`'s; `m_pathResult` holds `m_maxPathResult` refs.
    unsafe {
        let pathq = &raw mut (*view.crowd).m_pathq;
        let status = sys::dtPathQueue_getRequestStatus(pathq, (*ag).targetPathqRef);
        if failed(status) {
            (*ag).targetPathqRef = sys::DT_PATHQ_INVALID as sys::dtPathQueueRef;
            (*ag).targetState = if (*ag).targetRef != 0 {
                TARGET_REQUESTING
            } else {
                TARGET_FAILED
            };
            (*ag).targetReplanTime = 0.0;
            return;
        }
        if status & sys::DT_SUCCESS == 0 {
            return;
        }
        let max = (*view.crowd).m_maxPathResult;
        let res = std::slice::from_raw_parts_mut((*view.crowd).m_pathResult, max.max(0) as usize);
        let mut nres: i32 = 0;
        let status = sys::dtPathQueue_getPathResult(
            pathq,
            (*ag).targetPathqRef,
            res.as_mut_ptr(),
            &mut nres,
            max,
        );
        let mut valid = !failed(status) && nres > 0;
        (*ag).partial = status & sys::DT_PARTIAL_RESULT != 0;
        let mut target_pos = (*ag).targetPos;
        if valid {
            match merge_result(view, ag, res, nres as usize, &mut target_pos) {
                Some(n) => nres = n as i32,
                None => valid = false,
            }
        }
        if valid {
            sys::dtPathCorridor_setCorridor(
                &raw mut (*ag).corridor,
                target_pos.as_ptr(),
                res.as_ptr(),
                nres,
            );
            sys::dtLocalBoundary_reset(&raw mut (*ag).boundary);
            (*ag).targetState = TARGET_VALID;
        } else {
            (*ag).targetState = TARGET_FAILED;
        }
        (*ag).targetReplanTime = 0.0;
    }
}

/// Joins the queue's path `res[..nres]` (searched from the corridor's last polygon) after the
/// agent's corridor, drops the back-and-forth steps the join makes, and for a path short of the
/// target moves `target_pos` into its last polygon; the joined length, or `None` if the result
/// does not start where the corridor ends or the target cannot be placed.
///
/// # Safety
/// As [`quick_search`]; `res` is the crowd's path result buffer.
unsafe fn merge_result(
    view: CrowdView,
    ag: *mut sys::dtCrowdAgent,
    res: &mut [sys::dtPolyRef],
    mut nres: usize,
    target_pos: &mut [f32; 3],
) -> Option<usize> {
    // SAFETY: as `quick_search`'s; the corridor's path holds `m_npath` refs.
    unsafe {
        let corridor = &raw const (*ag).corridor;
        let npath = (*corridor).m_npath.max(0) as usize;
        let path = std::slice::from_raw_parts((*corridor).m_path, npath);
        if path.last() != Some(&res[0]) {
            return None;
        }
        if npath > 1 {
            let keep = npath - 1;
            if keep + nres > res.len() {
                nres = res.len() - keep;
            }
            res.copy_within(0..nres, keep);
            res[..keep].copy_from_slice(&path[..keep]);
            nres += keep;
            nres = remove_trackbacks(res, nres);
        }
        if res[nres - 1] != (*ag).targetRef {
            let mut nearest = [0.0f32; 3];
            let status = sys::dtNavMeshQuery_closestPointOnPoly(
                (*view.crowd).m_navquery,
                res[nres - 1],
                target_pos.as_ptr(),
                nearest.as_mut_ptr(),
                std::ptr::null_mut(),
            );
            if status & sys::DT_SUCCESS == 0 {
                return None;
            }
            *target_pos = nearest;
        }
        Some(nres)
    }
}

/// Removes every A-B-A step from `path[..n]` (keeping the first A), scanning as dtCrowd does:
/// after a removal the scan steps back two places. The new length.
fn remove_trackbacks(path: &mut [sys::dtPolyRef], mut n: usize) -> usize {
    let mut j: isize = 0;
    while (j as usize) < n {
        let ju = j as usize;
        if j >= 1 && ju + 1 < n && path[ju - 1] == path[ju + 1] {
            path.copy_within(ju + 1..n, ju - 1);
            n -= 2;
            j -= 2;
        }
        j += 1;
    }
    n
}
