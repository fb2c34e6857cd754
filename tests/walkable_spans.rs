//! The mesh-derived walkable spans (the grid the grid pathfinder runs on): stacked floors, and
//! every nav_mesh_test.txt query connected on the grid as on the navmesh.

mod common;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use navkit::NavMeshBuilder;
use navkit::build::WalkableSpans;
use navkit::tools::testcase::TestCase;
use navkit::{BuildSettings, InputGeometry};

/// Plain Dijkstra over `neighbours8`: the grid distance in cells, if connected.
fn grid_distance(g: &WalkableSpans, a: u32, b: u32) -> Option<f32> {
    let mut dist = vec![f32::INFINITY; g.spans.len()];
    let mut heap = BinaryHeap::new();
    dist[a as usize] = 0.0;
    heap.push(Reverse(((0.0f32).to_bits(), a)));
    while let Some(Reverse((d, i))) = heap.pop() {
        let d = f32::from_bits(d);
        if i == b {
            return Some(d);
        }
        if d > dist[i as usize] {
            continue;
        }
        for (j, c) in g.neighbours8(i) {
            let nd = d + c;
            if nd < dist[j as usize] {
                dist[j as usize] = nd;
                heap.push(Reverse((nd.to_bits(), j)));
            }
        }
    }
    None
}

#[test]
fn nav_test_spans_have_stacked_floors_and_connect_every_test_query() {
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .grid()
        .unwrap();
    let g = grid.spans();
    assert_eq!((g.width, g.height), (305, 258));
    let walkable = (0..g.spans.len() as u32).filter(|&i| g.walkable(i)).count();
    assert!(walkable > 10_000, "{walkable} walkable spans");
    let stacked = g
        .cells
        .iter()
        .filter(|&&(first, n)| (first..first + n as u32).filter(|&i| g.walkable(i)).count() > 1)
        .count();
    assert!(
        stacked > 100,
        "{stacked} cells with more than one walkable floor"
    );
    // Links are symmetric.
    for (i, s) in g.spans.iter().enumerate() {
        for (d, &n) in s.neighbours.iter().enumerate() {
            if n != u32::MAX {
                assert_eq!(g.spans[n as usize].neighbours[(d + 2) % 4], i as u32);
            }
        }
    }
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    for t in &case.queries {
        let a = g.span_at(t.start).expect("start span");
        let b = g.span_at(t.end).expect("end span");
        let d = grid_distance(g, a, b).unwrap_or_else(|| panic!("line {}: not connected", t.line));
        let straight = t.start.distance(t.end) / g.cell_size;
        assert!(
            d + 2.0 >= straight * 0.99,
            "line {}: {d} cells for a {straight}-cell gap",
            t.line
        );
    }
}

/// A* on the mesh grid finds Dijkstra's distance for every test query, with valid moves, and
/// its simplified path keeps both ends; the grid path is never much longer than the navmesh's
/// straight path between the same points (the octile metric is at most 8% longer than the
/// Euclidean one, plus the snapping of the ends to cell centres).
#[test]
fn mesh_grid_astar_is_optimal_on_every_test_query() {
    use navkit::NavMeshBuilder;
    use navkit::PathStatus;
    use navkit::grid::{CornerCutting, SearchContext, SearchOptions};
    use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};

    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .grid()
        .unwrap();
    let built = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(built.navmesh(), 2048).unwrap();
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    let mut ctx = SearchContext::new();
    let cs = grid.cell_size();
    let (mut lo, mut hi) = (f32::MAX, 0.0f32);
    for t in &case.queries {
        let p = grid
            .find_path(&mut ctx, t.start, t.end, &SearchOptions::default())
            .unwrap();
        assert_eq!(p.result.status, PathStatus::Complete, "line {}", t.line);
        let d = grid_distance(grid.spans(), p.start_span, p.goal_span).unwrap();
        assert!(
            (p.result.cost as f32 - d).abs() < 1e-3,
            "line {}: A* {} Dijkstra {d}",
            t.line,
            p.result.cost
        );
        for w in p.spans.windows(2) {
            assert!(
                grid.spans().neighbours8(w[0]).any(|(n, _)| n == w[1]),
                "line {}: {} -> {} is not a move",
                t.line,
                w[0],
                w[1]
            );
        }
        assert_eq!(p.waypoints.first(), p.points.first());
        assert_eq!(p.waypoints.last(), p.points.last());
        assert!(p.waypoints.len() <= p.points.len());
        let fp = q
            .path(
                t.start,
                t.end,
                &QueryFilter::default(),
                &PathOptions::default(),
            )
            .unwrap();
        let ratio = (p.result.cost as f32 * cs) / fp.straight.length();
        lo = lo.min(ratio);
        hi = hi.max(ratio);
        // Corner cutting allowed can only shorten the path.
        let cut = grid
            .find_path(
                &mut ctx,
                t.start,
                t.end,
                &SearchOptions::default().with_corner_cutting(CornerCutting::Always),
            )
            .unwrap();
        assert!(cut.result.cost <= p.result.cost + 1e-9, "line {}", t.line);
    }
    println!("grid xz length / navmesh straight length: {lo:.3} .. {hi:.3}");
    // Measured 1.013 .. 1.080 over nav_mesh_test.txt's queries.
    assert!(lo > 1.005 && hi < 1.09, "{lo} .. {hi}");
}

