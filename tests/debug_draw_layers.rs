//! The debug-draw layers beyond the navmesh (issue 13): grid cells and grid searches, the
//! turn-boundary follower, Detour's search nodes and the tile cache's layers. Counts are checked
//! against independent counts (walkable cells, expanded nodes, boundaries) and brute force.

mod common;

use std::collections::{BinaryHeap, HashMap};

use glam::{UVec2, Vec3};
use navkit::NavMeshBuilder;
use navkit::debug_draw::grid::{self as dgrid, GridPlacement};
use navkit::debug_draw::{Color, PrimitiveKind};
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
    let r = astar::find_path(&mut ctx, &grid, s, g, &options).unwrap();
    assert!(r.is_complete());
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
    assert!(rj.is_complete() && (rj.cost - r.cost).abs() < 1e-9);
    assert_eq!(
        ctx.visited().filter(|v| v.closed).count(),
        rj.expanded as usize
    );
    assert!(ctx.visited().count() < visited.len());

    // A refused search (a blocked goal) reached nothing (no stale nodes from the last one).
    let bad = astar::find_path(&mut ctx, &grid, s, UVec2::new(10, 0), &options);
    assert!(
        matches!(
            bad,
            Err(navkit::Error::BlockedCell {
                argument: "goal",
                ..
            })
        ),
        "{bad:?}"
    );
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
    let grid = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .grid()
        .unwrap();
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
    let (from, to) = nav_test_pairs()[0];
    let p = grid
        .find_path(&mut ctx, from, to, &SearchOptions::default())
        .unwrap();
    assert!(p.is_complete());
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

#[test]
fn follower_boundaries_are_one_line_each_where_the_agent_turns() {
    use navkit::agents::follower::{Follower, FollowerSettings};
    use navkit::debug_draw::follower as dfol;
    use navkit::debug_draw::paths;
    // An L-shaped path with a short last leg: boundaries at 1 unit before each corner.
    let waypoints = [
        Vec3::new(10.0, 0.5, 0.0),
        Vec3::new(10.0, 0.5, 10.0),
        Vec3::new(0.0, 0.5, 10.0),
        Vec3::new(0.0, 0.5, 11.5),
    ];
    let settings = FollowerSettings::default();
    let mut f = Follower::new(Vec3::ZERO, &waypoints, settings);
    let path = f.path().clone();
    assert_eq!(path.boundaries.len(), 4);
    let l = dfol::boundaries(&path, 1.5);
    assert_eq!(l.name, dfol::BOUNDARIES_LAYER);
    assert_eq!(l.count(PrimitiveKind::Lines), path.boundaries.len());
    assert_eq!(l.count(PrimitiveKind::Points), path.look_points.len());
    // Each line is centred on its boundary's point, across its direction, 3 long, at its look
    // point's height.
    for ((a, b, _, _), bd) in l.lines().zip(&path.boundaries) {
        let mid = (a + b) / 2.0;
        assert!(glam::Vec2::new(mid.x, mid.z).distance(bd.point) < 1e-5);
        let d = b - a;
        assert!((d.length() - 3.0).abs() < 1e-5 && a.y == 0.5 && b.y == 0.5);
        assert!(glam::Vec2::new(d.x, d.z).dot(bd.dir).abs() < 1e-5);
    }
    // By hand: the first boundary crosses the x axis at x = 9 (1 before the corner, across +x);
    // the finish line is centred on the goal.
    let first = l.lines().next().unwrap();
    assert!(first.0.distance(Vec3::new(9.0, 0.5, -1.5)) < 1e-5);
    assert!(first.1.distance(Vec3::new(9.0, 0.5, 1.5)) < 1e-5);
    let last = l.lines().last().unwrap();
    assert!(((last.0 + last.1) / 2.0).distance(Vec3::new(0.0, 0.5, 11.5)) < 1e-5);
    // Colours: the stopping distance (2) reaches back over the 1.5-long last leg to the third
    // look point only.
    assert_eq!(path.slow_down_index, 2);
    let colors: Vec<Color> = l.lines().map(|(_, _, c, _)| c).collect();
    assert_eq!(
        colors,
        [
            dfol::TURN_COLOR,
            dfol::TURN_COLOR,
            dfol::SLOW_COLOR,
            dfol::FINISH_COLOR
        ]
    );
    // Follow it: the trajectory crosses every turn boundary within its drawn segment, and the
    // agent starts steering for look point i + 1 right after crossing boundary i.
    let mut traj = vec![f.position()];
    let mut switched_at = Vec::new();
    let mut agent_layers = 0;
    for _ in 0..20_000 {
        let before = f.index();
        if !f.step(0.01, &mut |_| Some(0.5)) {
            break;
        }
        if f.index() != before {
            switched_at.push(traj[traj.len() - 1]);
        }
        traj.push(f.position());
        let a = dfol::agent(&f, 0.4);
        // Circle (16) + arrow (3) + look line + boundary.
        assert_eq!(a.count(PrimitiveKind::Lines), 16 + 3 + 2);
        agent_layers += 1;
    }
    assert!(f.finished() && agent_layers > 100);
    assert_eq!(switched_at.len(), 3);
    for (i, p) in switched_at.iter().enumerate() {
        let b = &path.boundaries[i];
        let q = glam::Vec2::new(p.x, p.z);
        assert!(b.crossed(q), "boundary {i}");
        assert!(b.distance(q) < settings.speed * 0.01 + 1e-4);
        let (sa, sb) = dfol::boundary_segment(b, 0.5, 1.5);
        let along = (Vec3::new(p.x, 0.5, p.z) - sa).dot((sb - sa).normalize());
        assert!(
            (0.0..=3.0).contains(&along),
            "crossed outside the drawn line"
        );
    }
    let t = paths::trajectory(&traj);
    assert_eq!(t.count(PrimitiveKind::Lines), traj.len() - 1);
    // Finished: the agent layer is its circle and heading only.
    assert_eq!(dfol::agent(&f, 0.4).count(PrimitiveKind::Lines), 19);
}

