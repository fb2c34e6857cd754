//! Phase 7, per agent: integration. The velocity moves towards the planned one by at most
//! `max_acceleration * dt`, and the position by the velocity (a velocity under 0.0001 is
//! zeroed instead). As `dtCrowd::update`'s integration.
//!
//! Reads and writes only its own agent.

use super::vecmath::{add, len, mad, scale, sub};
use super::{CrowdView, STATE_WALKING};

/// Integrates agent `i` (walking agents) over `dt`.
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone touches.
pub(super) unsafe fn integrate(view: CrowdView, i: usize, dt: f32) {
    // SAFETY: agent `i` is this task's.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return;
        }
        let max_delta = (*ag).params.maxAcceleration * dt;
        let mut dv = sub((*ag).nvel, (*ag).vel);
        let ds = len(dv);
        if ds > max_delta {
            dv = scale(dv, max_delta / ds);
        }
        (*ag).vel = add((*ag).vel, dv);
        if len((*ag).vel) > 0.0001 {
            (*ag).npos = mad((*ag).npos, (*ag).vel, dt);
        } else {
            (*ag).vel = [0.0; 3];
        }
    }
}
