//! `NavMeshQuery::find_random_point_within_circle` (issue 19, part 4): a point spread evenly
//! over the walkable area inside a circle (DotRecast's `FindRandomPointWithinCircle`), never
//! outside it, however big or small the polygons under the circle are.
//!
//! The distributions are checked with Pearson's chi-square against what is derived here
//! independently of the query: on an open floor, bins of equal area (8 sectors x 3 rings of the
//! circle) expect equal counts; on a floor where one 345 m² polygon and two dozen polygons of
//! 0.05-2.5 m² (between pillars) share the circle, each polygon and each bin expects its share
//! of the walkable area inside the circle, measured by counting the points of a 1 cm grid that
//! lie on each polygon. A statistic stays below the 0.1% critical value of its degrees of
//! freedom (a correct sampler fails one in a thousand seeds; the seeds are fixed, and the
//! measured values are in the comments); Detour's `findRandomPointAroundCircle` (polygons
//! weighted by their whole area) gives statistics hundreds of times over it there.

mod common;

use std::collections::HashMap;

use glam::{Vec2, Vec3, Vec3Swizzles};
use navkit::navmesh::view::PolyType;
use navkit::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter};
use navkit::{BuildSettings, Error, InputGeometry, NavMesh, NavMeshBuilder, TriMesh};
use rand::SeedableRng;

/// A 30 m square floor at y = 0.
fn open_floor() -> NavMesh {
    let verts = vec![
        0.0, 0.0, 0.0, 0.0, 0.0, 30.0, 30.0, 0.0, 30.0, 30.0, 0.0, 0.0,
    ];
    let g = InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 1, 2, 0, 2, 3]).unwrap());
    NavMeshBuilder::new(&g).solo().unwrap().into_navmesh()
}

/// A 40 m square floor with 6 x 8 pillars (0.3 m square, 2 m high, 2 m apart) from x = 21,
/// z = 12, built for an agent of radius 0.3: Recast covers the open part with a few huge
/// polygons (one of 345 m² reaches from z = 0.6 to the pillars at x = 20.7) and the part
/// between the pillars with polygons of 0.05 to 2.5 m².
fn pillared_floor() -> NavMesh {
    let mut verts = vec![
        0.0, 0.0, 0.0, 0.0, 0.0, 40.0, 40.0, 0.0, 40.0, 40.0, 0.0, 0.0,
    ];
    let mut tris = vec![0, 1, 2, 0, 2, 3];
    for i in 0..6 {
        for j in 0..8 {
            let (x, z) = (21.0 + 2.0 * i as f32, 12.0 + 2.0 * j as f32);
            let base = (verts.len() / 3) as i32;
            for (dx, y, dz) in [
                (0.0, 0.0, 0.0),
                (0.3, 0.0, 0.0),
                (0.3, 0.0, 0.3),
                (0.0, 0.0, 0.3),
                (0.0, 2.0, 0.0),
                (0.3, 2.0, 0.0),
                (0.3, 2.0, 0.3),
                (0.0, 2.0, 0.3),
            ] {
                verts.extend([x + dx, y, z + dz]);
            }
            for f in [
                [4, 6, 5],
                [4, 7, 6],
                [0, 5, 1],
                [0, 4, 5],
                [1, 6, 2],
                [1, 5, 6],
                [2, 7, 3],
                [2, 6, 7],
                [3, 4, 0],
                [3, 7, 4],
            ] {
                tris.extend(f.map(|k| base + k));
            }
        }
    }
    let g = InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap());
    let settings = BuildSettings {
        agent_radius: 0.3,
        ..BuildSettings::default()
    };
    NavMeshBuilder::new(&g)
        .settings(settings)
        .solo()
        .unwrap()
        .into_navmesh()
}

