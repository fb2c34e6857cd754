//! Queues: an agent behind another going its way (in its lane: within the sum of their radii
//! of its path, ahead, not walking against it) matches that one's speed instead of pushing it:
//! its maximum speed is capped so that it could still stop [`CrowdBehaviours::queue_gap`] short
//! of the leader braking at half its maximum acceleration (the leader's speed along its way
//! plus `sqrt(2 * 0.5 * max_acceleration * (gap - queue_gap))`, at least 0.05 m/s, the gap
//! between their edges); the user's speed comes back as soon as no one ahead needs it. Of two
//! side by side that each see the other ahead, only the one of lower priority queues.

use super::behaviours::{Action, CrowdBehaviours};
use super::mind::{Mind, Mode, Snap};
use super::polyline::flat;

/// The slowest speed a queue caps an agent to (m/s).
const MIN_SPEED: f32 = 0.05;
/// The share of its maximum acceleration a follower plans to brake with.
const BRAKE: f32 = 0.5;

/// The speed cap for `me` (`None`: no one close ahead going its way).
fn cap(snaps: &[Option<Snap>], me: &Snap, b: &CrowdBehaviours) -> Option<f32> {
    let mut cap: Option<f32> = None;
    for n in me.neighbours() {
        let Some(o) = snaps.get(n).and_then(Option::as_ref) else {
            continue;
        };
        if !o.walking || o.heading.dot(me.heading) <= 0.0 {
            continue;
        }
        let d = flat(o.pos - me.pos);
        // Ahead of me, and not level with me: of two side by side that each see the other
        // ahead, only the one of lower priority queues (else both would wait on each other).
        let ahead = d.dot(me.heading);
        let mutual = (-d).dot(o.heading) > 0.0;
        if ahead <= 0.0
            || mutual && me.rank > o.rank
            || !me
                .path
                .project(o.pos)
                .is_some_and(|p| p.dist < me.radius + o.radius)
        {
            continue;
        }
        let gap = d.length() - me.radius - o.radius;
        let lead = o.vel.dot(me.heading).max(0.0);
        let brake = (2.0 * BRAKE * me.max_accel * (gap - b.queue_gap).max(0.0)).sqrt();
        let v = (lead + brake).clamp(MIN_SPEED, me.max_speed);
        if v < me.max_speed {
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
            && matches!(
                mind.mode,
                Mode::Normal | Mode::Returning { .. } | Mode::Detour { .. }
            );
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
