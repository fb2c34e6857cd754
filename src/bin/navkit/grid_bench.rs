//! `navkit grid-bench`: every problem of a Moving AI scenario file.

use std::io::Write;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::exit::{CliResult, Outcome};
use crate::json::{rename, rename_each, to_json};

// `navkit grid-bench` arguments.
#[derive(clap::Args)]
pub struct GridBenchArgs {
    /// The `.map` file.
    pub map: PathBuf,
    /// The `.scen` file.
    pub scen: PathBuf,
    /// The search: astar or jps.
    #[arg(long, default_value = "astar")]
    pub algo: navkit::grid::Algorithm,
    /// Print JSON (`total` has problems, solved, mismatches, max_abs_error, expanded,
    /// us_per_query; also `buckets` and `failures`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: GridBenchArgs) -> CliResult {
    let GridBenchArgs {
        map,
        scen,
        algo,
        json,
    } = args;
    use navkit::grid::{movingai, runner};
    let scenario = movingai::load_scen(&scen)?;
    // Refuse by size before reading the map: the sizes its problems declare, then its own.
    for p in scenario.problems.iter().take(1) {
        check_grid_memory(p.map_width, p.map_height)?;
    }
    let grid = movingai::load_map(&map)?;
    check_grid_memory(grid.width(), grid.height())?;
    let report = runner::run_scenarios(&grid, &scenario, algo);
    if json {
        const STATS: &[(&str, &str)] = &[
            ("max_abs_error", "max_abs_error_cells"),
            ("us_per_query", "mean_query_us"),
        ];
        let mut v = to_json(&report);
        rename_each(&mut v["buckets"], STATS);
        rename(&mut v["total"], STATS);
        rename_each(
            &mut v["failures"],
            &[
                ("expected", "expected_length_cells"),
                ("found", "found_length_cells"),
            ],
        );
        let total = v["total"].clone();
        if let Some(o) = v.as_object_mut() {
            o.insert("map".into(), json!(map.display().to_string()));
            o.insert("scen".into(), json!(scen.display().to_string()));
            // The totals' keys at the top level too, for scripts.
            if let Value::Object(t) = total {
                for (k, val) in t {
                    o.insert(k, val);
                }
            }
        }
        out!("{v}");
    } else {
        out!(
            "{} ({}x{}), {} ({} problems)",
            map.display(),
            grid.width(),
            grid.height(),
            scen.display(),
            scenario.problems.len()
        );
        for line in runner::render_table(&report).lines() {
            out!("{line}");
        }
    }
    if !report.all_optimal() {
        eprintln!(
            "navkit: {} of {} problems unsolved or not optimal",
            report.total.problems - report.total.solved + report.total.mismatches,
            report.total.problems
        );
    }
    Ok(Outcome::incomplete_if(!report.all_optimal()))
}

/// Refuses a map whose searches need more than `--max-memory`
/// ([`navkit::grid::search_memory_bytes`]).
fn check_grid_memory(width: u32, height: u32) -> Result<(), navkit::Error> {
    let need = navkit::grid::search_memory_bytes(width, height);
    match crate::common::memory_limit() {
        Some(limit) if need > limit => Err(navkit::Error::OutOfMemory(format!(
            "a {width}x{height} map needs about {need} bytes ({:.2} GiB) for its grid and \
             searches, over the memory limit of {limit} bytes ({:.2} GiB): raise --max-memory \
             or use a smaller map",
            need as f64 / f64::from(1u32 << 30),
            limit as f64 / f64::from(1u32 << 30),
        ))),
        _ => Ok(()),
    }
}
