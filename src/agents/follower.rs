//! The turn-boundary path follower (after Sebastian Lague's A* series), with vector math.
//!
//! For each waypoint there is a *turn boundary*: a line across the path `turn_dist` before the
//! waypoint, perpendicular to the direction the path arrives from. The agent steers toward the
//! current waypoint (its *look point*), moves forward, and when it crosses the current boundary it
//! starts steering toward the next waypoint; this cuts corners smoothly. The last boundary is the
//! finish line, through the goal itself. From the *slow-down index* (the first waypoint within
//! `stopping_dist` of the goal, measured along the path) the speed is scaled by the agent's
//! distance to the finish line over `stopping_dist`, and the agent stops when that fraction falls
//! below 0.01 (or when it crosses the finish line).
//!
//! Everything happens in the xz-plane; the agent's height comes from a ground function (for
//! example the navmesh, see [`navmesh_ground`]).
//!
//! ```
//! use glam::Vec3;
//! use navkit::agents::follower::{Follower, FollowerSettings};
//! let path = [Vec3::new(10.0, 0.0, 0.0), Vec3::new(10.0, 0.0, 10.0)];
//! let mut f = Follower::new(Vec3::ZERO, &path, FollowerSettings::default());
//! let mut steps = 0;
//! while !f.finished() && steps < 10_000 {
//!     f.step(0.02, &mut |_| Some(0.0));
//!     steps += 1;
//! }
//! assert!(f.finished());
//! assert!(f.position().distance(Vec3::new(10.0, 0.0, 10.0)) < 1.0);
//! ```

use glam::{Vec2, Vec3};

/// How the follower moves.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FollowerSettings {
    /// Forward speed (units per second).
    pub speed: f32,
    /// Turn rate: each step turns the heading by the fraction `dt * turn_speed` (clamped to 1) of
    /// the angle to the look point, as Unity's `Quaternion.Slerp` does in Lague's follower.
    pub turn_speed: f32,
    /// Distance before each waypoint where the turn boundary lies.
    pub turn_dist: f32,
    /// Distance over which the agent slows down before the goal (0: no slowing).
    pub stopping_dist: f32,
}

impl Default for FollowerSettings {
    fn default() -> Self {
        FollowerSettings {
            speed: 3.5,
            turn_speed: 6.0,
            turn_dist: 1.0,
            stopping_dist: 2.0,
        }
    }
}

/// A line across the path: the points `p` with `(p - point) . dir == 0`; `dir` points the way the
/// path goes, so the agent has crossed it when `(p - point) . dir > 0`.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TurnBoundary {
    /// A point on the line.
    pub point: Vec2,
    /// The unit direction the path arrives from (the line's normal).
    pub dir: Vec2,
}

impl TurnBoundary {
    /// True if `p` is past the line.
    pub fn crossed(&self, p: Vec2) -> bool {
        (p - self.point).dot(self.dir) > 0.0
    }
    /// Distance from `p` to the line.
    pub fn distance(&self, p: Vec2) -> f32 {
        (p - self.point).dot(self.dir).abs()
    }
}

/// A path prepared for following: look points, their turn boundaries, and the slow-down index.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FollowPath {
    /// The waypoints to steer toward (consecutive duplicates removed).
    pub look_points: Vec<Vec3>,
    /// One boundary per look point; the last is the finish line.
    pub boundaries: Vec<TurnBoundary>,
    /// From this look point on, the agent slows down.
    pub slow_down_index: usize,
}

fn xz(v: Vec3) -> Vec2 {
    Vec2::new(v.x, v.z)
}

impl FollowPath {
    /// Prepares `waypoints` (the start point excluded) for an agent at `start`.
    ///
    /// Waypoints closer than 1e-4 in xz to the previous one are dropped (zero-length segments).
    /// A boundary is never placed behind the previous one: when `turn_dist` is longer than a
    /// segment, the boundary sits at the segment's start, so the agent turns at once.
    pub fn new(start: Vec3, waypoints: &[Vec3], turn_dist: f32, stopping_dist: f32) -> FollowPath {
        let mut look_points: Vec<Vec3> = Vec::with_capacity(waypoints.len());
        let mut prev = xz(start);
        for &w in waypoints {
            if xz(w).distance(prev) > 1e-4 {
                look_points.push(w);
                prev = xz(w);
            }
        }
        if look_points.is_empty() {
            if let Some(&last) = waypoints.last() {
                look_points.push(last);
            }
        }
        let n = look_points.len();
        let mut boundaries = Vec::with_capacity(n);
        let mut prev = xz(start);
        for (i, &lp) in look_points.iter().enumerate() {
            let p = xz(lp);
            let seg = p - prev;
            let len = seg.length();
            // A zero-length first segment (the goal under the agent): any direction will do.
            let dir = if len > 0.0 { seg / len } else { Vec2::X };
            let point = if i + 1 == n {
                p
            } else {
                p - dir * turn_dist.clamp(0.0, len)
            };
            boundaries.push(TurnBoundary { point, dir });
            prev = point;
        }
        // The first look point from which the rest of the path is shorter than stopping_dist.
        let mut slow_down_index = n;
        let mut dist = 0.0;
        for i in (0..n).rev() {
            if i + 1 < n {
                dist += xz(look_points[i]).distance(xz(look_points[i + 1]));
            }
            if dist > stopping_dist {
                break;
            }
            slow_down_index = i;
        }
        FollowPath {
            look_points,
            boundaries,
            slow_down_index,
        }
    }

