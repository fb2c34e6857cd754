//! Steering behaviours on a kinematic agent: Seek, Flee, Arrive, Leave, weighted blending, and
//! movement kept on the navmesh.
//!
//! An [`Agent`] has a position, a velocity, a maximum speed and a maximum acceleration. A
//! behaviour looks at the agent and returns a linear acceleration ([`Steering`]); the agent
//! integrates it over `dt` (semi-implicit Euler: velocity first, clamped to the maximum speed,
//! then position). Everything happens in 3D; on a navmesh, [`NavAgent`] moves the position
//! along the surface with Detour's `moveAlongSurface`, so the agent slides along walls and never
//! crosses one or steps off a ledge.
//!
//! ```
//! use glam::Vec3;
//! use navkit::agents::steering::{Agent, Arrive, Behaviour};
//!
//! let mut agent = Agent::new(Vec3::ZERO, 3.5, 8.0);
//! let arrive = Behaviour::Arrive(Arrive::new(Vec3::new(10.0, 0.0, 0.0), 0.2, 3.0));
//! for _ in 0..600 {
//!     let s = arrive.steer(&agent);
//!     agent.integrate(s, 1.0 / 60.0);
//! }
//! assert!(agent.position.distance(Vec3::new(10.0, 0.0, 0.0)) < 0.2);
//! assert!(agent.velocity.length() < 1e-3);
//! ```

use glam::Vec3;

use crate::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter};
use crate::{Error, Result};

/// A kinematic agent.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Agent {
    /// Position.
    pub position: Vec3,
    /// Velocity.
    pub velocity: Vec3,
    /// The most speed it can have.
    pub max_speed: f32,
    /// The most acceleration it can have.
    pub max_acceleration: f32,
}

/// What a behaviour asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Steering {
    /// Linear acceleration (never longer than the agent's maximum acceleration).
    pub linear: Vec3,
}

impl Steering {
    /// No steering.
    pub const NONE: Steering = Steering { linear: Vec3::ZERO };
}

fn clamp_len(v: Vec3, max: f32) -> Vec3 {
    let l = v.length();
    if l > max && l > 0.0 { v * (max / l) } else { v }
}

impl Agent {
    /// An agent at rest. Non-finite or negative limits are treated as 0 (it cannot move).
    pub fn new(position: Vec3, max_speed: f32, max_acceleration: f32) -> Agent {
        let ok = |v: f32| if v.is_finite() { v.max(0.0) } else { 0.0 };
        Agent {
            position,
            velocity: Vec3::ZERO,
            max_speed: ok(max_speed),
            max_acceleration: ok(max_acceleration),
        }
    }

    /// The velocity after applying `steering` for `dt` seconds (clamped to the maximum speed),
    /// without moving.
    pub fn next_velocity(&self, steering: Steering, dt: f32) -> Vec3 {
        if !(dt.is_finite() && dt > 0.0 && steering.linear.is_finite()) {
            return self.velocity;
        }
        let a = clamp_len(steering.linear, self.max_acceleration);
        let v = self.velocity + a * dt;
        // Braking (acceleration straight against the velocity) stops the agent; it does not
        // send it backwards within the step.
        let (vn, an) = (self.velocity.normalize_or_zero(), a.normalize_or_zero());
        if v.dot(self.velocity) < 0.0 && vn.dot(an) < -0.999 {
            return Vec3::ZERO;
        }
        clamp_len(v, self.max_speed)
    }

    /// Applies `steering` for `dt` seconds: velocity first (clamped), then position. A
    /// non-finite or non-positive `dt`, or a non-finite steering, changes nothing.
    pub fn integrate(&mut self, steering: Steering, dt: f32) {
        if !(dt.is_finite() && dt > 0.0 && steering.linear.is_finite()) {
            return;
        }
        self.velocity = self.next_velocity(steering, dt);
        self.position += self.velocity * dt;
    }
}

