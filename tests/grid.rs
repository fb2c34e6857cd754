//! Grid A* and JPS on small and random grids: every option against a plain Dijkstra, bad
//! endpoints (errors), unreachable goals (partial paths), water, weights, and the reusable
//! context.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[path = "common/random_grid.rs"]
mod random_grid;
use random_grid::random_grid;

use glam::UVec2;
use navkit::grid::{
    CornerCutting, CostModel, Grid, SearchContext, SearchOptions, SearchResult, astar, jps,
    path::simplify,
};
use navkit::{Error, PathStatus};

/// Dijkstra over `Grid::can_move` and `Grid::path_cost`: the reference distance.
fn dijkstra(grid: &Grid, s: UVec2, g: UVec2, o: &SearchOptions) -> Option<f64> {
    let (w, h) = (grid.width(), grid.height());
    let idx = |c: UVec2| (c.y * w + c.x) as usize;
    let mut dist = vec![f64::INFINITY; (w * h) as usize];
    let mut heap = BinaryHeap::new();
    dist[idx(s)] = 0.0;
    heap.push(Reverse((0u64, s.x, s.y)));
    while let Some(Reverse((d, x, y))) = heap.pop() {
        let d = f64::from_bits(d);
        let c = UVec2::new(x, y);
        if c == g {
            return Some(d);
        }
        if d > dist[idx(c)] {
            continue;
        }
        for dy in -1i32..=1 {
            for dx in -1i32..=1 {
                let (nx, ny) = (x as i32 + dx, y as i32 + dy);
                if nx < 0 || ny < 0 || (dx == 0 && dy == 0) {
                    continue;
                }
                let n = UVec2::new(nx as u32, ny as u32);
                if !grid.contains(n) {
                    continue;
                }
                if let Some(step) = grid.path_cost(&[c, n], o) {
                    let nd = d + step;
                    if nd < dist[idx(n)] {
                        dist[idx(n)] = nd;
                        heap.push(Reverse((nd.to_bits(), n.x, n.y)));
                    }
                }
            }
        }
    }
    None
}

/// The cells reachable from `s` by the moves `o` allows (`Grid::path_cost` of one step).
fn reachable(grid: &Grid, s: UVec2, o: &SearchOptions) -> Vec<UVec2> {
    let mut seen = vec![s];
    let mut todo = vec![s];
    while let Some(c) = todo.pop() {
        for dy in -1i32..=1 {
            for dx in -1i32..=1 {
                let (nx, ny) = (c.x as i32 + dx, c.y as i32 + dy);
                if nx < 0 || ny < 0 || (dx == 0 && dy == 0) {
                    continue;
                }
                let n = UVec2::new(nx as u32, ny as u32);
                if grid.contains(n) && !seen.contains(&n) && grid.path_cost(&[c, n], o).is_some() {
                    seen.push(n);
                    todo.push(n);
                }
            }
        }
    }
    seen
}

/// The octile distance from `c` to `g` (the heuristic, unweighted), in fixed point.
fn to_goal(c: UVec2, g: UVec2, o: &SearchOptions) -> u64 {
    o.cost_model
        .octile_fixed(c.x.abs_diff(g.x), c.y.abs_diff(g.y))
}

/// Checks a partial result `r` of a search from `s` toward `g` with the path `cells`: a real
/// path (it starts at the start, its moves are valid, `r.cost` is its cost) to a cell no
/// farther from the goal than the start. Gives the cell the path ends at.
fn assert_partial_path(
    grid: &Grid,
    cells: &[UVec2],
    r: &SearchResult,
    (s, g): (UVec2, UVec2),
    o: &SearchOptions,
    what: &str,
) -> UVec2 {
    assert_eq!(r.status, PathStatus::Partial, "{what}");
    assert!(!r.is_complete(), "{what}");
    assert_eq!(
        cells.first(),
        Some(&s),
        "{what}: the path starts at the start"
    );
    let end = *cells.last().unwrap();
    assert_ne!(end, g, "{what}");
    let c = grid.path_cost(cells, o).expect("valid moves");
    assert!((c - r.cost).abs() < 1e-9, "{what}: cost {} vs {c}", r.cost);
    assert!(
        to_goal(end, g, o) <= to_goal(s, g, o),
        "{what}: {end} is farther"
    );
    end
}

