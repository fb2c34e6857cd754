//! Phase 5c, per agent: the desired velocity. Towards the first corner (or, with
//! `ANTICIPATE_TURNS`, a direction blended towards the second), at full speed slowing down
//! within two radii of the path's end; or the requested velocity. With `SEPARATION`, pushed
//! away from neighbours and clamped back to the desired speed. As the steering part of
//! `dtCrowd::update`.
//!
//! Writes only its own agent's desired velocity and speed; reads its neighbours' positions,
//! which nothing writes in this phase.

use recastnavigation_sys as sys;

use super::vecmath::{dist_2d, len, len_sqr, mad, min, normalize, scale, sub, vec3_at};
use super::{ANTICIPATE_TURNS, CrowdView, SEPARATION, STATE_WALKING, TARGET_NONE, TARGET_VELOCITY};

/// The corner flag of the path's end.
const END_CORNER: u8 = sys::dtStraightPathFlags_DT_STRAIGHTPATH_END as u8;

/// Sets agent `i`'s desired velocity (walking agents with a request), turned by `bias`
/// radians (navkit's lane rule; 0: DetourCrowd's, untouched).
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone writes; its
/// neighbours' positions are not written in this phase.
pub(super) unsafe fn update(view: CrowdView, i: usize, bias: f32) {
    // SAFETY: agent `i` is this task's; neighbours are only read.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING || (*ag).targetState == TARGET_NONE {
            return;
        }
        let mut dvel;
        if (*ag).targetState == TARGET_VELOCITY {
            dvel = (*ag).targetPos;
            (*ag).desiredSpeed = len((*ag).targetPos);
        } else {
            dvel = if (*ag).params.updateFlags & ANTICIPATE_TURNS != 0 {
                smooth_direction(ag)
            } else {
                straight_direction(ag)
            };
            let slow_down = (*ag).params.radius * 2.0;
            let speed_scale = distance_to_goal(ag, slow_down) / slow_down;
            (*ag).desiredSpeed = (*ag).params.maxSpeed;
            dvel = scale(dvel, (*ag).desiredSpeed * speed_scale);
        }
        if (*ag).params.updateFlags & SEPARATION != 0 {
            dvel = separate(view, ag, dvel);
        }
        if bias != 0.0 {
            dvel = turn(dvel, bias);
        }
        (*ag).dvel = dvel;
    }
}

/// `v` turned by `angle` radians in the xz-plane, from +x towards +z (y kept).
fn turn(v: [f32; 3], angle: f32) -> [f32; 3] {
    let (s, c) = angle.sin_cos();
    [v[0] * c - v[2] * s, v[1], v[0] * s + v[2] * c]
}

/// The corner `k` of the agent.
///
/// # Safety
/// A live agent, `k` below 4.
unsafe fn corner(ag: *const sys::dtCrowdAgent, k: usize) -> [f32; 3] {
    // SAFETY: the caller's contract.
    unsafe { vec3_at(&(*ag).cornerVerts, k * 3) }
}

/// Towards the first corner, bent by the second: the unit xz direction of
/// `d0 - d1 / |d1| * |d0| / 2` (d0, d1: to the first and second corners).
///
/// # Safety
/// A live agent.
unsafe fn smooth_direction(ag: *const sys::dtCrowdAgent) -> [f32; 3] {
    // SAFETY: the caller's contract; corners below `ncorners` (at most 4).
    unsafe {
        let n = (*ag).ncorners;
        if n <= 0 {
            return [0.0; 3];
        }
        let mut d0 = sub(corner(ag, 0), (*ag).npos);
        let mut d1 = sub(corner(ag, 1.min(n - 1) as usize), (*ag).npos);
        d0[1] = 0.0;
        d1[1] = 0.0;
        let len0 = len(d0);
        let len1 = len(d1);
        if len1 > 0.001 {
            d1 = scale(d1, 1.0 / len1);
        }
        normalize([d0[0] - d1[0] * len0 * 0.5, 0.0, d0[2] - d1[2] * len0 * 0.5])
    }
}

/// The unit xz direction to the first corner.
///
/// # Safety
/// A live agent.
unsafe fn straight_direction(ag: *const sys::dtCrowdAgent) -> [f32; 3] {
    // SAFETY: the caller's contract.
    unsafe {
        if (*ag).ncorners <= 0 {
            return [0.0; 3];
        }
        let mut d = sub(corner(ag, 0), (*ag).npos);
        d[1] = 0.0;
        normalize(d)
    }
}

/// The xz distance to the path's end if its last corner is the end, capped at `range`; else
/// `range`.
///
/// # Safety
/// A live agent.
unsafe fn distance_to_goal(ag: *const sys::dtCrowdAgent, range: f32) -> f32 {
    // SAFETY: the caller's contract.
    unsafe {
        let n = (*ag).ncorners;
        if n <= 0 {
            return range;
        }
        let last = (n - 1) as usize;
        if (*ag).cornerFlags[last] & END_CORNER == 0 {
            return range;
        }
        min(dist_2d((*ag).npos, corner(ag, last)), range)
    }
}

/// `dvel` pushed away from the agent's neighbours within its query range (weighted by
/// closeness), clamped to the desired speed.
///
/// # Safety
/// As [`update`], `ag` being agent `i`.
unsafe fn separate(view: CrowdView, ag: *const sys::dtCrowdAgent, dvel: [f32; 3]) -> [f32; 3] {
    // SAFETY: as `update`'s; neighbour indices are agents of the crowd (set by the
    // neighbour phase).
    unsafe {
        let dist_max = (*ag).params.collisionQueryRange;
        let inv_dist_max = 1.0 / dist_max;
        let weight = (*ag).params.separationWeight;
        let mut w = 0.0f32;
        let mut disp = [0.0f32; 3];
        let n = (*ag).nneis.clamp(0, 6) as usize;
        for k in 0..n {
            let nei = view.agent((*ag).neis[k].idx as usize);
            let mut diff = sub((*ag).npos, (*nei).npos);
            diff[1] = 0.0;
            let dist_sqr = len_sqr(diff);
            if dist_sqr < 0.00001 || dist_sqr > dist_max * dist_max {
                continue;
            }
            let dist = dist_sqr.sqrt();
            let x = dist * inv_dist_max;
            let nw = weight * (1.0 - x * x);
            disp = mad(disp, diff, nw / dist);
            w += 1.0;
        }
        // `w` counts neighbours: never NaN.
        if w <= 0.0001 {
            return dvel;
        }
        let dvel = mad(dvel, disp, 1.0 / w);
        let speed_sqr = len_sqr(dvel);
        let desired_sqr = (*ag).desiredSpeed * (*ag).desiredSpeed;
        if speed_sqr > desired_sqr {
            scale(dvel, desired_sqr / speed_sqr)
        } else {
            dvel
        }
    }
}
