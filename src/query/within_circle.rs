//! [`NavMeshQuery::find_random_point_within_circle`]: a random point spread evenly over the
//! walkable area inside a circle (DotRecast's `FindRandomPointWithinCircle`).
//!
//! Detour's `findRandomPointAroundCircle` picks a polygon the circle search reaches, weighted by
//! its whole area, and a point anywhere on it: points fall outside the circle, and a big
//! polygon that the circle barely touches gets as many as its whole area earns. Here each
//! polygon the same search reaches is cut to the circle (in xz) first: what is left of it is a
//! convex region bounded by polygon edges and circular arcs, split exactly into triangles (the
//! region with its arcs replaced by chords) and circular segments (between each chord and its
//! arc). One of all these pieces is drawn, weighted by its area, and a point uniformly inside
//! it, so the point is uniform over the walkable area inside the circle, each storey counted.

use glam::{DVec2, Vec3};

use super::{NavMeshQuery, PolyRef, QueryFilter, check_status};
use crate::navmesh::view::PolyType;
use crate::{Error, Result};

/// A piece of a convex polygon cut to a disk, in coordinates relative to the disk's center.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Piece {
    /// A triangle.
    Triangle([DVec2; 3]),
    /// The part of the disk of `radius` beyond the chord whose arc spans `2 * half` radians
    /// around the unit direction `dir` (the direction of the arc's middle): a circular segment,
    /// the whole disk for `half = π`.
    Segment {
        /// The disk's radius.
        radius: f64,
        /// Unit vector from the center to the middle of the arc.
        dir: DVec2,
        /// Half the angle the arc spans, in 0..=π.
        half: f64,
    },
}

/// `2 ∫ sqrt(r² - s²) ds` from 0 to `t` (for `-r <= t <= r`): twice the area of the part of a
/// half disk between the diameter's perpendicular and the chord at `t`.
fn segment_integral(t: f64, r: f64) -> f64 {
    let t = t.clamp(-r, r);
    t * (r * r - t * t).max(0.0).sqrt() + r * r * (t / r).clamp(-1.0, 1.0).asin()
}

impl Piece {
    /// Its area.
    pub(crate) fn area(&self) -> f64 {
        match *self {
            Piece::Triangle([a, b, c]) => 0.5 * (b - a).perp_dot(c - a).abs(),
            Piece::Segment { radius, half, .. } => {
                radius * radius * (half - half.sin() * half.cos())
            }
        }
    }

