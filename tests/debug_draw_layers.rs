//! The debug-draw layers beyond the navmesh (issue 13): grid cells and grid searches, the
//! turn-boundary follower, Detour's search nodes and the tile cache's layers. Counts are checked
//! against independent counts (walkable cells, expanded nodes, boundaries) and brute force.

mod common;

use std::collections::{BinaryHeap, HashMap};

use glam::{UVec2, Vec3};
use navkit::debug_draw::grid::{self as dgrid, GridPlacement};
use navkit::debug_draw::{Color, PrimitiveKind};
use navkit::grid::mesh::MeshGrid;
use navkit::grid::{Grid, SearchContext, SearchGraph, SearchOptions, Terrain, astar, jps};
use navkit::{BuildSettings, InputGeometry};

fn tri_area(t: [Vec3; 3]) -> f32 {
    (t[1] - t[0]).cross(t[2] - t[0]).length() / 2.0
}

const MAP: &str = "\
    ..........@.....\n\
    .@@@@@....@..WW.\n\
    .....@....@..WW.\n\
    .....@..........\n\
    .....@@@@@@@@...\n\
    ................\n\
    ...@......@.....";

#[test]
fn grid_cells_are_the_passable_cells_and_blocked_the_rest() {
    let mut grid = Grid::from_ascii(MAP).unwrap();
    grid.set_weight(UVec2::new(0, 5), 3.0).unwrap();
    let place = GridPlacement {
        origin: Vec3::new(-4.0, 1.5, 2.0),
        cell_size: 0.5,
    };
    let cells = dgrid::cells(&grid, &place);
    let blocked = dgrid::blocked(&grid, &place);
    let (w, h) = (grid.width() as usize, grid.height() as usize);
    // Counted independently from the map text.
    let walls = MAP.bytes().filter(|&c| c == b'@').count();
    let water = MAP.bytes().filter(|&c| c == b'W').count();
    assert_eq!(grid.passable_count(), w * h - walls);
    assert_eq!(cells.count(PrimitiveKind::Triangles), 2 * (w * h - walls));
    assert_eq!(blocked.count(PrimitiveKind::Triangles), 2 * walls);
    assert_eq!(
        cells.primitives.len(),
        cells.count(PrimitiveKind::Triangles)
    );
    // Quads of exactly one cell each: the areas add up, everything at the grid's height.
    let area: f32 = cells.triangles().map(|(t, _)| tri_area(t)).sum();
    assert!(
        (area - (w * h - walls) as f32 * 0.25).abs() < 1e-3,
        "{area}"
    );
    for (t, _) in cells.triangles().chain(blocked.triangles()) {
        assert!(t.iter().all(|v| v.y == 1.5));
    }
    // Colours: water cells blue, the weighted cell tinted, ground light blue.
    let water_col = Color::rgba(0, 0, 255, 64);
    assert_eq!(
        cells.triangles().filter(|(_, c)| *c == water_col).count(),
        2 * water
    );
    assert_eq!(
        cells
            .triangles()
            .filter(|(_, c)| *c == dgrid::cell_color(Terrain::Ground, 3.0))
            .count(),
        2
    );
    assert!(blocked.triangles().all(|(_, c)| c == dgrid::BLOCKED_COLOR));
    // The blocked cell (10, 0) lies where the placement puts it.
    let c = place.center(UVec2::new(10, 0));
    assert_eq!(c, Vec3::new(1.25, 1.5, 2.25));
    assert!(blocked.triangles().any(|(t, _)| {
        let mid = (t[0] + t[2]) / 2.0;
        mid.distance(c) < 1e-5
    }));
    let (lo, hi) = cells.bounds().unwrap();
    assert_eq!(lo, Vec3::new(-4.0, 1.5, 2.0));
    assert_eq!(hi, Vec3::new(-4.0 + 8.0, 1.5, 2.0 + 3.5));
}

/// Dijkstra from `start` over the grid's own moves: the optimal cost of every reachable node.
fn dijkstra(grid: &Grid, start: u32, options: &SearchOptions) -> HashMap<u32, u64> {
    let mut best: HashMap<u32, u64> = HashMap::new();
    let mut heap = BinaryHeap::new();
    best.insert(start, 0);
    heap.push(std::cmp::Reverse((0u64, start)));
    while let Some(std::cmp::Reverse((d, n))) = heap.pop() {
        if best.get(&n).is_some_and(|&b| b < d) {
            continue;
        }
        let mut moves = Vec::new();
        grid.for_each_neighbour(n, options, |m, c| moves.push((m, c)));
        for (m, c) in moves {
            let nd = d + c;
            if best.get(&m).is_none_or(|&b| nd < b) {
                best.insert(m, nd);
                heap.push(std::cmp::Reverse((nd, m)));
            }
        }
    }
    best
}

