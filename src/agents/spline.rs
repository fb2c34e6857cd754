//! Centripetal Catmull-Rom splines through waypoint lists (wander points, navmesh straight paths,
//! grid paths), sampled by arc length and projected onto the navmesh: a third way to smooth a
//! path, beside the turn-boundary [`follower`](crate::agents::follower) and Detour's
//! [`smooth`](crate::query::NavMeshQuery::smooth_path) path.
//!
//! * The curve is the *centripetal* Catmull-Rom spline (alpha = 0.5: knot intervals are the square
//!   roots of the distances between control points), evaluated with the Barry–Goldman pyramidal
//!   formulation in 3D. Centripetal parameterisation has no cusps or self-intersections within a
//!   segment and keeps closer to the control polygon than the uniform one.
//! * It passes through every control point, in order.
//! * [`Spline::sample_by_arc_length`] gives evenly spaced points along it, and
//!   [`project_onto_navmesh`] walks them over the navmesh surface so that the result never crosses
//!   a wall.
//!
//! ```no_run
//! use glam::Vec3;
//! use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
//! use navkit::agents::spline::{project_onto_navmesh, Spline};
//! # fn f(q: &mut NavMeshQuery<'_>) -> navkit::Result<()> {
//! let filter = QueryFilter::default();
//! let fp = q.path(Vec3::new(2.0, 0.0, 2.0), Vec3::new(33.0, 2.5, 6.0),
//!                 &filter, &PathOptions::default())?;
//! let spline = Spline::new(&fp.straight.positions())?;
//! let samples = spline.sample_by_arc_length(0.25)?;
//! let on_mesh = project_onto_navmesh(q, &filter, &samples)?;
//! # Ok(()) }
//! ```

use glam::{DVec3, Vec3};

use crate::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, QueryFilter};
use crate::{Error, Result};

/// Consecutive control points closer than this are merged (they would give zero knot intervals).
pub const DUPLICATE_EPSILON: f32 = 1e-6;

/// The most samples [`Spline::sample_by_arc_length`] returns; more is an error rather than an
/// unbounded allocation.
pub const MAX_SAMPLES: usize = 1_000_000;

/// Sub-intervals per segment of the arc-length table (each integrated with 4-point
/// Gauss–Legendre).
const SUBDIVISIONS: usize = 32;

/// 4-point Gauss–Legendre nodes on [-1, 1] and their weights.
const GAUSS: [(f64, f64); 4] = [
    (-0.861_136_311_594_052_6, 0.347_854_845_137_453_9),
    (-0.339_981_043_584_856_3, 0.652_145_154_862_546_1),
    (0.339_981_043_584_856_3, 0.652_145_154_862_546_1),
    (0.861_136_311_594_052_6, 0.347_854_845_137_453_9),
];

/// Visited-polygon buffer of one `move_along_surface` step.
const MAX_VISITED: usize = 16;

/// A centripetal Catmull-Rom spline through a list of points.
///
/// Consecutive duplicates (closer than [`DUPLICATE_EPSILON`]) are dropped first. With no point
/// the spline is empty; with one it is that point; with two it is the straight segment between
/// them. Otherwise segment `i` goes from control point `i` to control point `i + 1`, shaped by
/// points `i - 1` and `i + 2`; at the ends, where those do not exist, *phantom* points are made
/// by reflecting the neighbour through the end point (`p0 - (p1 - p0)` before the first point,
/// `pn - (pn-1 - pn)` after the last one), so that the curve leaves and reaches its ends heading
/// along the first and last chords.
///
/// The length is integrated numerically once, in [`Spline::new`]: each segment is cut into 32
/// equal parameter intervals, each integrated with 4-point Gauss–Legendre quadrature of the
/// speed (exact derivative of the pyramidal formula), in `f64`. The same table drives
/// [`Spline::sample_by_arc_length`].
///
/// ```
/// use glam::Vec3;
/// use navkit::agents::spline::Spline;
///
/// let pts = [Vec3::ZERO, Vec3::new(4.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 4.0)];
/// let s = Spline::new(&pts)?;
/// assert_eq!(s.segment_count(), 2);
/// // Through every control point ...
/// assert!(s.point(1, 0.0).distance(pts[1]) < 1e-5);
/// // ... longer than the polyline (8), shorter than the detour around it.
/// assert!(s.length() > 8.0 && s.length() < 9.0);
/// // Evenly spaced samples, from the first point to the last one.
/// let samples = s.sample_by_arc_length(0.5)?;
/// assert_eq!(samples[0], pts[0]);
/// assert_eq!(*samples.last().unwrap(), pts[2]);
/// # Ok::<(), navkit::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Spline {
    /// The control points, consecutive duplicates dropped.
    points: Vec<Vec3>,
    /// Arc length from the start at each of the `SUBDIVISIONS * segment_count() + 1` table
    /// parameters (segment `i`, `u = j / SUBDIVISIONS`).
    table: Vec<f64>,
}

