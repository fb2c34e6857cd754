//! The `navkit` command line: build navmeshes, query paths, run RecastDemo test cases.
//!
//! One file per command; `main.rs` holds the command list and the dispatch.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::exit::{CliError, CliResult, Outcome};

/// `println!` that ends the program quietly when stdout is closed (e.g. piped into `head`).
macro_rules! out {
    ($($t:tt)*) => {{
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod bench_tiled;
mod build;
mod cleanup;
mod common;
mod compare;
mod demo;
mod exit;
mod generate;
mod grid_bench;
mod info;
mod json;
mod merge;
mod output;
mod path;
mod render;
mod simulate;
mod testcase;
mod view;

/// Exit codes and the JSON conventions, at the end of `navkit --help`.
const AFTER_HELP: &str = "\
Exit codes:
  0  success
  1  error: an input missing or malformed, a build failed, an output not writable
  2  usage: the command line is wrong (unknown option, missing or malformed value)
  3  incomplete: the results are printed, but a path is partial or failed (path),
     problems are unsolved or not optimal (grid-bench), builds differ (bench-tiled)
  130, 143  interrupted by SIGINT, SIGTERM (temporary files and child processes removed)

JSON (--json): status is \"complete\", \"partial\" or \"failed\"; endpoints are start and goal;
keys with a unit end in it (_m, _s, _ms, _us, _bytes, _m_per_s, _cells); with --json an error
is printed on stdout as {\"error\": {\"kind\": ..., \"message\": ...}} (and on stderr as text).";

#[derive(Parser)]
#[command(
    name = "navkit",
    version,
    about = "Navigation meshes and pathfinding (Recast/Detour) from Rust",
    after_help = AFTER_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Give up after this many seconds: a build stops at its next check (between stages and
    /// tiles) with a `timed_out` error, and the process ends with exit code 1 at the latest
    /// half a second after the limit, whatever it is doing.
    #[arg(long, global = true, value_name = "SECS", value_parser = parse_timeout)]
    timeout: Option<f64>,
    /// Build even when a few vertices lie far from the rest of the level and stretch its grid
    /// (refused by default, with the vertices named).
    #[arg(long, global = true)]
    allow_stray_vertices: bool,
    /// The most memory a build or a grid search may use: a size in bytes with an optional
    /// K, M, G or T suffix (powers of 1024: 512M, 4G), or `none`. Checked against the
    /// estimate before any work; a build over it is refused with the estimate and the setting
    /// to change. Default: the memory available at start (MemAvailable in /proc/meminfo), at
    /// most 8G; 4G where /proc/meminfo cannot be read.
    #[arg(long, global = true, value_name = "SIZE", value_parser = common::parse_memory_size)]
    max_memory: Option<common::MemoryLimit>,
    /// Let an output replace an existing file that does not look like the output's own kind
    /// (an output of navmesh bytes replaces a navmesh, a PNG a PNG ...; an empty file anything).
    /// An output that is one of the command's inputs, a device, FIFO or folder is refused even
    /// so.
    #[arg(long, global = true)]
    force: bool,
    /// Let a .gset, test case or scenario name a mesh (a scenario: its `level`) outside its own
    /// folder (by an absolute path, `..`, or a symbolic link leading out); refused by default,
    /// as files from elsewhere could otherwise make navkit read any file.
    #[arg(long, global = true)]
    allow_outside_paths: bool,
}

/// A `--timeout`: positive, finite seconds, at most a year.
fn parse_timeout(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 3.2e7 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a time in seconds (positive, at most 3.2e7)"
        )),
    }
}

/// With `--timeout`: a thread that ends the process half a second after the limit if the
/// command has not finished by then (for work that has no check of its own to stop at).
fn start_watchdog(seconds: f64, json: bool) {
    let limit = std::time::Duration::from_secs_f64(seconds);
    std::thread::spawn(move || {
        std::thread::sleep(limit + std::time::Duration::from_millis(500));
        let message = format!("timed out after {seconds} s (--timeout)");
        let err = CliError::TimedOut(message);
        let _ = err.report(json);
        let _ = std::io::Write::flush(&mut std::io::stdout());
        cleanup::end_all();
        std::process::exit(i32::from(err.code()));
    });
}

#[derive(Subcommand)]
enum Command {
    /// Build a navmesh (solo, or tiled on every core) from an OBJ mesh or a RecastDemo .gset file.
    Build(build::BuildArgs),
    /// Find a path: nearest polys, findPath, findStraightPath and the smooth path. Exits with 3
    /// if the path (or one of a batch) is partial or failed.
    Path(path::PathArgs),
    /// Run a RecastDemo test-case file (`s`, `f`, `pf`, `rc` lines).
    Testcase(testcase::TestcaseArgs),
    /// Draw a top-down picture (PNG, or SVG for a .svg output): navmesh polygons by area, walkable
    /// grid cells, off-mesh connections, and with --from/--to the straight and smooth paths, the
    /// follower's trajectory and its turn boundaries.
    Render(render::RenderArgs),
    /// Run every problem of a Moving AI scenario file and report, per bucket and in total:
    /// solved, mismatches against the optimal length (tolerance 5e-3), nodes expanded, time.
    GridBench(grid_bench::GridBenchArgs),
    /// Compare grid A* paths with navmesh paths on the same geometry: per query the grid path's
    /// length, waypoints, nodes expanded and time; the navmesh straight path's length, corners
    /// and time, the smooth path's length; and the follower's distance and time on each.
    Compare(compare::CompareArgs),
    /// Simulate a crowd: agents with random reachable goals or a scenario file's, DetourCrowd with
    /// RecastDemo's agent settings; prints arrived, last arrival, stuck (by cause), mean speed,
    /// separation, overlaps, time per update. With --suite, a table of scenarios.
    Simulate(simulate::SimulateArgs),
    /// The demo: build the sample level in meshes/ and walk a smooth path across it.
    Demo(demo::DemoArgs),
    /// The large-world benchmark: generate a world, build it tiled with 1 thread and with every
    /// core (alternating, in child processes), report the speed-up, time per tile and peak
    /// memory, and run long paths across it.
    BenchTiled(bench_tiled::BenchArgs),
    /// Generate a reproducible test world (terrain, buildings with doorways, stairs, ramps,
    /// bridges, water volumes, steep crags, jump links, clutter): writes WORLD.obj and
    /// WORLD.gset beside it, and prints what it made.
    Gen(generate::GenArgs),
    /// Merge the parts of a sharded tiled build (`navkit build --shard I/N -o PART`) into the
    /// whole navmesh, after checking they are every shard of one build, each once, with every
    /// tile in its own shard; prints the data hash, the unsharded build's.
    Merge(merge::MergeArgs),
    /// Show what a navmesh holds: parameters, ref bits, counts of polys, links, off-mesh
    /// connections, detail meshes and BV nodes; with --tiles each tile, with --polys each poly.
    Info(info::InfoArgs),
    /// Serve RecastDemo's view in the browser on 127.0.0.1 and print the URL: the level, its
    /// navmesh and every Recast stage in 3D, the settings panel and rebuild with timings, click
    /// two points for every kind of path.
    View(view::ViewArgs),
}

fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Build(args) => build::run(args),
        Command::Path(args) => path::run(args),
        Command::Testcase(args) => testcase::run(args),
        Command::Render(args) => render::run(args),
        Command::GridBench(args) => grid_bench::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Simulate(args) => simulate::run(args),
        Command::Demo(args) => demo::run(args),
        Command::BenchTiled(args) => bench_tiled::run(args),
        Command::Gen(args) => generate::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Info(args) => info::run(args),
        Command::View(args) => view::run(args),
    }
}

