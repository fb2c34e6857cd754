//! JPS+ (`navkit::grid::jps_plus`): straight jumps read from a table precomputed per grid must
//! find the same jump points as JPS's bit-row scans, so the same results; and its lengths are
//! the Moving AI scenario files' optimal lengths.

#[path = "common/random_grid.rs"]
mod random_grid;
use random_grid::random_grid;

use glam::UVec2;
use navkit::grid::jps_plus::{self, JumpTable};
use navkit::grid::movingai::{load_map, load_scen};
use navkit::grid::runner::LENGTH_TOLERANCE;
use navkit::grid::{CornerCutting, Grid, SearchContext, SearchOptions, jps};
use navkit::{Error, PathStatus};
use std::path::Path;

/// Random grids (sizes from 1 cell wide to wider than a 64-bit word, obstacle densities from
/// none to most, with and without water): every pair of a sample of passable cells gives the
/// same status, cost, expansions, path and jump points with JPS+ as with JPS (which the grid
/// tests check against Dijkstra), complete and partial paths alike.
#[test]
fn same_results_as_jps_on_random_grids() {
    let o = SearchOptions::default();
    let (mut ctx, mut jctx) = (SearchContext::new(), SearchContext::new());
    let (mut pairs, mut partial) = (0, 0);
    for (seed, (w, h, blocked, water)) in [
        (1, 1, 0, 0),
        (1, 9, 20, 0),
        (9, 1, 20, 0),
        (7, 7, 0, 0),
        (12, 9, 25, 0),
        (70, 5, 15, 0),
        (5, 70, 15, 0),
        (40, 40, 35, 0),
        (30, 30, 20, 20),
        (131, 67, 10, 5),
    ]
    .into_iter()
    .enumerate()
    {
        let grid = random_grid(w, h, blocked, water, seed as u64 + 1);
        let table = JumpTable::new(&grid).unwrap();
        let cells: Vec<UVec2> = (0..h)
            .flat_map(|y| (0..w).map(move |x| UVec2::new(x, y)))
            .filter(|&c| grid.is_cell_passable(c))
            .collect();
        let step = cells.len().div_ceil(40).max(1);
        for &s in cells.iter().step_by(step) {
            for &g in cells.iter().step_by(step) {
                let want = jps::find_path(&mut ctx, &grid, s, g, &o).unwrap();
                let got = jps_plus::find_path(&mut jctx, &table, s, g, &o).unwrap();
                let what = format!("{w}x{h} seed {seed}: {s} -> {g}");
                assert_eq!(got, want, "{what}");
                assert_eq!(jctx.path(), ctx.path(), "{what}");
                assert_eq!(jctx.jump_points(), ctx.jump_points(), "{what}");
                pairs += 1;
                partial += (want.status == PathStatus::Partial) as usize;
            }
        }
    }
    // Both kinds of result were compared (measured: 9,106 pairs, 1,940 of them partial).
    assert!(
        pairs > 8_000 && partial > 1_500,
        "{pairs} pairs, {partial} partial"
    );
}

/// Every 5th problem of every Moving AI scenario file in `../shared/movingai`: JPS+ finds the
/// file's optimal length (tolerance 5e-3, as the scenario runner's), with as many expansions
/// as JPS.
#[test]
fn optimal_on_the_moving_ai_scenarios() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/movingai");
    let o = SearchOptions::default();
    let (mut ctx, mut jctx) = (SearchContext::new(), SearchContext::new());
    let mut checked = 0;
    for set in [
        "cities/Berlin_0_256",
        "dao/arena",
        "dao/den312d",
        "mazes/maze512-1-0",
        "random/random512-10-0",
        "rooms/16room_000",
    ] {
        let grid = load_map(dir.join(format!("maps/{set}.map"))).unwrap();
        let scen = load_scen(dir.join(format!("scenarios/{set}.map.scen"))).unwrap();
        let table = JumpTable::new(&grid).unwrap();
        for p in scen.problems.iter().step_by(5) {
            let r = jps_plus::find_path(&mut jctx, &table, p.start, p.goal, &o).unwrap();
            assert!(r.is_complete(), "{set} line {}", p.line);
            assert!(
                (r.cost - p.optimal_length).abs() <= LENGTH_TOLERANCE,
                "{set} line {}: {} vs optimal {}",
                p.line,
                r.cost,
                p.optimal_length
            );
            let j = jps::find_path(&mut ctx, &grid, p.start, p.goal, &o).unwrap();
            assert_eq!(r.expanded, j.expanded, "{set} line {}", p.line);
            checked += 1;
        }
    }
    // 16,900 problems in the sample's six files (tests/movingai.rs counts them), every 5th.
    assert!(checked >= 3_380, "{checked}");
}

/// The same refusals as JPS: weighted grids and corner cutting are not supported; blocked
/// endpoints are errors.
#[test]
fn unsupported_options_and_blocked_cells_are_errors() {
    let mut grid = Grid::from_ascii("...\n.@.\n...").unwrap();
    let p = UVec2::new;
    let mut ctx = SearchContext::new();
    {
        let table = JumpTable::new(&grid).unwrap();
        let cut = SearchOptions::default().with_corner_cutting(CornerCutting::IfOneSideFree);
        let e = jps_plus::find_path(&mut ctx, &table, p(0, 0), p(2, 2), &cut).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let o = SearchOptions::default();
        let e = jps_plus::find_path(&mut ctx, &table, p(0, 0), p(1, 1), &o).unwrap_err();
        assert!(matches!(e, Error::BlockedCell { .. }), "{e}");
        // Around the centre block: every diagonal move passes it (no corner cutting), so 4
        // straight moves (hand-derived).
        let r = jps_plus::find_path(&mut ctx, &table, p(0, 0), p(2, 2), &o).unwrap();
        assert_eq!((r.status, r.cost), (PathStatus::Complete, 4.0), "{r:?}");
    }
    grid.set_weight(p(0, 1), 2.0).unwrap();
    let table = JumpTable::new(&grid).unwrap();
    let e = jps_plus::find_path(
        &mut ctx,
        &table,
        p(0, 0),
        p(2, 2),
        &SearchOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
}
