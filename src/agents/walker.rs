//! The wander-to-target walker: an agent that ambles toward a target in steps, never quite in a
//! straight line, and always gets there.
//!
//! Each step goes from the walker toward the target by `step_fraction` (a half) of the remaining
//! distance, clamped to `[min_step, max_step]` (`[1, 10]`). If that step would reach or pass the
//! target, the walker goes straight to the target. Otherwise the step's direction is turned by
//! a random angle, left or right, within a field of view that narrows linearly from `max_fov`
//! (90 degrees: 45 either side) at or beyond `aggro_radius` (30) to 0 at the target. The random
//! source is a PCG generator seeded by the caller: the same seed gives the same points.
//!
//! Why it always arrives: a step of length `s <= d/2` (or 1 when `d/2 < 1 < d`) turned by at most
//! 45 degrees leaves the walker at most `sqrt(d^2 + s^2 - 2 d s cos 45)` from the target, which
//! is less than `d` by a fixed fraction (or, for 1-unit steps, by a fixed amount); so the
//! distance falls below `min_step` after a bounded number of steps, and then the next step goes
//! straight to the target. [`WanderWalker::max_steps`] bounds the count.
//!
//! On a navmesh ([`WanderWalker::walk_on_navmesh`]) every chosen point is snapped to the navmesh
//! and reached along a navmesh path (the straight path of the corridor).
//!
//! ```
//! use glam::Vec3;
//! use navkit::agents::walker::{WanderSettings, WanderWalker};
//! let mut w = WanderWalker::new(WanderSettings::default(), 42);
//! let points = w.walk(Vec3::ZERO, Vec3::new(60.0, 0.0, 20.0), 1000).unwrap();
//! assert_eq!(*points.last().unwrap(), Vec3::new(60.0, 0.0, 20.0));
//! ```

use glam::{Vec2, Vec3};
use rand::{Rng, SeedableRng};

use crate::query::{
    DEFAULT_HALF_EXTENTS, DEFAULT_MAX_PATH, NavMeshQuery, PathOptions, QueryFilter,
    StraightPathOptions,
};
use crate::{Error, Result};

/// Each leg of a walk on the navmesh: RecastDemo's corridor and straight path, no smooth path.
const STRAIGHT_ONLY: PathOptions = PathOptions {
    half_extents: DEFAULT_HALF_EXTENTS,
    max_polys: DEFAULT_MAX_PATH,
    straight: Some(StraightPathOptions {
        area_crossings: false,
        all_crossings: false,
        max_points: DEFAULT_MAX_PATH,
    }),
    smooth: None,
    optimal: None,
};

/// The walker's parameters (the defaults are the issue's).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WanderSettings {
    /// The share of the remaining distance each step covers (0.5).
    pub step_fraction: f32,
    /// The shortest step (1).
    pub min_step: f32,
    /// The longest step (10).
    pub max_step: f32,
    /// Beyond this distance the field of view is `max_fov` (30).
    pub aggro_radius: f32,
    /// The widest field of view, in radians (90 degrees: 45 either side).
    pub max_fov: f32,
}

impl Default for WanderSettings {
    fn default() -> Self {
        WanderSettings {
            step_fraction: 0.5,
            min_step: 1.0,
            max_step: 10.0,
            aggro_radius: 30.0,
            max_fov: std::f32::consts::FRAC_PI_2,
        }
    }
}

impl WanderSettings {
    /// Checks the settings: finite, `0 < step_fraction < 1`, `0 < min_step <= max_step`,
    /// `aggro_radius > 0`, `0 <= max_fov <= 90 degrees` (wider fields could walk away from the
    /// target and would void the arrival guarantee).
    pub fn validate(&self) -> Result<()> {
        let bad = |what: &str, v: f32| {
            Err(Error::InvalidArgument(format!(
                "wander setting {what} = {v} is out of range"
            )))
        };
        if !(self.step_fraction > 0.0 && self.step_fraction < 1.0) {
            return bad("step_fraction", self.step_fraction);
        }
        if !(self.min_step > 0.0 && self.min_step.is_finite()) {
            return bad("min_step", self.min_step);
        }
        if !(self.max_step >= self.min_step && self.max_step.is_finite()) {
            return bad("max_step", self.max_step);
        }
        if !(self.aggro_radius > 0.0 && self.aggro_radius.is_finite()) {
            return bad("aggro_radius", self.aggro_radius);
        }
        if !(0.0..=std::f32::consts::FRAC_PI_2).contains(&self.max_fov) {
            return bad("max_fov", self.max_fov);
        }
        Ok(())
    }
}

/// A walker with its own seeded random source.
#[derive(Clone, Debug)]
pub struct WanderWalker {
    settings: WanderSettings,
    rng: rand_pcg::Pcg32,
}