/// True if the output is JSON: `--json`, or `path --batch` (one JSON object per line).
fn wants_json() -> bool {
    std::env::args_os().skip(1).any(|a| {
        let a = a.to_string_lossy();
        a == "--json" || a == "--batch" || a.starts_with("--batch=")
    })
}

fn main() -> ExitCode {
    let json = wants_json();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let help = matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion);
            if help || !json {
                e.exit();
            }
            let text = e.render().to_string();
            // The error's lines, without the usage and the hint that follow.
            let message = text
                .lines()
                .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"))
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
                .trim_start_matches("error: ")
                .to_string();
            return CliError::Usage(message).report(true);
        }
    };
    cleanup::handle_signals();
    common::set_force(cli.force);
    let mut budget = navkit::build::Budget::new().allow_stray_vertices(cli.allow_stray_vertices);
    if let Some(secs) = cli.timeout {
        budget = budget.time_limit(std::time::Duration::from_secs_f64(secs));
        start_watchdog(secs, json);
    }
    let memory = cli.max_memory.unwrap_or_else(common::default_memory_limit);
    if let common::MemoryLimit::Bytes(bytes) = memory {
        budget = budget.max_memory(bytes);
    }
    common::set_memory_limit(memory);
    common::set_budget(budget);
    common::set_load_options(navkit::geometry::LoadOptions {
        allow_outside_paths: cli.allow_outside_paths,
    });
    match run(cli) {
        Ok(Outcome::Success) => ExitCode::from(exit::EXIT_OK),
        Ok(Outcome::Incomplete) => ExitCode::from(exit::EXIT_INCOMPLETE),
        Err(e) => e.report(json),
    }
}