/// The start and end points of the path queries in RecastDemo's nav_test test file.
fn nav_test_pairs() -> Vec<(Vec3, Vec3)> {
    let case = navkit::tools::testcase::TestCase::load(
        common::shared().join("meshes/recastdemo/nav_mesh_test.txt"),
    )
    .unwrap();
    case.queries.iter().map(|t| (t.start, t.end)).collect()
}

/// Checks the invariants of a search's nodes: one root (the start poly), parent chains that end
/// there with costs rising, closed nodes exactly the polys Detour's closed list has.
fn check_nodes(
    q: &mut navkit::query::NavMeshQuery<'_>,
    nodes: &[navkit::query::SearchNode],
    start: navkit::query::PolyRef,
    dijkstra: bool,
) {
    let key = |n: &navkit::query::SearchNode| if dijkstra { n.total } else { n.cost };
    let roots: Vec<_> = nodes.iter().filter(|n| n.parent.is_none()).collect();
    assert_eq!(roots.len(), 1);
    assert_eq!(roots[0].poly, start);
    assert_eq!(key(roots[0]), 0.0);
    for (i, n) in nodes.iter().enumerate() {
        assert!(n.open != n.closed, "node {i} is open or closed, not both");
        assert!(n.total >= n.cost);
        let mut k = i;
        let mut steps = 0;
        while let Some(p) = nodes[k].parent {
            assert!(key(&nodes[p]) <= key(&nodes[k]), "cost falls along parents");
            assert!(nodes[p].closed, "a parent was expanded");
            k = p;
            steps += 1;
            assert!(steps <= nodes.len(), "parent cycle");
        }
        assert_eq!(nodes[k].poly, start);
    }
    // Closed nodes are exactly the polys isInClosedList reports, over every poly of the mesh.
    let nav = q.navmesh();
    let mut polys = Vec::new();
    for t in nav.tiles() {
        for p in t.polys() {
            polys.push(p.poly_ref());
        }
    }
    for p in polys {
        let closed = nodes.iter().any(|n| n.poly == p && n.closed);
        assert_eq!(q.is_in_closed_list(p), closed, "{p}");
    }
}

