//! Turning agents' desired velocities in navkit's crowd update: the hook of the crowd
//! behaviours' lane rule (`agents::crowd::lanes`).

use super::RawCrowd;

impl<O> RawCrowd<'_, O> {
    /// From the next update of navkit's engine on, agent `idx`'s desired velocity is turned by
    /// `angle` radians in the xz-plane (from +x towards +z, its length kept), after
    /// DetourCrowd's steering and before obstacle avoidance; 0 leaves it as DetourCrowd's.
    /// Upstream's update ([`RawCrowd::update_upstream`]) ignores it. Nothing for an index out
    /// of range.
    pub(crate) fn set_steer_bias(&mut self, idx: i32, angle: f32) {
        if self.valid(idx) {
            self.engine.set_steer_bias(idx as usize, angle);
        }
    }

    /// Every agent's steering bias back to none.
    pub(crate) fn clear_steer_bias(&mut self) {
        self.engine.clear_steer_bias();
    }
}