/// The four control points and knots of one segment.
struct Segment {
    p: [DVec3; 4],
    t: [f64; 4],
}

impl Segment {
    /// The knot parameter of `u` in [0, 1].
    fn knot(&self, u: f64) -> f64 {
        self.t[1] + u * (self.t[2] - self.t[1])
    }

    /// The position at knot parameter `t` (Barry–Goldman).
    fn eval(&self, t: f64) -> DVec3 {
        let [p0, p1, p2, p3] = self.p;
        let [t0, t1, t2, t3] = self.t;
        let lerp = |a: DVec3, b: DVec3, ta: f64, tb: f64| {
            a * ((tb - t) / (tb - ta)) + b * ((t - ta) / (tb - ta))
        };
        let a1 = lerp(p0, p1, t0, t1);
        let a2 = lerp(p1, p2, t1, t2);
        let a3 = lerp(p2, p3, t2, t3);
        let b1 = lerp(a1, a2, t0, t2);
        let b2 = lerp(a2, a3, t1, t3);
        lerp(b1, b2, t1, t2)
    }

    /// The derivative with respect to `u` (not `t`) at knot parameter `t`.
    fn derivative(&self, t: f64) -> DVec3 {
        let [p0, p1, p2, p3] = self.p;
        let [t0, t1, t2, t3] = self.t;
        // Each level is lerp(a, b) = (tb - t)/(tb - ta) a + (t - ta)/(tb - ta) b, whose
        // derivative is (b - a)/(tb - ta) + (tb - t)/(tb - ta) a' + (t - ta)/(tb - ta) b'.
        let lerp = |a: DVec3, b: DVec3, ta: f64, tb: f64| {
            a * ((tb - t) / (tb - ta)) + b * ((t - ta) / (tb - ta))
        };
        let dlerp = |a: DVec3, b: DVec3, da: DVec3, db: DVec3, ta: f64, tb: f64| {
            (b - a) / (tb - ta) + da * ((tb - t) / (tb - ta)) + db * ((t - ta) / (tb - ta))
        };
        let a1 = lerp(p0, p1, t0, t1);
        let a2 = lerp(p1, p2, t1, t2);
        let a3 = lerp(p2, p3, t2, t3);
        let da1 = (p1 - p0) / (t1 - t0);
        let da2 = (p2 - p1) / (t2 - t1);
        let da3 = (p3 - p2) / (t3 - t2);
        let b1 = lerp(a1, a2, t0, t2);
        let b2 = lerp(a2, a3, t1, t3);
        let db1 = dlerp(a1, a2, da1, da2, t0, t2);
        let db2 = dlerp(a2, a3, da2, da3, t1, t3);
        dlerp(b1, b2, db1, db2, t1, t2) * (t2 - t1)
    }

    /// The speed |dC/du| at `u`.
    fn speed(&self, u: f64) -> f64 {
        self.derivative(self.knot(u)).length()
    }

    /// Arc length between parameters `a` and `b` (4-point Gauss–Legendre).
    fn arc(&self, a: f64, b: f64) -> f64 {
        let (mid, half) = ((a + b) * 0.5, (b - a) * 0.5);
        GAUSS
            .iter()
            .map(|&(x, w)| w * self.speed(mid + half * x))
            .sum::<f64>()
            * half
    }
}

