//! Setting an agent's current velocity between updates: an agent moved into a new crowd (a
//! rebuilt navmesh, in bevy_navkit) keeps its pace instead of starting from rest.

use recastnavigation_sys as sys;

use super::RawCrowd;

impl<O> RawCrowd<'_, O> {
    /// Sets active agent `idx`'s velocity (`vel`, and `nvel`, the velocity it steers towards
    /// until the next update computes it again); false (nothing done) out of range or
    /// inactive.
    pub(crate) fn set_velocity(&mut self, idx: i32, vel: [f32; 3]) -> bool {
        if !self.valid(idx) {
            return false;
        }
        // SAFETY: live crowd, exclusively borrowed (no update runs), index in range; the agent
        // is the crowd's own and only its two velocity fields are written.
        unsafe {
            let ag = sys::dtCrowd_getEditableAgent(self.ptr.as_ptr(), idx);
            if ag.is_null() || !(*ag).active {
                return false;
            }
            (*ag).vel = vel;
            (*ag).nvel = vel;
        }
        true
    }
}