/// A 30 m square floor at y = 0 under a 10 x 14 m platform at y = 3 (x 12-22, z 8-22), with a
/// ramp up to it from x = 7 (z 13-17): two storeys, the floor continuing under the platform.
fn storeys() -> NavMesh {
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    for quad in [
        [
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 30.0],
            [30.0, 0.0, 30.0],
            [30.0, 0.0, 0.0],
        ],
        [
            [12.0, 3.0, 8.0],
            [12.0, 3.0, 22.0],
            [22.0, 3.0, 22.0],
            [22.0, 3.0, 8.0],
        ],
        [
            [7.0, 0.0, 13.0],
            [7.0, 0.0, 17.0],
            [12.0, 3.0, 17.0],
            [12.0, 3.0, 13.0],
        ],
    ] {
        let base = (verts.len() / 3) as i32;
        verts.extend(quad.into_iter().flatten());
        tris.extend([0, 1, 2, 0, 2, 3].map(|k| base + k));
    }
    let g = InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap());
    NavMeshBuilder::new(&g).solo().unwrap().into_navmesh()
}

/// One of 24 bins of equal area of the circle of `r` around `c`: 8 sectors x 3 rings (ring
/// edges at r sqrt(1/3) and r sqrt(2/3)).
fn bin(p: Vec2, c: Vec2, r: f32) -> usize {
    let d = p - c;
    let ring = ((d.length_squared() / (r * r) * 3.0) as usize).min(2);
    let turn = (d.y.atan2(d.x) + std::f32::consts::PI) / std::f32::consts::TAU;
    let sector = ((turn * 8.0) as usize).min(7);
    ring * 8 + sector
}

/// Pearson's chi-square of `observed` counts against `expected` ones, bins expecting fewer
/// than 5 merged into one; with its degrees of freedom.
fn chi_square(observed: &[usize], expected: &[f64]) -> (f64, usize) {
    let (mut chi, mut bins) = (0.0, 0);
    let (mut rest_o, mut rest_e) = (0.0, 0.0);
    for (&o, &e) in observed.iter().zip(expected) {
        if e < 5.0 {
            rest_o += o as f64;
            rest_e += e;
        } else {
            chi += (o as f64 - e).powi(2) / e;
            bins += 1;
        }
    }
    if rest_e > 0.0 {
        chi += (rest_o - rest_e).powi(2) / rest_e;
        bins += 1;
    } else if rest_o > 0.0 {
        chi = f64::INFINITY;
    }
    (chi, bins - 1)
}

