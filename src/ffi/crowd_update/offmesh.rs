//! Off-mesh connections. Phase 5b, per agent: an agent whose last corner is the start of an
//! off-mesh connection and is within 2.25 radii of it is moved onto the connection and starts
//! its animation. Last phase, per agent: the animation moves it along the connection (a
//! short approach to the start, then to the end) and lets it walk again when done. As the
//! off-mesh parts of `dtCrowd::update`.
//!
//! Both read and write only their own agent and its animation.

use recastnavigation_sys as sys;

use super::vecmath::{clamp, dist_2d, dist_2d_sqr, lerp, vec3_at};
use super::{CrowdView, STATE_OFFMESH, STATE_WALKING, no_path};

/// The corner flag of an off-mesh connection's start.
const OFFMESH_CORNER: u8 = sys::dtStraightPathFlags_DT_STRAIGHTPATH_OFFMESH_CONNECTION as u8;

/// Starts agent `i`'s off-mesh animation if it has reached a connection.
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone touches; `query`
/// this worker's navmesh query.
pub(super) unsafe fn trigger(view: CrowdView, i: usize, query: *mut sys::dtNavMeshQuery) {
    // SAFETY: agent `i` and its animation are this task's; pointers to their fields.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING || no_path((*ag).targetState) {
            return;
        }
        let n = (*ag).ncorners;
        if n <= 0 {
            return;
        }
        let last = (n - 1) as usize;
        if (*ag).cornerFlags[last] & OFFMESH_CORNER == 0 {
            return;
        }
        let radius = (*ag).params.radius * 2.25;
        let dist_sqr = dist_2d_sqr((*ag).npos, vec3_at(&(*ag).cornerVerts, last * 3));
        // Detour triggers on `<`: a NaN distance does not trigger.
        let near = dist_sqr < radius * radius;
        if !near {
            return;
        }
        let anim = view.anim(i);
        let mut refs: [sys::dtPolyRef; 2] = [0; 2];
        if !sys::dtPathCorridor_moveOverOffmeshConnection(
            &raw mut (*ag).corridor,
            (*ag).cornerPolys[last],
            refs.as_mut_ptr(),
            (*anim).startPos.as_mut_ptr(),
            (*anim).endPos.as_mut_ptr(),
            query,
        ) {
            // A blocked connection is replanned by the next path validity check.
            return;
        }
        (*anim).initPos = (*ag).npos;
        (*anim).polyRef = refs[1];
        (*anim).active = true;
        (*anim).t = 0.0;
        (*anim).tmax = (dist_2d((*anim).startPos, (*anim).endPos) / (*ag).params.maxSpeed) * 0.5;
        (*ag).state = STATE_OFFMESH;
        (*ag).ncorners = 0;
        (*ag).nneis = 0;
    }
}

/// `(t - t0) / (t1 - t0)` clamped to 0..=1.
fn tween(t: f32, t0: f32, t1: f32) -> f32 {
    clamp((t - t0) / (t1 - t0), 0.0, 1.0)
}

/// Advances agent `i`'s off-mesh animation by `dt` (if it has one).
///
/// # Safety
/// As [`trigger`].
pub(super) unsafe fn animate(view: CrowdView, i: usize, dt: f32) {
    // SAFETY: agent `i` and its animation are this task's.
    unsafe {
        let ag = view.agent(i);
        let anim = view.anim(i);
        if !(*anim).active {
            return;
        }
        (*anim).t += dt;
        if (*anim).t > (*anim).tmax {
            (*anim).active = false;
            (*ag).state = STATE_WALKING;
            return;
        }
        let ta = (*anim).tmax * 0.15;
        let tb = (*anim).tmax;
        (*ag).npos = if (*anim).t < ta {
            lerp((*anim).initPos, (*anim).startPos, tween((*anim).t, 0.0, ta))
        } else {
            lerp((*anim).startPos, (*anim).endPos, tween((*anim).t, ta, tb))
        };
        (*ag).vel = [0.0; 3];
        (*ag).dvel = [0.0; 3];
    }
}