impl Spline {
    /// The spline through `points`, consecutive duplicates (closer than [`DUPLICATE_EPSILON`])
    /// dropped. A non-finite coordinate is [`Error::InvalidArgument`].
    pub fn new(points: &[Vec3]) -> Result<Spline> {
        let mut kept: Vec<Vec3> = Vec::with_capacity(points.len());
        for (i, &p) in points.iter().enumerate() {
            if !p.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "spline control point {i} ({p}) is not finite"
                )));
            }
            if kept
                .last()
                .is_none_or(|q| q.as_dvec3().distance(p.as_dvec3()) >= DUPLICATE_EPSILON as f64)
            {
                kept.push(p);
            }
        }
        let mut s = Spline {
            points: kept,
            table: vec![0.0],
        };
        let mut total = 0.0;
        for i in 0..s.segment_count() {
            let seg = s.segment(i);
            for j in 0..SUBDIVISIONS {
                let a = j as f64 / SUBDIVISIONS as f64;
                let b = (j + 1) as f64 / SUBDIVISIONS as f64;
                total += seg.arc(a, b);
                s.table.push(total);
            }
        }
        Ok(s)
    }

    /// The control points the curve passes through (consecutive duplicates dropped).
    pub fn control_points(&self) -> &[Vec3] {
        &self.points
    }

    /// True if there is no control point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// Number of segments: one less than the number of control points (0 for 0 or 1 point).
    pub fn segment_count(&self) -> usize {
        self.points.len().saturating_sub(1)
    }

    /// The control points and knots of segment `i` (phantom points at the ends).
    fn segment(&self, i: usize) -> Segment {
        let p = &self.points;
        let n = p.len();
        let d = |v: Vec3| v.as_dvec3();
        let p1 = d(p[i]);
        let p2 = d(p[i + 1]);
        let p0 = if i == 0 { p1 - (p2 - p1) } else { d(p[i - 1]) };
        let p3 = if i + 2 >= n {
            p2 - (p1 - p2)
        } else {
            d(p[i + 2])
        };
        // Centripetal: knot intervals are |Pi+1 - Pi|^0.5.
        let t1 = p0.distance(p1).sqrt();
        let t2 = t1 + p1.distance(p2).sqrt();
        let t3 = t2 + p2.distance(p3).sqrt();
        Segment {
            p: [p0, p1, p2, p3],
            t: [0.0, t1, t2, t3],
        }
    }

    /// The point at parameter `t` of segment `segment`: `t = 0` is control point `segment`,
    /// `t = 1` control point `segment + 1` (exactly). `t` is clamped to [0, 1] (NaN stays NaN).
    /// For a one-point spline, segment 0 is that point for every `t`.
    ///
    /// # Panics
    ///
    /// If the spline is empty, or `segment >= max(segment_count(), 1)`.
    pub fn point(&self, segment: usize, t: f32) -> Vec3 {
        assert!(!self.points.is_empty(), "Spline::point on an empty spline");
        let n = self.segment_count().max(1);
        assert!(
            segment < n,
            "Spline::point: segment {segment} out of range (the spline has {n})"
        );
        if self.points.len() == 1 {
            return self.points[0];
        }
        let t = t.clamp(0.0, 1.0);
        if t == 0.0 {
            return self.points[segment];
        }
        if t == 1.0 {
            return self.points[segment + 1];
        }
        let seg = self.segment(segment);
        seg.eval(seg.knot(t as f64)).as_vec3()
    }

    /// The arc length of the whole curve (integrated in [`Spline::new`]: 32 sub-intervals per
    /// segment, 4-point Gauss–Legendre on each). 0 for fewer than two points.
    pub fn length(&self) -> f32 {
        self.total() as f32
    }

    fn total(&self) -> f64 {
        *self.table.last().unwrap_or(&0.0)
    }

    /// The point at arc length `s` from the start (`0 <= s <= total`), for a spline with at least
    /// one segment.
    fn at_arc_length(&self, s: f64) -> DVec3 {
        // The last table entry not beyond s, but never the very last one (it starts nothing).
        let last = self.table.len() - 2;
        let j = (self.table.partition_point(|&x| x <= s).max(1) - 1).min(last);
        let (seg_i, sub) = (j / SUBDIVISIONS, j % SUBDIVISIONS);
        let seg = self.segment(seg_i);
        let (lo0, hi0) = (
            sub as f64 / SUBDIVISIONS as f64,
            (sub + 1) as f64 / SUBDIVISIONS as f64,
        );
        let target = (s - self.table[j]).max(0.0);
        let span = self.table[j + 1] - self.table[j];
        if span <= 0.0 {
            return seg.eval(seg.knot(lo0));
        }
        // Safeguarded Newton on F(u) = arc(lo0, u) - target, bracketed in [lo, hi].
        let (mut lo, mut hi) = (lo0, hi0);
        let mut u = lo0 + (target / span).clamp(0.0, 1.0) * (hi0 - lo0);
        for _ in 0..30 {
            let f = seg.arc(lo0, u) - target;
            if f.abs() <= 1e-12 * (1.0 + self.total()) {
                break;
            }
            if f > 0.0 {
                hi = u;
            } else {
                lo = u;
            }
            let d = seg.speed(u);
            let newton = u - f / d;
            u = if d > 0.0 && newton > lo && newton < hi {
                newton
            } else {
                0.5 * (lo + hi)
            };
            if hi - lo <= 1e-15 {
                break;
            }
        }
        seg.eval(seg.knot(u))
    }

    /// Points evenly spaced along the curve, `spacing` apart in arc length: the first control
    /// point, then one every `spacing`, then the last control point (the last gap is what is left,
    /// between a thousandth of `spacing` and `spacing`). An empty spline gives no point, a
    /// one-point spline that point.
    ///
    /// A non-positive or non-finite `spacing` is [`Error::InvalidArgument`], and so is a curve
    /// that would need more than [`MAX_SAMPLES`] samples.
    pub fn sample_by_arc_length(&self, spacing: f32) -> Result<Vec<Vec3>> {
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "spline sample spacing {spacing} must be finite and positive"
            )));
        }
        match self.points.len() {
            0 => return Ok(Vec::new()),
            1 => return Ok(vec![self.points[0]]),
            _ => {}
        }
        let total = self.total();
        let spacing = spacing as f64;
        let count = (total / spacing).floor() + 2.0;
        if !count.is_finite() || count > MAX_SAMPLES as f64 {
            return Err(Error::InvalidArgument(format!(
                "spline of length {total} sampled every {spacing} needs more than {MAX_SAMPLES} samples"
            )));
        }
        let mut out = Vec::with_capacity(count as usize);
        out.push(self.points[0]);
        let mut k = 1usize;
        loop {
            let s = k as f64 * spacing;
            if s >= total - 1e-3 * spacing {
                break;
            }
            out.push(self.at_arc_length(s).as_vec3());
            k += 1;
        }
        out.push(*self.points.last().unwrap());
        Ok(out)
    }
}