    /// Index of the finish line.
    pub fn finish_index(&self) -> usize {
        self.look_points.len().saturating_sub(1)
    }
}

/// An agent following a [`FollowPath`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Follower {
    settings: FollowerSettings,
    path: FollowPath,
    position: Vec3,
    heading: Vec2,
    index: usize,
    speed_fraction: f32,
    finished: bool,
    travelled: f32,
    time: f32,
}

impl Follower {
    /// An agent at `start`, facing its first waypoint, about to follow `waypoints`.
    pub fn new(start: Vec3, waypoints: &[Vec3], settings: FollowerSettings) -> Follower {
        let path = FollowPath::new(start, waypoints, settings.turn_dist, settings.stopping_dist);
        let heading = path
            .look_points
            .first()
            .map(|&p| (xz(p) - xz(start)).normalize_or_zero())
            .filter(|h| *h != Vec2::ZERO)
            .unwrap_or(Vec2::X);
        let finished = path.look_points.is_empty();
        Follower {
            settings,
            path,
            position: start,
            heading,
            index: 0,
            speed_fraction: 1.0,
            finished,
            travelled: 0.0,
            time: 0.0,
        }
    }

    /// Follows a new path from where the agent is now (re-pathing), keeping its heading.
    pub fn set_path(&mut self, waypoints: &[Vec3]) {
        self.path = FollowPath::new(
            self.position,
            waypoints,
            self.settings.turn_dist,
            self.settings.stopping_dist,
        );
        self.index = 0;
        self.speed_fraction = 1.0;
        self.finished = self.path.look_points.is_empty();
    }

    /// Advances by `dt` seconds. `ground` gives the surface height under a point (`None` keeps
    /// the current height). Returns true while the agent is still following.
    pub fn step(&mut self, dt: f32, ground: &mut dyn FnMut(Vec3) -> Option<f32>) -> bool {
        if self.finished || !dt.is_finite() || dt <= 0.0 {
            return !self.finished;
        }
        let pos = xz(self.position);
        let finish = self.path.finish_index();
        // Advance over every boundary already crossed (several when segments are short).
        while self.path.boundaries[self.index].crossed(pos) {
            if self.index == finish {
                self.finished = true;
                return false;
            }
            self.index += 1;
        }
        if self.index >= self.path.slow_down_index && self.settings.stopping_dist > 0.0 {
            let d = self.path.boundaries[finish].distance(pos);
            self.speed_fraction = (d / self.settings.stopping_dist).clamp(0.0, 1.0);
            if self.speed_fraction < 0.01 {
                self.finished = true;
                return false;
            }
        }
        // Turn toward the look point.
        let to_target = xz(self.path.look_points[self.index]) - pos;
        if to_target.length_squared() > 1e-12 {
            let target_angle = to_target.y.atan2(to_target.x);
            let angle = self.heading.y.atan2(self.heading.x);
            let mut diff = target_angle - angle;
            diff = (diff + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU)
                - std::f32::consts::PI;
            let t = (dt * self.settings.turn_speed).clamp(0.0, 1.0);
            let a = angle + diff * t;
            self.heading = Vec2::new(a.cos(), a.sin());
        }
        // Move forward.
        let step = self.heading * (self.settings.speed * self.speed_fraction * dt);
        let mut next = self.position + Vec3::new(step.x, 0.0, step.y);
        if let Some(h) = ground(next) {
            next.y = h;
        }
        self.travelled += step.length();
        self.time += dt;
        self.position = next;
        true
    }

    /// Current position.
    pub fn position(&self) -> Vec3 {
        self.position
    }
    /// Current heading in the xz-plane (unit length).
    pub fn heading(&self) -> Vec2 {
        self.heading
    }
    /// True once the agent has crossed the finish line or slowed to a stop.
    pub fn finished(&self) -> bool {
        self.finished
    }
    /// The look point being steered toward.
    pub fn index(&self) -> usize {
        self.index
    }
    /// Current speed as a fraction of `speed`.
    pub fn speed_fraction(&self) -> f32 {
        self.speed_fraction
    }
    /// Distance travelled in the xz-plane.
    pub fn travelled(&self) -> f32 {
        self.travelled
    }
    /// Time spent moving.
    pub fn time(&self) -> f32 {
        self.time
    }
    /// The prepared path.
    pub fn path(&self) -> &FollowPath {
        &self.path
    }
}