    /// The point of the piece that `u` and `v` (uniform in [0, 1)) map to: uniform over the
    /// piece when they are.
    pub(crate) fn sample(&self, u: f64, v: f64) -> DVec2 {
        match *self {
            Piece::Triangle([a, b, c]) => {
                let s = u.sqrt();
                a * (1.0 - s) + b * (s * (1.0 - v)) + c * (s * v)
            }
            Piece::Segment { radius, dir, half } => {
                // Along `dir` the segment runs from the chord at d = r cos(half) to r, and is
                // 2 sqrt(r² - t²) wide at t: find t where that width's integral from d reaches
                // the fraction u of the whole (bisection: the integral only grows), then place
                // the point at v across the width there.
                let r = radius;
                let d = r * half.cos();
                let (lo_f, hi_f) = (segment_integral(d, r), segment_integral(r, r));
                let goal = lo_f + u * (hi_f - lo_f);
                let (mut lo, mut hi) = (d, r);
                for _ in 0..64 {
                    let mid = 0.5 * (lo + hi);
                    if segment_integral(mid, r) < goal {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let t = 0.5 * (lo + hi);
                let w = (r * r - t * t).max(0.0).sqrt();
                dir * t + dir.perp() * ((2.0 * v - 1.0) * w)
            }
        }
    }
}

/// True if `p` is inside or on the convex, counter-clockwise polygon `poly`.
fn inside_convex(poly: &[DVec2], p: DVec2) -> bool {
    let n = poly.len();
    (0..n).all(|i| (poly[(i + 1) % n] - poly[i]).perp_dot(p - poly[i]) >= 0.0)
}

/// The counter-clockwise angle from `a` to `b` (both relative to the center), in [0, 2π).
fn ccw_angle(a: DVec2, b: DVec2) -> f64 {
    let t = a.perp_dot(b).atan2(a.dot(b));
    if t < 0.0 {
        t + std::f64::consts::TAU
    } else {
        t
    }
}

/// Cuts the convex polygon `poly` (xz, relative to the disk's center, either winding) to the
/// disk of `radius` around the origin and appends the pieces of what is left to `out`: the fan
/// triangles of the cut polygon with its arcs replaced by chords, and a circular segment per
/// arc. Nothing is appended for a polygon outside the disk.
pub(crate) fn cut_to_disk(poly: &[DVec2], radius: f64, out: &mut Vec<Piece>) {
    let n = poly.len();
    if n < 3 {
        return;
    }
    let mut p = poly.to_vec();
    let twice_area: f64 = (0..n).map(|i| p[i].perp_dot(p[(i + 1) % n])).sum();
    if twice_area < 0.0 {
        p.reverse();
    }
    let r2 = radius * radius;
    // The part of each edge inside the disk, as parameters t0 < t1 in [0, 1] along it.
    let inside: Vec<Option<(f64, f64)>> = (0..n)
        .map(|i| {
            let (a, e) = (p[i], p[(i + 1) % n] - p[i]);
            let ee = e.dot(e);
            // |a + t e|² = r² at the ends of the part inside.
            let half_b = a.dot(e);
            let disc = half_b * half_b - ee * (a.dot(a) - r2);
            if ee == 0.0 || disc <= 0.0 {
                return None;
            }
            let sq = disc.sqrt();
            let (t0, t1) = (
                ((-half_b - sq) / ee).max(0.0),
                ((-half_b + sq) / ee).min(1.0),
            );
            (t0 < t1).then_some((t0, t1))
        })
        .collect();
    // The cut region's boundary, counter-clockwise: each point and whether the boundary reaches
    // it along the circle (an arc from the point before it) rather than along a polygon edge.
    let mut bound: Vec<(DVec2, bool)> = Vec::with_capacity(2 * n);
    for i in 0..n {
        let Some((t0, t1)) = inside[i] else {
            continue;
        };
        let (a, b) = (p[i], p[(i + 1) % n]);
        // The edge goes on from the part inside of the edge before it, or it enters the disk
        // (mid-edge, or at a vertex on the circle): then the circle led here from where the
        // boundary last left the disk.
        let goes_on = t0 <= 0.0 && inside[(i + n - 1) % n].is_some_and(|(_, t)| t >= 1.0);
        if !goes_on {
            bound.push((a + (b - a) * t0, true));
        }
        bound.push((if t1 >= 1.0 { b } else { a + (b - a) * t1 }, false));
    }
    if bound.is_empty() {
        // No edge crosses the disk: the disk is inside the polygon, or apart from it.
        if inside_convex(&p, DVec2::ZERO) {
            out.push(Piece::Segment {
                radius,
                dir: DVec2::X,
                half: std::f64::consts::PI,
            });
        }
        return;
    }
    let m = bound.len();
    for k in 1..m.saturating_sub(1) {
        out.push(Piece::Triangle([bound[0].0, bound[k].0, bound[k + 1].0]));
    }
    for i in 0..m {
        if !bound[i].1 {
            continue;
        }
        let (from, to) = (bound[(i + m - 1) % m].0, bound[i].0);
        let mut angle = ccw_angle(from, to);
        if (to - from).length() <= 1e-9 * radius {
            // Where the boundary leaves and re-enters the disk at one point (a vertex or an
            // edge touching the circle), the arc between is all of the circle or none of it:
            // all of it if the circle lies inside the polygon (test the point opposite).
            let opposite = -from.normalize_or(DVec2::X) * radius;
            angle = if inside_convex(&p, opposite) {
                std::f64::consts::TAU
            } else {
                0.0
            };
        }
        let half = 0.5 * angle;
        let (s, c) = (from.y.atan2(from.x) + half).sin_cos();
        out.push(Piece::Segment {
            radius,
            dir: DVec2::new(c, s),
            half,
        });
    }
}

/// A number from `random` in [0, 1) (others are taken as 0.5, as the other random queries do).
fn draw(random: &mut impl FnMut() -> f32) -> f64 {
    let v = random();
    if (0.0..1.0).contains(&v) {
        f64::from(v)
    } else {
        0.5
    }
}

impl NavMeshQuery<'_> {
    /// A random point spread evenly over the walkable area inside the circle of `radius` around
    /// `center` (in xz), on polygons reachable from `start` through polygons that pass `filter`
    /// and whose shared edges the circle touches (DotRecast's `FindRandomPointWithinCircle`),
    /// drawn from any [`rand::Rng`] (the same seed gives the same points).
    ///
    /// Unlike [`Self::find_random_point_around_circle`] (Detour's: polygons weighted by their
    /// whole area, the point anywhere on the polygon), the point is never outside the circle
    /// (beyond `f32` rounding) and every square metre of walkable area inside it is as likely,
    /// whatever the polygons' sizes; floors above one another each count. The polygons are
    /// those [`Self::find_polys_around_circle`] reaches with this query's node pool (a search
    /// that runs out of nodes draws from the polygons it reached); off-mesh connections are
    /// not walkable area.
    ///
    /// # Errors
    /// [`Error::InvalidPolyRef`] for a `start` not of this navmesh, [`Error::NonFinite`] or
    /// [`Error::PointOutOfRange`] for `center`, [`Error::InvalidArgument`] for a `radius` that
    /// is not a finite number > 0 or a `start` the filter refuses, and [`Error::PointOffMesh`]
    /// (with half extents `(radius, ∞, radius)`) if no walkable area reached lies inside the
    /// circle.
    ///
    /// ```
    /// # fn main() -> navkit::Result<()> {
    /// use glam::{Vec3, Vec3Swizzles};
    /// use navkit::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, QueryFilter};
    /// use rand::SeedableRng;
    /// let geom = navkit::InputGeometry::load("meshes/demo_level.gset")?;
    /// let nav = navkit::NavMeshBuilder::new(&geom).solo()?.into_navmesh();
    /// let mut q = NavMeshQuery::new(&nav, 2048)?;
    /// let f = QueryFilter::default();
    /// let center = Vec3::new(2.0, 0.0, 5.0);
    /// let start = q.find_nearest_poly(center, DEFAULT_HALF_EXTENTS, &f)?.poly;
    /// let mut rng = rand_pcg::Pcg32::seed_from_u64(7);
    /// for _ in 0..10 {
    ///     let (poly, p) = q.find_random_point_within_circle(start, center, 1.5, &f, &mut rng)?;
    ///     assert!(p.xz().distance(center.xz()) <= 1.5 + 1e-4);
    ///     assert!(q.closest_point_on_poly(poly, p)?.1, "on its polygon");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn find_random_point_within_circle<R: rand::Rng + ?Sized>(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        rng: &mut R,
    ) -> Result<(PolyRef, Vec3)> {
        self.find_random_point_within_circle_with(start, center, radius, filter, || {
            rng.r#gen::<f32>()
        })
    }