/// Moves each of `points` (typically [`Spline::sample_by_arc_length`]'s samples) onto the navmesh
/// surface.
///
/// The first point goes to the nearest polygon within [`DEFAULT_HALF_EXTENTS`]; every next one is
/// reached by *walking* from the previous projected point with
/// [`NavMeshQuery::move_along_surface`], and put at the height of the detail surface of the
/// polygon the walk ended in. Walking rather than snapping each point to its nearest polygon
/// means the projected curve is connected over the surface and never crosses a wall: where the
/// spline bulges past a corner, its samples slide along the wall instead of jumping into a
/// neighbouring room or onto the floor above or below. The walk does not take off-mesh
/// connections: spline the pieces of a straight path between them (corners flagged
/// [`OFFMESH_CONNECTION`](crate::query::straight_flags::OFFMESH_CONNECTION)) separately. If a
/// walk step fails, that point is snapped to its nearest polygon instead.
///
/// A point that is not finite, or with no polygon near enough (first point, or a failed walk), is
/// [`Error::InvalidArgument`] naming the sample index.
pub fn project_onto_navmesh(
    q: &mut NavMeshQuery<'_>,
    filter: &QueryFilter,
    points: &[Vec3],
) -> Result<Vec<Vec3>> {
    let mut out = Vec::with_capacity(points.len());
    let mut cur = None;
    for (i, &p) in points.iter().enumerate() {
        if !p.is_finite() {
            return Err(Error::InvalidArgument(format!(
                "spline sample {i} ({p}) is not finite"
            )));
        }
        let walked = match cur {
            Some((poly, pos)) => q
                .move_along_surface(poly, pos, p, filter, MAX_VISITED)
                .ok()
                .map(|m| (*m.visited.last().unwrap_or(&poly), m.position)),
            None => None,
        };
        let (poly, pos) = match walked {
            Some((poly, pos)) => {
                // Detour leaves the height alone: put the point on the detail surface.
                let (on, _) = q
                    .closest_point_on_poly(poly, pos)
                    .map_err(|e| at(i, p, e))?;
                (poly, on)
            }
            None => {
                let n = q
                    .find_nearest_poly(p, DEFAULT_HALF_EXTENTS, filter)
                    .map_err(|e| at(i, p, e))?;
                (n.poly, n.point)
            }
        };
        out.push(pos);
        cur = Some((poly, pos));
    }
    Ok(out)
}