#[test]
fn detour_search_nodes_are_the_node_pool_after_a_search() {
    use navkit::debug_draw::paths;
    use navkit::query::{NavMeshQuery, PathOptions, QueryFilter, SlicedOptions};
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    assert!(q.search_nodes().is_empty(), "no search yet");
    let mut total_nodes = 0;
    for (s, e) in nav_test_pairs() {
        let path = q
            .path(s, e, &f, &PathOptions::corridor_only())
            .unwrap()
            .corridor;
        let nodes = q.search_nodes();
        assert!(nodes.len() <= 2048);
        check_nodes(&mut q, &nodes, path.polys[0], false);
        // The corridor is the goal node's parent chain (getPathToNode).
        if path.is_complete() {
            let last = *path.polys.last().unwrap();
            let mut k = nodes
                .iter()
                .position(|n| n.poly == last && n.closed)
                .unwrap();
            let mut chain = vec![nodes[k].poly];
            while let Some(p) = nodes[k].parent {
                k = p;
                chain.push(nodes[k].poly);
            }
            chain.reverse();
            assert_eq!(chain, path.polys);
        }
        let l = paths::search_nodes(&nodes);
        assert_eq!(l.name, paths::SEARCH_NODES_LAYER);
        assert_eq!(l.count(PrimitiveKind::Points), nodes.len());
        assert_eq!(l.count(PrimitiveKind::Lines), nodes.len() - 1);
        assert_eq!(
            l.points()
                .filter(|(_, c)| *c == dgrid::CLOSED_COLOR)
                .count(),
            nodes.iter().filter(|n| n.closed).count()
        );
        // Every point is 0.5 above a node's entry point, which lies on its poly.
        for ((p, _), n) in l.points().zip(&nodes) {
            assert_eq!(p, n.pos + Vec3::Y * 0.5);
        }
        total_nodes += nodes.len();

        // The same search sliced: as many expansions as iterations Detour counted (each pops
        // one node; a node popped twice would be reopened, which these searches never do), and
        // the nodes grow between slices.
        let (sp, ep) = (path.polys[0], *path.polys.last().unwrap());
        let mut sl = q
            .begin_sliced_path(sp, ep, s, e, &f, SlicedOptions::default())
            .unwrap();
        let one = sl.update(1).unwrap();
        let after_one = sl.search_nodes();
        assert_eq!(
            after_one.iter().filter(|n| n.closed).count(),
            one.iterations
        );
        let done = sl.run().unwrap();
        let all = sl.search_nodes();
        assert!(all.len() >= after_one.len());
        assert_eq!(
            all.iter().filter(|n| n.closed).count(),
            done.total_iterations
        );
        drop(sl);
    }
    assert!(total_nodes > 100, "{total_nodes}");

    // A Dijkstra search: every node reached is expanded and is one of its results, with its
    // cost and parent.
    let (s, _) = nav_test_pairs()[0];
    let start = q
        .find_nearest_poly(s, navkit::query::DEFAULT_HALF_EXTENTS, &f)
        .unwrap()
        .poly;
    let found = q
        .find_polys_around_circle(start, s, 12.0, &f, 4096)
        .unwrap();
    let nodes = q.search_nodes();
    check_nodes(&mut q, &nodes, start, true);
    assert_eq!(nodes.len(), found.len());
    assert!(nodes.iter().all(|n| n.closed && n.cost == 0.0));
    for c in &found {
        let n = nodes.iter().find(|n| n.poly == c.poly).unwrap();
        assert_eq!(n.total, c.cost);
        let parent = n
            .parent
            .map_or(navkit::query::PolyRef(0), |p| nodes[p].poly);
        assert_eq!(parent, c.parent);
    }
}