    /// [`Self::find_random_point_within_circle`] with any random source returning numbers in
    /// [0, 1) (others are taken as 0.5). It draws three numbers per point.
    pub fn find_random_point_within_circle_with(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        mut random: impl FnMut() -> f32,
    ) -> Result<(PolyRef, Vec3)> {
        let radius_checked = if radius.is_finite() && radius > 0.0 {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "radius {radius} is not a finite number > 0"
            )))
        };
        let (s, c) = self.circle_start(start, center, radius_checked, filter)?;
        let (st, reached) =
            self.raw
                .find_polys_around_circle(s, c, radius, &filter.raw, self.max_nodes);
        check_status("findPolysAroundCircle", st)?;
        let origin = DVec2::new(f64::from(c[0]), f64::from(c[2]));
        // Every piece of every reached ground polygon inside the circle, with its polygon.
        let mut pieces: Vec<(PolyRef, Piece)> = Vec::new();
        let mut cut = Vec::new();
        let mut verts = Vec::with_capacity(6);
        for &(r, _, _) in &reached {
            let Some(poly) = self.nav.poly(PolyRef(r)) else {
                continue;
            };
            if poly.poly_type() != PolyType::Ground {
                continue;
            }
            verts.clear();
            verts.extend(
                poly.vertices()
                    .map(|v| DVec2::new(f64::from(v.x), f64::from(v.z)) - origin),
            );
            cut.clear();
            cut_to_disk(&verts, f64::from(radius), &mut cut);
            pieces.extend(cut.iter().map(|&p| (PolyRef(r), p)));
        }
        let off_mesh = Error::PointOffMesh {
            argument: "center",
            point: center,
            half_extents: Vec3::new(radius, f32::INFINITY, radius),
        };
        let total: f64 = pieces.iter().map(|(_, p)| p.area()).sum();
        if total.is_nan() || total <= 0.0 {
            return Err(off_mesh);
        }
        let goal = draw(&mut random) * total;
        let mut sum = 0.0;
        let Some((poly, piece)) = pieces
            .iter()
            .find(|(_, p)| {
                sum += p.area();
                sum > goal
            })
            .or_else(|| pieces.iter().rev().find(|(_, p)| p.area() > 0.0))
            .copied()
        else {
            return Err(off_mesh);
        };
        let (u, v) = (draw(&mut random), draw(&mut random));
        let at = origin + piece.sample(u, v);
        self.surface_point(poly, [at.x as f32, c[1], at.y as f32])
    }

    /// `p` (inside `poly` in xz) on the polygon's detail surface (`getPolyHeight`), or, should
    /// rounding have put it just outside the polygon, the nearest point on it
    /// (`closestPointOnPoly`).
    fn surface_point(&mut self, poly: PolyRef, p: [f32; 3]) -> Result<(PolyRef, Vec3)> {
        let (st, h) = self.raw.get_poly_height(poly.0, p);
        if crate::status::Status(st).succeeded() {
            return Ok((poly, Vec3::new(p[0], h, p[2])));
        }
        let (st, on, _) = self.raw.closest_point_on_poly(poly.0, p);
        check_status("closestPointOnPoly", st)?;
        Ok((poly, Vec3::from_array(on)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn area(poly: &[DVec2], r: f64) -> f64 {
        let mut out = Vec::new();
        cut_to_disk(poly, r, &mut out);
        out.iter().map(Piece::area).sum()
    }

    fn square(c: DVec2, h: f64) -> Vec<DVec2> {
        vec![
            c + DVec2::new(-h, -h),
            c + DVec2::new(h, -h),
            c + DVec2::new(h, h),
            c + DVec2::new(-h, h),
        ]
    }

    #[test]
    fn cut_areas_match_hand_derivations() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.max(1.0);
        // A square around the disk: the disk (π r²).
        assert!(close(area(&square(DVec2::ZERO, 5.0), 2.0), PI * 4.0));
        // A square inside the disk: the square.
        assert!(close(area(&square(DVec2::new(0.3, 0.2), 0.5), 2.0), 1.0));
        // A square beyond the disk: nothing.
        assert_eq!(area(&square(DVec2::new(9.0, 0.0), 1.0), 2.0), 0.0);
        // The unit square with a corner at the center of a unit disk: a quarter disk.
        let corner = [DVec2::ZERO, DVec2::X, DVec2::ONE, DVec2::Y];
        assert!(close(area(&corner, 1.0), PI / 4.0));
        // Either winding.
        let mut cw = corner.to_vec();
        cw.reverse();
        assert!(close(area(&cw, 1.0), PI / 4.0));
        // A half plane through the center (a big square's edge): half the disk.
        assert!(close(
            area(&square(DVec2::new(50.0, 0.0), 50.0), 1.0),
            PI / 2.0
        ));
        // A square of side 2 around a disk of radius 1.2: the disk less four segments beyond
        // the edges at distance 1, each r²(a - sin a cos a) with a = acos(1 / 1.2).
        let (r, a) = (1.2f64, (1.0f64 / 1.2).acos());
        let want = PI * r * r - 4.0 * r * r * (a - a.sin() * a.cos());
        assert!(close(area(&square(DVec2::ZERO, 1.0), r), want));
        // A triangle with a vertex on the circle, the rest inside: the triangle.
        let tri = [
            DVec2::new(1.0, 0.0),
            DVec2::new(0.0, 0.5),
            DVec2::new(-0.5, -0.5),
        ];
        assert!(close(area(&tri, 1.0), 0.5 * 1.25 * 1.0));
        // A square touching the circle from outside at one edge: nothing.
        assert!(area(&square(DVec2::new(2.0, 0.0), 1.0), 1.0) < 1e-12);
    }

    #[test]
    fn cut_areas_match_grid_counts_on_random_polygons() {
        // Convex polygons (random points' hulls, wound either way) around and across the unit
        // disk: the cut's area equals the share of a 400 x 400 grid over [-2, 2]² inside both,
        // within the grid's resolution.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for case in 0..60 {
            let mut pts: Vec<DVec2> = (0..5)
                .map(|_| DVec2::new(4.0 * next() - 2.0, 4.0 * next() - 2.0))
                .collect();
            // Their hull, counter-clockwise (gift wrapping).
            let mut hull = vec![*pts.iter().min_by(|a, b| a.x.total_cmp(&b.x)).unwrap()];
            loop {
                let last = *hull.last().unwrap();
                let mut cand = if pts[0] == last { pts[1] } else { pts[0] };
                for &q in &pts {
                    if (cand - last).perp_dot(q - last) < 0.0 {
                        cand = q;
                    }
                }
                if cand == hull[0] {
                    break;
                }
                hull.push(cand);
            }
            if case % 2 == 1 {
                hull.reverse();
            }
            pts.clear();
            let n = 400;
            let h = 4.0 / n as f64;
            let mut count = 0;
            for i in 0..n {
                for j in 0..n {
                    let p = DVec2::new(-2.0 + (i as f64 + 0.5) * h, -2.0 + (j as f64 + 0.5) * h);
                    let k = hull.len();
                    let mut sides =
                        (0..k).map(|a| (hull[(a + 1) % k] - hull[a]).perp_dot(p - hull[a]));
                    let inside = if case % 2 == 1 {
                        sides.all(|s| s <= 0.0)
                    } else {
                        sides.all(|s| s >= 0.0)
                    };
                    count += (inside && p.length() <= 1.0) as usize;
                }
            }
            let grid = count as f64 * h * h;
            let cut = area(&hull, 1.0);
            assert!(
                (cut - grid).abs() < 0.02,
                "case {case}: {cut} vs {grid} for {hull:?}"
            );
        }
    }

    #[test]
    fn segment_samples_stay_inside_and_spread_by_area() {
        // The segment beyond x = 0.5 of the unit disk: every sample lies in it, and a quarter
        // of the unit square of (u, v) lands in each half of it (split by the x axis), the part
        // beyond x = 0.8 getting its share of the area.
        let half = (0.5f64).acos();
        let seg = Piece::Segment {
            radius: 1.0,
            dir: DVec2::X,
            half,
        };
        let cap = |d: f64| d.acos() - d * (1.0 - d * d).sqrt(); // area beyond x = d
        assert!((seg.area() - cap(0.5)).abs() < 1e-12);
        let n = 200;
        let mut beyond = 0;
        for i in 0..n {
            for j in 0..n {
                let (u, v) = ((i as f64 + 0.5) / n as f64, (j as f64 + 0.5) / n as f64);
                let p = seg.sample(u, v);
                assert!(p.x >= 0.5 - 1e-12 && p.length() <= 1.0 + 1e-12, "{p}");
                assert_eq!(p.y < 0.0, v < 0.5);
                beyond += (p.x > 0.8) as usize;
            }
        }
        let share = beyond as f64 / (n * n) as f64;
        assert!((share - cap(0.8) / cap(0.5)).abs() < 0.01, "{share}");
    }
}