/// Arrive: head for a target, slowing down to stop inside `target_radius`.
///
/// Inside `target_radius` there is no steering toward the target: the agent brakes (at most its
/// maximum acceleration) to a stop. Outside `slow_radius` the desired speed is the maximum
/// speed; between the two it is scaled by `distance / slow_radius`. The desired velocity is the
/// normalised direction times that speed, and the steering is
/// `(desired - velocity) / time_to_target`, clamped to the maximum acceleration.
///
/// The desired speed is also capped at `sqrt(a (d - r/2))`, the speed from which the agent can
/// stop with half its acceleration `a` within half the target radius `r` of the point (`d` is the
/// distance; the other half of the acceleration lets it catch up with that braking curve).
/// Without this cap a fast agent with little acceleration would overshoot the target however
/// the radii are set. An agent already faster than that curve brakes with its full acceleration
/// instead of easing over `time_to_target`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Arrive {
    /// The target.
    pub target: Vec3,
    /// Inside this distance the agent has arrived and stops.
    pub target_radius: f32,
    /// Inside this distance it slows down.
    pub slow_radius: f32,
    /// How quickly it reaches the desired velocity (seconds).
    pub time_to_target: f32,
}

impl Arrive {
    /// Arrive at `target` with the given radii and a `time_to_target` of 0.1 s.
    pub fn new(target: Vec3, target_radius: f32, slow_radius: f32) -> Arrive {
        Arrive {
            target,
            target_radius,
            slow_radius,
            time_to_target: 0.1,
        }
    }

    /// True once the agent is inside the target radius.
    pub fn arrived(&self, agent: &Agent) -> bool {
        agent.position.distance(self.target) <= self.target_radius
    }
}

/// Leave: the mirror of Arrive, away from a threat.
///
/// Outside `danger_radius` there is no steering. Inside `escape_radius` the desired speed is the
/// maximum speed, away from the threat; between the two it falls off linearly with distance, to
/// `exit_speed_fraction` of the maximum speed at `danger_radius` (0.1 by default: falling off to
/// 0 there, the agent would creep toward the danger radius forever and never leave it).
/// Steering is `(desired - velocity) / time_to_target`, clamped.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Leave {
    /// What to get away from.
    pub threat: Vec3,
    /// Inside this distance: full speed away.
    pub escape_radius: f32,
    /// Outside this distance: no steering.
    pub danger_radius: f32,
    /// How quickly it reaches the desired velocity (seconds).
    pub time_to_target: f32,
    /// The desired speed at `danger_radius`, as a fraction of the maximum speed.
    pub exit_speed_fraction: f32,
}

impl Leave {
    /// Leave `threat` with the given radii, a `time_to_target` of 0.1 s and an exit speed of
    /// 0.1 of the maximum.
    pub fn new(threat: Vec3, escape_radius: f32, danger_radius: f32) -> Leave {
        Leave {
            threat,
            escape_radius,
            danger_radius,
            time_to_target: 0.1,
            exit_speed_fraction: 0.1,
        }
    }
}

/// A steering behaviour.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Behaviour {
    /// Full acceleration toward the target.
    Seek(Vec3),
    /// Full acceleration away from the target.
    Flee(Vec3),
    /// See [`Arrive`].
    Arrive(Arrive),
    /// See [`Leave`].
    Leave(Leave),
    /// A weighted sum of behaviours, clamped to the maximum acceleration.
    Blend(Vec<(f32, Behaviour)>),
}

/// `(desired - velocity) / time_to_target`, clamped.
fn match_velocity(agent: &Agent, desired: Vec3, time_to_target: f32) -> Steering {
    let t = if time_to_target.is_finite() && time_to_target > 1e-4 {
        time_to_target
    } else {
        1e-4
    };
    Steering {
        linear: clamp_len((desired - agent.velocity) / t, agent.max_acceleration),
    }
}

impl Behaviour {
    /// The steering this behaviour asks of `agent` now. Non-finite inputs give no steering.
    pub fn steer(&self, agent: &Agent) -> Steering {
        let s = self.steer_raw(agent);
        if s.linear.is_finite() {
            s
        } else {
            Steering::NONE
        }
    }

