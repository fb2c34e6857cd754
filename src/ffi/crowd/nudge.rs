//! Moving one agent of a `dtCrowd` between updates, along the navmesh surface: what the crowd
//! behaviours' separation of deeply overlapping agents uses (`agents::crowd::separation`).

use recastnavigation_sys as sys;

use super::RawCrowd;
use crate::ffi::crowd_update::{STATE_WALKING, move_along};

impl<O> RawCrowd<'_, O> {
    /// Moves walking agent `idx` towards `to` along the navmesh surface, as dtCrowd's update
    /// moves it after integration (`dtPathCorridor::movePosition`: it slides along walls and
    /// stays on the navmesh; an agent without a path keeps a one-polygon corridor), and
    /// returns where it ends; `None` (nothing done) out of range, inactive or not walking
    /// (an agent on an off-mesh connection).
    pub(crate) fn nudge(&mut self, idx: i32, to: [f32; 3]) -> Option<[f32; 3]> {
        if !self.valid(idx) {
            return None;
        }
        // SAFETY: live crowd, exclusively borrowed (no update runs), index in range; the
        // agent, its corridor, the crowd's navmesh query and its filter array are the crowd's
        // own, touched by nothing else meanwhile; the filter index is clamped into the array
        // of 16; pointers to locals are read during the calls only.
        unsafe {
            let crowd = self.ptr.as_ptr();
            let ag = sys::dtCrowd_getEditableAgent(crowd, idx);
            if ag.is_null() || !(*ag).active || (*ag).state != STATE_WALKING {
                return None;
            }
            let t = ((*ag).params.queryFilterType as usize).min(15);
            let filter = (&raw const (*crowd).m_filters)
                .cast::<sys::dtQueryFilter>()
                .add(t);
            move_along::move_agent(ag, to, (*crowd).m_navquery, filter);
            Some((*ag).npos)
        }
    }
}
