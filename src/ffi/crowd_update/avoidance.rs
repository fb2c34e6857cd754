//! Phase 6, per agent: velocity planning. With `OBSTACLE_AVOIDANCE`, the agent's neighbours
//! (as moving circles) and the boundary walls it faces (as segments) go into this worker's
//! obstacle-avoidance query, whose adaptive sampling picks the new velocity under the agent's
//! avoidance preset; otherwise the new velocity is the desired one. As the velocity planning
//! part of `dtCrowd::update`.
//!
//! Writes only its own agent's new velocity; reads its neighbours' positions, radii,
//! velocities and desired velocities, which nothing writes in this phase.

use recastnavigation_sys as sys;

use super::vecmath::{tri_area_2d, vec3_at};
use super::{CrowdView, OBSTACLE_AVOIDANCE, STATE_WALKING};

/// Plans agent `i`'s new velocity (walking agents); the velocity samples taken.
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone writes; `avoid`
/// this worker's obstacle-avoidance query.
pub(super) unsafe fn plan(
    view: CrowdView,
    i: usize,
    avoid: *mut sys::dtObstacleAvoidanceQuery,
) -> i32 {
    // SAFETY: agent `i` is this task's; neighbours are only read; the avoidance presets are
    // not written during an update; the query is this worker's.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return 0;
        }
        if (*ag).params.updateFlags & OBSTACLE_AVOIDANCE == 0 {
            (*ag).nvel = (*ag).dvel;
            return 0;
        }
        sys::dtObstacleAvoidanceQuery_reset(avoid);
        let n = (*ag).nneis.clamp(0, 6) as usize;
        for k in 0..n {
            let nei = view.agent((*ag).neis[k].idx as usize);
            sys::dtObstacleAvoidanceQuery_addCircle(
                avoid,
                (&raw const (*nei).npos).cast(),
                (*nei).params.radius,
                (&raw const (*nei).vel).cast(),
                (&raw const (*nei).dvel).cast(),
            );
        }
        let boundary = &raw const (*ag).boundary;
        let nsegs = (*boundary).m_nsegs.clamp(0, 8) as usize;
        for k in 0..nsegs {
            let s = (*boundary).m_segs[k].s;
            if tri_area_2d((*ag).npos, vec3_at(&s, 0), vec3_at(&s, 3)) < 0.0 {
                continue;
            }
            sys::dtObstacleAvoidanceQuery_addSegment(avoid, s.as_ptr(), s.as_ptr().add(3));
        }
        let slot = ((*ag).params.obstacleAvoidanceType as usize).min(7);
        let params = (&raw const (*view.crowd).m_obstacleQueryParams)
            .cast::<sys::dtObstacleAvoidanceParams>()
            .add(slot);
        let (pos, vel, dvel) = ((*ag).npos, (*ag).vel, (*ag).dvel);
        sys::dtObstacleAvoidanceQuery_sampleVelocityAdaptive(
            avoid,
            pos.as_ptr(),
            (*ag).params.radius,
            (*ag).desiredSpeed,
            vel.as_ptr(),
            dvel.as_ptr(),
            (&raw mut (*ag).nvel).cast(),
            params,
            std::ptr::null_mut(),
        )
    }
}