    fn steer_raw(&self, agent: &Agent) -> Steering {
        let a = agent.max_acceleration;
        match self {
            Behaviour::Seek(t) => Steering {
                linear: (*t - agent.position).normalize_or_zero() * a,
            },
            Behaviour::Flee(t) => Steering {
                linear: (agent.position - *t).normalize_or_zero() * a,
            },
            Behaviour::Arrive(ar) => {
                let to = ar.target - agent.position;
                let d = to.length();
                if d <= ar.target_radius {
                    // Arrived: brake to a stop, no steering toward the target.
                    return match_velocity(agent, Vec3::ZERO, 1e-4);
                }
                let mut speed = if d >= ar.slow_radius || ar.slow_radius <= 0.0 {
                    agent.max_speed
                } else {
                    agent.max_speed * d / ar.slow_radius
                };
                // Half the acceleration for the braking curve, the other half to catch up with it.
                let brake = (a * (d - 0.5 * ar.target_radius).max(0.0)).sqrt();
                speed = speed.min(brake);
                // Faster than the braking curve allows: brake now, with all it has, rather
                // than easing toward the desired velocity over `time_to_target`.
                let t = if agent.velocity.length() > brake {
                    1e-4
                } else {
                    ar.time_to_target
                };
                match_velocity(agent, to / d * speed, t)
            }
            Behaviour::Leave(lv) => {
                let away = agent.position - lv.threat;
                let d = away.length();
                if d >= lv.danger_radius {
                    return Steering::NONE;
                }
                let speed = if d <= lv.escape_radius || lv.danger_radius <= lv.escape_radius {
                    agent.max_speed
                } else {
                    let t = (d - lv.escape_radius) / (lv.danger_radius - lv.escape_radius);
                    let exit = lv.exit_speed_fraction.clamp(0.0, 1.0);
                    agent.max_speed * (1.0 - t * (1.0 - exit))
                };
                // At the threat itself any direction will do.
                let dir = if d > 1e-6 { away / d } else { Vec3::X };
                match_velocity(agent, dir * speed, lv.time_to_target)
            }
            Behaviour::Blend(parts) => {
                let sum = parts
                    .iter()
                    .filter(|(w, _)| w.is_finite())
                    .fold(Vec3::ZERO, |acc, (w, b)| acc + b.steer(agent).linear * *w);
                Steering {
                    linear: clamp_len(sum, a),
                }
            }
        }
    }
}

/// An [`Agent`] kept on the navmesh: each step moves it along the surface from its current
/// polygon with `moveAlongSurface` (sliding along walls, never crossing one or leaving the
/// mesh) and sets its height to the surface's.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NavAgent {
    /// The kinematic state.
    pub agent: Agent,
    /// The polygon it stands on.
    pub poly: PolyRef,
}

impl NavAgent {
    /// Puts `agent` on the navmesh: on the nearest polygon within Detour's default half extents.
    pub fn new(
        q: &mut NavMeshQuery<'_>,
        filter: &QueryFilter,
        mut agent: Agent,
    ) -> Result<NavAgent> {
        let n = q.find_nearest_poly(agent.position, DEFAULT_HALF_EXTENTS, filter)?;
        agent.position = n.point;
        Ok(NavAgent {
            agent,
            poly: n.poly,
        })
    }

