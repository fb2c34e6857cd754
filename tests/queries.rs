//! The dtNavMeshQuery calls beyond paths (issue 12, part 1), each checked against answers
//! computed here from the navmesh's own polygons and links: query_polygons against every
//! polygon's bounds, the Dijkstra searches (circle, shape) against a breadth-first closure over
//! the portals, wall segments against the polygon edges, random points around a circle against
//! the circle search, raycast costs against the distance travelled, and the argument checks.

mod common;

use std::collections::{HashMap, HashSet};

use glam::{Vec3, Vec3Swizzles};
use navkit::navmesh::{NavMesh, PolyInfo};
use navkit::query::{NavMeshQuery, PolyRef, PolyRefBits, QueryFilter, RaycastOptions};
use rand::{Rng, SeedableRng};

fn dungeon() -> NavMesh {
    common::build("dungeon.obj").into_navmesh()
}

fn polys(nav: &NavMesh) -> HashMap<PolyRef, PolyInfo> {
    nav.polys()
        .into_iter()
        .filter(|p| !p.off_mesh)
        .map(|p| (p.poly, p))
        .collect()
}

/// The edge two polygons of a solo navmesh share (their common vertices, in `a`'s winding).
fn shared_edge(a: &PolyInfo, b: &PolyInfo) -> Option<(Vec3, Vec3)> {
    let n = a.verts.len();
    (0..n)
        .map(|j| (a.verts[j], a.verts[(j + 1) % n]))
        .find(|(p, q)| b.verts.contains(p) && b.verts.contains(q))
}

