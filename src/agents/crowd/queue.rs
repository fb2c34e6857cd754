//! Queues: an agent close behind another going its way (in its lane: within the sum of their
//! radii of its path, ahead) matches that one's speed instead of pushing it. While the gap
//! between their edges is under [`CrowdBehaviours::queue_gap`], the follower's maximum speed is
//! capped at the leader's speed along the follower's way plus 2/s times the gap beyond 0.1 m
//! (at least 0.05 m/s); the user's speed comes back as soon as no one is that close ahead.

use super::behaviours::{Action, CrowdBehaviours};
use super::mind::{Mind, Mode, Snap};
use super::polyline::flat;

/// The slowest speed a queue caps an agent to (m/s).
const MIN_SPEED: f32 = 0.05;

/// The speed cap for `me` (`None`: no one close ahead going its way).
fn cap(snaps: &[Option<Snap>], me: &Snap, b: &CrowdBehaviours) -> Option<f32> {
    let mut cap: Option<f32> = None;
    for n in me.neighbours() {
        let Some(o) = snaps.get(n).and_then(Option::as_ref) else {
            continue;
        };
        if !o.walking || o.heading.dot(me.heading) <= 0.5 {
            continue;
        }
        let d = flat(o.pos - me.pos);
        if d.dot(me.heading) <= 0.0
            || !me
                .path
                .project(o.pos)
                .is_some_and(|p| p.dist < me.radius + o.radius)
        {
            continue;
        }
        let gap = d.length() - me.radius - o.radius;
        if gap < b.queue_gap {
            let lead = o.vel.dot(me.heading).max(0.0);
            let v = (lead + (gap - 0.1) * 2.0).clamp(MIN_SPEED, me.max_speed);
            cap = Some(cap.map_or(v, |c: f32| c.min(v)));
        }
    }
    cap
}

/// Caps or restores every walking agent's speed.
pub(super) fn update(
    snaps: &[Option<Snap>],
    minds: &mut [Mind],
    b: &CrowdBehaviours,
    actions: &mut Vec<Action>,
) {
    for (slot, (s, mind)) in snaps.iter().zip(minds.iter_mut()).enumerate() {
        let Some(me) = s else { continue };
        let eligible = me.walking
            && !me.path.is_point()
            && matches!(mind.mode, Mode::Normal | Mode::Returning { .. });
        match eligible.then(|| cap(snaps, me, b)).flatten() {
            Some(v) if v < 0.95 * me.max_speed => {
                mind.user_max_speed.get_or_insert(me.max_speed);
                mind.queued = v < 0.6 * me.max_speed;
                actions.push(Action::MaxSpeed(slot, v));
            }
            _ => {
                mind.queued = false;
                if let Some(v) = mind.user_max_speed.take() {
                    actions.push(Action::MaxSpeed(slot, v));
                }
            }
        }
    }
}
