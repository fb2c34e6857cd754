//! Plane geometry of the optimal search, on the xz-plane in `f64`: orientation tests, where a
//! ray meets a segment, and the search's heuristic.

use glam::{DVec2, Vec3};

/// A navmesh point on the xz-plane, widened to `f64` (exactly).
pub(super) fn flat(p: Vec3) -> DVec2 {
    DVec2::new(f64::from(p.x), f64::from(p.z))
}

/// Twice the signed area of the triangle `a b c`: positive when `c` lies to the left of the
/// line from `a` to `b` (counter-clockwise, with x to the right and z up), zero when the
/// three are collinear. Exact for points that came from `f32`, to within one rounding.
pub(super) fn orient(a: DVec2, b: DVec2, c: DVec2) -> f64 {
    (b - a).perp_dot(c - a)
}

/// Where along the segment `u w` (0 at `u`, 1 at `w`) the line through `r` and `q` crosses
/// it, given the orientations `ou = orient(r, q, u)` and `ow = orient(r, q, w)` of opposite
/// signs; clamped to 0..=1 and snapped to an end within rounding.
pub(super) fn crossing(ou: f64, ow: f64) -> f64 {
    let t = ou / (ou - ow);
    if t.is_nan() || t <= 1e-12 {
        0.0
    } else if t > 1.0 - 1e-12 {
        1.0
    } else {
        t
    }
}

/// The point at `t` along `u w`, exactly `u` at 0 and `w` at 1.
pub(super) fn lerp(u: DVec2, w: DVec2, t: f64) -> DVec2 {
    if t <= 0.0 {
        u
    } else if t >= 1.0 {
        w
    } else {
        u + (w - u) * t
    }
}

/// A lower bound on the length of any path from `root` through the segment `a b` to
/// `target` (Polyanya's heuristic): the straight line, mirrored at the segment's line when
/// the target lies on the root's side, or bent at the nearer end of the segment.
pub(super) fn heuristic(root: DVec2, a: DVec2, b: DVec2, target: DVec2) -> f64 {
    let line = b - a;
    let len2 = line.length_squared();
    if len2 == 0.0 {
        return root.distance(a) + a.distance(target);
    }
    let (sr, st) = (orient(a, b, root), orient(a, b, target));
    let t = if sr * st > 0.0 {
        // Mirror the target at the line.
        target - line.perp() * (2.0 * st / len2)
    } else {
        target
    };
    let (oa, ob) = (orient(root, t, a), orient(root, t, b));
    if oa * ob <= 0.0 {
        root.distance(t)
    } else {
        (root.distance(a) + a.distance(t)).min(root.distance(b) + b.distance(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heuristic_goes_straight_through_or_bends_at_an_end() {
        let (a, b) = (DVec2::new(0.0, 0.0), DVec2::new(2.0, 0.0));
        let root = DVec2::new(1.0, -1.0);
        // Straight through the segment: (1,-1) to (1,3).
        assert_eq!(heuristic(root, a, b, DVec2::new(1.0, 3.0)), 4.0);
        // Behind the root's side: mirrored to (1,3).
        assert_eq!(heuristic(root, a, b, DVec2::new(1.0, -3.0)), 4.0);
        // Off to the side: bent at b = (2,0): sqrt(2) + 3.
        let h = heuristic(root, a, b, DVec2::new(5.0, 0.0));
        assert!((h - (2f64.sqrt() + 3.0)).abs() < 1e-12);
    }

    #[test]
    fn orientation_is_counter_clockwise_positive() {
        let o = orient(DVec2::ZERO, DVec2::X, DVec2::Y);
        assert_eq!(o, 1.0);
        assert_eq!(crossing(-1.0, 3.0), 0.25);
    }
}
