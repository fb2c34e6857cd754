//! Moving AI `.scen` files: parse; a scenario that loads is run (A* and JPS) on a small fixed
//! map, whatever map size its lines declare.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::grid::Grid;
use navkit::grid::movingai::parse_scen;
use navkit::grid::runner::{Algorithm, run_scenarios};
use std::path::Path;
use std::sync::OnceLock;

fn map() -> &'static Grid {
    static M: OnceLock<Grid> = OnceLock::new();
    M.get_or_init(|| {
        Grid::from_ascii(
            "..........\n\
             ..@@@@....\n\
             ..@..@..T.\n\
             .....@....\n\
             ..@@@@.W..\n\
             ..........\n",
        )
        .unwrap()
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(scen) = parse_scen(data, Path::new("fuzz.scen")) else {
        return;
    };
    if scen.problems.len() > 256 {
        return;
    }
    for algo in [Algorithm::AStar, Algorithm::Jps] {
        let _ = run_scenarios(map(), &scen, algo);
    }
});
