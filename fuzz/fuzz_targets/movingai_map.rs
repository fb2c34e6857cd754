//! Moving AI `.map` files: parse; a map that loads is searched with A* and JPS between its
//! first and last passable cells, and both must agree on whether a path exists and its cost.
#![no_main]

use glam::UVec2;
use libfuzzer_sys::fuzz_target;
use navkit::grid::SearchContext;
use navkit::grid::movingai::parse_map;
use navkit::grid::runner::Algorithm;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(grid) = parse_map(data, Path::new("fuzz.map")) else {
        return;
    };
    let (w, h) = (grid.width(), grid.height());
    if u64::from(w) * u64::from(h) > 1 << 16 {
        return;
    }
    let cells = (0..h).flat_map(|y| (0..w).map(move |x| UVec2::new(x, y)));
    let passable: Vec<UVec2> = cells.filter(|&c| grid.is_cell_passable(c)).collect();
    let (Some(&a), Some(&b)) = (passable.first(), passable.last()) else {
        return;
    };
    let mut ctx = SearchContext::with_capacity(0);
    let astar = Algorithm::AStar.find_path(&mut ctx, &grid, a, b);
    let jps = Algorithm::Jps.find_path(&mut ctx, &grid, a, b);
    if let (Ok(x), Ok(y)) = (astar, jps) {
        assert_eq!(
            x.is_complete(),
            y.is_complete(),
            "A* and JPS disagree on reachability {a} -> {b}"
        );
        if x.is_complete() {
            assert!(
                (x.cost - y.cost).abs() <= 1e-6 * x.cost.max(1.0),
                "A* cost {} and JPS cost {} differ for {a} -> {b}",
                x.cost,
                y.cost
            );
        }
    }
});