fn passable_cells(g: &Grid) -> Vec<UVec2> {
    (0..g.height())
        .flat_map(|y| (0..g.width()).map(move |x| UVec2::new(x, y)))
        .filter(|&c| g.is_cell_passable(c))
        .collect()
}

#[test]
fn astar_and_jps_match_dijkstra_on_random_grids_for_every_option() {
    let mut ctx = SearchContext::new();
    let mut jctx = SearchContext::new();
    let (mut checked, mut unreachable) = (0, 0);
    for seed in 0..40u64 {
        let (w, h) = (5 + (seed % 7) as u32 * 6, 4 + (seed % 5) as u32 * 7);
        let mut grid = random_grid(w, h, 10 + seed % 4 * 10, 0, seed);
        let cells = passable_cells(&grid);
        if cells.len() < 2 {
            continue;
        }
        let pairs: Vec<(UVec2, UVec2)> = (0..12)
            .map(|i| {
                let a = cells[(i * 7919 + seed as usize * 31) % cells.len()];
                let b = cells[(i * 104_729 + 17) % cells.len()];
                (a, b)
            })
            .collect();
        for weighted in [false, true] {
            if weighted {
                // Some expensive cells and some cheaper than 1 (the heuristic scales down).
                for (i, c) in cells.iter().enumerate() {
                    if i % 5 == 0 {
                        grid.set_weight(*c, 3.5).unwrap();
                    } else if i % 11 == 0 {
                        grid.set_weight(*c, 0.5).unwrap();
                    }
                }
            }
            for cost_model in [CostModel::Octile, CostModel::Integer] {
                for cc in [
                    CornerCutting::Never,
                    CornerCutting::IfOneSideFree,
                    CornerCutting::Always,
                ] {
                    let o = SearchOptions {
                        cost_model,
                        corner_cutting: cc,
                    };
                    for &(s, g) in &pairs {
                        let want = dijkstra(&grid, s, g, &o);
                        let r = astar::find_path(&mut ctx, &grid, s, g, &o).unwrap();
                        match want {
                            Some(d) => {
                                assert_eq!(r.status, PathStatus::Complete, "seed {seed} {o:?}");
                                assert!(
                                    (r.cost - d).abs() < 1e-9,
                                    "seed {seed} {o:?}: {} vs {d}",
                                    r.cost
                                );
                                let cells = ctx.path_cells(&grid);
                                assert_eq!((cells[0], *cells.last().unwrap()), (s, g));
                                let c = grid.path_cost(&cells, &o).expect("valid moves");
                                assert!((c - r.cost).abs() < 1e-9);
                            }
                            None => {
                                // Partial: to the reachable cell nearest the goal (A* ran the
                                // start's whole component dry).
                                let what = format!("seed {seed} {o:?} {s} -> {g}");
                                let cells = ctx.path_cells(&grid);
                                let end = assert_partial_path(&grid, &cells, &r, (s, g), &o, &what);
                                let nearest = reachable(&grid, s, &o)
                                    .iter()
                                    .map(|&c| to_goal(c, g, &o))
                                    .min()
                                    .unwrap();
                                assert_eq!(to_goal(end, g, &o), nearest, "{what}");
                                unreachable += 1;
                            }
                        }
                        let jr = jps::find_path(&mut jctx, &grid, s, g, &o);
                        if weighted || cc != CornerCutting::Never {
                            assert!(jr.is_err(), "JPS refuses weights and corner cutting");
                        } else {
                            let jr = jr.unwrap();
                            assert_eq!(jr.status, r.status, "seed {seed} {s} -> {g}");
                            let cells = jctx.path_cells(&grid);
                            if jr.status == PathStatus::Complete {
                                assert!((jr.cost - r.cost).abs() < 1e-9, "seed {seed} {s} -> {g}");
                                assert_eq!((cells[0], *cells.last().unwrap()), (s, g));
                                let c = grid.path_cost(&cells, &o).expect("valid moves");
                                assert!((c - jr.cost).abs() < 1e-9);
                            } else {
                                // JPS's partial path ends at a jump point: not compared with
                                // A*'s, but a real path all the same.
                                let what = format!("JPS seed {seed} {s} -> {g}");
                                assert_partial_path(&grid, &cells, &jr, (s, g), &o, &what);
                            }
                            assert!(jctx.jump_points().len() <= cells.len());
                        }
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 4000, "{checked}");
    assert!(unreachable > 100, "{unreachable} unreachable goals");
}

#[test]
fn bad_endpoints_are_errors_and_unreachable_goals_partial() {
    let grid = Grid::from_ascii(
        "..@..
         ..@..
         ..@..",
    )
    .unwrap();
    let mut ctx = SearchContext::new();
    let o = SearchOptions::default();
    let p = UVec2::new;
    // Blocked or off-grid ends: an error naming the end and its cell.
    let cases = [
        (p(2, 0), p(0, 0), "start", p(2, 0), false),
        (p(0, 0), p(2, 1), "goal", p(2, 1), false),
        (p(5, 0), p(0, 0), "start", p(5, 0), true),
        (p(0, 0), p(0, 3), "goal", p(0, 3), true),
        (
            p(u32::MAX, u32::MAX),
            p(0, 0),
            "start",
            p(u32::MAX, u32::MAX),
            true,
        ),
    ];
    for (s, g, argument, cell, outside) in cases {
        let want = |e: &Error| {
            matches!(e, Error::BlockedCell { argument: a, cell: c, outside: o }
                if *a == argument && *c == cell && *o == outside)
        };
        // A search before leaves a path: the failed search clears it.
        astar::find_path(&mut ctx, &grid, p(0, 0), p(1, 2), &o).unwrap();
        let e = astar::find_path(&mut ctx, &grid, s, g, &o).unwrap_err();
        assert!(want(&e), "{s} -> {g}: {e:?}");
        assert!(ctx.path().is_empty());
        astar::find_path(&mut ctx, &grid, p(0, 0), p(1, 2), &o).unwrap();
        let e = jps::find_path(&mut ctx, &grid, s, g, &o).unwrap_err();
        assert!(want(&e), "{s} -> {g}: {e:?}");
        assert!(ctx.path().is_empty());
    }
    // Across the wall: partial, to the cell nearest the goal on the start's side.
    let (s, g) = (p(0, 0), p(4, 0));
    let r = astar::find_path(&mut ctx, &grid, s, g, &o).unwrap();
    let end = assert_partial_path(&grid, &ctx.path_cells(&grid), &r, (s, g), &o, "A*");
    assert_eq!(end, p(1, 0));
    assert_eq!(r.cost, 1.0);
    let r = jps::find_path(&mut ctx, &grid, s, g, &o).unwrap();
    assert_partial_path(&grid, &ctx.path_cells(&grid), &r, (s, g), &o, "JPS");
    // Start == goal: a one-cell path of cost 0.
    let r = astar::find_path(&mut ctx, &grid, p(1, 1), p(1, 1), &o).unwrap();
    assert!(r.is_complete() && r.cost == 0.0);
    assert_eq!(ctx.path_cells(&grid), vec![p(1, 1)]);
    let r = jps::find_path(&mut ctx, &grid, p(1, 1), p(1, 1), &o).unwrap();
    assert!(r.is_complete() && r.cost == 0.0);
    // Bad grids and weights.
    assert!(Grid::new(0, 5).is_err());
    assert!(Grid::new(1 << 15, 1 << 15).is_err());
    assert!(Grid::from_ascii("..\n.").is_err());
    assert!(Grid::from_ascii(".x").is_err());
    let mut g = Grid::new(2, 2).unwrap();
    assert!(g.set_weight(p(0, 0), f32::NAN).is_err());
    assert!(g.set_weight(p(0, 0), -1.0).is_err());
    assert!(g.set_weight(p(7, 0), 2.0).is_err());
}

#[test]
fn water_is_passable_only_from_water() {
    let grid = Grid::from_ascii(
        "..WW..
         ..WW..",
    )
    .unwrap();
    let mut ctx = SearchContext::new();
    let o = SearchOptions::default();
    let p = UVec2::new;
    // Land to land across the water: partial, to the land cell nearest the goal.
    let (s, g) = (p(0, 0), p(5, 1));
    let r = astar::find_path(&mut ctx, &grid, s, g, &o).unwrap();
    let end = assert_partial_path(&grid, &ctx.path_cells(&grid), &r, (s, g), &o, "land");
    assert_eq!(end, p(1, 1));
    // Land to water: partial, the start's side only.
    let (s, g) = (p(1, 0), p(2, 0));
    let r = astar::find_path(&mut ctx, &grid, s, g, &o).unwrap();
    let end = assert_partial_path(&grid, &ctx.path_cells(&grid), &r, (s, g), &o, "to water");
    assert_eq!(end.x, 1);
    let r = astar::find_path(&mut ctx, &grid, p(2, 0), p(3, 1), &o).unwrap();
    assert!(r.is_complete() && (r.cost - std::f64::consts::SQRT_2).abs() < 1e-12);
    let r = jps::find_path(&mut ctx, &grid, p(2, 0), p(3, 1), &o).unwrap();
    assert!(r.is_complete() && (r.cost - std::f64::consts::SQRT_2).abs() < 1e-12);
    // JPS: partial too (here the start alone: the goal is another terrain class).
    let (s, g) = (p(0, 0), p(2, 0));
    let r = jps::find_path(&mut ctx, &grid, s, g, &o).unwrap();
    assert_partial_path(
        &grid,
        &ctx.path_cells(&grid),
        &r,
        (s, g),
        &o,
        "JPS to water",
    );
    assert_eq!(ctx.path_cells(&grid), vec![s]);
    let r = jps::find_path(&mut ctx, &grid, p(0, 0), p(5, 1), &o).unwrap();
    assert_eq!(r.status, PathStatus::Partial);
}

#[test]
fn corner_cutting_rules_and_cost_models() {
    // Two blocked cells touching at a corner, and one beside a diagonal.
    let grid = Grid::from_ascii(
        ".@
         @.",
    )
    .unwrap();
    let p = UVec2::new;
    let mut ctx = SearchContext::new();
    let never = SearchOptions::default();
    // Without cutting the corner the start is all one reaches: a partial path of one cell.
    let one = never.with_corner_cutting(CornerCutting::IfOneSideFree);
    for o in [never, one] {
        let r = astar::find_path(&mut ctx, &grid, p(0, 0), p(1, 1), &o).unwrap();
        assert_eq!((r.status, r.cost), (PathStatus::Partial, 0.0), "{o:?}");
        assert_eq!(ctx.path_cells(&grid), vec![p(0, 0)], "{o:?}");
    }
    let always = never.with_corner_cutting(CornerCutting::Always);
    assert!(
        astar::find_path(&mut ctx, &grid, p(0, 0), p(1, 1), &always)
            .unwrap()
            .is_complete()
    );

    let grid = Grid::from_ascii(
        "..
         @.",
    )
    .unwrap();
    // Never: around the corner (2 straight moves); one side free: the diagonal.
    assert_eq!(
        astar::find_path(&mut ctx, &grid, p(0, 0), p(1, 1), &never)
            .unwrap()
            .cost,
        2.0
    );
    let r = astar::find_path(&mut ctx, &grid, p(0, 0), p(1, 1), &one).unwrap();
    assert!((r.cost - std::f64::consts::SQRT_2).abs() < 1e-12);
    // The integer model: 10 and 14.
    let open = Grid::new(6, 3).unwrap();
    let r = astar::find_path(&mut ctx, &open, p(0, 0), p(5, 2), &SearchOptions::integer()).unwrap();
    assert_eq!(r.cost, 2.0 * 14.0 + 3.0 * 10.0);
}

/// Corner cutting as an option, against hand-derived lengths. Two blocked cells on the main
/// diagonal of a 4x4 grid:
///
/// ```text
/// ....
/// .@..
/// ..@.
/// ....
/// ```
///
/// (0,0) -> (3,3): a straight pair plus two diagonals (2 + 2 sqrt 2) needs diagonals past one
/// blocked cell, (1,0) -> (2,1) -> (3,2); without corner cutting (Moving AI's rule) a diagonal
/// needs both side cells free, and the best is round the corner, (0,0) (1,0) (2,0) (3,1) (3,2)
/// (3,3): 4 + sqrt 2. (0,3) -> (3,0): the anti-diagonal (3 sqrt 2) squeezes between the two
/// blocked cells, (1,2) -> (2,1), which only `Always` allows; with one side free the best is
/// 4 straight moves and one diagonal past a blocked cell, (0,1) -> (1,0) (4 + sqrt 2: every
/// order of two diagonals, one north and one east move meets a blocked cell or that squeeze);
/// with no corner cutting, only the 6 straight moves round the edge.
#[test]
fn corner_cutting_shortens_paths_by_hand_derived_lengths() {
    let grid = Grid::from_ascii(
        "....
         .@..
         ..@.
         ....",
    )
    .unwrap();
    let p = UVec2::new;
    let r2 = std::f64::consts::SQRT_2;
    let never = SearchOptions::default();
    let one = never.with_corner_cutting(CornerCutting::IfOneSideFree);
    let always = never.with_corner_cutting(CornerCutting::Always);
    let mut ctx = SearchContext::new();
    for (s, g, o, want) in [
        (p(0, 0), p(3, 3), never, 4.0 + r2),
        (p(0, 0), p(3, 3), one, 2.0 + 2.0 * r2),
        (p(0, 0), p(3, 3), always, 2.0 + 2.0 * r2),
        (p(0, 3), p(3, 0), never, 6.0),
        (p(0, 3), p(3, 0), one, 4.0 + r2),
        (p(0, 3), p(3, 0), always, 3.0 * r2),
    ] {
        let r = astar::find_path(&mut ctx, &grid, s, g, &o).unwrap();
        let what = format!("{s} -> {g} {:?}", o.corner_cutting);
        assert!(r.is_complete(), "{what}");
        assert!((r.cost - want).abs() < 1e-9, "{what}: {} vs {want}", r.cost);
        // The path is made of moves the rule allows, and costs what the search says.
        let cells = ctx.path_cells(&grid);
        let cost = grid.path_cost(&cells, &o).expect("allowed moves");
        assert!((cost - r.cost).abs() < 1e-9, "{what}");
        // A path shorter than the no-cutting one cuts a corner: not a path under Moving AI's rule.
        if want < dijkstra(&grid, s, g, &never).unwrap() - 1e-9 {
            assert_eq!(grid.path_cost(&cells, &never), None, "{what}");
        }
        // The reference Dijkstra over `Grid::can_move` agrees.
        assert!(
            (dijkstra(&grid, s, g, &o).unwrap() - want).abs() < 1e-9,
            "{what}"
        );
    }
    // JPS supports only Moving AI's rule.
    let e = jps::find_path(&mut ctx, &grid, p(0, 0), p(3, 3), &one).unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}

#[test]
fn weights_steer_around_expensive_cells() {
    let mut grid = Grid::new(7, 3).unwrap();
    let p = UVec2::new;
    for x in 1..6 {
        grid.set_weight(p(x, 1), 10.0).unwrap();
    }
    let mut ctx = SearchContext::new();
    let r = astar::find_path(&mut ctx, &grid, p(0, 1), p(6, 1), &SearchOptions::default()).unwrap();
    assert!(r.is_complete());
    let cells = ctx.path_cells(&grid);
    assert!(
        cells[1..cells.len() - 1].iter().all(|c| c.y != 1),
        "{cells:?}"
    );
    assert!(
        (r.cost - (2.0 * std::f64::consts::SQRT_2 + 4.0)).abs() < 1e-9,
        "{}",
        r.cost
    );
    grid.clear_weights();
    let r = astar::find_path(&mut ctx, &grid, p(0, 1), p(6, 1), &SearchOptions::default()).unwrap();
    assert_eq!(r.cost, 6.0);
}

#[test]
fn simplified_paths_keep_corners_and_goal() {
    let grid = Grid::from_ascii(
        "......
         .@@@@.
         ......",
    )
    .unwrap();
    let mut ctx = SearchContext::new();
    let p = UVec2::new;
    let r = astar::find_path(&mut ctx, &grid, p(0, 2), p(5, 0), &SearchOptions::default()).unwrap();
    assert!(r.is_complete());
    let cells = ctx.path_cells(&grid);
    let wps = simplify(&cells);
    assert_eq!(wps.first(), Some(&p(0, 2)));
    assert_eq!(wps.last(), Some(&p(5, 0)));
    // Every waypoint is a cell of the path where the direction changes (or an end).
    for w in &wps[1..wps.len() - 1] {
        let i = cells.iter().position(|c| c == w).unwrap();
        let d1 = cells[i].as_ivec2() - cells[i - 1].as_ivec2();
        let d2 = cells[i + 1].as_ivec2() - cells[i].as_ivec2();
        assert_ne!(d1, d2, "{w} is not a corner");
    }
}

#[test]
fn the_context_is_reused_across_grids_of_different_sizes() {
    let mut ctx = SearchContext::new();
    let o = SearchOptions::default();
    let p = UVec2::new;
    for (w, h) in [(50, 50), (3, 3), (80, 20), (3, 3)] {
        let g = Grid::new(w, h).unwrap();
        for _ in 0..3 {
            let r = astar::find_path(&mut ctx, &g, p(0, 0), p(w - 1, h - 1), &o).unwrap();
            assert!(r.is_complete());
            assert!((r.cost - CostModel::Octile.octile(w - 1, h - 1)).abs() < 1e-9);
            // Straight-line open grid: ties on h make A* go straight for the goal.
            assert_eq!(r.expanded as usize, ctx.path().len());
        }
    }
}

/// Random and mutated `.map` / `.scen` bytes: always a result or a parse error, never a panic;
/// whatever parses can be searched (with the scenario runner) without a panic either.
#[test]
fn malformed_map_and_scen_bytes_never_panic() {
    use navkit::grid::Algorithm;
    use navkit::grid::movingai::{parse_map, parse_scen};
    use navkit::grid::runner::run_scenarios;
    use std::path::Path;
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let map_seed = b"type octile\nheight 4\nwidth 5\nmap\n..@..\n.W@T.\n.WW..\nS...G\n".to_vec();
    let scen_seed = b"version 1\n0\tm.map\t5\t4\t0\t0\t4\t3\t5.82842712\n1\tm.map\t5\t4\t1\t1\t0\t3\t2.41421356\n".to_vec();
    let alphabet = b" \t\n\r.@WTOGS0123456789-+e.xyzmapheightwidthtypeoctileversion\xff";
    let (mut parsed_maps, mut parsed_scens) = (0, 0);
    for round in 0..4000 {
        let mutate = |seed: &[u8], next: &mut dyn FnMut() -> u64| -> Vec<u8> {
            let mut v = seed.to_vec();
            for _ in 0..1 + next() % 4 {
                let i = (next() as usize) % (v.len() + 1);
                let c = alphabet[(next() as usize) % alphabet.len()];
                match next() % 3 {
                    0 if i < v.len() => v[i] = c,
                    1 => v.insert(i.min(v.len()), c),
                    _ if i < v.len() => {
                        v.remove(i);
                    }
                    _ => {}
                }
            }
            v
        };
        let map_bytes = if round % 2 == 1 {
            // Keep the map valid but change its cells: blocked starts and goals, water.
            let mut v = map_seed.clone();
            for _ in 0..1 + next() % 6 {
                let i = 34 + (next() as usize) % (v.len() - 34);
                if v[i] != b'\n' {
                    v[i] = b".@WTOGS"[(next() as usize) % 7];
                }
            }
            v
        } else if round % 10 == 0 {
            (0..next() % 64)
                .map(|_| alphabet[(next() as usize) % alphabet.len()])
                .collect()
        } else {
            mutate(&map_seed, &mut next)
        };
        let scen_bytes = mutate(&scen_seed, &mut next);
        let map = parse_map(&map_bytes, Path::new("fuzz.map"));
        let scen = parse_scen(&scen_bytes, Path::new("fuzz.scen"));
        if let Err(e) = &map {
            assert!(e.to_string().contains("fuzz.map"), "{e}");
        }
        if let Err(e) = &scen {
            assert!(e.to_string().contains("fuzz.scen"), "{e}");
        }
        parsed_maps += map.is_ok() as u32;
        parsed_scens += scen.is_ok() as u32;
        if let (Ok(map), Ok(scen)) = (map, scen) {
            for algo in [Algorithm::AStar, Algorithm::Jps] {
                let r = run_scenarios(&map, &scen, algo);
                assert_eq!(r.total.problems as usize, scen.problems.len());
            }
        }
    }
    // The mutations exercise both paths.
    println!("parsed {parsed_maps} maps and {parsed_scens} scenarios of 4000");
    assert!(parsed_maps > 20 && parsed_maps < 3900, "{parsed_maps}");
    assert!(parsed_scens > 20 && parsed_scens < 3900, "{parsed_scens}");
}
