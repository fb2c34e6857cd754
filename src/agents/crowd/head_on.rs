//! Two walking agents in each other's way: when the one of lower priority yields.
//!
//! Priority is a strict order ([`super::mind::base_rank`]: the agent that has yielded or been
//! held up longest, then the agent added earlier, first), and an agent stepping aside carries
//! the priority of the one it makes way for, so that an agent backing off into a third one
//! makes that one yield too (chains) and the agent of highest priority among those in each
//! other's way always has its way cleared: no livelock.

use super::behaviours::CrowdBehaviours;
use super::mind::{Mind, Mode, Snap};

/// True when walking `b`, in walking `a`'s way and of lower priority, must yield to `a`: they
/// walk against each other (headings more than ~107 degrees apart) and `a` is in `b`'s way
/// too, and either `a` is itself stepping aside (it carries a higher agent's priority: at
/// once, when they are within a metre of touching) or, for `head_on_after`, one has walked
/// slower than a quarter of its speed and the other too or come no nearer its target. Agents crossing or going the same way
/// are left to DetourCrowd's avoidance and the queue.
pub(super) fn must_yield(a: &Snap, b: &Snap, ma: &Mind, mb: &Mind, o: &CrowdBehaviours) -> bool {
    if a.heading.dot(b.heading) > -0.3 || !super::give_way::in_way(b, a, o.margin) {
        return false;
    }
    let close = super::polyline::dist_xz(a.pos, b.pos) < a.radius + b.radius + 1.0;
    // One slow, the other slow too or (jostling) no nearer its target.
    let slow = |m: &Mind| m.slow_for >= o.head_on_after;
    let stalled = |m: &Mind| m.slow_for.max(m.no_progress) >= o.head_on_after;
    matches!(ma.mode, Mode::Aside { .. }) && close
        || slow(ma) && stalled(mb)
        || slow(mb) && stalled(ma)
}

/// True when `o`, walking, is still coming against an agent of base priority `rank` that
/// yielded while walking `want` from `me`: ahead of it within reach, in its lane (within the
/// sum of their radii plus `margin` of the line it wants to walk), heading the other way.
pub(super) fn still_coming(
    me: &Snap,
    o: &Snap,
    rank: u64,
    want: glam::Vec3,
    reach: f32,
    margin: f32,
) -> bool {
    let d = super::polyline::flat(o.pos - me.pos);
    let along = d.dot(want);
    let across = (d - want * along).length();
    o.walking
        && o.rank > rank
        && along > 0.0
        && along < reach + me.radius + o.radius
        && across < me.radius + o.radius + margin
        && o.heading.dot(want) < -0.3
}