/// A walk on the navmesh.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NavWalk {
    /// The chosen points after snapping to the navmesh, start first, the target's point last.
    pub points: Vec<Vec3>,
    /// The navmesh straight path from each point to the next.
    pub legs: Vec<Vec<Vec3>>,
}

impl NavWalk {
    /// The whole route: the legs joined.
    pub fn route(&self) -> Vec<Vec3> {
        let mut out: Vec<Vec3> = Vec::new();
        for leg in &self.legs {
            for &p in leg {
                if out.last() != Some(&p) {
                    out.push(p);
                }
            }
        }
        out
    }
}

fn xz(v: Vec3) -> Vec2 {
    Vec2::new(v.x, v.z)
}

impl WanderWalker {
    /// A walker with the given settings and seed.
    pub fn new(settings: WanderSettings, seed: u64) -> WanderWalker {
        WanderWalker {
            settings,
            rng: rand_pcg::Pcg32::seed_from_u64(seed),
        }
    }

    /// The settings.
    pub fn settings(&self) -> &WanderSettings {
        &self.settings
    }

    /// The field of view at distance `d` from the target: `max_fov` at or beyond the aggro
    /// radius, narrowing linearly to 0 at the target.
    pub fn fov(&self, d: f32) -> f32 {
        self.settings.max_fov * (d / self.settings.aggro_radius).clamp(0.0, 1.0)
    }

    /// The next point from `from` toward `target` (in the xz-plane; the height goes linearly
    /// with the step). Returns `target` itself when the step would reach or pass it.
    pub fn next_point(&mut self, from: Vec3, target: Vec3) -> Vec3 {
        let s = self.settings;
        let to = xz(target) - xz(from);
        let d = to.length();
        let step = (d * s.step_fraction).clamp(s.min_step, s.max_step);
        if step >= d {
            return target;
        }
        let half = 0.5 * self.fov(d);
        let angle = if half > 0.0 {
            self.rng.gen_range(-half..=half)
        } else {
            0.0
        };
        let dir = Vec2::from_angle(angle).rotate(to / d);
        let p = xz(from) + dir * step;
        let y = from.y + (target.y - from.y) * (step / d);
        Vec3::new(p.x, y, p.y)
    }

    /// An upper bound on the steps to the target from distance `d` with these settings.
    pub fn max_steps(&self, d: f32) -> usize {
        let s = self.settings;
        // Far away each step cuts the distance by at least max_step * (cos 45 - ...) or a
        // fixed fraction; near, 1-unit steps cut it by at least cos45 - 1/(2d) >= 0.2.
        let frac = (1.0 + s.step_fraction * s.step_fraction
            - 2.0 * s.step_fraction * std::f32::consts::FRAC_1_SQRT_2)
            .sqrt();
        let shrink = -(frac.max(1e-3)).ln();
        let by_fraction = (d.max(1.0).ln() / shrink).ceil() as usize;
        let by_min = (d / (0.2 * s.min_step)).ceil() as usize;
        by_fraction + by_min + (d / s.max_step.max(1e-3)).ceil() as usize + 2
    }

    /// Every point from `from` (excluded) to `target` (included). Errors if a point is not
    /// finite, the settings are invalid, or the walk takes more than `max_points` points.
    pub fn walk(&mut self, from: Vec3, target: Vec3, max_points: usize) -> Result<Vec<Vec3>> {
        self.settings.validate()?;
        for (argument, value) in [("from", from), ("target", target)] {
            if !value.is_finite() {
                return Err(Error::NonFinite { argument, value });
            }
        }
        let mut out = Vec::new();
        let mut p = from;
        while p != target {
            if out.len() >= max_points {
                return Err(Error::InvalidArgument(format!(
                    "the walk from {from} to {target} needs more than {max_points} points"
                )));
            }
            p = self.next_point(p, target);
            out.push(p);
        }
        Ok(out)
    }

