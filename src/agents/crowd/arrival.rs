//! Arrival, which DetourCrowd does not have: an agent has arrived when it is within
//! `max(radius, CrowdBehaviours::arrive_distance)` (xz) of its target with a complete path. Also
//! keeps each agent's stall time (seconds walking slower than a quarter of its speed), which the
//! head-on rule reads, and the time it has spent yielding or held up (walking slowly on plain
//! DetourCrowd, not in a queue), which raises its priority.

use glam::Vec3;

use super::behaviours::CrowdBehaviours;
use super::mind::{AsideKind, Mind, Mode, Snap, TARGET_VALID};
use super::polyline::{dist_xz, flat};

/// True when `s`, whose dtCrowd target is `goal`, has reached it (see the module docs).
pub(super) fn reached(s: &Snap, goal: Vec3, arrive_distance: f32) -> bool {
    dist_xz(s.pos, goal) <= s.radius.max(arrive_distance)
        && !s.partial
        && s.target_state == TARGET_VALID
}

/// Latches arrival and counts stall time.
pub(super) fn update(snaps: &[Option<Snap>], minds: &mut [Mind], b: &CrowdBehaviours, dt: f32) {
    for (s, mind) in snaps.iter().zip(minds.iter_mut()) {
        let Some(s) = s else { continue };
        let slow = flat(s.vel).length() < 0.25 * s.max_speed;
        // Waiting for a path is not stalling.
        mind.slow_for = if s.walking && slow && s.target_state == TARGET_VALID {
            mind.slow_for + dt
        } else {
            0.0
        };
        // Yielding, or held up on its way (stalled among others), raises its priority.
        let held_up = mind.slow_for > 0.0 && matches!(mind.mode, Mode::Normal) && !mind.queued;
        if held_up
            || matches!(
                mind.mode,
                Mode::Aside {
                    kind: AsideKind::Yield,
                    ..
                }
            )
        {
            mind.yielded += dt;
        }
        if let (Mode::Normal, Some((_, goal)), false) = (mind.mode, mind.goal, mind.arrived) {
            mind.arrived = reached(s, goal, b.arrive_distance);
        }
    }
}