#[test]
fn grid_search_nodes_are_the_expanded_and_open_nodes_with_optimal_costs() {
    let grid = Grid::from_ascii(MAP).unwrap();
    let options = SearchOptions::default();
    let (s, g) = (UVec2::new(0, 0), UVec2::new(15, 6));
    let mut ctx = SearchContext::new();
    let r = astar::find_path(&mut ctx, &grid, s, g, &options);
    assert!(r.found());
    let visited: Vec<_> = ctx.visited().collect();
    let closed = visited.iter().filter(|v| v.closed).count();
    assert_eq!(closed, r.expanded as usize);
    assert!(visited.len() > closed, "some nodes are left open");
    // Every closed node has its optimal cost (consistent heuristic); every parent link is a
    // move whose cost adds up, back to the start.
    let start = grid.node(s).unwrap();
    let exact = dijkstra(&grid, start, &options);
    let by_node: HashMap<u32, _> = visited.iter().map(|v| (v.node, *v)).collect();
    for v in &visited {
        let opt = navkit::grid::from_fixed(exact[&v.node]);
        if v.closed {
            assert!((v.cost - opt).abs() < 1e-6, "{v:?} vs {opt}");
        } else {
            assert!(v.cost >= opt - 1e-6);
        }
        let mut n = v.node;
        let mut steps = 0;
        while n != start {
            let p = by_node[&n].parent;
            assert!(by_node[&p].closed, "a parent is always expanded");
            assert!(by_node[&p].cost < by_node[&n].cost);
            n = p;
            steps += 1;
            assert!(steps <= visited.len());
        }
    }
    // (The search's fixed-point sum; the result's cost is summed in f64.)
    assert!((by_node[&grid.node(g).unwrap()].cost - r.cost).abs() < 1e-6);
    let place = GridPlacement::default();
    let l = dgrid::grid_search(&ctx, &grid, &place);
    assert_eq!(l.name, dgrid::SEARCH_LAYER);
    assert_eq!(l.count(PrimitiveKind::Points), visited.len());
    assert_eq!(
        l.points()
            .filter(|(_, c)| *c == dgrid::CLOSED_COLOR)
            .count(),
        r.expanded as usize
    );
    assert_eq!(l.count(PrimitiveKind::Lines), visited.len() - 1);
    // Each line joins the centres of two cells one move apart.
    for (a, b, c, _) in l.lines() {
        assert_eq!(c, dgrid::PARENT_COLOR);
        let d = (a - b).abs();
        assert!(d.x <= 1.0 && d.z <= 1.0 && d.x + d.z >= 1.0, "{a} {b}");
    }
    // The path layer goes through the path's cells.
    let cells = ctx.path_cells(&grid);
    let p = dgrid::path(&cells, &place);
    assert_eq!(p.count(PrimitiveKind::Lines), cells.len() - 1);
    assert_eq!(p.lines().next().unwrap().0, Vec3::new(0.5, 0.0, 0.5));

    // JPS: fewer nodes, still one closed per expansion.
    let rj = jps::find_path(&mut ctx, &grid, s, g, &options).unwrap();
    assert!(rj.found() && (rj.cost - r.cost).abs() < 1e-9);
    assert_eq!(
        ctx.visited().filter(|v| v.closed).count(),
        rj.expanded as usize
    );
    assert!(ctx.visited().count() < visited.len());

    // A refused search reached nothing (no stale nodes from the last one).
    let bad = astar::find_path(&mut ctx, &grid, s, UVec2::new(10, 0), &options);
    assert!(!bad.found());
    assert_eq!(ctx.visited().count(), 0);
    assert!(
        dgrid::grid_search(&ctx, &grid, &place)
            .primitives
            .is_empty()
    );
}

#[test]
fn mesh_grid_cells_are_its_walkable_spans_on_their_floors() {
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let grid = MeshGrid::build(&geom, &BuildSettings::default()).unwrap();
    let cells = dgrid::mesh_cells(&grid);
    let blocked = dgrid::mesh_blocked(&grid);
    let spans = &grid.spans().spans;
    let walkable = spans
        .iter()
        .filter(|s| s.area != navkit::area::NULL)
        .count();
    assert_eq!(grid.walkable_count(), walkable);
    assert_eq!(cells.count(PrimitiveKind::Triangles), 2 * walkable);
    assert_eq!(
        blocked.count(PrimitiveKind::Triangles),
        2 * (spans.len() - walkable)
    );
    assert!(
        spans.len() > walkable,
        "erosion leaves some spans unwalkable"
    );
    // Every quad is one cell, flat, at its span's floor: its centre is the span's point.
    let cs = grid.cell_size();
    let mut centres: Vec<Vec3> = Vec::new();
    for (k, (t, _)) in cells.triangles().enumerate() {
        assert!((tri_area(t) - cs * cs / 2.0).abs() < 1e-4);
        assert!(t[0].y == t[1].y && t[1].y == t[2].y);
        if k % 2 == 0 {
            centres.push((t[0] + t[2]) / 2.0);
        }
    }
    let mut i = 0;
    for (n, s) in spans.iter().enumerate() {
        if s.area != navkit::area::NULL {
            assert!(centres[i].distance(grid.point(n as u32)) < 1e-4);
            i += 1;
        }
    }
    // Stacked floors: some column has two walkable quads at different heights.
    let mut heights: HashMap<(i64, i64), Vec<f32>> = HashMap::new();
    for c in &centres {
        heights
            .entry(((c.x / cs) as i64, (c.z / cs) as i64))
            .or_default()
            .push(c.y);
    }
    assert!(heights.values().any(|h| h.len() > 1));

    // A search on it: one point per node reached, closed ones as many as expanded.
    let mut ctx = SearchContext::new();
    let p = grid
        .find_path(
            &mut ctx,
            Vec3::new(18.138550, -2.370003, -21.319118),
            Vec3::new(-19.206181, -2.369133, 24.802742),
            &SearchOptions::default(),
        )
        .unwrap();
    assert!(p.found());
    let l = dgrid::mesh_search(&ctx, &grid);
    let visited = ctx.visited().count();
    assert_eq!(l.count(PrimitiveKind::Points), visited);
    assert_eq!(
        l.points()
            .filter(|(_, c)| *c == dgrid::CLOSED_COLOR)
            .count(),
        p.result.expanded as usize
    );
    assert_eq!(l.count(PrimitiveKind::Lines), visited - 1);
    for (pos, _) in l.points() {
        let n = grid.node_at(pos - Vec3::Y * 0.5).unwrap();
        assert!(ctx.visit(n).is_some(), "{pos}");
    }
}
