//! Phase 6, per agent: velocity planning. With `OBSTACLE_AVOIDANCE`, the agent's neighbours
//! (as moving circles) and the boundary walls it faces (as segments) go to the adaptive
//! velocity sampling (`sampling`; Detour's own query, this worker's, for the presets it does
//! not take), which picks the new velocity under the agent's avoidance preset; otherwise the
//! new velocity is the desired one. As the velocity planning part of `dtCrowd::update`.
//!
//! Writes only its own agent's new velocity; reads its neighbours' positions, radii,
//! velocities and desired velocities, which nothing writes in this phase.

use recastnavigation_sys as sys;

use super::sampling::{self, Agent, Circle, Params, Segment};
use super::vecmath::{tri_area_2d, vec3_at};
use super::{CrowdView, OBSTACLE_AVOIDANCE, STATE_WALKING};

/// The circles and segments dtCrowd's obstacle-avoidance query holds (`init(6, 8)`).
const MAX_CIRCLES: usize = 6;
const MAX_SEGMENTS: usize = 8;

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
        let slot = ((*ag).params.obstacleAvoidanceType as usize).min(7);
        let params = &*(&raw const (*view.crowd).m_obstacleQueryParams)
            .cast::<sys::dtObstacleAvoidanceParams>()
            .add(slot);
        let mut circles = [Circle::default(); MAX_CIRCLES];
        let n = (*ag).nneis.clamp(0, MAX_CIRCLES as i32) as usize;
        for (k, c) in circles[..n].iter_mut().enumerate() {
            let nei = view.agent((*ag).neis[k].idx as usize);
            *c = Circle {
                p: (*nei).npos,
                rad: (*nei).params.radius,
                vel: (*nei).vel,
                dvel: (*nei).dvel,
            };
        }
        let mut segments = [Segment::default(); MAX_SEGMENTS];
        let mut nsegs = 0;
        let boundary = &raw const (*ag).boundary;
        for k in 0..(*boundary).m_nsegs.clamp(0, 8) as usize {
            let s = (*boundary).m_segs[k].s;
            let (p, q) = (vec3_at(&s, 0), vec3_at(&s, 3));
            if tri_area_2d((*ag).npos, p, q) < 0.0 || nsegs == MAX_SEGMENTS {
                continue;
            }
            segments[nsegs] = Segment { p, q };
            nsegs += 1;
        }
        let agent = Agent {
            pos: (*ag).npos,
            rad: (*ag).params.radius,
            vmax: (*ag).desiredSpeed,
            vel: (*ag).vel,
            dvel: (*ag).dvel,
        };
        let preset = Params {
            vel_bias: params.velBias,
            weight_des_vel: params.weightDesVel,
            weight_cur_vel: params.weightCurVel,
            weight_side: params.weightSide,
            weight_toi: params.weightToi,
            horiz_time: params.horizTime,
            divs: params.adaptiveDivs,
            rings: params.adaptiveRings,
            depth: params.adaptiveDepth,
        };
        if sampling::supported(&preset) {
            let (nvel, ns) =
                sampling::sample_adaptive(&agent, &circles[..n], &segments[..nsegs], &preset);
            (*ag).nvel = nvel;
            return ns;
        }
        detour_sampling(
            avoid,
            &agent,
            (&circles[..n], &segments[..nsegs]),
            params,
            &mut (*ag).nvel,
        )
    }
}

/// The sampling by Detour's own query `avoid` (presets [`sampling::supported`] does not take);
/// the candidates scored.
///
/// # Safety
/// `avoid` this worker's live obstacle-avoidance query; `params` a live preset.
pub(super) unsafe fn detour_sampling(
    avoid: *mut sys::dtObstacleAvoidanceQuery,
    agent: &Agent,
    (circles, segments): (&[Circle], &[Segment]),
    params: *const sys::dtObstacleAvoidanceParams,
    nvel: &mut [f32; 3],
) -> i32 {
    // SAFETY: the query is this worker's (the caller's contract); every pointer is to a local
    // or to the preset, read only.
    unsafe {
        sys::dtObstacleAvoidanceQuery_reset(avoid);
        for c in circles {
            sys::dtObstacleAvoidanceQuery_addCircle(
                avoid,
                c.p.as_ptr(),
                c.rad,
                c.vel.as_ptr(),
                c.dvel.as_ptr(),
            );
        }
        for s in segments {
            sys::dtObstacleAvoidanceQuery_addSegment(avoid, s.p.as_ptr(), s.q.as_ptr());
        }
        sys::dtObstacleAvoidanceQuery_sampleVelocityAdaptive(
            avoid,
            agent.pos.as_ptr(),
            agent.rad,
            agent.vmax,
            agent.vel.as_ptr(),
            agent.dvel.as_ptr(),
            nvel.as_mut_ptr(),
            params,
            std::ptr::null_mut(),
        )
    }
}