#[test]
fn tile_cache_layers_decode_and_draw_as_recastdemo() {
    use navkit::debug_draw::tilecache as dtc;
    use navkit::tilecache::{NO_HEIGHT, NO_REGION, TileCacheSettings, compress_layer_grids};
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let cache = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let set = cache.to_tile_cache_set();
    let layers = cache.decode_layers().unwrap();
    assert_eq!(layers.len(), set.tiles.len());
    let mut floor_cells = 0;
    let mut portal_bits = 0;
    for (layer, (r, data)) in layers.iter().zip(&set.tiles) {
        assert_eq!(layer.tile_ref, *r);
        // Decoding is exact: the grids compress back to the stored stream.
        let mut grids = layer.heights.clone();
        grids.extend(&layer.areas);
        grids.extend(&layer.cons);
        let packed = compress_layer_grids(&grids, set.compression).unwrap();
        assert!(data.ends_with(&packed), "tile {r}");
        assert_eq!(layer.width as i32, set.cache.width);
        // Regions: every floor cell of a walkable area has one below the count; cells without
        // a floor have none; each region is one 4-connected piece.
        let mut cells_of: HashMap<u8, Vec<(usize, usize)>> = HashMap::new();
        for y in 0..layer.height {
            for x in 0..layer.width {
                let i = x + y * layer.width;
                let reg = layer.regions[i];
                if layer.heights[i] == NO_HEIGHT {
                    assert_eq!(reg, NO_REGION);
                    continue;
                }
                floor_cells += 1;
                portal_bits += (layer.cons[i] >> 4).count_ones() as usize;
                if layer.areas[i] != 0 {
                    assert!((reg as usize) < layer.region_count, "tile {r} ({x}, {y})");
                    cells_of.entry(reg).or_default().push((x, y));
                }
            }
        }
        assert_eq!(cells_of.len(), layer.region_count, "tile {r}");
        for (reg, cells) in &cells_of {
            let set: std::collections::HashSet<_> = cells.iter().copied().collect();
            let mut seen = std::collections::HashSet::from([cells[0]]);
            let mut stack = vec![cells[0]];
            while let Some((x, y)) = stack.pop() {
                for (dx, dy) in [(-1i64, 0i64), (1, 0), (0, -1), (0, 1)] {
                    let n = ((x as i64 + dx) as usize, (y as i64 + dy) as usize);
                    if set.contains(&n) && seen.insert(n) {
                        stack.push(n);
                    }
                }
            }
            assert_eq!(
                seen.len(),
                cells.len(),
                "tile {r} region {reg} is in pieces"
            );
        }
    }
    // nav_test has floors over floors: some tile column has several layers.
    let mut per_column: HashMap<(i32, i32), usize> = HashMap::new();
    for l in &layers {
        *per_column.entry((l.tx, l.ty)).or_default() += 1;
    }
    assert!(per_column.values().any(|&n| n > 1));
    assert!(portal_bits > 0);

    // Every navmesh tile Detour built from the cache sits in its layer's tight bounds.
    let nav = cache.navmesh();
    let mut tiles = 0;
    for t in nav.tiles() {
        let c = t.coord();
        let layer = layers
            .iter()
            .find(|l| (l.tx, l.ty, l.tlayer) == (c.x, c.z, c.layer))
            .expect("a layer per navmesh tile");
        let (lo, hi) = dtc::tight_bounds(layer);
        let eps = Vec3::new(layer.cell_size, 0.5, layer.cell_size);
        for v in t.vertices() {
            let v = Vec3::from(*v);
            assert!(
                v.cmpge(lo - eps).all() && v.cmple(hi + eps).all(),
                "{v} outside {lo}..{hi}"
            );
        }
        tiles += 1;
    }
    assert!(tiles > 0);

    let areas = dtc::layer_areas(&layers);
    let regions = dtc::layer_regions(&layers);
    for l in [&areas, &regions] {
        assert_eq!(l.count(PrimitiveKind::Triangles), 2 * floor_cells);
        assert_eq!(
            l.count(PrimitiveKind::Lines),
            12 * layers.len() + portal_bits
        );
    }
    assert_eq!(
        layers.iter().map(|l| l.floor_cells()).sum::<usize>(),
        floor_cells
    );
    // Colours: walkable cells of layer 0 are duLerpCol(duIntToCol(1, 255), (0,192,255,64), 32).
    let l0 = layers.iter().find(|l| l.tlayer == 0).unwrap();
    let expect = Color::from_int(1, 255).lerp(Color::rgba(0, 192, 255, 64), 32);
    assert_eq!(dtc::area_cell_color(l0, navkit::area::WALKABLE), expect);
    assert!(areas.triangles().any(|(_, c)| c == expect));
    // Each quad lies one cell height above its cell's floor.
    let first = areas.triangles().next().unwrap().0;
    let (x, y) = (0..l0.height)
        .flat_map(|y| (0..l0.width).map(move |x| (x, y)))
        .find(|&(x, y)| layers[0].has_floor(x, y))
        .unwrap();
    let corner = layers[0].floor_corner(x, y).unwrap() + Vec3::Y * layers[0].cell_height;
    assert!(first[0].distance(corner) < 1e-4, "{} vs {corner}", first[0]);

    // Bad data is an error saying what, never a panic.
    use navkit::tilecache::DecodedLayer;
    let (r, data) = &set.tiles[0];
    let short = DecodedLayer::decode(*r, &data[..10], &set.cache, set.compression).unwrap_err();
    assert!(short.to_string().contains("header"), "{short}");
    let cut = &data[..data.len() - 3];
    let err = DecodedLayer::decode(*r, cut, &set.cache, set.compression).unwrap_err();
    assert!(err.to_string().contains("decompress"), "{err}");
    let mut other = set.cache;
    other.width += 1;
    let err = DecodedLayer::decode(*r, data, &other, set.compression).unwrap_err();
    assert!(err.to_string().contains("cells"), "{err}");

    let bounds = dtc::tile_bounds(&layers);
    assert_eq!(bounds.count(PrimitiveKind::Triangles), 12 * layers.len());
    assert_eq!(bounds.count(PrimitiveKind::Lines), 12 * layers.len());
}