/// The chi-square value a correct sampler exceeds with probability 0.001 at `dof` degrees of
/// freedom (Wilson and Hilferty's approximation, within 1% from 5 degrees of freedom: 49.7 at
/// 23, as the tables give).
fn critical_001(dof: usize) -> f64 {
    let k = dof as f64;
    let z = 3.0902; // the standard normal's 99.9% quantile
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// A polygon's whole area in xz.
fn whole_area(nav: &NavMesh, p: PolyRef) -> f64 {
    let v: Vec<Vec2> = nav.poly(p).unwrap().vertices().map(|v| v.xz()).collect();
    (2..v.len())
        .map(|k| 0.5 * f64::from((v[k - 1] - v[0]).perp_dot(v[k] - v[0]).abs()))
        .sum()
}

fn start_at(q: &mut NavMeshQuery<'_>, c: Vec3) -> PolyRef {
    q.find_nearest_poly(c, DEFAULT_HALF_EXTENTS, &QueryFilter::default())
        .unwrap()
        .poly
}

#[test]
fn within_circle_is_uniform_over_an_open_floor() {
    let nav = open_floor();
    let mut q = NavMeshQuery::new(&nav, 2048).unwrap();
    let f = QueryFilter::default();
    // Recast covers the floor (walkable from 0.9 to 29.1) with 9 polygons; this circle lies on
    // two of them, on either side of the edge from (15, 0.9) to (0.9, 15), 0.42 m from the
    // center.
    let (c, r) = (Vec3::new(8.5, 0.0, 8.0), 5.0);
    let start = start_at(&mut q, c);
    let mut rng = rand_pcg::Pcg32::seed_from_u64(19);
    let n = 24_000;
    let mut counts = [0usize; 24];
    let mut polys = std::collections::HashSet::new();
    for _ in 0..n {
        let (poly, p) = q
            .find_random_point_within_circle(start, c, r, &f, &mut rng)
            .unwrap();
        // Inside the circle (up to f32 rounding), on the polygon returned, on its surface.
        assert!(p.xz().distance(c.xz()) <= r * (1.0 + 1e-6), "{p}");
        let (on, over) = q.closest_point_on_poly(poly, p).unwrap();
        assert!(over && (on - p).length() < 1e-3, "{p} off {poly}");
        counts[bin(p.xz(), c.xz(), r)] += 1;
        polys.insert(poly);
    }
    assert_eq!(polys.len(), 2);
    // The whole circle is walkable: every bin expects n / 24.
    let (chi, dof) = chi_square(&counts, &[n as f64 / 24.0; 24]);
    eprintln!("open floor: chi-square {chi:.1} at {dof} degrees of freedom, counts {counts:?}");
    // Measured: 18.7 (seed 19); the 0.1% critical value at 23 degrees of freedom is 49.7.
    assert_eq!(dof, 23);
    assert!(chi < critical_001(dof), "chi-square {chi}");

    // Detour's query around the circle: a point anywhere on the polygons the circle reaches,
    // uniform over their whole area, so outside the circle with probability 1 - π r² / (their
    // area) (the circle lies on them).
    let reached: f64 = q
        .find_polys_around_circle(start, c, r, &f, 2048)
        .unwrap()
        .iter()
        .map(|p| whole_area(&nav, p.poly))
        .sum();
    let p_out = 1.0 - std::f64::consts::PI * f64::from(r * r) / reached;
    let outside = (0..n)
        .filter(|_| {
            let (_, p) = q
                .find_random_point_around_circle(start, c, r, &f, &mut rng)
                .unwrap();
            p.xz().distance(c.xz()) > r
        })
        .count();
    let (mean, sd) = (n as f64 * p_out, (n as f64 * p_out * (1.0 - p_out)).sqrt());
    eprintln!(
        "open floor: {outside} of {n} points of findRandomPointAroundCircle outside, {mean:.0} \
         expected ({reached:.1} m² of polygons reached)"
    );
    // Measured: 20,698 outside, 20,708 expected (572.6 m² reached): 0.2 standard deviations
    // (53.3 points); the bound is 4.
    assert!((outside as f64 - mean).abs() < 4.0 * sd, "{outside}");
}

/// Each reached ground polygon's walkable area inside the circle, and each bin's, counted on a
/// 1 cm grid (a point on several polygons counts for each).
fn grid_areas(
    nav: &NavMesh,
    polys: &[PolyRef],
    c: Vec2,
    r: f32,
) -> (HashMap<PolyRef, f64>, [f64; 24]) {
    let shapes: Vec<(PolyRef, Vec<Vec2>)> = polys
        .iter()
        .filter_map(|&p| {
            let v = nav.poly(p)?;
            (v.poly_type() == PolyType::Ground).then(|| (p, v.vertices().map(|v| v.xz()).collect()))
        })
        .collect();
    // Inside or on a convex polygon of either winding.
    let inside = |poly: &[Vec2], p: Vec2| {
        let n = poly.len();
        let sides: Vec<f32> = (0..n)
            .map(|i| (poly[(i + 1) % n] - poly[i]).perp_dot(p - poly[i]))
            .collect();
        sides.iter().all(|&s| s >= 0.0) || sides.iter().all(|&s| s <= 0.0)
    };
    let (h, steps) = (0.01f32, (2.0 * r / 0.01) as i32);
    let cell = f64::from(h * h);
    let mut by_poly: HashMap<PolyRef, f64> = HashMap::new();
    let mut by_bin = [0.0; 24];
    for i in 0..steps {
        for j in 0..steps {
            let p = c + Vec2::new(-r + (i as f32 + 0.5) * h, -r + (j as f32 + 0.5) * h);
            if p.distance(c) > r {
                continue;
            }
            for (poly, shape) in &shapes {
                if inside(shape, p) {
                    *by_poly.entry(*poly).or_default() += cell;
                    by_bin[bin(p, c, r)] += cell;
                }
            }
        }
    }
    (by_poly, by_bin)
}

#[test]
fn within_circle_is_uniform_where_polygons_of_very_different_sizes_meet() {
    let nav = pillared_floor();
    let mut q = NavMeshQuery::new(&nav, 2048).unwrap();
    let f = QueryFilter::default();
    let (c, r) = (Vec3::new(20.0, 0.0, 20.0), 4.0);
    let start = start_at(&mut q, c);
    let reached: Vec<PolyRef> = q
        .find_polys_around_circle(start, c, r, &f, 2048)
        .unwrap()
        .iter()
        .map(|p| p.poly)
        .collect();
    let (area_of, bin_area) = grid_areas(&nav, &reached, c.xz(), r);
    let walkable: f64 = area_of.values().sum();
    let whole = |p: PolyRef| whole_area(&nav, p);
    let biggest = *reached
        .iter()
        .max_by(|a, b| whole(**a).total_cmp(&whole(**b)))
        .unwrap();
    let smallest = reached
        .iter()
        .map(|&p| whole(p))
        .fold(f64::INFINITY, f64::min);
    eprintln!(
        "pillars: {} polygons reached, {walkable:.2} m² walkable in the circle of {:.2} m²; the \
         biggest polygon {:.1} m² ({:.2} m² inside), the smallest {smallest:.2} m²",
        reached.len(),
        std::f64::consts::PI * 16.0,
        whole(biggest),
        area_of[&biggest]
    );
    // What the level is meant to show (measured: 23 polygons, 344.8 m² and 0.05 m²).
    assert!(reached.len() >= 20 && whole(biggest) > 300.0 && smallest < 0.1);

    let n = 20_000;
    let expected = |share: f64| n as f64 * share / walkable;
    let polys_expected: Vec<f64> = reached
        .iter()
        .map(|p| expected(area_of.get(p).copied().unwrap_or(0.0)))
        .collect();
    let bins_expected: Vec<f64> = bin_area.iter().map(|&a| expected(a)).collect();
    let tally = |points: &[(PolyRef, Vec3)]| {
        let mut by_poly = vec![0usize; reached.len()];
        let mut by_bin = [0usize; 24];
        for (poly, p) in points {
            by_poly[reached.iter().position(|r| r == poly).unwrap()] += 1;
            if p.xz().distance(c.xz()) <= r {
                by_bin[bin(p.xz(), c.xz(), r)] += 1;
            }
        }
        (by_poly, by_bin)
    };

    let mut rng = rand_pcg::Pcg32::seed_from_u64(23);
    let within: Vec<(PolyRef, Vec3)> = (0..n)
        .map(|_| {
            q.find_random_point_within_circle(start, c, r, &f, &mut rng)
                .unwrap()
        })
        .collect();
    for (poly, p) in &within {
        assert!(p.xz().distance(c.xz()) <= r * (1.0 + 1e-6), "{p}");
        assert!(
            q.closest_point_on_poly(*poly, *p).unwrap().1,
            "{p} off {poly}"
        );
    }
    let (by_poly, by_bin) = tally(&within);
    let (chi_p, dof_p) = chi_square(&by_poly, &polys_expected);
    let (chi_b, dof_b) = chi_square(&by_bin, &bins_expected);
    eprintln!(
        "within the circle: chi-square {chi_p:.1} over polygons ({dof_p} dof, critical {:.1}), \
         {chi_b:.1} over bins ({dof_b} dof, critical {:.1})",
        critical_001(dof_p),
        critical_001(dof_b)
    );
    // Measured (seed 23): 19.3 over 20 polygon groups (critical 43.9); 18.3 over 24 bins
    // (critical 49.8).
    assert!(chi_p < critical_001(dof_p) && chi_b < critical_001(dof_b));

    // Detour's query around the circle, on the same polygons: uniform over their whole area,
    // so the biggest polygon gets the share of its 345 m² rather than that of its part inside
    // the circle, and most points fall outside.
    let around: Vec<(PolyRef, Vec3)> = (0..n)
        .map(|_| {
            q.find_random_point_around_circle(start, c, r, &f, &mut rng)
                .unwrap()
        })
        .collect();
    let (by_poly, _) = tally(&around);
    let (chi_old, _) = chi_square(&by_poly, &polys_expected);
    let share = |points: &[(PolyRef, Vec3)]| {
        points.iter().filter(|(p, _)| *p == biggest).count() as f64 / n as f64
    };
    let outside = around
        .iter()
        .filter(|(_, p)| p.xz().distance(c.xz()) > r)
        .count();
    eprintln!(
        "around the circle: chi-square {chi_old:.0} over polygons; the biggest polygon gets \
         {:.3} of the points (within: {:.3}, its share of the area inside: {:.3}); {outside} of \
         {n} outside the circle",
        share(&around),
        share(&within),
        area_of[&biggest] / walkable
    );
    // Measured: 12,214 (278 times the critical value); the biggest polygon gets 0.760 of the
    // points around the circle, its share of the reached polygons' whole area (derived here),
    // against 0.499 within it, its 0.501 of the walkable area inside; 18,058 points of 20,000
    // fall outside. (Shares within 0.02: 4 standard deviations of a share near 0.5 is 0.014.)
    let whole_share = whole(biggest) / reached.iter().map(|&p| whole(p)).sum::<f64>();
    assert!(chi_old > 100.0 * critical_001(dof_p), "{chi_old}");
    assert!((share(&around) - whole_share).abs() < 0.02, "{whole_share}");
    assert!((share(&within) - area_of[&biggest] / walkable).abs() < 0.02);
    assert!(outside > n * 85 / 100, "{outside}");
}

#[test]
fn within_circle_counts_each_storey() {
    let nav = storeys();
    let mut q = NavMeshQuery::new(&nav, 2048).unwrap();
    let f = QueryFilter::default();
    // On the floor beside the platform; the circle holds the ramp's foot (x 7.8), so the
    // search climbs it, and the floor under the platform.
    let (c, r) = (Vec3::new(13.0, 0.0, 15.0), 6.0);
    let start = start_at(&mut q, c);
    let reached: Vec<PolyRef> = q
        .find_polys_around_circle(start, c, r, &f, 2048)
        .unwrap()
        .iter()
        .map(|p| p.poly)
        .collect();
    let (area_of, _) = grid_areas(&nav, &reached, c.xz(), r);
    let walkable: f64 = area_of.values().sum();
    let upper = |p: &PolyRef| nav.poly(*p).unwrap().vertices().all(|v| v.y > 3.0);
    let upper_area: f64 = reached
        .iter()
        .filter(|p| upper(p))
        .map(|p| area_of[p])
        .sum();
    eprintln!(
        "storeys: {} polygons reached, {walkable:.2} m² walkable in a circle of {:.2} m², \
         {upper_area:.2} m² of it on the platform",
        reached.len(),
        std::f64::consts::PI * 36.0
    );
    // Both storeys are reached and overlap: more walkable area than the circle has (measured:
    // 13 polygons, 163.7 m² in a circle of 113.1 m², 59.6 on the platform).
    assert!(walkable > 1.1 * std::f64::consts::PI * 36.0 && upper_area > 40.0);

    let n = 20_000;
    let mut rng = rand_pcg::Pcg32::seed_from_u64(31);
    let mut by_poly = vec![0usize; reached.len()];
    let mut on_upper = 0;
    for _ in 0..n {
        let (poly, p) = q
            .find_random_point_within_circle(start, c, r, &f, &mut rng)
            .unwrap();
        assert!(p.xz().distance(c.xz()) <= r * (1.0 + 1e-6), "{p}");
        let (on, over) = q.closest_point_on_poly(poly, p).unwrap();
        assert!(over && (on - p).length() < 1e-3, "{p} off {poly}");
        by_poly[reached.iter().position(|r| *r == poly).unwrap()] += 1;
        on_upper += upper(&poly) as usize;
    }
    let expected: Vec<f64> = reached
        .iter()
        .map(|p| n as f64 * area_of.get(p).copied().unwrap_or(0.0) / walkable)
        .collect();
    let (chi, dof) = chi_square(&by_poly, &expected);
    let share = on_upper as f64 / n as f64;
    eprintln!(
        "storeys: chi-square {chi:.1} over polygons ({dof} dof, critical {:.1}); {share:.3} of \
         the points on the platform, its share of the area {:.3}",
        critical_001(dof),
        upper_area / walkable
    );
    // Measured (seed 31): 5.0 at 12 degrees of freedom (critical 33.1); 0.366 of the points
    // on the platform, whose share of the area is 0.364 (the bound, 0.02, is 4 standard
    // deviations of a share near 0.36: 0.014).
    assert!(chi < critical_001(dof), "{chi}");
    assert!((share - upper_area / walkable).abs() < 0.02, "{share}");
}

#[test]
fn within_circle_is_seeded_and_its_errors_are_typed() {
    let nav = open_floor();
    let mut q = NavMeshQuery::new(&nav, 2048).unwrap();
    let f = QueryFilter::default();
    let c = Vec3::new(15.0, 0.0, 15.0);
    let start = start_at(&mut q, c);
    // The same seed gives the same points; the random source's numbers outside [0, 1) are
    // taken as 0.5, as the other random queries take them.
    let mut a = rand_pcg::Pcg32::seed_from_u64(5);
    let mut b = rand_pcg::Pcg32::seed_from_u64(5);
    for _ in 0..20 {
        assert_eq!(
            q.find_random_point_within_circle(start, c, 3.0, &f, &mut a)
                .unwrap(),
            q.find_random_point_within_circle(start, c, 3.0, &f, &mut b)
                .unwrap()
        );
    }
    let half = q
        .find_random_point_within_circle_with(start, c, 3.0, &f, || 0.5)
        .unwrap();
    for odd in [1.0, -0.25, f32::NAN, 7.0] {
        assert_eq!(
            q.find_random_point_within_circle_with(start, c, 3.0, &f, || odd)
                .unwrap(),
            half
        );
    }

    let arg = |r: navkit::Result<(PolyRef, Vec3)>| matches!(r, Err(Error::InvalidArgument(_)));
    let mut rng = rand_pcg::Pcg32::seed_from_u64(1);
    for radius in [-1.0, 0.0, f32::NAN, f32::INFINITY] {
        assert!(
            arg(q.find_random_point_within_circle(start, c, radius, &f, &mut rng)),
            "radius {radius}"
        );
    }
    let closed = QueryFilter::with_flags(0, 0);
    assert!(arg(q.find_random_point_within_circle(
        start, c, 3.0, &closed, &mut rng
    )));
    assert!(matches!(
        q.find_random_point_within_circle(PolyRef::default(), c, 3.0, &f, &mut rng),
        Err(Error::InvalidPolyRef {
            argument: "start",
            ..
        })
    ));
    assert!(matches!(
        q.find_random_point_within_circle(start, Vec3::NAN, 3.0, &f, &mut rng),
        Err(Error::NonFinite {
            argument: "center",
            ..
        })
    ));
    assert!(matches!(
        q.find_random_point_within_circle(start, Vec3::splat(1e30), 3.0, &f, &mut rng),
        Err(Error::PointOutOfRange {
            argument: "center",
            ..
        })
    ));

    // Two floors 10 m apart: a circle on the other floor, or in the gap, holds nothing
    // reachable from the first.
    let g = common::two_floors();
    let two = NavMeshBuilder::new(&g).solo().unwrap().into_navmesh();
    let mut q = NavMeshQuery::new(&two, 2048).unwrap();
    let start = start_at(&mut q, Vec3::new(10.0, 0.0, 10.0));
    for (center, radius) in [
        (Vec3::new(40.0, 0.0, 10.0), 3.0),
        (Vec3::new(25.0, 0.0, 10.0), 2.0),
    ] {
        match q.find_random_point_within_circle(start, center, radius, &f, &mut rng) {
            Err(Error::PointOffMesh {
                argument: "center",
                point,
                half_extents,
            }) => {
                assert_eq!(point, center);
                assert_eq!((half_extents.x, half_extents.z), (radius, radius));
            }
            other => panic!("{center}: {other:?}"),
        }
    }
    // The other floor's own start finds it.
    let other = start_at(&mut q, Vec3::new(40.0, 0.0, 10.0));
    let (_, p) = q
        .find_random_point_within_circle(other, Vec3::new(40.0, 0.0, 10.0), 3.0, &f, &mut rng)
        .unwrap();
    assert!(p.x > 36.0 && p.x < 44.0);
}