    /// Walks on the navmesh: each chosen point is snapped to the nearest polygon (within
    /// Detour's default half extents; a point with none near is drawn again, up to 8 times,
    /// then the walker heads for the target itself) and reached along a navmesh path. Errors
    /// if the start or the target is not on the navmesh, or a leg has no path.
    pub fn walk_on_navmesh(
        &mut self,
        q: &mut NavMeshQuery<'_>,
        filter: &QueryFilter,
        from: Vec3,
        target: Vec3,
        max_points: usize,
    ) -> Result<NavWalk> {
        self.settings.validate()?;
        let start = q
            .find_nearest_poly(from, DEFAULT_HALF_EXTENTS, filter)?
            .point;
        let goal = q
            .find_nearest_poly(target, DEFAULT_HALF_EXTENTS, filter)?
            .point;
        let mut walk = NavWalk {
            points: vec![start],
            legs: Vec::new(),
        };
        let mut p = start;
        while xz(p).distance(xz(goal)) > 1e-3 {
            if walk.points.len() > max_points {
                return Err(Error::InvalidArgument(format!(
                    "the walk from {from} to {target} needs more than {max_points} points"
                )));
            }
            let mut next = goal;
            for _ in 0..8 {
                let c = self.next_point(p, goal);
                if c == goal {
                    break;
                }
                if let Ok(n) = q.find_nearest_poly(c, DEFAULT_HALF_EXTENTS, filter) {
                    next = n.point;
                    break;
                }
            }
            let leg = q.path(p, next, filter, &STRAIGHT_ONLY)?;
            let straight = leg.straight.positions();
            // Where the corridor ends (the snapped point, or the closest reachable point).
            let reached = straight.last().copied().unwrap_or(p);
            if !leg.is_complete() && next == goal {
                return Err(Error::InvalidArgument(format!(
                    "the target {target} cannot be reached from {from} on the navmesh"
                )));
            }
            walk.legs.push(straight);
            walk.points.push(reached);
            p = reached;
        }
        Ok(walk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn always_reaches_the_target_within_the_bound() {
        let mut worst_ratio: f32 = 0.0;
        for seed in 0..200u64 {
            let mut w = WanderWalker::new(WanderSettings::default(), seed);
            let target = Vec3::new(
                (seed as f32 * 37.0) % 500.0 - 250.0,
                (seed % 7) as f32,
                (seed as f32 * 91.0) % 700.0 - 350.0,
            );
            let d = xz(target).length();
            let bound = w.max_steps(d);
            let pts = w.walk(Vec3::ZERO, target, bound).unwrap();
            assert_eq!(*pts.last().unwrap(), target);
            worst_ratio = worst_ratio.max(pts.len() as f32 / bound as f32);
            // The distance to the target never grows.
            let mut last = d;
            for p in &pts {
                let dd = xz(*p).distance(xz(target));
                assert!(dd < last + 1e-3, "seed {seed}: {dd} after {last}");
                last = dd;
            }
        }
        assert!(worst_ratio <= 1.0);
    }

    #[test]
    fn same_seed_same_points_and_the_fov_narrows() {
        let t = Vec3::new(80.0, 0.0, -30.0);
        let a = WanderWalker::new(WanderSettings::default(), 9)
            .walk(Vec3::ZERO, t, 1000)
            .unwrap();
        let b = WanderWalker::new(WanderSettings::default(), 9)
            .walk(Vec3::ZERO, t, 1000)
            .unwrap();
        let c = WanderWalker::new(WanderSettings::default(), 10)
            .walk(Vec3::ZERO, t, 1000)
            .unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let w = WanderWalker::new(WanderSettings::default(), 1);
        assert_eq!(w.fov(100.0), std::f32::consts::FRAC_PI_2);
        assert_eq!(w.fov(30.0), std::f32::consts::FRAC_PI_2);
        assert!((w.fov(15.0) - std::f32::consts::FRAC_PI_4).abs() < 1e-6);
        assert_eq!(w.fov(0.0), 0.0);
        // Every step turns by at most half the field of view at its distance.
        let mut w = WanderWalker::new(WanderSettings::default(), 3);
        let mut p = Vec3::ZERO;
        while p != t {
            let q = w.next_point(p, t);
            if q != t {
                let (to, step) = (xz(t) - xz(p), xz(q) - xz(p));
                let turn = to.angle_to(step).abs();
                assert!(turn <= 0.5 * w.fov(to.length()) + 1e-4);
                let len = step.length();
                assert!((1.0 - 1e-4..=10.0 + 1e-4).contains(&len), "{len}");
            }
            p = q;
        }
    }

    #[test]
    fn bad_settings_and_points_are_errors() {
        let mut w = WanderWalker::new(WanderSettings::default(), 1);
        assert!(w.walk(Vec3::NAN, Vec3::ONE, 10).is_err());
        assert!(w.walk(Vec3::ZERO, Vec3::splat(f32::INFINITY), 10).is_err());
        assert!(
            w.walk(Vec3::ZERO, Vec3::new(1e6, 0.0, 0.0), 5).is_err(),
            "too many points"
        );
        for s in [
            WanderSettings {
                step_fraction: 1.5,
                ..Default::default()
            },
            WanderSettings {
                min_step: 0.0,
                ..Default::default()
            },
            WanderSettings {
                max_step: 0.5,
                ..Default::default()
            },
            WanderSettings {
                aggro_radius: f32::NAN,
                ..Default::default()
            },
            WanderSettings {
                max_fov: 3.0,
                ..Default::default()
            },
        ] {
            assert!(
                WanderWalker::new(s, 1)
                    .walk(Vec3::ZERO, Vec3::ONE, 10)
                    .is_err(),
                "{s:?}"
            );
        }
        assert!(w.walk(Vec3::ONE, Vec3::ONE, 0).unwrap().is_empty());
    }
}