#[test]
fn tile_cache_layer_contours_and_poly_mesh_are_what_detour_builds_the_tiles_from() {
    use navkit::debug_draw::tilecache as dtc;
    use navkit::tilecache::TileCacheSettings;
    let geom = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let cache = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let layers = cache.decode_layers().unwrap();
    let builds: Vec<_> = layers.iter().map(|l| l.build().unwrap()).collect();
    let nav = cache.navmesh();
    let (mut contour_verts, mut contour_portals) = (0, 0);
    let (mut fan_tris, mut edges, mut mesh_portals, mut mesh_verts) = (0, 0, 0, 0);
    let mut compared = 0;
    for (layer, b) in layers.iter().zip(&builds) {
        // One contour per region.
        assert_eq!(b.contours.len(), layer.region_count);
        for c in &b.contours {
            assert!((c.region as usize) < layer.region_count);
            contour_verts += c.verts.len();
            contour_portals += c.verts.iter().filter(|v| v[3] & 0xf != 0xf).count();
        }
        let m = &b.poly_mesh;
        mesh_verts += m.verts.len();
        for p in &m.polys {
            assert!((3..=6).contains(&p.verts.len()));
            fan_tris += p.verts.len() - 2;
            edges += p.verts.len();
            mesh_portals += p
                .neighbours
                .iter()
                .filter(|&&n| n & 0x8000 != 0 && n & 0xf != 0xf)
                .count();
        }
        // Detour made the navmesh tile of this layer from exactly this poly mesh (no obstacles):
        // same vertices at bmin + v * (cs, ch, cs), same polys.
        let tile = nav.tiles().find(|t| {
            let c = t.coord();
            (c.x, c.z, c.layer) == (layer.tx, layer.ty, layer.tlayer)
        });
        if m.polys.is_empty() {
            assert!(tile.is_none());
            continue;
        }
        let tile = tile.expect("a navmesh tile for a layer with polys");
        assert_eq!(tile.poly_count(), m.polys.len());
        assert_eq!(tile.vertices().len(), m.verts.len());
        for (tv, v) in tile.vertices().iter().zip(&m.verts) {
            let w = layer.world(v[0], v[1], v[2]);
            assert!(Vec3::from(*tv).distance(w) < 1e-4, "{tv:?} vs {w}");
        }
        for (tp, p) in tile.polys().zip(&m.polys) {
            let a: Vec<Vec3> = tp.vertices().collect();
            let b: Vec<Vec3> = p
                .verts
                .iter()
                .map(|&i| {
                    let v = m.verts[i as usize];
                    layer.world(v[0], v[1], v[2])
                })
                .collect();
            assert_eq!(a.len(), b.len());
            assert!(a.iter().zip(&b).all(|(x, y)| x.distance(*y) < 1e-4));
        }
        compared += 1;
    }
    assert!(compared > 10, "{compared}");
    assert!(contour_portals > 0 && mesh_portals > 0);

    let cl = dtc::layer_contours(&layers, &builds);
    assert_eq!(cl.name, dtc::CONTOURS_LAYER);
    assert_eq!(
        cl.count(PrimitiveKind::Lines),
        3 * contour_verts + contour_portals
    );
    assert_eq!(cl.count(PrimitiveKind::Points), contour_verts);
    let ml = dtc::layer_poly_mesh(&layers, &builds);
    assert_eq!(ml.name, dtc::POLY_MESH_LAYER);
    assert_eq!(ml.count(PrimitiveKind::Triangles), fan_tris);
    assert_eq!(ml.count(PrimitiveKind::Lines), edges + mesh_portals);
    assert_eq!(ml.count(PrimitiveKind::Points), mesh_verts);

    // A layer whose grids are cut short is an error, not a crash.
    let mut bad = layers[0].clone();
    bad.heights.truncate(5);
    let err = bad.build().unwrap_err();
    assert!(
        err.to_string().contains("not a layer Detour can build"),
        "{err}"
    );
    assert!(
        err.to_string().contains("heights grid has 5 cells"),
        "{err}"
    );
    // The fields are public: grids the tile cache would refuse never reach Detour's builder
    // (it follows connections unchecked).
    let mut bad = layers[0].clone();
    bad.cons[0] |= 1; // cell (0, 0) connected toward -x, off the layer
    let err = bad.build().unwrap_err();
    assert!(err.to_string().contains("outside the layer"), "{err}");
    let mut bad = layers[0].clone();
    bad.areas[7] = 64;
    let err = bad.build().unwrap_err();
    assert!(err.to_string().contains("area 64 > 63"), "{err}");
    let mut bad = layers[0].clone();
    bad.max_simplification_error = f32::NAN;
    assert!(bad.build().is_err());
}