/// When to ask for a new path to a moving target: when it has moved more than `threshold` since
/// the last request (squared distances are compared) and at most every `min_interval` seconds.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RepathPolicy {
    /// Distance the target must move before a new path is worth asking for.
    pub threshold: f32,
    /// The least time between two requests.
    pub min_interval: f32,
    last_target: Option<Vec3>,
    last_time: f32,
}

impl RepathPolicy {
    /// A policy with the given threshold and interval.
    pub fn new(threshold: f32, min_interval: f32) -> Self {
        RepathPolicy {
            threshold,
            min_interval,
            last_target: None,
            last_time: f32::NEG_INFINITY,
        }
    }

    /// True if a new path should be requested now (time `now`, target at `target`); records the
    /// request when it says so.
    pub fn should_repath(&mut self, now: f32, target: Vec3) -> bool {
        let due = match self.last_target {
            None => true,
            Some(last) => {
                now - self.last_time >= self.min_interval
                    && last.distance_squared(target) > self.threshold * self.threshold
            }
        };
        if due {
            self.last_target = Some(target);
            self.last_time = now;
        }
        due
    }
}

/// A ground function for [`Follower::step`] that puts the agent on the navmesh's detail surface:
/// the nearest polygon within (2, 4, 2) and its height there.
pub fn navmesh_ground<'q, 'a>(
    q: &'q mut crate::query::NavMeshQuery<'a>,
    filter: &'q crate::query::QueryFilter,
) -> impl FnMut(Vec3) -> Option<f32> + use<'q, 'a> {
    move |p| {
        let n = q
            .find_nearest_poly(p, crate::query::DEFAULT_HALF_EXTENTS, filter)
            .ok()?;
        Some(n.point.y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(start: Vec3, path: &[Vec3], s: FollowerSettings) -> Follower {
        let mut f = Follower::new(start, path, s);
        for _ in 0..100_000 {
            if !f.step(0.02, &mut |_| Some(0.0)) {
                break;
            }
        }
        f
    }

    #[test]
    fn reaches_the_goal_on_a_corner() {
        let goal = Vec3::new(10.0, 0.0, 10.0);
        let f = run(
            Vec3::ZERO,
            &[Vec3::new(10.0, 0.0, 0.0), goal],
            FollowerSettings::default(),
        );
        assert!(f.finished());
        assert!(f.position().distance(goal) < 0.5, "{}", f.position());
        // It cut the corner: shorter than the 20-unit polyline, longer than the straight line.
        assert!(
            f.travelled() < 20.0 && f.travelled() > 14.0,
            "{}",
            f.travelled()
        );
    }

    #[test]
    fn collinear_duplicate_and_single_waypoints() {
        let s = FollowerSettings::default();
        let pts = [
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(2.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 0.0),
        ];
        let f = run(Vec3::ZERO, &pts, s);
        assert_eq!(f.path().look_points.len(), 3);
        assert!(f.finished() && f.position().distance(pts[3]) < 0.3);
        let f = run(Vec3::ZERO, &[Vec3::new(0.0, 0.0, 5.0)], s);
        assert!(f.finished() && f.position().distance(Vec3::new(0.0, 0.0, 5.0)) < 0.3);
        // Goal under the agent, and an empty path: finished at once, no NaN.
        let f = run(Vec3::ZERO, &[Vec3::ZERO], s);
        assert!(f.finished() && f.position().is_finite());
        assert!(Follower::new(Vec3::ZERO, &[], s).finished());
    }

    #[test]
    fn turn_dist_longer_than_segments() {
        let s = FollowerSettings {
            turn_dist: 50.0,
            ..Default::default()
        };
        let zig: Vec<Vec3> = (1..20)
            .map(|i| Vec3::new(i as f32, 0.0, if i % 2 == 0 { 0.0 } else { 1.0 }))
            .collect();
        let f = run(Vec3::ZERO, &zig, s);
        assert!(f.finished());
        assert!(f.position().distance(*zig.last().unwrap()) < 1.0);
    }

    #[test]
    fn slows_down_and_stops_near_the_goal() {
        let s = FollowerSettings {
            stopping_dist: 3.0,
            ..Default::default()
        };
        let goal = Vec3::new(20.0, 0.0, 0.0);
        let mut f = Follower::new(Vec3::ZERO, &[goal], s);
        let mut min_frac: f32 = 1.0;
        while f.step(0.02, &mut |_| Some(0.0)) {
            min_frac = min_frac.min(f.speed_fraction());
        }
        assert!(min_frac < 0.05);
        assert!(f.position().x <= goal.x + 1e-3 && f.position().x > goal.x - 0.05);
    }

    #[test]
    fn repath_policy() {
        let mut p = RepathPolicy::new(1.0, 0.5);
        assert!(p.should_repath(0.0, Vec3::ZERO));
        assert!(!p.should_repath(0.1, Vec3::new(5.0, 0.0, 0.0)), "too soon");
        assert!(!p.should_repath(1.0, Vec3::new(0.5, 0.0, 0.0)), "too close");
        assert!(p.should_repath(1.0, Vec3::new(5.0, 0.0, 0.0)));
    }
}