    /// Applies `steering` for `dt` seconds and moves along the surface. Where a wall stops the
    /// move, the velocity keeps only what the agent actually moved (it slides, and does not
    /// push into the wall).
    pub fn step(
        &mut self,
        q: &mut NavMeshQuery<'_>,
        filter: &QueryFilter,
        steering: Steering,
        dt: f32,
    ) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "time step {dt}: must be finite and positive"
            )));
        }
        let v = self.agent.next_velocity(steering, dt);
        let wanted = self.agent.position + v * dt;
        let m = q.move_along_surface(self.poly, self.agent.position, wanted, filter, 16)?;
        let last = *m.visited.last().unwrap_or(&self.poly);
        let mut pos = m.position;
        if let Ok(h) = q.poly_height(last, pos) {
            pos.y = h;
        }
        let moved = pos - self.agent.position;
        // The velocity is the move actually made (in xz: height follows the surface), never
        // more than the maximum speed.
        self.agent.velocity =
            clamp_len(Vec3::new(moved.x, 0.0, moved.z) / dt, self.agent.max_speed);
        self.agent.position = pos;
        self.poly = last;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DT: f32 = 1.0 / 60.0;

    fn run_arrive(
        speed: f32,
        accel: f32,
        start_v: Vec3,
        ar: Arrive,
        steps: usize,
    ) -> (Agent, f32, f32) {
        let mut agent = Agent::new(Vec3::ZERO, speed, accel);
        agent.velocity = start_v;
        let dir = (ar.target - agent.position).normalize();
        let b = Behaviour::Arrive(ar);
        let (mut overshoot, mut entered_then_left) = (f32::NEG_INFINITY, 0.0f32);
        let mut inside = false;
        for _ in 0..steps {
            agent.integrate(b.steer(&agent), DT);
            overshoot = overshoot.max((agent.position - ar.target).dot(dir));
            let d = agent.position.distance(ar.target);
            if d <= ar.target_radius {
                inside = true;
            } else if inside {
                entered_then_left = entered_then_left.max(d);
            }
        }
        (agent, overshoot, entered_then_left)
    }

    #[test]
    fn arrive_stops_inside_the_target_radius_without_overshoot() {
        let target = Vec3::new(20.0, 0.0, 5.0);
        let mut cases = 0;
        for speed in [0.5f32, 1.0, 3.5, 8.0, 20.0] {
            for accel in [0.5f32, 2.0, 8.0, 50.0] {
                for (tr, sr) in [(0.1f32, 1.0f32), (0.5, 3.0), (1.0, 0.5), (0.2, 10.0)] {
                    let ar = Arrive::new(target, tr, sr);
                    let (agent, overshoot, left) =
                        run_arrive(speed, accel, Vec3::ZERO, ar, 60 * 120);
                    let d = agent.position.distance(target);
                    assert!(
                        d <= tr,
                        "speed {speed} accel {accel} radii {tr}/{sr}: ended {d} away"
                    );
                    assert!(agent.velocity.length() < 1e-3, "still moving");
                    assert!(
                        overshoot <= tr,
                        "speed {speed} accel {accel} radii {tr}/{sr}: overshot by {overshoot}"
                    );
                    assert_eq!(left, 0.0, "left the target radius after entering it");
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, 80);
    }

    #[test]
    fn leave_leaves_the_danger_radius_and_then_stops_steering() {
        for speed in [1.0f32, 3.5, 10.0] {
            for accel in [1.0f32, 8.0] {
                let threat = Vec3::new(1.0, 0.0, 1.0);
                let lv = Leave::new(threat, 2.0, 6.0);
                let b = Behaviour::Leave(lv);
                let mut agent = Agent::new(Vec3::new(1.5, 0.0, 1.0), speed, accel);
                let mut t = 0.0;
                while agent.position.distance(threat) < 6.0 && t < 60.0 {
                    agent.integrate(b.steer(&agent), DT);
                    t += DT;
                }
                assert!(
                    agent.position.distance(threat) >= 6.0,
                    "speed {speed} accel {accel}"
                );
                assert_eq!(b.steer(&agent), Steering::NONE);
            }
        }
        // At the threat itself: still a finite push.
        let a = Agent::new(Vec3::ONE, 1.0, 1.0);
        let s = Behaviour::Leave(Leave::new(Vec3::ONE, 1.0, 2.0)).steer(&a);
        assert!(s.linear.is_finite() && s.linear.length() > 0.0);
    }

    #[test]
    fn seek_flee_blend_and_bad_input() {
        let a = Agent::new(Vec3::ZERO, 2.0, 4.0);
        let t = Vec3::new(3.0, 0.0, 4.0);
        let seek = Behaviour::Seek(t).steer(&a).linear;
        assert!((seek - Vec3::new(2.4, 0.0, 3.2)).length() < 1e-5);
        let flee = Behaviour::Flee(t).steer(&a).linear;
        assert!((flee + seek).length() < 1e-5);
        // Equal weights of opposite pulls cancel; the sum is clamped to the max acceleration.
        let b = Behaviour::Blend(vec![(1.0, Behaviour::Seek(t)), (1.0, Behaviour::Flee(t))]);
        assert!(b.steer(&a).linear.length() < 1e-5);
        let b = Behaviour::Blend(vec![
            (5.0, Behaviour::Seek(t)),
            (f32::NAN, Behaviour::Flee(t)),
        ]);
        assert!((b.steer(&a).linear.length() - 4.0).abs() < 1e-4);
        // NaN targets, dt and limits: no steering, no movement, no NaN.
        let mut a2 = a;
        a2.integrate(Behaviour::Seek(Vec3::NAN).steer(&a), DT);
        a2.integrate(Behaviour::Seek(t).steer(&a), f32::NAN);
        a2.integrate(Behaviour::Seek(t).steer(&a), -1.0);
        assert_eq!(a2, a);
        let bad = Agent::new(Vec3::ZERO, f32::NAN, -3.0);
        assert_eq!((bad.max_speed, bad.max_acceleration), (0.0, 0.0));
        let mut bad2 = bad;
        bad2.integrate(Behaviour::Seek(t).steer(&bad), DT);
        assert_eq!(bad2.position, Vec3::ZERO);
        // Speed never exceeds the maximum.
        let mut fast = a;
        for _ in 0..1000 {
            fast.integrate(Behaviour::Seek(t * 100.0).steer(&fast), DT);
            assert!(fast.velocity.length() <= 2.0 + 1e-4);
        }
    }
}
