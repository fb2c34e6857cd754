//! Two walking agents in each other's way: when the one of lower priority yields.
//!
//! Priority is a strict order ([`super::mind::base_rank`]: the agent added earlier first), and
//! an agent stepping aside carries the priority of the one it makes way for, so that an agent
//! backing off into a third one makes that one yield too (chains) and the agent of highest
//! priority among those in each other's way always has its way cleared: no livelock.

use super::behaviours::CrowdBehaviours;
use super::mind::{Mind, Mode, Snap};

/// True when walking `b`, in walking `a`'s way and of lower priority, must yield to `a`: they
/// do not go the same way (then `b` is ahead in `a`'s queue), and either `a` is itself stepping
/// aside (it carries a higher agent's priority: at once) or one of them has stalled for
/// `head_on_after`.
pub(super) fn must_yield(a: &Snap, b: &Snap, ma: &Mind, mb: &Mind, o: &CrowdBehaviours) -> bool {
    if a.heading.dot(b.heading) > 0.5 {
        return false;
    }
    matches!(ma.mode, Mode::Aside { .. })
        || ma.slow_for >= o.head_on_after
        || mb.slow_for >= o.head_on_after
}

/// True when `o`, walking, is still coming against an agent of base priority `rank` that
/// yielded while walking `want` from `me`: ahead of it within reach, heading the other way.
pub(super) fn still_coming(me: &Snap, o: &Snap, rank: u64, want: glam::Vec3, reach: f32) -> bool {
    let d = super::polyline::flat(o.pos - me.pos);
    o.walking
        && o.rank > rank
        && d.length() < reach + me.radius + o.radius
        && d.dot(want) > 0.0
        && o.heading.dot(want) < -0.3
}
