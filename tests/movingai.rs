//! Every Moving AI scenario in `../shared/movingai`: A* and JPS find the file's optimal length
//! for every problem (absolute tolerance 5e-3), and their paths are valid and agree.
//!
//! `NAVKIT_MOVINGAI_SAMPLE=N` (N >= 1) runs every Nth problem of each file instead of all of
//! them (the first problem, then every Nth after it), for slow builds such as the
//! AddressSanitizer run of `scripts/asan.sh`; unset or 1 runs every problem.

use navkit::grid::movingai::{Scenario, load_map, load_scen};
use navkit::grid::runner::{LENGTH_TOLERANCE, render_table, run_scenarios_with};
use navkit::grid::{Algorithm, Grid, SearchContext, SearchOptions};
use std::path::{Path, PathBuf};

fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/movingai")
}

/// All `(map, scen)` pairs: `scenarios/<set>/<name>.map.scen` with `maps/<set>/<name>.map`.
fn scenario_files() -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    let scen_root = data_dir().join("scenarios");
    let mut sets: Vec<_> = std::fs::read_dir(&scen_root)
        .unwrap_or_else(|e| panic!("{}: {e}", scen_root.display()))
        .map(|e| e.unwrap().path())
        .collect();
    sets.sort();
    for set in sets {
        let mut files: Vec<_> = std::fs::read_dir(&set)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for scen in files {
            let name = scen.file_name().unwrap().to_str().unwrap();
            let Some(map_name) = name.strip_suffix(".scen") else {
                continue;
            };
            let map = data_dir()
                .join("maps")
                .join(set.file_name().unwrap())
                .join(map_name);
            out.push((map, scen));
        }
    }
    out
}

fn load(set: &str, name: &str) -> (Grid, Scenario) {
    let dir = data_dir();
    let map = load_map(dir.join(format!("maps/{set}/{name}.map"))).unwrap();
    let scen = load_scen(dir.join(format!("scenarios/{set}/{name}.map.scen"))).unwrap();
    (map, scen)
}

/// The stride of `NAVKIT_MOVINGAI_SAMPLE` (1 if unset); anything else than a positive integer
/// fails the test rather than silently running everything.
fn sample_stride() -> usize {
    match std::env::var("NAVKIT_MOVINGAI_SAMPLE") {
        Err(std::env::VarError::NotPresent) => 1,
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => n,
            _ => panic!("NAVKIT_MOVINGAI_SAMPLE={v:?}: expected a positive integer"),
        },
        Err(e) => panic!("NAVKIT_MOVINGAI_SAMPLE: {e}"),
    }
}

fn check_all(set: &str, name: &str, expected_problems: usize) {
    let (map, mut scen) = load(set, name);
    assert_eq!(scen.problems.len(), expected_problems, "{set}/{name}");
    let stride = sample_stride();
    if stride > 1 {
        scen.problems = scen.problems.into_iter().step_by(stride).collect();
        eprintln!(
            "{set}/{name}: NAVKIT_MOVINGAI_SAMPLE={stride}: {} of {expected_problems} problems",
            scen.problems.len()
        );
    }
    let expected_problems = scen.problems.len();
    let mut ctx = SearchContext::new();
    let mut expanded = Vec::new();
    // Big files are split over the cores (each part with its own context); every problem is run.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parts: Vec<Scenario> = scen
        .problems
        .chunks(scen.problems.len().div_ceil(threads).max(1))
        .map(|c| Scenario {
            problems: c.to_vec(),
        })
        .collect();
    for algo in [Algorithm::AStar, Algorithm::Jps] {
        let reports: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = parts
                .iter()
                .map(|part| {
                    let map = &map;
                    s.spawn(move || run_scenarios_with(&mut SearchContext::new(), map, part, algo))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let problems: u64 = reports.iter().map(|r| r.total.problems).sum();
        let total_expanded: u64 = reports.iter().map(|r| r.total.expanded).sum();
        let max_err = reports
            .iter()
            .map(|r| r.total.max_abs_error)
            .fold(0.0, f64::max);
        expanded.push(total_expanded);
        assert_eq!(problems as usize, expected_problems);
        for report in &reports {
            assert!(
                report.all_optimal(),
                "{set}/{name} {algo}:\n{}",
                render_table(report)
            );
        }
        assert!(max_err <= LENGTH_TOLERANCE);
        eprintln!(
            "{set}/{name} {algo}: {problems} problems, {total_expanded} expanded, max err {max_err:.2e}"
        );
    }
    // JPS expands fewer nodes overall (not on every problem: ties can go either way).
    assert!(
        expanded[1] < expanded[0],
        "{set}/{name}: jps {} vs astar {}",
        expanded[1],
        expanded[0]
    );
    // Paths are valid move sequences whose cost is the reported one, from start to goal; A*
    // and JPS agree on the cost (checked on every 7th problem of the file to keep the test
    // fast; when sampled, on every sampled problem up to that density).
    let options = SearchOptions::default();
    let mut ctx2 = SearchContext::new();
    for p in scen.problems.iter().step_by(7usize.div_ceil(stride)) {
        let a = Algorithm::AStar
            .find_path(&mut ctx, &map, p.start, p.goal)
            .unwrap();
        let j = Algorithm::Jps
            .find_path(&mut ctx2, &map, p.start, p.goal)
            .unwrap();
        assert!(a.is_complete() && j.is_complete());
        assert!(
            (a.cost - j.cost).abs() < 1e-6,
            "line {}: astar {} jps {}",
            p.line,
            a.cost,
            j.cost
        );
        for (c, r) in [(&ctx, a), (&ctx2, j)] {
            let cells = c.path_cells(&map);
            assert_eq!(cells.first(), Some(&p.start));
            assert_eq!(cells.last(), Some(&p.goal));
            let cost = map
                .path_cost(&cells, &options)
                .expect("every step is an allowed move");
            assert!((cost - r.cost).abs() < 1e-6, "line {}", p.line);
        }
    }
}

#[test]
fn every_scenario_file_is_covered() {
    let files = scenario_files();
    let names: Vec<String> = files
        .iter()
        .map(|(_, s)| s.strip_prefix(data_dir()).unwrap().display().to_string())
        .collect();
    assert_eq!(
        names,
        [
            "scenarios/cities/Berlin_0_256.map.scen",
            "scenarios/dao/arena.map.scen",
            "scenarios/dao/den312d.map.scen",
            "scenarios/mazes/maze512-1-0.map.scen",
            "scenarios/random/random512-10-0.map.scen",
            "scenarios/rooms/16room_000.map.scen",
        ],
        "a scenario file was added or removed: give it a test below"
    );
    for (map, scen) in files {
        assert!(
            map.is_file(),
            "{}: no map {}",
            scen.display(),
            map.display()
        );
    }
}

#[test]
fn cities_berlin() {
    check_all("cities", "Berlin_0_256", 930);
}

#[test]
fn dao_arena() {
    check_all("dao", "arena", 160);
}

#[test]
fn dao_den312d() {
    check_all("dao", "den312d", 320);
}

#[test]
fn mazes_maze512() {
    check_all("mazes", "maze512-1-0", 11960);
}

#[test]
fn random_random512() {
    check_all("random", "random512-10-0", 1670);
}

#[test]
fn rooms_16room() {
    check_all("rooms", "16room_000", 1860);
}