#[test]
fn mesh_grid_bad_points_are_errors_and_area_costs_are_checked() {
    use glam::Vec3;
    use navkit::grid::{SearchContext, SearchOptions};
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let mut grid = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .grid()
        .unwrap();
    let mut ctx = SearchContext::new();
    let o = SearchOptions::default();
    let on = Vec3::new(-2.0, -2.3, 0.0);
    for bad in [
        Vec3::NAN,
        Vec3::new(f32::INFINITY, 0.0, 0.0),
        Vec3::new(1e6, 0.0, 1e6),
    ] {
        assert!(grid.find_path(&mut ctx, bad, on, &o).is_err(), "{bad}");
        assert!(grid.find_path(&mut ctx, on, bad, &o).is_err(), "{bad}");
    }
    assert!(grid.set_area_cost(63, f32::NAN).is_err());
    assert!(grid.set_area_cost(63, 0.0).is_err());
    assert!(grid.set_area_cost(200, 1.0).is_err());
    grid.set_area_cost(63, 2.0).unwrap();
    assert_eq!(grid.area_cost(63), 2.0);
}

/// Every pair of random navmesh points connected on the navmesh is connected on the grid too,
/// and the grid snaps a point to a floor near its height: on nav_test.obj the ground under the
/// raised walkway at (2.59, -2.27, 0.39) is eroded away in its own column, and the grid must
/// not take the walkway 14 units above for it.
#[test]
fn mesh_grid_connects_what_the_navmesh_connects() {
    use glam::Vec3;
    use navkit::PathStatus;
    use navkit::grid::{SearchContext, SearchOptions};
    use navkit::tools::compare::{CompareSettings, Comparer};
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .grid()
        .unwrap();
    let built = common::build("nav_test.obj");

    let under_walkway = Vec3::new(2.594042, -2.2695167, 0.39161032);
    let n = grid
        .nearest_node(under_walkway, Vec3::new(2.0, 4.0, 2.0))
        .unwrap();
    assert!(
        (grid.point(n).y - under_walkway.y).abs() < 1.0,
        "{}",
        grid.point(n)
    );
    let mut ctx = SearchContext::new();
    let p = grid
        .find_path(
            &mut ctx,
            under_walkway,
            Vec3::new(10.862434, -2.2695167, 22.835009),
            &SearchOptions::default(),
        )
        .unwrap();
    assert_eq!(p.result.status, PathStatus::Complete);

    let mut cmp = Comparer::new(built.navmesh(), Some(&grid), CompareSettings::default()).unwrap();
    let pairs = cmp.random_pairs(150, 7).unwrap();
    assert_eq!(pairs.len(), 150);
    let (mut sr_lo, mut sr_hi, mut grid_lo, mut grid_hi) = (f32::MAX, 0.0f32, f32::MAX, 0.0f32);
    for (a, b) in pairs {
        let c = cmp.compare(a, b).unwrap();
        let g = c
            .grid
            .as_ref()
            .unwrap_or_else(|| panic!("{a} -> {b}: {:?}", c.grid_error));
        assert_eq!(g.status, PathStatus::Complete, "{a} -> {b}");
        let n = c.navmesh.as_ref().unwrap();
        assert_eq!(n.status, PathStatus::Complete);
        // The spline through the corners, on the surface: at least the straight length (it is
        // the shortest), not much more (measured 1.0000 .. 1.0338 on these 150 pairs).
        let sr = n.spline_length / n.straight_length.max(1e-3);
        assert!(
            (0.999..1.04).contains(&sr),
            "{a} -> {b}: spline/straight {sr}"
        );
        let ratio = g.length / n.straight_length.max(1e-3);
        (sr_lo, sr_hi) = (sr_lo.min(sr), sr_hi.max(sr));
        (grid_lo, grid_hi) = (grid_lo.min(ratio), grid_hi.max(ratio));
        // Grid length over the navmesh's straight length: measured 0.9313 .. 1.1521 on these
        // 150 pairs.
        assert!(
            (0.92..1.16).contains(&ratio),
            "{a} -> {b}: grid {} straight {}",
            g.length,
            n.straight_length
        );
        for f in [g.follower.as_ref(), n.follower.as_ref()]
            .into_iter()
            .flatten()
        {
            assert!(f.arrived, "{a} -> {b}: the follower did not arrive");
        }
    }
    println!(
        "spline/straight {sr_lo:.4} .. {sr_hi:.4}, grid/straight {grid_lo:.4} .. {grid_hi:.4}"
    );
}