/// An error of sample `i` at `p`.
fn at(i: usize, p: Vec3, e: Error) -> Error {
    Error::InvalidArgument(format!("spline sample {i} ({p}): {e}"))
}

/// The whole pipeline: the spline through `waypoints`, sampled every `spacing`, projected onto
/// the navmesh ([`Spline::new`], [`Spline::sample_by_arc_length`], [`project_onto_navmesh`]).
pub fn spline_path(
    q: &mut NavMeshQuery<'_>,
    filter: &QueryFilter,
    waypoints: &[Vec3],
    spacing: f32,
) -> Result<Vec<Vec3>> {
    let samples = Spline::new(waypoints)?.sample_by_arc_length(spacing)?;
    project_onto_navmesh(q, filter, &samples)
}

/// [`spline_path`] for a Detour straight path, which may cross off-mesh connections: the path
/// is split at each connection (the corner flagged
/// [`crate::query::straight_flags::OFFMESH_CONNECTION`] and the next one), each piece on the
/// surface is splined and projected on its own, and the jumps stay straight segments, so a
/// spline never tries to walk over a gap or up a wall.
pub fn spline_straight_path(
    q: &mut NavMeshQuery<'_>,
    filter: &QueryFilter,
    path: &crate::query::StraightPath,
    spacing: f32,
) -> Result<Vec<Vec3>> {
    use crate::query::straight_flags::OFFMESH_CONNECTION;
    let mut out: Vec<Vec3> = Vec::new();
    let mut piece: Vec<Vec3> = Vec::new();
    let flush = |piece: &mut Vec<Vec3>, out: &mut Vec<Vec3>, q: &mut NavMeshQuery<'_>| {
        if !piece.is_empty() {
            let pts = spline_path(q, filter, piece, spacing)?;
            out.extend(pts.into_iter().skip(usize::from(out.last().is_some())));
            piece.clear();
        }
        Ok::<(), Error>(())
    };
    for p in &path.points {
        piece.push(p.pos);
        if p.flags & OFFMESH_CONNECTION != 0 {
            // The piece ends at the connection's start; the jump is a straight segment.
            flush(&mut piece, &mut out, q)?;
            if out.is_empty() {
                out.push(p.pos);
            }
        }
    }
    flush(&mut piece, &mut out, q)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_pcg::Pcg64;

    fn random_points(rng: &mut Pcg64, n: usize, extent: f32) -> Vec<Vec3> {
        (0..n)
            .map(|_| {
                Vec3::new(
                    rng.gen_range(-extent..extent),
                    rng.gen_range(-extent..extent),
                    rng.gen_range(-extent..extent),
                )
            })
            .collect()
    }

    /// A dense polyline of the curve, 2000 chords per segment.
    fn dense(s: &Spline) -> Vec<Vec3> {
        let mut v = vec![s.control_points()[0]];
        for i in 0..s.segment_count() {
            for j in 1..=2000 {
                v.push(s.point(i, j as f32 / 2000.0));
            }
        }
        v
    }

    fn polyline_length(v: &[Vec3]) -> f32 {
        v.windows(2).map(|w| w[0].distance(w[1])).sum()
    }

    #[test]
    fn passes_through_control_points() {
        let mut rng = Pcg64::seed_from_u64(7);
        for n in 2..40 {
            let pts = random_points(&mut rng, n, 50.0);
            let s = Spline::new(&pts).unwrap();
            assert_eq!(s.segment_count(), n - 1);
            for i in 0..n - 1 {
                assert_eq!(s.point(i, 0.0), pts[i]);
                assert_eq!(s.point(i, 1.0), pts[i + 1]);
                // And by the formula itself, just off the ends.
                let seg = s.segment(i);
                let a = seg.eval(seg.t[1]).as_vec3();
                let b = seg.eval(seg.t[2]).as_vec3();
                assert!(a.distance(pts[i]) < 1e-4, "{a} {}", pts[i]);
                assert!(b.distance(pts[i + 1]) < 1e-4, "{b} {}", pts[i + 1]);
                assert!(s.point(i, 1e-7).distance(pts[i]) < 1e-3);
                assert!(s.point(i, 1.0 - 1e-7).distance(pts[i + 1]) < 1e-3);
            }
            // Continuous across segments.
            for i in 1..n - 1 {
                assert!(s.point(i - 1, 0.9999).distance(s.point(i, 0.0001)) < 0.05);
            }
        }
    }

    #[test]
    fn two_points_give_the_segment() {
        let (a, b) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(-4.0, 0.5, 7.0));
        let s = Spline::new(&[a, b]).unwrap();
        assert!((s.length() - a.distance(b)).abs() < 1e-5);
        for j in 0..=20 {
            let t = j as f32 / 20.0;
            assert!(s.point(0, t).distance(a.lerp(b, t)) < 1e-5);
        }
        let samples = s.sample_by_arc_length(0.5).unwrap();
        for w in samples.windows(2) {
            assert!(w[0].distance(w[1]) <= 0.5 + 1e-4);
        }
        for p in &samples {
            // On the segment.
            let t = (*p - a).dot(b - a) / (b - a).length_squared();
            assert!(p.distance(a.lerp(b, t)) < 1e-5);
        }
    }

    #[test]
    fn empty_single_and_duplicates() {
        let s = Spline::new(&[]).unwrap();
        assert!(s.is_empty() && s.length() == 0.0);
        assert!(s.sample_by_arc_length(1.0).unwrap().is_empty());

        let p = Vec3::new(1.0, 2.0, 3.0);
        let s = Spline::new(&[p, p, p + Vec3::splat(1e-8)]).unwrap();
        assert_eq!(s.control_points(), &[p]);
        assert_eq!(s.segment_count(), 0);
        assert_eq!(s.point(0, 0.5), p);
        assert_eq!(s.sample_by_arc_length(1.0).unwrap(), vec![p]);

        let pts = [
            Vec3::ZERO,
            Vec3::ZERO,
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 0.0),
            Vec3::new(3.0, 0.0, 4.0),
            Vec3::new(3.0, 0.0, 4.0),
        ];
        let s = Spline::new(&pts).unwrap();
        assert_eq!(s.control_points().len(), 3);
        assert!(s.length().is_finite() && s.length() > 7.0);
        let samples = s.sample_by_arc_length(0.1).unwrap();
        assert!(samples.iter().all(|p| p.is_finite()));
        assert_eq!(samples[0], pts[0]);
        assert_eq!(*samples.last().unwrap(), pts[6]);
        // A path going back over itself is fine too (non-consecutive duplicates are kept).
        let s = Spline::new(&[Vec3::ZERO, Vec3::X, Vec3::ZERO]).unwrap();
        assert_eq!(s.segment_count(), 2);
        assert!(
            s.sample_by_arc_length(0.1)
                .unwrap()
                .iter()
                .all(|p| p.is_finite())
        );
    }

    #[test]
    fn invalid_arguments() {
        let bad = [Vec3::ZERO, Vec3::new(f32::NAN, 0.0, 0.0)];
        let e = Spline::new(&bad).unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument(ref m) if m.contains("point 1")),
            "{e}"
        );
        assert!(Spline::new(&[Vec3::splat(f32::INFINITY)]).is_err());
        let s = Spline::new(&[Vec3::ZERO, Vec3::X]).unwrap();
        for spacing in [0.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            assert!(
                matches!(
                    s.sample_by_arc_length(spacing),
                    Err(Error::InvalidArgument(_))
                ),
                "{spacing}"
            );
        }
        // Too many samples: an error, not an allocation.
        let s = Spline::new(&[Vec3::ZERO, Vec3::new(1e6, 0.0, 0.0)]).unwrap();
        assert!(matches!(
            s.sample_by_arc_length(1e-3),
            Err(Error::InvalidArgument(_))
        ));
        assert!(s.sample_by_arc_length(10.0).is_ok());
        let s = Spline::new(&[Vec3::splat(-3e38), Vec3::splat(3e38)]).unwrap();
        assert!(s.sample_by_arc_length(1.0).is_err());
    }

    #[test]
    fn length_matches_a_dense_polyline() {
        let mut rng = Pcg64::seed_from_u64(11);
        for n in [3, 5, 10, 30] {
            let pts = random_points(&mut rng, n, 20.0);
            let s = Spline::new(&pts).unwrap();
            let d = polyline_length(&dense(&s));
            assert!((s.length() - d).abs() < 1e-4 * d, "{} vs {d}", s.length());
            assert!(s.length() >= polyline_length(&pts) - 1e-3);
        }
    }

    #[test]
    fn arc_length_spacing_is_uniform() {
        // Each sample is located on a dense polyline of the curve (2000 chords per segment, made
        // from the parameter, not from the arc-length table) and its arc-length position there is
        // compared with k * spacing.
        let mut rng = Pcg64::seed_from_u64(3);
        let spacing = 0.25;
        let (mut worst_pos, mut worst_gap, mut worst_chord): (f32, f32, f32) = (0.0, 0.0, 0.0);
        for n in [2, 3, 6, 12, 25] {
            // Wander points: a random walk with steps of 2 to 6 units.
            let mut pts = vec![Vec3::ZERO];
            for _ in 1..n {
                let step = random_points(&mut rng, 1, 1.0)[0].normalize_or(Vec3::X)
                    * rng.gen_range(2.0..6.0);
                pts.push(*pts.last().unwrap() + step);
            }
            let s = Spline::new(&pts).unwrap();
            let samples = s.sample_by_arc_length(spacing).unwrap();
            assert_eq!(samples[0], pts[0]);
            assert_eq!(*samples.last().unwrap(), *pts.last().unwrap());
            let expected = (s.length() / spacing).ceil() as usize + 1;
            assert!(
                samples.len().abs_diff(expected) <= 1,
                "{} {expected}",
                samples.len()
            );

            let d = dense(&s);
            let mut cum = vec![0.0f32];
            for w in d.windows(2) {
                cum.push(cum.last().unwrap() + w[0].distance(w[1]));
            }
            let mut pos = Vec::new();
            for (k, p) in samples.iter().enumerate() {
                let want = (k as f32 * spacing).min(s.length());
                let (dist, at) = (0..d.len())
                    .filter(|&j| (cum[j] - want).abs() < spacing)
                    .map(|j| (d[j].distance(*p), cum[j]))
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .unwrap();
                assert!(dist < 2e-3, "sample {k} is {dist} off the curve");
                worst_pos = worst_pos.max((at - want).abs() / spacing);
                pos.push(at);
            }
            for k in 1..samples.len() - 1 {
                worst_gap = worst_gap.max((pos[k] - pos[k - 1] - spacing).abs() / spacing);
                let chord = samples[k].distance(samples[k - 1]);
                assert!(chord <= spacing * 1.001, "{chord}");
                worst_chord = worst_chord.max((spacing - chord) / spacing);
            }
            let last = samples[samples.len() - 1].distance(samples[samples.len() - 2]);
            assert!(last > 0.0 && last <= spacing * 1.001, "{last}");
        }
        println!(
            "worst arc position error {worst_pos}, gap error {worst_gap}, chord shortfall {worst_chord}"
        );
        assert!(worst_gap < 0.05, "worst arc-length gap error {worst_gap}");
        assert!(
            worst_pos < 0.05,
            "worst arc-length position error {worst_pos}"
        );
    }

    #[test]
    fn arc_length_inversion_is_exact() {
        // The arc length between consecutive samples, measured on a dense polyline of the curve,
        // is the spacing.
        let pts = [
            Vec3::ZERO,
            Vec3::new(5.0, 0.0, 0.0),
            Vec3::new(5.0, 1.0, 0.3),
            Vec3::new(0.0, 1.0, 4.0),
            Vec3::new(8.0, 0.0, 9.0),
        ];
        let s = Spline::new(&pts).unwrap();
        for spacing in [0.05f32, 0.3, 1.0] {
            let samples = s.sample_by_arc_length(spacing).unwrap();
            let n = samples.len();
            let expect = (s.length() / spacing).floor() as usize + 2;
            assert!(n == expect || n == expect - 1, "{n} {expect}");
            // Chords never exceed the arc; they are close to it at this curvature.
            for w in samples[..n - 1].windows(2) {
                let g = w[0].distance(w[1]);
                assert!(g <= spacing * 1.0001 && g > spacing * 0.9, "{g} {spacing}");
            }
        }
    }
}