/// xz distance from `c` to segment `a`-`b`.
fn dist_seg_2d(c: Vec3, a: Vec3, b: Vec3) -> f32 {
    let (c, a, b) = (c.xz(), a.xz(), b.xz());
    let d = b - a;
    let t = if d.length_squared() > 0.0 {
        ((c - a).dot(d) / d.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    c.distance(a + d * t)
}

/// Every polygon reachable from `start` through portals for which `open(portal)` holds.
fn closure(
    nav: &NavMesh,
    all: &HashMap<PolyRef, PolyInfo>,
    start: PolyRef,
    open: impl Fn(Vec3, Vec3) -> bool,
) -> HashSet<PolyRef> {
    let mut seen = HashSet::from([start]);
    let mut todo = vec![start];
    while let Some(p) = todo.pop() {
        for n in nav.neighbours(p) {
            let (a, b) = shared_edge(&all[&p], &all[&n]).expect("linked polys share an edge");
            if open(a, b) && seen.insert(n) {
                todo.push(n);
            }
        }
    }
    seen
}

fn random_points(q: &mut NavMeshQuery, n: usize, seed: u64) -> Vec<(PolyRef, Vec3)> {
    let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
    let f = QueryFilter::default();
    (0..n)
        .map(|_| q.find_random_point(&f, &mut rng).unwrap())
        .collect()
}

#[test]
fn query_polygons_matches_every_polygons_bounds() {
    let nav = dungeon();
    let all = polys(&nav);
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(1);
    let mut total = 0;
    for (_, c) in random_points(&mut q, 200, 2) {
        let half = Vec3::new(
            rng.gen_range(0.0..6.0),
            rng.gen_range(0.0..3.0),
            rng.gen_range(0.0..6.0),
        );
        let got = q.query_polygons(c, half, &f, 4096).unwrap();
        assert!(!got.truncated);
        let got: HashSet<PolyRef> = got.items.iter().copied().collect();
        // Every polygon whose vertex box overlaps the query box is found; every polygon found
        // has a box within one cell (the BV tree's quantization) and its detail heights of it.
        let (lo, hi) = (c - half, c + half);
        for (r, p) in &all {
            let bmin = p.verts.iter().fold(Vec3::MAX, |m, v| m.min(*v));
            let bmax = p.verts.iter().fold(Vec3::MIN, |m, v| m.max(*v));
            let overlaps =
                |slack: Vec3| (bmin - slack).cmple(hi).all() && (bmax + slack).cmpge(lo).all();
            if overlaps(Vec3::ZERO) {
                assert!(got.contains(r), "{r} overlaps the box at {c} ± {half}");
            }
            if got.contains(r) {
                // The BV tree's boxes are in cells (0.3 units, y included), and the query box
                // is rounded out to even cells; its y bounds come from the detail mesh.
                let gap = (bmin - hi).max(lo - bmax).max(Vec3::ZERO);
                assert!(
                    gap.x <= 0.61 && gap.z <= 0.61 && gap.y <= 2.0,
                    "{r} is {gap} from the box"
                );
            }
        }
        // The collector gets the same polygons, each once.
        let mut batches = Vec::new();
        q.query_polygons_with(c, half, &f, |b| batches.extend_from_slice(b))
            .unwrap();
        let set: HashSet<PolyRef> = batches.iter().copied().collect();
        assert_eq!(set.len(), batches.len());
        assert_eq!(set, got);
        total += got.len();
    }
    assert!(total > 500, "{total}");

    // A limit below the count truncates; a filter refusing every flag finds nothing.
    let (_, c) = random_points(&mut q, 1, 3)[0];
    let all_near = q.query_polygons(c, Vec3::splat(20.0), &f, 4096).unwrap();
    assert!(all_near.len() > 3);
    let few = q.query_polygons(c, Vec3::splat(20.0), &f, 3).unwrap();
    assert!(few.truncated && few.len() == 3);
    let none = QueryFilter::with_flags(0, 0);
    assert!(
        q.query_polygons(c, Vec3::splat(20.0), &none, 10)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn query_polygons_collector_panic_is_raised_after_detour_returns() {
    let nav = dungeon();
    let mut q = nav.query().unwrap();
    let (_, c) = random_points(&mut q, 1, 4)[0];
    let mut calls = 0;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        q.query_polygons_with(c, Vec3::splat(50.0), &QueryFilter::default(), |_| {
            calls += 1;
            panic!("collector panic");
        })
    }));
    let payload = r.expect_err("the panic comes back");
    assert_eq!(payload.downcast_ref::<&str>(), Some(&"collector panic"));
    assert_eq!(calls, 1, "no batch after the panic");
    // The query still works.
    assert!(
        !q.query_polygons(c, Vec3::splat(5.0), &QueryFilter::default(), 64)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn circle_and_shape_searches_reach_the_portal_closure() {
    let nav = dungeon();
    let all = polys(&nav);
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(5);
    let mut reached = 0;
    for (start, c) in random_points(&mut q, 100, 6) {
        let r = rng.gen_range(0.5..12.0);
        let found = q.find_polys_around_circle(start, c, r, &f, 4096).unwrap();
        let want = closure(&nav, &all, start, |a, b| dist_seg_2d(c, a, b) <= r);
        let got: HashSet<PolyRef> = found.iter().map(|p| p.poly).collect();
        assert_eq!(got, want, "circle at {c} radius {r}");
        assert_eq!(found[0].poly, start);
        assert_eq!((found[0].parent, found[0].cost), (PolyRef(0), 0.0));
        reached += got.len();
        // The Dijkstra tree: every polygon found is closed, and its path from the start runs
        // over linked polygons, each also found.
        for p in &found {
            assert!(q.is_in_closed_list(p.poly));
            let path = q.path_from_dijkstra_search(p.poly, 4096).unwrap();
            assert!(!path.truncated);
            assert_eq!((path[0], *path.last().unwrap()), (start, p.poly));
            for w in path.windows(2) {
                assert!(nav.neighbours(w[0]).contains(&w[1]));
                assert!(got.contains(&w[0]));
            }
            assert!(p.cost >= 0.0 && p.cost.is_finite());
            if p.parent != PolyRef(0) {
                assert!(got.contains(&p.parent) && nav.neighbours(p.parent).contains(&p.poly));
            }
        }
        // A polygon outside the search is not closed, and has no Dijkstra path.
        if let Some(out) = all.keys().find(|p| !got.contains(p)) {
            assert!(!q.is_in_closed_list(*out));
            assert!(q.path_from_dijkstra_search(*out, 64).is_err());
        }

        // The square of side 2r around the center (Detour's winding: clockwise with z up).
        let shape = [
            c + Vec3::new(-r, 0.0, -r),
            c + Vec3::new(-r, 0.0, r),
            c + Vec3::new(r, 0.0, r),
            c + Vec3::new(r, 0.0, -r),
        ];
        let found = q.find_polys_around_shape(start, &shape, &f, 4096).unwrap();
        let inside = |p: Vec3| (p.x - c.x).abs() <= r && (p.z - c.z).abs() <= r;
        let want = closure(&nav, &all, start, |a, b| {
            // The portal touches the square: sample it finely (boundary cases aside).
            (0..=200).any(|k| inside(a.lerp(b, k as f32 / 200.0)))
        });
        let got: HashSet<PolyRef> = found.iter().map(|p| p.poly).collect();
        let diff: Vec<_> = got.symmetric_difference(&want).collect();
        assert!(diff.len() <= 1, "shape around {c} half-size {r}: {diff:?}");
        for p in found.iter() {
            assert!(q.is_in_closed_list(p.poly));
        }
    }
    assert!(reached > 500, "{reached}");
}

#[test]
fn local_neighbourhood_is_a_tree_of_portals_within_the_radius() {
    let nav = dungeon();
    let all = polys(&nav);
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    for (start, c) in random_points(&mut q, 100, 7) {
        let r = 4.0;
        let found = q.find_local_neighbourhood(start, c, r, &f, 64).unwrap();
        assert_eq!((found[0].poly, found[0].parent), (start, PolyRef(0)));
        let mut seen = HashSet::from([start]);
        for p in &found[1..] {
            assert!(seen.contains(&p.parent), "parents come first");
            let (a, b) = shared_edge(&all[&p.parent], &all[&p.poly]).unwrap();
            assert!(dist_seg_2d(c, a, b) <= r + 1e-4);
            assert!(seen.insert(p.poly), "each polygon once");
        }
        // Everything reachable through portals in the radius is found (the dungeon's floors do
        // not overlap near a start), capped by the result limit.
        let want = closure(&nav, &all, start, |a, b| dist_seg_2d(c, a, b) <= r);
        if !found.truncated && want.len() < 40 {
            assert_eq!(seen, want);
        }
    }
}

#[test]
fn wall_segments_are_the_polygon_edges() {
    let nav = dungeon();
    let all = polys(&nav);
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    let mut walls = 0;
    for (r, p) in &all {
        let segs = q.poly_wall_segments(*r, &f).unwrap();
        let n = p.verts.len();
        assert_eq!(segs.len(), n, "one segment per edge in a solo navmesh");
        let links = nav.neighbours(*r);
        for (k, s) in segs.iter().enumerate() {
            // Detour starts with the edge from the last vertex to the first.
            let j = (k + n - 1) % n;
            assert_eq!((s.start, s.end), (p.verts[j], p.verts[(j + 1) % n]));
            let across = links
                .iter()
                .copied()
                .find(|l| shared_edge(p, &all[l]) == Some((s.start, s.end)));
            assert_eq!(s.neighbour, across.unwrap_or(PolyRef(0)), "{r} edge {j}");
            walls += s.is_wall() as usize;
        }
        // A filter refusing everything makes every edge a wall.
        let closed = QueryFilter::with_flags(0, 0);
        assert!(
            q.poly_wall_segments(*r, &closed)
                .unwrap()
                .iter()
                .all(|s| s.is_wall())
        );
    }
    assert!(walls > 100);
}

#[test]
fn random_points_around_a_circle_lie_on_polygons_the_circle_search_reaches() {
    let nav = dungeon();
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    for (start, c) in random_points(&mut q, 40, 8) {
        let r = 3.0;
        let reach: HashSet<PolyRef> = q
            .find_polys_around_circle(start, c, r, &f, 4096)
            .unwrap()
            .iter()
            .map(|p| p.poly)
            .collect();
        let mut a = rand_pcg::Pcg32::seed_from_u64(9);
        let mut b = rand_pcg::Pcg32::seed_from_u64(9);
        for _ in 0..10 {
            let (poly, pt) = q
                .find_random_point_around_circle(start, c, r, &f, &mut a)
                .unwrap();
            assert!(reach.contains(&poly), "{poly} around {c}");
            let (on, over) = q.closest_point_on_poly(poly, pt).unwrap();
            assert!(over && on.xz().distance(pt.xz()) < 1e-4);
            // Seeded: the same seed, the same points.
            assert_eq!(
                q.find_random_point_around_circle(start, c, r, &f, &mut b)
                    .unwrap(),
                (poly, pt)
            );
        }
    }
}

#[test]
fn boundary_points_and_valid_refs() {
    let nav = dungeon();
    let all = polys(&nav);
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(10);
    for (r, p) in all.iter().take(60) {
        let centroid = p.verts.iter().copied().sum::<Vec3>() / p.verts.len() as f32;
        // Over the polygon: the point itself.
        assert_eq!(
            q.closest_point_on_poly_boundary(*r, centroid).unwrap(),
            centroid
        );
        // Outside: the nearest point of the boundary, in xz.
        let out = centroid + Vec3::new(rng.gen_range(-30.0..30.0), 0.0, rng.gen_range(-30.0..30.0));
        let got = q.closest_point_on_poly_boundary(*r, out).unwrap();
        let n = p.verts.len();
        let best = (0..n)
            .map(|j| dist_seg_2d(out, p.verts[j], p.verts[(j + 1) % n]))
            .fold(f32::MAX, f32::min);
        let (over, _) = (q.closest_point_on_poly(*r, out).unwrap().1, ());
        if !over {
            assert!((got.xz().distance(out.xz()) - best).abs() < 1e-3, "{r}");
        }
        assert!(q.is_valid_poly_ref(*r, &f));
        assert!(!q.is_valid_poly_ref(*r, &QueryFilter::with_flags(0, 0)));
    }
    assert!(!q.is_valid_poly_ref(PolyRef(0), &f));
    assert!(!q.is_valid_poly_ref(PolyRef(PolyRefBits::MAX), &f));
}

#[test]
fn raycast_costs_follow_the_area_costs_and_the_distance() {
    let nav = dungeon();
    let mut q = nav.query().unwrap();
    let ones = QueryFilter::default().with_area_cost(navkit::area::GROUND, 1.0);
    let mut rng = rand_pcg::Pcg32::seed_from_u64(11);
    let opts = RaycastOptions {
        use_costs: true,
        ..RaycastOptions::default()
    };
    let mut checked = 0;
    for (start, s) in random_points(&mut q, 300, 12) {
        let a = rng.gen_range(0.0..std::f32::consts::TAU);
        let e = s + Vec3::new(a.cos(), 0.0, a.sin()) * rng.gen_range(0.5..25.0);
        let r1 = q.raycast(start, s, e, &ones, &opts).unwrap();
        assert!(!r1.truncated);
        // The raycast without costs agrees.
        let plain = RaycastOptions {
            max_path: 256,
            ..RaycastOptions::default()
        };
        let simple = q.raycast(start, s, e, &ones, &plain).unwrap();
        assert_eq!((simple.t, simple.polys.clone()), (r1.t, r1.polys.clone()));
        // Area costs scale the cost: all of the dungeon is ground.
        let tripled = ones.clone().with_area_cost(navkit::area::GROUND, 3.0);
        let r3 = q.raycast(start, s, e, &tripled, &opts).unwrap();
        assert!((r3.path_cost - 3.0 * r1.path_cost).abs() <= 1e-4 * r1.path_cost.max(1.0));
        // Without costs, none is summed.
        assert_eq!(
            q.raycast(start, s, e, &ones, &RaycastOptions::default())
                .unwrap()
                .path_cost,
            0.0
        );
        // The cost is the length of the way on the surface: at least the xz distance
        // travelled, at most that over the cosine of the steepest walkable slope (45 degrees),
        // plus the height of the end point when the ray reaches it.
        let xz = (e - s).xz().length() * r1.t.min(1.0);
        let extra = if r1.hit() {
            0.0
        } else {
            (e.y - s.y).abs() + 5.0
        };
        assert!(r1.path_cost >= xz * 0.9999, "{} < {xz}", r1.path_cost);
        assert!(
            r1.path_cost <= xz * 1.4143 + extra + 1e-3,
            "{} > {xz}",
            r1.path_cost
        );
        if r1.hit() {
            let edge = r1.hit_edge.expect("a hit names its edge");
            assert!(edge < 6);
            assert!((r1.normal.length() - 1.0).abs() < 1e-5 && r1.normal.y == 0.0);
        } else {
            assert_eq!((r1.t, r1.hit_edge), (f32::MAX, None));
        }
        checked += 1;
    }
    assert_eq!(checked, 300);
}

#[test]
fn new_queries_refuse_bad_arguments() {
    let nav = dungeon();
    let mut q = nav.query().unwrap();
    let f = QueryFilter::default();
    let (p, c) = random_points(&mut q, 1, 13)[0];
    let bad = PolyRef(0xdead_beef);
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    let sq = [
        c + Vec3::new(-1.0, 0.0, -1.0),
        c + Vec3::new(-1.0, 0.0, 1.0),
        c + Vec3::new(1.0, 0.0, 1.0),
        c + Vec3::new(1.0, 0.0, -1.0),
    ];
    // A caller's bug: a bad argument, a point that is not finite or too far, a ref of nothing.
    let is_arg = |r: navkit::Result<()>| {
        matches!(
            r,
            Err(navkit::Error::InvalidArgument(_)
                | navkit::Error::NonFinite { .. }
                | navkit::Error::PointOutOfRange { .. }
                | navkit::Error::InvalidPolyRef { .. })
        )
    };
    assert!(matches!(
        q.query_polygons(nan, Vec3::ONE, &f, 8),
        Err(navkit::Error::NonFinite {
            argument: "center",
            ..
        })
    ));
    assert!(is_arg(q.query_polygons(c, -Vec3::ONE, &f, 8).map(drop)));
    assert!(is_arg(q.query_polygons(c, Vec3::ONE, &f, 0).map(drop)));
    assert!(is_arg(
        q.query_polygons(c, Vec3::splat(1e9), &f, 8).map(drop)
    ));
    assert!(matches!(
        q.query_polygons_with(c, Vec3::INFINITY, &f, |_| ()),
        Err(navkit::Error::NonFinite {
            argument: "half_extents",
            ..
        })
    ));
    assert!(matches!(
        q.find_polys_around_shape(bad, &sq, &f, 8),
        Err(navkit::Error::InvalidPolyRef { argument: "start", poly }) if poly == bad
    ));
    assert!(is_arg(
        q.find_polys_around_shape(p, &sq[..2], &f, 8).map(drop)
    ));
    let reversed: Vec<Vec3> = sq.iter().rev().copied().collect();
    assert!(is_arg(
        q.find_polys_around_shape(p, &reversed, &f, 8).map(drop)
    ));
    let concave = [sq[0], sq[1], c, sq[2], sq[3]];
    let concave = [concave[0], concave[1], concave[3], concave[2], concave[4]];
    assert!(is_arg(
        q.find_polys_around_shape(p, &concave, &f, 8).map(drop)
    ));
    let flat = [sq[0], sq[0], sq[0]];
    assert!(is_arg(q.find_polys_around_shape(p, &flat, &f, 8).map(drop)));
    assert!(is_arg(
        q.find_polys_around_shape(p, &[nan, sq[1], sq[2]], &f, 8)
            .map(drop)
    ));
    assert!(q.find_polys_around_shape(p, &sq, &f, 8).is_ok());
    assert!(is_arg(
        q.find_local_neighbourhood(p, c, -1.0, &f, 8).map(drop)
    ));
    assert!(is_arg(
        q.find_local_neighbourhood(p, c, f32::NAN, &f, 8).map(drop)
    ));
    assert!(is_arg(
        q.find_local_neighbourhood(bad, c, 1.0, &f, 8).map(drop)
    ));
    assert!(is_arg(q.poly_wall_segments(bad, &f).map(drop)));
    assert!(is_arg(q.closest_point_on_poly_boundary(p, nan).map(drop)));
    assert!(is_arg(q.path_from_dijkstra_search(bad, 8).map(drop)));
    assert!(is_arg(q.path_from_dijkstra_search(p, 0).map(drop)));
    let mut rng = rand_pcg::Pcg32::seed_from_u64(1);
    assert!(is_arg(
        q.find_random_point_around_circle(p, c, f32::INFINITY, &f, &mut rng)
            .map(drop)
    ));
    let closed = QueryFilter::with_flags(0, 0);
    assert!(is_arg(
        q.find_random_point_around_circle(p, c, 1.0, &closed, &mut rng)
            .map(drop)
    ));
    let opts = RaycastOptions {
        prev_poly: Some(bad),
        ..RaycastOptions::default()
    };
    assert!(is_arg(q.raycast(p, c, c + Vec3::X, &f, &opts).map(drop)));
    let opts = RaycastOptions {
        max_path: navkit::query::MAX_BUFFER + 1,
        ..RaycastOptions::default()
    };
    assert!(is_arg(q.raycast(p, c, c + Vec3::X, &f, &opts).map(drop)));
    assert!(is_arg(
        q.raycast(p, c, nan, &f, &RaycastOptions::default())
            .map(drop)
    ));
}
