//! The `navkit` command line: build navmeshes, query paths, run RecastDemo test cases.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod bench_tiled;
use glam::Vec3;
use serde_json::{Value, json};

use navkit::build::tiled::{TiledNavMesh, TiledOptions};
use navkit::build::{BuildReport, build_solo};
use navkit::grid::mesh::MeshGrid;
use navkit::navmesh::NavMesh;
use navkit::query::smooth::{FullPath, SmoothPathOptions, full_path};
use navkit::query::{NavMeshQuery, PathStatus, QueryFilter};
use navkit::tilecache::TileCache;
use navkit::tools::compare::{CompareSettings, Comparer, Comparison};
use navkit::tools::simulation::Scenario;
use navkit::tools::testcase::{self, TestCase, TestKind};
use navkit::{BuildSettings, Error, InputGeometry, Partition};

/// `println!` that ends the program quietly when stdout is closed (e.g. piped into `head`).
macro_rules! out {
    ($($t:tt)*) => {{
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

#[derive(Parser)]
#[command(
    name = "navkit",
    version,
    about = "Navigation meshes and pathfinding (Recast/Detour) from Rust"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build a navmesh (solo, or tiled on every core) from an OBJ mesh or a RecastDemo .gset file.
    Build {
        /// The input: MESH.obj or GEOM.gset.
        input: PathBuf,
        /// Region partitioning (default: the .gset's, else watershed).
        #[arg(long)]
        partition: Option<Partition>,
        /// Build a tiled navmesh (RecastDemo's Tile Mesh) instead of a solo one.
        #[arg(long)]
        tiled: bool,
        /// Tile size in cells (default: the .gset's, else 32); implies --tiled.
        #[arg(long)]
        tile_size: Option<u32>,
        /// Worker threads for a tiled build (default: one per core); implies --tiled.
        #[arg(long)]
        threads: Option<usize>,
        /// Save the navmesh here (RecastDemo's MSET format).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Find a path: nearest polys, findPath, findStraightPath and the smooth path.
    Path {
        /// MESH.obj, GEOM.gset (built first) or a saved navmesh.
        input: PathBuf,
        /// Start point `X,Y,Z`.
        #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, required_unless_present = "batch")]
        from: Option<Vec3>,
        /// End point `X,Y,Z`.
        #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, required_unless_present = "batch")]
        to: Option<Vec3>,
        /// Include flags (hex; default: all but disabled).
        #[arg(long, value_parser = parse_hex)]
        include: Option<u16>,
        /// Exclude flags (hex; default 0).
        #[arg(long, value_parser = parse_hex)]
        exclude: Option<u16>,
        /// A file of queries, one `sx sy sz ex ey ez` per line; prints one JSON object per line.
        #[arg(long, conflicts_with_all = ["from", "to"])]
        batch: Option<PathBuf>,
        /// Region partitioning when building.
        #[arg(long)]
        partition: Option<Partition>,
        /// A scenario file whose obstacles are carved into the navmesh first (through a tile
        /// cache of the geometry; see `simulate --scenario` for the format).
        #[arg(long, value_name = "FILE")]
        scenario: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Run a RecastDemo test-case file (`s`, `f`, `pf`, `rc` lines).
    Testcase {
        /// The test-case file; its mesh is found relative to it.
        file: PathBuf,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Draw a top-down picture (PNG, or SVG for a .svg output): navmesh polygons by area, walkable
    /// grid cells, off-mesh connections, and with --from/--to the straight and smooth paths, the
    /// follower's trajectory and its turn boundaries.
    Render {
        /// MESH.obj, GEOM.gset or a saved navmesh (grid cells need the geometry).
        input: PathBuf,
        /// Start point `X,Y,Z`.
        #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "to")]
        from: Option<Vec3>,
        /// End point `X,Y,Z`.
        #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "from")]
        to: Option<Vec3>,
        /// Output file (.png or .svg).
        #[arg(short, long)]
        output: PathBuf,
        /// Picture width in pixels.
        #[arg(long, default_value_t = 1200)]
        width: u32,
        /// Leave out the walkable grid cells (and the grid path).
        #[arg(long)]
        no_grid: bool,
        /// Cell size of the grid (default: the navmesh's cell size).
        #[arg(long, value_name = "SIZE")]
        grid_cell_size: Option<f32>,
        /// Frame the picture on the paths (3 units around them) instead of the whole level.
        #[arg(long)]
        zoom: bool,
        /// Build the navmesh tiled (and draw the tile borders).
        #[arg(long)]
        tiled: bool,
        /// Tile size in cells (default: the .gset's, else 32); implies --tiled.
        #[arg(long)]
        tile_size: Option<u32>,
        /// Carve and draw this scenario file's obstacles (through a tile cache; no grid).
        #[arg(long, value_name = "FILE")]
        scenario: Option<PathBuf>,
    },
    /// Run every problem of a Moving AI scenario file and report, per bucket and in total:
    /// solved, mismatches against the optimal length (tolerance 5e-3), nodes expanded, time.
    GridBench {
        /// The `.map` file.
        map: PathBuf,
        /// The `.scen` file.
        scen: PathBuf,
        /// The search: astar or jps.
        #[arg(long, default_value = "astar")]
        algo: navkit::grid::Algorithm,
        /// Print JSON (`total` has problems, solved, mismatches, max_abs_error, expanded,
        /// us_per_query; also `buckets` and `failures`).
        #[arg(long)]
        json: bool,
    },
    /// Compare grid A* paths with navmesh paths on the same geometry: per query the grid path's
    /// length, waypoints, nodes expanded and time; the navmesh straight path's length, corners
    /// and time, the smooth path's length; and the follower's distance and time on each.
    Compare(CompareArgs),
    /// Simulate a crowd: agents with random reachable goals, DetourCrowd with RecastDemo's agent
    /// settings; prints arrived, stuck, mean speed, separation and collisions, time per update.
    Simulate {
        /// MESH.obj, GEOM.gset or a saved navmesh.
        input: PathBuf,
        /// Number of agents.
        #[arg(long, default_value_t = 50)]
        agents: usize,
        /// Simulated seconds.
        #[arg(long, default_value_t = 60.0)]
        seconds: f32,
        /// Seed for the starts and goals.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Print JSON (`agents`, `arrived`, `stuck`, `mean_speed`, `min_separation`,
        /// `update_us`, `collisions`).
        #[arg(long)]
        json: bool,
        /// Write every agent's start, goal, arrival time and trajectory as JSON here.
        #[arg(long, value_name = "FILE")]
        trajectories: Option<PathBuf>,
        /// Draw the trajectories over the navmesh (PNG or SVG).
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// Run the agents of this scenario file instead of random ones, around its obstacles
        /// (JSON: `{"agents": [{"start": [x,y,z], "goal": [x,y,z], "behaviour":
        /// "direct"|"wander", "seed": N}], "obstacles": [{"kind": "cylinder", "pos": [x,y,z],
        /// "radius": R, "height": H}, {"kind": "box", "bmin": [..], "bmax": [..]}, {"kind":
        /// "oriented_box", "center": [..], "half_extents": [..], "y_angle": A}], "events": [{"at":
        /// T, "add": {obstacle}, "name": "N"}, {"at": T, "remove": "N"}]}`; all lists optional;
        /// events are applied while the agents walk).
        #[arg(long, value_name = "FILE")]
        scenario: Option<PathBuf>,
    },
    /// The demo: build the sample level in meshes/ and walk a smooth path across it.
    Demo {
        /// The geometry set to use.
        #[arg(long, default_value = "meshes/demo_level.gset")]
        gset: PathBuf,
    },
    /// The large-world benchmark: generate a world, build it tiled with 1 thread and with every
    /// core (alternating, in child processes), report the speed-up, time per tile and peak
    /// memory, and run long paths across it.
    BenchTiled {
        /// Target triangle count (`k` and `M` suffixes allowed).
        #[arg(long, value_parser = parse_count, default_value = "1M")]
        tris: usize,
        /// World seed (and path seed).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Rounds of (1 thread, all cores) builds; the order alternates.
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Threads for the parallel builds (default: one per core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Long paths to run.
        #[arg(long, default_value_t = 100)]
        paths: usize,
        /// Tile size in cells (default: the world's .gset, 32).
        #[arg(long)]
        tile_size: Option<u32>,
        /// Keep the world and navmesh in this directory.
        #[arg(long)]
        keep: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Generate a reproducible test world (terrain, buildings with doorways, stairs, ramps,
    /// bridges, water volumes, steep crags, jump links, clutter): writes WORLD.obj and
    /// WORLD.gset beside it, and prints what it made.
    Gen {
        /// Target triangle count (5000 to 50000000; `k` and `M` suffixes allowed, e.g. 1M).
        #[arg(long, value_parser = parse_count)]
        tris: usize,
        /// Seed: the same seed and count give byte-identical files.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The OBJ file to write (the .gset goes beside it, same stem).
        #[arg(short, long)]
        output: PathBuf,
        /// Print the stats (with the features' sample points) as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// `navkit compare`'s arguments.
#[derive(clap::Args)]
struct CompareArgs {
    /// MESH.obj or GEOM.gset (the grid needs the geometry).
    input: PathBuf,
    /// Start point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "to", conflicts_with = "random", required_unless_present = "random")]
    from: Option<Vec3>,
    /// Goal point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "from")]
    to: Option<Vec3>,
    /// Compare N random pairs of navmesh points instead.
    #[arg(long, value_name = "N")]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print JSON.
    #[arg(long)]
    json: bool,
    /// Also draw the picture (PNG or SVG); with several queries, one file per query
    /// (`NAME-001.png`, ...).
    #[arg(short, long)]
    output: Option<PathBuf>,
    /// Picture width in pixels.
    #[arg(long, default_value_t = 1200)]
    width: u32,
    /// Cell size of the grid (default: the navmesh's cell size).
    #[arg(long, value_name = "SIZE")]
    grid_cell_size: Option<f32>,
    /// Frame the picture on the paths (3 units around them) instead of the whole level.
    #[arg(long)]
    zoom: bool,
}

fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected X,Y,Z, got `{s}`"));
    }
    let mut v = [0f32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .parse::<f32>()
            .map_err(|_| format!("`{p}` is not a number"))?;
        if !v[i].is_finite() {
            return Err(format!("`{p}` is not a finite number"));
        }
    }
    Ok(Vec3::from_array(v))
}

fn parse_hex(s: &str) -> Result<u16, String> {
    let t = s.trim_start_matches("0x").trim_start_matches("0X");
    u16::from_str_radix(t, 16).map_err(|_| format!("`{s}` is not a 16-bit hex number"))
}

fn is_geometry(path: &Path) -> bool {
    matches!(
        path.extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref(),
        Some("obj") | Some("gset")
    )
}

/// Loads geometry and builds it, with the .gset's settings (if any) and an optional partition.
fn build_input(
    input: &Path,
    partition: Option<Partition>,
) -> navkit::Result<(NavMesh, BuildReport)> {
    let geom = InputGeometry::load(input)?;
    let mut settings = geom.settings.clone().unwrap_or_else(BuildSettings::default);
    if let Some(p) = partition {
        settings.partition = p;
    }
    let built = build_solo(&geom, &settings)?;
    Ok((built.navmesh, built.report))
}

/// The process's peak resident memory (VmHWM) in bytes, where /proc tells it.
fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// `navkit build --tiled`: a parallel tiled build with a progress bar on a terminal.
fn build_tiled_cmd(
    input: &Path,
    partition: Option<Partition>,
    tile_size: Option<u32>,
    threads: Option<usize>,
    output: Option<PathBuf>,
    json: bool,
) -> navkit::Result<()> {
    let geom = InputGeometry::load(input)?;
    let mut settings = geom.settings.clone().unwrap_or_default();
    if let Some(p) = partition {
        settings.partition = p;
    }
    if let Some(ts) = tile_size {
        settings.tile_size = ts;
    }
    let options = TiledOptions {
        threads: threads.unwrap_or(0),
    };
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} tiles {pos}/{len} [{bar:40}] {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let tiled = TiledNavMesh::build_with(geom, &settings, &options, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let tiled = tiled?;
    if let Some(out) = &output {
        tiled.navmesh().save(out)?;
    }
    let r = tiled.report();
    if json {
        let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
        v["tile_count"] = json!(r.tile_count);
        v["data_hash"] = json!(r.data_hash);
        v["navmesh_bytes"] = json!(tiled.navmesh().data_size());
        v["peak_rss_bytes"] = json!(peak_rss_bytes());
        out!("{v}");
    } else {
        let g = &r.grid;
        out!(
            "Grid:          {} x {} tiles of {} cells ({:.2} units)",
            g.tiles_x,
            g.tiles_z,
            g.tile_size,
            g.tile_width()
        );
        out!("Input:         {} tris", r.input_tris);
        out!(
            "Tiles:         {} with polygons of {} built; {} polys (at most {} in a tile)",
            r.tile_count,
            r.tiles.built,
            r.tiles.polys,
            r.tiles.max_polys_per_tile
        );
        out!(
            "Refs:          {} tile bits, {} poly bits",
            r.tile_bits,
            r.poly_bits
        );
        out!(
            "Time:          {:.1} ms on {} threads; {:.2} ms per tile (slowest {:.1} ms)",
            r.total_ms,
            r.threads,
            r.tiles.mean_ms,
            r.tiles.max_ms
        );
        out!(
            "Data:          {} bytes, hash {}",
            tiled.navmesh().data_size(),
            r.data_hash
        );
        for w in r.warnings.iter().take(10) {
            out!("Warning:       {w}");
        }
        if let Some(out) = &output {
            out!("Saved:         {}", out.display());
        }
    }
    Ok(())
}

/// A command's navmesh: loaded or built, or, when a scenario has obstacles, a tile cache of the
/// geometry with them carved in.
enum NavSource {
    Plain(NavMesh),
    Cache(Box<TileCache>),
}

impl NavSource {
    fn navmesh(&self) -> &NavMesh {
        match self {
            NavSource::Plain(n) => n,
            NavSource::Cache(c) => c.navmesh(),
        }
    }

    fn obstacles(&self) -> Vec<navkit::tilecache::Obstacle> {
        match self {
            NavSource::Plain(_) => Vec::new(),
            NavSource::Cache(c) => c.obstacles(),
        }
    }
}

fn navmesh_source(
    input: &Path,
    partition: Option<Partition>,
    scenario: Option<&Scenario>,
    tile_size: Option<u32>,
) -> navkit::Result<NavSource> {
    let Some(s) = scenario.filter(|s| !s.obstacles.is_empty()) else {
        return Ok(NavSource::Plain(load_navmesh(input, partition)?));
    };
    if !is_geometry(input) {
        return Err(Error::InvalidArgument(format!(
            "{}: obstacles need the geometry (.obj or .gset) to build a tile cache from",
            input.display()
        )));
    }
    let geom = InputGeometry::load(input)?;
    let mut settings = geom.settings.clone().unwrap_or_default();
    if let Some(p) = partition {
        settings.partition = p;
    }
    if let Some(ts) = tile_size {
        settings.tile_size = ts;
    }
    Ok(NavSource::Cache(Box::new(s.tile_cache(&geom, &settings)?)))
}

fn load_navmesh(input: &Path, partition: Option<Partition>) -> navkit::Result<NavMesh> {
    if is_geometry(input) {
        Ok(build_input(input, partition)?.0)
    } else {
        NavMesh::load(input)
    }
}

fn report_json(r: &BuildReport) -> Value {
    let timings: serde_json::Map<String, Value> = r
        .timings_ms
        .iter()
        .map(|(s, ms)| (s.name().to_string(), json!(ms)))
        .chain(std::iter::once(("total".to_string(), json!(r.total_ms))))
        .collect();
    json!({
        "grid_width": r.grid_width,
        "grid_height": r.grid_height,
        "input_verts": r.input_verts,
        "input_tris": r.input_tris,
        "polymesh_verts": r.polymesh_verts,
        "polymesh_polys": r.polymesh_polys,
        "detail_verts": r.detail_verts,
        "detail_tris": r.detail_tris,
        "off_mesh_connections": r.off_mesh_connections,
        "navmesh_bytes": r.navmesh_bytes,
        "timings_ms": timings,
        "warnings": r.warnings,
    })
}

fn print_report(r: &BuildReport) {
    out!("Grid:          {} x {} cells", r.grid_width, r.grid_height);
    out!(
        "Input:         {} verts, {} tris",
        r.input_verts,
        r.input_tris
    );
    out!(
        "Poly mesh:     {} verts, {} polys",
        r.polymesh_verts,
        r.polymesh_polys
    );
    out!(
        "Detail mesh:   {} verts, {} tris",
        r.detail_verts,
        r.detail_tris
    );
    out!("Off-mesh:      {} connections", r.off_mesh_connections);
    out!("Navmesh data:  {} bytes", r.navmesh_bytes);
    out!("Timings (ms):");
    for (s, ms) in &r.timings_ms {
        out!("  {:<34}{:>9.3}", s.name(), ms);
    }
    out!("  {:<34}{:>9.3}", "total", r.total_ms);
    for w in &r.warnings {
        out!("warning: {w}");
    }
}

fn v3(v: Vec3) -> Value {
    json!([v.x, v.y, v.z])
}

fn path_json(p: &navkit::Result<FullPath>) -> Value {
    match p {
        Ok(fp) => json!({
            "status": match fp.path.status { PathStatus::Complete => "complete", PathStatus::Partial => "partial" },
            "start_ref": fp.start.poly.0,
            "end_ref": fp.end.poly.0,
            "polys": fp.path.polys.iter().map(|p| p.0).collect::<Vec<_>>(),
            "straight": fp.straight.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
            "smooth": fp.smooth.points.iter().map(|&p| v3(p)).collect::<Vec<_>>(),
            "smooth_stuck": fp.smooth.stuck,
        }),
        Err(e) => json!({
            "status": "failed",
            "start_ref": 0,
            "end_ref": 0,
            "polys": [],
            "straight": [],
            "smooth": [],
            "smooth_stuck": false,
            "error": e.to_string(),
        }),
    }
}

fn print_path(p: &navkit::Result<FullPath>) {
    match p {
        Ok(fp) => {
            let status = if fp.path.is_complete() {
                "complete"
            } else {
                "PARTIAL (goal not reachable)"
            };
            out!("Path:      {status}, {} polys", fp.path.polys.len());
            out!("Start:     poly {} at {}", fp.start.poly, fp.start.point);
            out!("End:       poly {} at {}", fp.end.poly, fp.end.point);
            out!(
                "Straight:  {} corners, length {:.3}",
                fp.straight.points.len(),
                fp.straight.length()
            );
            for p in &fp.straight.points {
                out!("  ({:9.4}, {:9.4}, {:9.4})", p.pos.x, p.pos.y, p.pos.z);
            }
            out!(
                "Smooth:    {} points, length {:.3}, {} off-mesh jumps{}",
                fp.smooth.points.len(),
                fp.smooth.length(),
                fp.smooth.off_mesh_jumps,
                if fp.smooth.stuck {
                    ", STUCK (stopped where RecastDemo would repeat a point)"
                } else {
                    ""
                }
            );
        }
        Err(e) => out!("Path:      failed: {e}"),
    }
}

fn filter_from(include: Option<u16>, exclude: Option<u16>) -> QueryFilter {
    let mut f = QueryFilter::default();
    if let Some(i) = include {
        f.set_include_flags(i);
    }
    if let Some(e) = exclude {
        f.set_exclude_flags(e);
    }
    f
}

fn run(cli: Cli) -> navkit::Result<()> {
    match cli.command {
        Command::BenchTiled {
            tris,
            seed,
            rounds,
            threads,
            paths,
            tile_size,
            keep,
            json,
        } => bench_tiled::run(bench_tiled::BenchArgs {
            tris,
            seed,
            rounds,
            threads,
            paths,
            tile_size,
            keep,
            json,
        })?,
        Command::Build {
            input,
            partition,
            tiled,
            tile_size,
            threads,
            output,
            json,
        } => {
            if tiled || tile_size.is_some() || threads.is_some() {
                return build_tiled_cmd(&input, partition, tile_size, threads, output, json);
            }
            let (navmesh, report) = build_input(&input, partition)?;
            if let Some(out) = &output {
                navmesh.save(out)?;
            }
            if json {
                out!("{}", report_json(&report));
            } else {
                print_report(&report);
                if let Some(out) = &output {
                    out!("Saved:         {}", out.display());
                }
            }
        }
        Command::Path {
            input,
            from,
            to,
            include,
            exclude,
            batch,
            partition,
            scenario,
            json,
        } => {
            let scenario = scenario.map(Scenario::load).transpose()?;
            let source = navmesh_source(&input, partition, scenario.as_ref(), None)?;
            let navmesh = source.navmesh();
            let mut q = NavMeshQuery::new(navmesh, 2048)?;
            let filter = filter_from(include, exclude);
            let opts = SmoothPathOptions::default();
            if let Some(batch) = batch {
                let file = std::fs::File::open(&batch).map_err(|e| Error::Io {
                    path: batch.clone(),
                    source: e,
                })?;
                let stdout = std::io::stdout();
                let mut out = stdout.lock();
                for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
                    let line = line.map_err(|e| Error::Io {
                        path: batch.clone(),
                        source: e,
                    })?;
                    let t = line.trim();
                    if t.is_empty() || t.starts_with('#') {
                        continue;
                    }
                    let nums: Vec<f32> = t
                        .split_whitespace()
                        .filter_map(|s| s.parse().ok())
                        .collect();
                    if nums.len() != 6
                        || t.split_whitespace().count() != 6
                        || nums.iter().any(|v| !v.is_finite())
                    {
                        return Err(Error::Parse {
                            path: batch.clone(),
                            line: i + 1,
                            message: format!(
                                "expected `sx sy sz ex ey ez` (6 finite numbers), got `{t}`"
                            ),
                        });
                    }
                    let r = full_path(
                        &mut q,
                        Vec3::new(nums[0], nums[1], nums[2]),
                        Vec3::new(nums[3], nums[4], nums[5]),
                        &filter,
                        &opts,
                    );
                    if writeln!(out, "{}", path_json(&r)).is_err() {
                        return Ok(()); // stdout closed
                    }
                }
            } else {
                let (from, to) = (
                    from.expect("clap requires --from"),
                    to.expect("clap requires --to"),
                );
                let r = full_path(&mut q, from, to, &filter, &opts);
                if json {
                    out!("{}", path_json(&r));
                } else {
                    print_path(&r);
                }
            }
        }
        Command::Testcase { file, json } => {
            let case = TestCase::load(&file)?;
            let geom = InputGeometry::load(&case.mesh)?;
            let built = build_solo(&geom, &BuildSettings::default())?;
            let mut q = NavMeshQuery::new(&built.navmesh, 2048)?;
            let results = testcase::run(&case, &mut q)?;
            if json {
                for r in &results {
                    out!("{}", serde_json::to_string(r).unwrap_or_default());
                }
            } else {
                out!(
                    "Sample: {} (built as Solo Mesh), mesh {}",
                    case.sample,
                    case.mesh.display()
                );
                out!("Test Results:");
                for (n, r) in results.iter().enumerate() {
                    let total = (r.nearest_us + r.path_us + r.straight_us) / 1000.0;
                    let kind = match r.query.kind {
                        TestKind::Pathfind => "Path",
                        TestKind::Raycast => "Ray ",
                    };
                    let outcome =
                        match (r.query.kind, r.start_ref != 0 && r.end_ref != 0, r.complete) {
                            (_, false, _) => "no start/end poly".to_string(),
                            (TestKind::Pathfind, _, c) => format!(
                                "{} polys, {} corners, {}",
                                r.polys.len(),
                                r.straight.len(),
                                if c { "complete" } else { "PARTIAL" }
                            ),
                            (TestKind::Raycast, _, c) => format!(
                                "{} polys, {}",
                                r.polys.len(),
                                if c { "reached end" } else { "hit wall" }
                            ),
                        };
                    out!(
                        " - {kind} {n:02}:     {total:.4} ms  (line {}: {outcome})",
                        r.query.line
                    );
                    out!("    - poly:     {:.4} ms", r.nearest_us / 1000.0);
                    out!("    - path:     {:.4} ms", r.path_us / 1000.0);
                    out!("    - straight: {:.4} ms", r.straight_us / 1000.0);
                }
            }
        }
        Command::Demo { gset } => demo(&gset)?,
        Command::Gen {
            tris,
            seed,
            output,
            json,
        } => gen_world(tris, seed, &output, json)?,
        Command::Compare(args) => compare(args)?,
        Command::Simulate {
            input,
            agents,
            seconds,
            seed,
            json,
            trajectories,
            output,
            scenario,
        } => {
            let scenario = scenario.map(Scenario::load).transpose()?;
            let source = navmesh_source(&input, None, scenario.as_ref(), None)?;
            let navmesh = source.navmesh();
            let settings = navkit::tools::simulation::SimSettings {
                agents,
                seconds,
                seed,
                ..Default::default()
            };
            let r = match &scenario {
                Some(s) if !s.events.is_empty() => {
                    if !is_geometry(&input) {
                        return Err(Error::InvalidArgument(format!(
                            "{}: obstacle events need the geometry (.obj or .gset)",
                            input.display()
                        )));
                    }
                    let geom = InputGeometry::load(&input)?;
                    let build = geom.settings.clone().unwrap_or_default();
                    navkit::tools::simulation::simulate_dynamic(&geom, &build, s, &settings)?
                }
                Some(s) if !s.agents.is_empty() => {
                    navkit::tools::simulation::simulate_scenario(navmesh, &s.agents, &settings)?
                }
                Some(s) if s.obstacles.is_empty() => {
                    return Err(Error::InvalidArgument(
                        "the scenario has neither agents nor obstacles".into(),
                    ));
                }
                _ => navkit::tools::simulation::simulate(navmesh, &settings)?,
            };
            if json {
                out!(
                    "{}",
                    json!({
                        "agents": r.agents, "arrived": r.arrived, "stuck": r.stuck,
                        "mean_speed": r.mean_speed, "min_separation": r.min_separation,
                        "update_us": r.update_us, "collisions": r.collisions, "seconds": r.seconds,
                        "obstacle_events": r.obstacle_events, "tiles_rebuilt": r.tiles_rebuilt,
                        "obstacle_settle_max": r.obstacle_settle_max,
                    })
                );
            } else {
                out!(
                    "{} agents, {} s: {} arrived, {} stuck, mean speed {:.2}, min separation {:.3}, {} colliding pair-frames, {:.1} us per update",
                    r.agents,
                    r.seconds,
                    r.arrived,
                    r.stuck,
                    r.mean_speed,
                    r.min_separation,
                    r.collisions,
                    r.update_us
                );
            }
            if let Some(path) = &trajectories {
                let text = serde_json::to_string(&r.agents_detail).unwrap_or_default();
                std::fs::write(path, text).map_err(|e| Error::Io {
                    path: path.clone(),
                    source: e,
                })?;
            }
            if let Some(path) = &output {
                use navkit::render::{Polyline, Rgb};
                let mut scene = navkit::render::comparison_scene(
                    navmesh,
                    None,
                    None,
                    format!(
                        "navkit simulate: {} agents, {} s, {} arrived",
                        r.agents, r.seconds, r.arrived
                    ),
                );
                scene.add_obstacles(&source.obstacles());
                if let Some(sc) = &scenario {
                    scene
                        .obstacles
                        .extend(sc.events.iter().filter_map(|e| e.add.map(|o| o.outline())));
                }
                let palette = [
                    Rgb(220, 40, 40),
                    Rgb(30, 30, 160),
                    Rgb(20, 150, 60),
                    Rgb(240, 140, 20),
                    Rgb(150, 30, 170),
                    Rgb(0, 140, 140),
                ];
                for (i, a) in r.agents_detail.iter().enumerate() {
                    scene.lines.push(Polyline {
                        label: if i == 0 {
                            format!("agent trajectories ({})", r.agents)
                        } else {
                            String::new()
                        },
                        points: a.trajectory.clone(),
                        color: palette[i % palette.len()],
                        width: 1.5,
                        dots: false,
                    });
                    scene.markers.push((
                        a.goal,
                        if a.arrived_at.is_some() {
                            Rgb(40, 200, 40)
                        } else {
                            Rgb(220, 40, 40)
                        },
                    ));
                }
                navkit::render::save(&scene, path, 1200)?;
            }
        }
        Command::GridBench {
            map,
            scen,
            algo,
            json,
        } => {
            use navkit::grid::{movingai, runner};
            let grid = movingai::load_map(&map)?;
            let scenario = movingai::load_scen(&scen)?;
            let report = runner::run_scenarios(&grid, &scenario, algo);
            if json {
                let mut v = serde_json::to_value(&report).unwrap_or_default();
                if let Some(o) = v.as_object_mut() {
                    o.insert("map".into(), json!(map.display().to_string()));
                    o.insert("scen".into(), json!(scen.display().to_string()));
                    // The totals' keys at the top level too, for scripts.
                    if let Ok(Value::Object(t)) = serde_json::to_value(report.total) {
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
                return Err(Error::InvalidArgument(format!(
                    "{} of {} problems unsolved or not optimal",
                    report.total.problems - report.total.solved + report.total.mismatches,
                    report.total.problems
                )));
            }
        }
        Command::Render {
            input,
            from,
            to,
            output,
            width,
            no_grid,
            grid_cell_size,
            zoom,
            tiled,
            tile_size,
            scenario,
        } => render(RenderJob {
            input: &input,
            ends: from.zip(to),
            output: &output,
            width,
            zoom,
            no_grid,
            grid_cell_size,
            tiled: (tiled || tile_size.is_some()).then_some(tile_size),
            scenario: scenario.as_deref(),
        })?,
    }
    Ok(())
}

/// The navmesh of an input and, for geometry (unless `no_grid`), the mesh-derived grid built
/// with the same settings (but for the cell size, if `grid_cell_size` is given).
fn navmesh_and_grid(
    input: &Path,
    no_grid: bool,
    grid_cell_size: Option<f32>,
    tiled: Option<Option<u32>>,
) -> navkit::Result<(NavMesh, Option<MeshGrid>)> {
    if !is_geometry(input) {
        return Ok((NavMesh::load(input)?, None));
    }
    let geom = InputGeometry::load(input)?;
    let mut settings = geom.settings.clone().unwrap_or_default();
    let navmesh = match tiled {
        Some(tile_size) => {
            if let Some(ts) = tile_size {
                settings.tile_size = ts;
            }
            TiledNavMesh::build(geom.clone(), &settings)?.into_navmesh()
        }
        None => build_solo(&geom, &settings)?.navmesh,
    };
    let grid = if no_grid {
        None
    } else {
        let mut grid_settings = settings.clone();
        if let Some(cs) = grid_cell_size {
            grid_settings.cell_size = cs;
        }
        Some(MeshGrid::build(&geom, &grid_settings)?)
    };
    Ok((navmesh, grid))
}

/// What `navkit render` draws.
struct RenderJob<'a> {
    input: &'a Path,
    ends: Option<(Vec3, Vec3)>,
    output: &'a Path,
    width: u32,
    zoom: bool,
    no_grid: bool,
    grid_cell_size: Option<f32>,
    /// Tiled (with an optional tile size) or solo.
    tiled: Option<Option<u32>>,
    scenario: Option<&'a Path>,
}

fn render(job: RenderJob<'_>) -> navkit::Result<()> {
    let RenderJob {
        input,
        ends,
        output,
        width,
        zoom,
        no_grid,
        grid_cell_size,
        tiled,
        scenario,
    } = job;
    let scenario = scenario.map(Scenario::load).transpose()?;
    let obstacles = scenario.as_ref().is_some_and(|s| !s.obstacles.is_empty());
    let (navmesh, grid) = navmesh_and_grid(input, no_grid || obstacles, grid_cell_size, tiled)?;
    let cache = match &scenario {
        Some(s) if obstacles => Some(navmesh_source(input, None, Some(s), tiled.flatten())?),
        _ => None,
    };
    let navmesh = match &cache {
        Some(c) => c.navmesh(),
        None => &navmesh,
    };
    let comparison = match ends {
        Some((from, to)) => Some(
            Comparer::new(navmesh, grid.as_ref(), CompareSettings::default())?.compare(from, to)?,
        ),
        None => None,
    };
    let mut scene = navkit::render::comparison_scene(
        navmesh,
        grid.as_ref(),
        comparison.as_ref(),
        format!("navkit: {}", input.display()),
    );
    scene.add_tile_borders(navmesh);
    if let Some(c) = &cache {
        scene.add_obstacles(&c.obstacles());
    }
    if zoom {
        scene.zoom_to_lines(3.0);
    }
    navkit::render::save(&scene, output, width)?;
    out!("wrote {}", output.display());
    Ok(())
}

fn compare(args: CompareArgs) -> navkit::Result<()> {
    let CompareArgs {
        input,
        from,
        to,
        random,
        seed,
        json,
        output,
        width,
        grid_cell_size,
        zoom,
    } = args;
    let ends = from.zip(to);
    let input = input.as_path();
    if !is_geometry(input) {
        return Err(Error::InvalidArgument(format!(
            "{}: compare needs geometry (.obj or .gset) to build the grid from",
            input.display()
        )));
    }
    const MAX_RANDOM: usize = 1_000_000;
    if random.is_some_and(|n| n == 0 || n > MAX_RANDOM) {
        return Err(Error::InvalidArgument(format!(
            "--random {}: must be between 1 and {MAX_RANDOM}",
            random.unwrap_or(0)
        )));
    }
    let (navmesh, grid) = navmesh_and_grid(input, false, grid_cell_size, None)?;
    let mut cmp = Comparer::new(&navmesh, grid.as_ref(), CompareSettings::default())?;
    let pairs = match (ends, random) {
        (Some(e), _) => vec![e],
        (None, Some(n)) => cmp.random_pairs(n, seed)?,
        (None, None) => unreachable!("clap requires --from/--to or --random"),
    };
    let mut results = Vec::with_capacity(pairs.len());
    for &(from, to) in &pairs {
        results.push(cmp.compare(from, to)?);
    }
    let summary = compare_summary(&results);
    if json {
        out!(
            "{}",
            json!({ "input": input.display().to_string(), "queries": results, "summary": summary })
        );
    } else {
        print_comparisons(&results, &summary);
    }
    if let Some(out_path) = output.as_deref() {
        let many = results.len() > 1;
        for (i, c) in results.iter().enumerate() {
            let path = if many {
                numbered(out_path, i + 1)
            } else {
                out_path.to_path_buf()
            };
            let mut scene = navkit::render::comparison_scene(
                &navmesh,
                grid.as_ref(),
                Some(c),
                format!(
                    "navkit compare: {} ({:.2},{:.2},{:.2}) -> ({:.2},{:.2},{:.2})",
                    input.file_name().unwrap_or_default().to_string_lossy(),
                    c.from.x,
                    c.from.y,
                    c.from.z,
                    c.to.x,
                    c.to.y,
                    c.to.z
                ),
            );
            if zoom {
                scene.zoom_to_lines(3.0);
            }
            navkit::render::save(&scene, &path, width)?;
            if !json {
                out!("wrote {}", path.display());
            }
        }
    }
    Ok(())
}

/// `dir/name-007.ext` for `dir/name.ext`.
fn numbered(path: &Path, i: usize) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(ext) => format!("{stem}-{i:03}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{i:03}"),
    };
    path.with_file_name(name)
}

/// Totals and means over the queries where both sides found a complete path.
fn compare_summary(results: &[Comparison]) -> Value {
    let both: Vec<_> = results
        .iter()
        .filter_map(|c| match (&c.grid, &c.navmesh) {
            (Some(g), Some(n)) if g.status == navkit::grid::SearchStatus::Found && n.complete => {
                Some((g, n))
            }
            _ => None,
        })
        .collect();
    let k = both.len().max(1) as f64;
    let mean = |f: &dyn Fn(
        &(
            &navkit::tools::compare::GridSide,
            &navkit::tools::compare::NavMeshSide,
        ),
    ) -> f64| { both.iter().map(f).fold(0.0, |a, b| a + b) / k };
    let arrived = |f: Option<&navkit::tools::compare::FollowerRun>| f.is_some_and(|f| f.arrived);
    json!({
        "queries": results.len(),
        "both_found": both.len(),
        "grid_found": results.iter().filter(|c| c.grid.as_ref().is_some_and(|g| g.status == navkit::grid::SearchStatus::Found)).count(),
        "navmesh_complete": results.iter().filter(|c| c.navmesh.as_ref().is_some_and(|n| n.complete)).count(),
        "mean_grid_length": mean(&|(g, _)| g.length as f64),
        "mean_straight_length": mean(&|(_, n)| n.straight_length as f64),
        "mean_smooth_length": mean(&|(_, n)| n.smooth_length as f64),
        "mean_length_ratio_grid_to_straight": mean(&|(g, n)| g.length as f64 / (n.straight_length as f64).max(1e-6)),
        "mean_grid_waypoints": mean(&|(g, _)| g.waypoints as f64),
        "mean_corners": mean(&|(_, n)| n.corners as f64),
        "mean_expanded": mean(&|(g, _)| g.expanded as f64),
        "mean_grid_us": mean(&|(g, _)| g.time_us),
        "mean_navmesh_us": mean(&|(_, n)| n.time_us),
        "mean_smooth_us": mean(&|(_, n)| n.smooth_time_us),
        "follower_arrived_grid": both.iter().filter(|(g, _)| arrived(g.follower.as_ref())).count(),
        "follower_arrived_straight": both.iter().filter(|(_, n)| arrived(n.follower.as_ref())).count(),
        "mean_follower_time_grid": mean(&|(g, _)| g.follower.as_ref().map_or(0.0, |f| f.time as f64)),
        "mean_follower_time_straight": mean(&|(_, n)| n.follower.as_ref().map_or(0.0, |f| f.time as f64)),
    })
}

fn print_comparisons(results: &[Comparison], summary: &Value) {
    out!(
        "{:>4} | {:>8} {:>4} {:>8} {:>9} | {:>8} {:>4} {:>8} {:>8} {:>8} | {:>15} {:>15}",
        "#",
        "grid len",
        "wps",
        "expanded",
        "grid us",
        "straight",
        "crn",
        "smooth",
        "nav us",
        "smth us",
        "follow grid",
        "follow straight"
    );
    let follow = |f: Option<&navkit::tools::compare::FollowerRun>| match f {
        Some(f) => format!(
            "{:.1}/{:.1}s{}",
            f.travelled,
            f.time,
            if f.arrived { "" } else { "!" }
        ),
        None => "-".to_string(),
    };
    for (i, c) in results.iter().enumerate() {
        let grid = match &c.grid {
            Some(g) if g.status == navkit::grid::SearchStatus::Found => format!(
                "{:>8.2} {:>4} {:>8} {:>9.1}",
                g.length, g.waypoints, g.expanded, g.time_us
            ),
            Some(g) => format!("{:>31}", format!("{:?} ({} exp)", g.status, g.expanded)),
            None => format!("{:>31}", "no grid path"),
        };
        let nav = match &c.navmesh {
            Some(n) => {
                format!(
                    "{:>8.2} {:>4} {:>8.2} {:>8.1} {:>8.1}",
                    n.straight_length, n.corners, n.smooth_length, n.time_us, n.smooth_time_us
                ) + if n.complete { "" } else { "P" }
            }
            None => format!("{:>40}", "no navmesh path"),
        };
        out!(
            "{:>4} | {grid} | {nav} | {:>15} {:>15}",
            i + 1,
            follow(c.grid.as_ref().and_then(|g| g.follower.as_ref())),
            follow(c.navmesh.as_ref().and_then(|n| n.follower.as_ref()))
        );
        for e in c.grid_error.iter().chain(&c.navmesh_error) {
            out!("       {e}");
        }
    }
    out!("(follower: distance/simulated time; `!` = did not arrive; P = partial navmesh path)");
    let f = |k: &str| summary[k].as_f64().unwrap_or(0.0);
    let u = |k: &str| summary[k].as_u64().unwrap_or(0);
    out!(
        "{} queries, both paths found for {}: grid {:.2} vs straight {:.2} vs smooth {:.2} long (grid/straight {:.3}); {:.1} waypoints vs {:.1} corners; grid {:.1} us ({:.0} expanded) vs navmesh {:.1} us (+{:.1} us smooth); follower arrived {}/{} on grid paths ({:.1} s), {}/{} on straight paths ({:.1} s)",
        u("queries"),
        u("both_found"),
        f("mean_grid_length"),
        f("mean_straight_length"),
        f("mean_smooth_length"),
        f("mean_length_ratio_grid_to_straight"),
        f("mean_grid_waypoints"),
        f("mean_corners"),
        f("mean_grid_us"),
        f("mean_expanded"),
        f("mean_navmesh_us"),
        f("mean_smooth_us"),
        u("follower_arrived_grid"),
        u("both_found"),
        f("mean_follower_time_grid"),
        u("follower_arrived_straight"),
        u("both_found"),
        f("mean_follower_time_straight"),
    );
}

fn demo(gset: &Path) -> navkit::Result<()> {
    let geom = InputGeometry::load(gset)?;
    let settings = geom.settings.clone().unwrap_or_default();
    out!("navkit demo: {}", gset.display());
    out!(
        "  {} verts, {} tris, {} off-mesh connections, {} convex volumes",
        geom.mesh.vert_count(),
        geom.mesh.tri_count(),
        geom.off_mesh_connections.len(),
        geom.convex_volumes.len()
    );
    let built = build_solo(&geom, &settings)?;
    print_report(&built.report);
    let (from, to) = demo_endpoints(&geom);
    out!("\nSmooth path from {from} to {to}:");
    let mut q = NavMeshQuery::new(&built.navmesh, 2048)?;
    let r = full_path(
        &mut q,
        from,
        to,
        &QueryFilter::default(),
        &SmoothPathOptions::default(),
    );
    print_path(&r);
    if let Ok(fp) = &r {
        for (i, p) in fp.smooth.points.iter().enumerate() {
            if i % 8 == 0 || i + 1 == fp.smooth.points.len() {
                out!("  [{i:4}] ({:9.4}, {:9.4}, {:9.4})", p.x, p.y, p.z);
            }
        }
    }
    out!(
        "\nGrid A* on the same level (the eroded walkable cells, the jump as a grid link) against the navmesh, and the turn-boundary follower on both:"
    );
    let grid = MeshGrid::build(&geom, &settings)?;
    let mut cmp = Comparer::new(&built.navmesh, Some(&grid), CompareSettings::default())?;
    let results = [cmp.compare(from, to)?];
    print_comparisons(&results, &compare_summary(&results));
    out!(
        "(draw it: navkit compare {} --from {},{},{} --to {},{},{} -o demo.png)",
        gset.display(),
        from.x,
        from.y,
        from.z,
        to.x,
        to.y,
        to.z
    );

    // Obstacles: a tile cache of the level, a cylinder on the path's longest leg, then removed.
    let mut cache = navkit::tilecache::TileCache::build(
        &geom,
        &settings,
        &navkit::tilecache::TileCacheSettings::default(),
    )?;
    let corners = |nav: &NavMesh| -> navkit::Result<(bool, Vec<Vec3>)> {
        let mut q = NavMeshQuery::new(nav, 2048)?;
        let p = q.find_path_between(from, to, &QueryFilter::default())?;
        let st = q.find_straight_path(from, to, &p.polys, 256, Default::default())?;
        Ok((p.is_complete(), st.positions()))
    };
    let length = |p: &[Vec3]| p.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>();
    let (_, before) = corners(cache.navmesh())?;
    let leg = before
        .windows(2)
        .max_by(|a, b| a[0].distance(a[1]).total_cmp(&b[0].distance(b[1])))
        .map(|w| (w[0] + w[1]) * 0.5)
        .unwrap_or(from);
    let ob = cache.add_cylinder(leg - Vec3::Y, 1.2, 3.0)?;
    let up = cache.update_until_done()?;
    let (complete, with) = corners(cache.navmesh())?;
    out!(
        "\nTile cache ({} layers in {} x {} tiles of 48 cells, {} bytes LZ4): path {:.2} long; with a \
         cylinder (r 1.2) at ({:.1}, {:.1}, {:.1}): {:.2} long{} (tiles rebuilt: {})",
        cache.report().layers,
        cache.report().tiles_x,
        cache.report().tiles_z,
        cache.report().compressed_bytes,
        length(&before),
        leg.x,
        leg.y,
        leg.z,
        length(&with),
        if complete { "" } else { ", partial" },
        up.tiles_rebuilt
    );
    cache.remove(ob)?;
    cache.update_until_done()?;
    let (_, after) = corners(cache.navmesh())?;
    out!(
        "  removed again: {:.2} long, {}",
        length(&after),
        if after == before {
            "the original path"
        } else {
            "a different path"
        }
    );

    // A large world, tiled on every core.
    let (world, stats) =
        navkit::tools::worldgen::generate(&navkit::tools::worldgen::WorldSpec::new(200_000, 1))?;
    let world_settings = world.settings.clone().unwrap_or_default();
    let tiled =
        TiledNavMesh::build_with(world, &world_settings, &TiledOptions::default(), &|_, _| {})?;
    let r = tiled.report();
    out!(
        "\nA generated world of {} triangles ({:.0} m square: {} buildings, {} bridges, {} jump links): \
         {} tiles on {} threads in {:.0} ms ({:.2} ms per tile), data hash {}",
        stats.tris,
        stats.side,
        stats.buildings,
        stats.bridges,
        stats.jump_links,
        r.tile_count,
        r.threads,
        r.total_ms,
        r.tiles.mean_ms,
        r.data_hash
    );
    out!(
        "(more: navkit gen --tris 1M -o world.obj; navkit build --tiled world.gset; navkit bench-tiled)"
    );
    Ok(())
}

/// The demo's start and end: given by `# demo-path sx sy sz ex ey ez` in the .gset's mesh
/// neighbourhood, else the two ends of the mesh bounds' diagonal.
fn demo_endpoints(geom: &InputGeometry) -> (Vec3, Vec3) {
    if let Some(src) = &geom.source {
        if let Ok(text) = std::fs::read_to_string(src) {
            for l in text.lines() {
                if let Some(rest) = l.trim().strip_prefix("# demo-path") {
                    let n: Vec<f32> = rest
                        .split_whitespace()
                        .filter_map(|s| s.parse().ok())
                        .collect();
                    if n.len() == 6 {
                        return (Vec3::new(n[0], n[1], n[2]), Vec3::new(n[3], n[4], n[5]));
                    }
                }
            }
        }
    }
    let (a, b) = geom.mesh.bounds().into();
    (a, b)
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("navkit: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// A count with an optional `k` (thousand) or `M` (million) suffix: `250000`, `250k`, `1.5M`.
fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim().replace('_', "");
    let (num, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'm' | 'M')) => (&t[..i], 1e6),
        _ => (t.as_str(), 1.0),
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * mult <= 1e15 => Ok((v * mult).round() as usize),
        _ => Err(format!("`{s}` is not a count (e.g. 20000, 250k, 1M)")),
    }
}

/// `navkit gen`: generate a world, write it, print its stats.
fn gen_world(tris: usize, seed: u64, output: &Path, json: bool) -> navkit::Result<()> {
    use navkit::tools::worldgen::{WorldSpec, generate, gset_path, write_world};
    let started = std::time::Instant::now();
    let (geom, stats) = generate(&WorldSpec::new(tris, seed))?;
    let generate_ms = started.elapsed().as_secs_f64() * 1e3;
    let written = std::time::Instant::now();
    write_world(&geom, output)?;
    let write_ms = written.elapsed().as_secs_f64() * 1e3;
    let gset = gset_path(output);
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    if json {
        // Serialized directly (not through a `Value`) so that f32s print as f32s.
        #[derive(serde::Serialize)]
        struct GenJson<'a> {
            #[serde(flatten)]
            stats: &'a navkit::tools::worldgen::WorldStats,
            obj: String,
            gset: String,
            obj_bytes: u64,
            generate_ms: f64,
            write_ms: f64,
        }
        let v = GenJson {
            stats: &stats,
            obj: output.display().to_string(),
            gset: gset.display().to_string(),
            obj_bytes: size(output),
            generate_ms,
            write_ms,
        };
        out!("{}", serde_json::to_string(&v).unwrap_or_default());
        return Ok(());
    }
    let (lo, hi) = stats.extent.into();
    let pct = |n: usize| 100.0 * n as f64 / stats.tris.max(1) as f64;
    out!(
        "World:      seed {}, {} triangles (target {}), {} vertices",
        stats.seed,
        stats.tris,
        stats.target_tris,
        stats.verts
    );
    out!(
        "Extent:     {:.1} x {:.1} m, heights {:.1} to {:.1}; terrain cell {:.2} m",
        hi.x - lo.x,
        hi.z - lo.z,
        lo.y,
        hi.y,
        stats.terrain_cell
    );
    out!(
        "Triangles:  terrain {} ({:.0}%), structures {} ({:.0}%), clutter {} ({:.0}%)",
        stats.terrain_tris,
        pct(stats.terrain_tris),
        stats.structure_tris,
        pct(stats.structure_tris),
        stats.clutter_tris,
        pct(stats.clutter_tris)
    );
    out!(
        "Buildings:  {} ({} doorways, {} roofs, {} upper floors, {} yards)",
        stats.buildings,
        stats.doorways,
        stats.roofs,
        stats.upper_floors,
        stats.yards
    );
    out!(
        "Access:     {} platforms, {} bridges, {} staircases, {} ramps",
        stats.platforms,
        stats.bridges,
        stats.stairs,
        stats.ramps
    );
    out!(
        "Areas:      {} water volumes, {} steep crags, {} jump links, {} clutter items",
        stats.water_volumes,
        stats.steep_patches,
        stats.jump_links,
        stats.clutter
    );
    out!(
        "Features:   {} sample points (--json lists them)",
        stats.features.len()
    );
    out!(
        "Written:    {} ({} bytes), {}",
        output.display(),
        size(output),
        gset.display()
    );
    out!("Time:       generate {generate_ms:.1} ms, write {write_ms:.1} ms");
    Ok(())
}
