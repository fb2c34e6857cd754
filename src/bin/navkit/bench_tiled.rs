//! `navkit bench-tiled`: the large-world benchmark. Generates a world, builds it tiled with one
//! thread and with every core (each build in a child `navkit build --tiled` process, so each
//! has its own peak memory; the orders alternate between rounds), checks that every build made
//! the same tile data, and runs long paths across the world on the built navmesh.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use glam::Vec3;
use rand::SeedableRng;
use serde::Serialize;
use serde_json::Value;

use navkit::navmesh::NavMesh;
use navkit::query::hierarchy::Hierarchy;
use navkit::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PathOptions, QueryFilter};
use navkit::tools::worldgen::{WorldSpec, generate, write_world};
use navkit::{Error, Result};

use crate::cleanup;
use crate::common::{Kind, check_output, parse_count};
use crate::exit::{CliError, CliResult, Outcome};

// What to run (`navkit bench-tiled` arguments).
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Target triangle count (`k` and `M` suffixes allowed).
    #[arg(long, value_parser = parse_count, default_value = "1M")]
    pub tris: usize,
    /// World seed (and path seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Rounds of (1 thread, all cores) builds; the order alternates.
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
    /// Threads for the parallel builds (default: one per core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Long paths to run.
    #[arg(long, default_value_t = 100)]
    pub paths: usize,
    /// Tile size in cells (default: the world's .gset, 32).
    #[arg(long)]
    pub tile_size: Option<u32>,
    /// Keep the world and navmesh in this directory.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Only the long paths, on this navmesh (MSET) instead of a generated world's.
    #[arg(long, value_name = "NAVMESH")]
    pub navmesh: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// One child build.
#[derive(Clone, Debug, Serialize)]
pub struct BuildRun {
    pub threads: usize,
    pub total_ms: f64,
    pub tiles_ms: f64,
    pub index_ms: f64,
    pub mean_tile_ms: f64,
    pub max_tile_ms: f64,
    pub sum_tile_ms: f64,
    pub peak_rss_bytes: u64,
    pub data_hash: String,
}

/// The hierarchical planner on the same pairs, against the flat search with an unbounded pool.
#[derive(Clone, Debug, Default, Serialize)]
struct HierarchicalStats {
    build_ms: f64,
    abstract_nodes: usize,
    abstract_edges: usize,
    complete: usize,
    mean_ms: f64,
    max_ms: f64,
    /// The flat search (one A*, same costs, unbounded): complete paths and time.
    flat_complete: usize,
    flat_mean_ms: f64,
    mean_length_ratio: f64,
    max_length_ratio: f64,
    mean_abstract_expanded: f64,
    max_window_nodes: usize,
    max_flat_nodes: usize,
}

#[derive(Clone, Debug, Serialize)]
struct PathStats {
    pairs: usize,
    complete: usize,
    partial: usize,
    out_of_nodes: usize,
    mean_straight_distance: f32,
    mean_polys: f64,
    max_polys: usize,
    mean_tiles_crossed: f64,
    max_tiles_crossed: usize,
    mean_ms: f64,
    max_ms: f64,
    hierarchical: HierarchicalStats,
}

fn child_build(
    exe: &Path,
    world: &Path,
    threads: usize,
    tile_size: Option<u32>,
    save: Option<&Path>,
) -> Result<BuildRun> {
    let mut cmd = Command::new(exe);
    cmd.arg("build")
        .arg("--tiled")
        .arg("--threads")
        .arg(threads.to_string())
        .arg("--json")
        .arg(world);
    if let Some(ts) = tile_size {
        cmd.arg("--tile-size").arg(ts.to_string());
    }
    if let Some(s) = save {
        cmd.arg("-o").arg(s);
    }
    let out = run_child(cmd).map_err(|e| Error::Io {
        path: exe.to_path_buf(),
        source: std::sync::Arc::new(e),
    })?;
    if !out.status.success() {
        return Err(Error::InvalidArgument(format!(
            "child build failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let v: Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| Error::InvalidArgument(format!("child build printed bad JSON: {e}")))?;
    let f = |p: &[&str]| {
        let mut x = &v;
        for k in p {
            x = &x[*k];
        }
        x.as_f64().unwrap_or(f64::NAN)
    };
    Ok(BuildRun {
        threads,
        total_ms: f(&["total_ms"]),
        tiles_ms: f(&["tiles_ms"]),
        index_ms: f(&["index_ms"]),
        mean_tile_ms: f(&["tiles", "mean_ms"]),
        max_tile_ms: f(&["tiles", "max_ms"]),
        sum_tile_ms: f(&["tiles", "sum_ms"]),
        peak_rss_bytes: v["peak_rss_bytes"].as_u64().unwrap_or(0),
        data_hash: v["data_hash"].as_str().unwrap_or("").to_string(),
    })
}

/// Runs a child to its end like `Command::output`, but registered meanwhile (crate::cleanup),
/// so that every way out of this process (errors, panics, --timeout, SIGINT, SIGTERM) ends it.
fn run_child(mut cmd: Command) -> std::io::Result<std::process::Output> {
    use std::io::Read;
    use std::process::Stdio;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let Some((key, stdout, stderr)) = cleanup::spawn_child(&mut cmd)? else {
        // crate::cleanup::end_all has run: the process is ending with its own message and
        // code; no child is started.
        loop {
            std::thread::park();
        }
    };
    // stderr on a thread, so that neither pipe fills while the other is read.
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut e) = stderr {
            let _ = e.read_to_end(&mut buf);
        }
        buf
    });
    let mut out = Vec::new();
    if let Some(mut o) = stdout {
        o.read_to_end(&mut out)?;
    }
    let err = err_reader.join().unwrap_or_default();
    let Some(mut child) = cleanup::take_child(key) else {
        // crate::cleanup::end_all ended it: the process is ending (--timeout, a signal) with
        // its own message and code; nothing more to report here.
        loop {
            std::thread::park();
        }
    };
    let status = child.wait()?;
    Ok(std::process::Output {
        status,
        stdout: out,
        stderr: err,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        f64::NAN
    } else {
        v[v.len() / 2]
    }
}

fn long_paths(nav: &NavMesh, n: usize, seed: u64, extent: f32) -> Result<PathStats> {
    let mut q = NavMeshQuery::new(nav, 65535)?;
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
    let layout = nav.params().ref_layout();
    let mut s = PathStats {
        pairs: 0,
        complete: 0,
        partial: 0,
        out_of_nodes: 0,
        mean_straight_distance: 0.0,
        mean_polys: 0.0,
        max_polys: 0,
        mean_tiles_crossed: 0.0,
        max_tiles_crossed: 0,
        mean_ms: 0.0,
        max_ms: 0.0,
        hierarchical: HierarchicalStats::default(),
    };
    let t = Instant::now();
    let hierarchy = Hierarchy::build(nav, &f);
    s.hierarchical.build_ms = t.elapsed().as_secs_f64() * 1e3;
    (s.hierarchical.abstract_nodes, s.hierarchical.abstract_edges) = hierarchy.size();
    let mut tries = 0;
    while s.pairs < n && tries < n * 200 {
        tries += 1;
        let (_, a) = q.find_random_point(&f, &mut rng)?;
        let (_, b) = q.find_random_point(&f, &mut rng)?;
        // Long: at least three quarters of the world's extent apart.
        if Vec3::new(a.x - b.x, 0.0, a.z - b.z).length() < extent * 0.75 {
            continue;
        }
        let t = Instant::now();
        let sp = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f)?;
        let ep = q.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &f)?;
        let path = q.find_path(sp.poly, ep.poly, a, b, &f, 65535)?;
        let ms = t.elapsed().as_secs_f64() * 1e3;
        s.pairs += 1;
        if path.is_complete() {
            s.complete += 1;
        } else {
            s.partial += 1;
        }
        if path.detour_status.has(navkit::status::Status::OUT_OF_NODES) {
            s.out_of_nodes += 1;
        }
        let mut tiles: Vec<u32> = path
            .polys
            .iter()
            .map(|p| layout.decode(p.to_u64()).1)
            .collect();
        tiles.sort_unstable();
        tiles.dedup();
        s.mean_straight_distance += a.distance(b);
        s.mean_polys += path.polys.len() as f64;
        s.max_polys = s.max_polys.max(path.polys.len());
        s.mean_tiles_crossed += tiles.len() as f64;
        s.max_tiles_crossed = s.max_tiles_crossed.max(tiles.len());
        s.mean_ms += ms;
        s.max_ms = s.max_ms.max(ms);
        hierarchical_pair(&hierarchy, &mut q, a, b, &mut s.hierarchical)?;
    }
    if s.pairs > 0 {
        let k = s.pairs as f64;
        s.mean_straight_distance /= s.pairs as f32;
        s.mean_polys /= k;
        s.mean_tiles_crossed /= k;
        s.mean_ms /= k;
        let h = &mut s.hierarchical;
        h.mean_ms /= k;
        h.flat_mean_ms /= k;
        h.mean_abstract_expanded /= k;
        h.mean_length_ratio /= h.complete.max(1) as f64;
    }
    Ok(s)
}

/// One pair through the hierarchy and the flat search, added to `h`.
fn hierarchical_pair(
    hierarchy: &Hierarchy,
    q: &mut NavMeshQuery<'_>,
    a: Vec3,
    b: Vec3,
    h: &mut HierarchicalStats,
) -> Result<()> {
    let options = PathOptions {
        smooth: None,
        ..PathOptions::default()
    };
    let t = Instant::now();
    let hp = hierarchy.path(q, a, b, &options)?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let flat = hierarchy.flat_path(q, a, b, &options)?;
    h.flat_mean_ms += t.elapsed().as_secs_f64() * 1e3;
    h.mean_ms += ms;
    h.max_ms = h.max_ms.max(ms);
    h.mean_abstract_expanded += hp.abstract_expanded as f64;
    h.max_window_nodes = h.max_window_nodes.max(hp.max_window_nodes);
    h.max_flat_nodes = h.max_flat_nodes.max(flat.max_window_nodes);
    h.flat_complete += usize::from(flat.path.is_complete());
    if hp.path.is_complete() {
        h.complete += 1;
        if flat.path.is_complete() {
            let (l, lf) = (hp.path.straight.length(), flat.path.straight.length());
            let ratio = f64::from(l) / f64::from(lf).max(1e-6);
            h.mean_length_ratio += ratio;
            h.max_length_ratio = h.max_length_ratio.max(ratio);
        }
    }
    Ok(())
}

/// The builds, `rounds` times one thread and `cores` threads, the order alternating; the first
/// build on `cores` threads saves the navmesh to `saved`.
fn build_rounds(
    exe: &Path,
    gset: &Path,
    cores: usize,
    args: &BenchArgs,
    saved: &Path,
) -> Result<Vec<BuildRun>> {
    let mut runs = Vec::new();
    for round in 0..args.rounds.max(1) {
        let order = if round % 2 == 0 {
            [1, cores]
        } else {
            [cores, 1]
        };
        for threads in order {
            let save = (round == 0 && threads == cores).then_some(saved);
            let r = child_build(exe, gset, threads, args.tile_size, save)?;
            eprintln!(
                "round {round}: {threads} thread(s): {:.0} ms, {:.2} ms/tile, peak {:.0} MB, hash {}",
                r.total_ms,
                r.mean_tile_ms,
                r.peak_rss_bytes as f64 / 1e6,
                r.data_hash
            );
            runs.push(r);
        }
    }
    Ok(runs)
}

/// The median of `f` over the runs on `threads` threads.
fn median_of(runs: &[BuildRun], threads: usize, f: impl Fn(&BuildRun) -> f64) -> f64 {
    median(
        runs.iter()
            .filter(|r| r.threads == threads)
            .map(f)
            .collect(),
    )
}

/// The table of median figures per thread count.
fn print_table(runs: &[BuildRun], cores: usize) {
    println!("| threads | median build ms | tile phase ms | index ms | ms per tile | peak MB |");
    println!("|---:|---:|---:|---:|---:|---:|");
    for th in [1, cores] {
        println!(
            "| {th} | {:.0} | {:.0} | {:.0} | {:.2} | {:.0} |",
            median_of(runs, th, |r| r.total_ms),
            median_of(runs, th, |r| r.tiles_ms),
            median_of(runs, th, |r| r.index_ms),
            median_of(runs, th, |r| r.mean_tile_ms),
            runs.iter()
                .filter(|r| r.threads == th)
                .map(|r| r.peak_rss_bytes)
                .max()
                .unwrap_or(0) as f64
                / 1e6
        );
    }
}

/// The benchmark's temporary folder: removed, and forgotten by the cleanup registry, when
/// dropped.
struct TempFolder(tempfile::TempDir);

impl Drop for TempFolder {
    fn drop(&mut self) {
        cleanup::remove_dir(self.0.path());
    }
}

/// The benchmark's folder: `--keep`'s (created if need be), or a new temporary one, removed
/// when the returned guard drops or by crate::cleanup::end_all.
fn work_dir(keep: Option<&Path>) -> Result<(PathBuf, Option<TempFolder>), CliError> {
    match keep {
        Some(d) => {
            std::fs::create_dir_all(d).map_err(|e| CliError::OutputPath {
                path: d.to_path_buf(),
                message: format!("--keep: the directory cannot be created ({e})"),
            })?;
            Ok((d.to_path_buf(), None))
        }
        None => {
            let t = tempfile::Builder::new()
                .prefix("navkit-bench-")
                .tempdir()
                .map_err(|e| CliError::OutputPath {
                    path: std::env::temp_dir(),
                    message: format!("the temporary directory cannot be created ({e})"),
                })?;
            cleanup::add_dir(t.path());
            Ok((t.path().to_path_buf(), Some(TempFolder(t))))
        }
    }
}

/// The long paths alone, on a navmesh file (`--navmesh`).
fn paths_only(file: &Path, args: &BenchArgs) -> CliResult {
    let nav = NavMesh::load(file)?;
    let (mut lo, mut hi) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
    for (_, b) in nav.tile_bounds() {
        lo = lo.min(b.min);
        hi = hi.max(b.max);
    }
    let extent = (hi.x - lo.x).max(hi.z - lo.z);
    let paths = long_paths(&nav, args.paths, args.seed, extent)?;
    let mut long_paths_json = crate::json::to_json(&paths);
    crate::json::rename(
        &mut long_paths_json,
        &[("mean_straight_distance", "mean_straight_distance_m")],
    );
    if args.json {
        println!("{}", serde_json::json!({ "long_paths": long_paths_json }));
    } else {
        print_paths(&paths, extent);
    }
    Ok(Outcome::Success)
}

/// Runs the benchmark and prints its table (or JSON).
pub fn run(args: BenchArgs) -> CliResult {
    if let Some(file) = &args.navmesh {
        return paths_only(file, &args);
    }
    let exe = std::env::current_exe().map_err(|e| Error::Io {
        path: "navkit".into(),
        source: std::sync::Arc::new(e),
    })?;
    let cores = if args.threads == 0 {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    } else {
        args.threads
    };
    let (dir, temp) = work_dir(args.keep.as_deref())?;
    // Children are ended when this returns or unwinds (before the temporary folder is removed,
    // by TempDir); on the ways out that do not unwind, crate::cleanup::end_all does both.
    let _end_children = cleanup::EndOnDrop;
    let world = dir.join("world.obj");
    for (name, kind) in [
        ("world.obj", Kind::Obj),
        ("world.gset", Kind::Obj),
        ("world.mset", Kind::Navmesh),
    ] {
        check_output(&dir.join(name), &[], "--keep", kind, &[])?;
    }
    let t = Instant::now();
    let (geom, stats) = generate(&WorldSpec {
        tris: args.tris,
        seed: args.seed,
        ..WorldSpec::default()
    })?;
    write_world(&geom, &world)?;
    let gen_ms = t.elapsed().as_secs_f64() * 1e3;
    let gset = world.with_extension("gset");
    let (bmin, bmax) = geom.mesh.bounds().into();
    let extent = (bmax.x - bmin.x).max(bmax.z - bmin.z);
    drop(geom);
    eprintln!(
        "world: {} tris, {:.0} x {:.0} m, generated and written in {:.0} ms ({})",
        stats.tris,
        bmax.x - bmin.x,
        bmax.z - bmin.z,
        gen_ms,
        world.display()
    );

    let saved = dir.join("world.mset");
    let runs = build_rounds(&exe, &gset, cores, &args, &saved)?;
    let same_data = runs.windows(2).all(|w| w[0].data_hash == w[1].data_hash);
    let t1 = median_of(&runs, 1, |r| r.total_ms);
    let tn = median_of(&runs, cores, |r| r.total_ms);
    let speedup = t1 / tn;
    let p1 = median_of(&runs, 1, |r| r.tiles_ms);
    let pn = median_of(&runs, cores, |r| r.tiles_ms);
    let speedup_tiles = p1 / pn;
    let nav = NavMesh::load(&saved)?;
    let tiles = nav.tile_count();
    let paths = long_paths(&nav, args.paths, args.seed, extent)?;
    let mut long_paths_json = crate::json::to_json(&paths);
    crate::json::rename(
        &mut long_paths_json,
        &[("mean_straight_distance", "mean_straight_distance_m")],
    );
    let summary = serde_json::json!({
        "world_tris": stats.tris,
        "extent_m": [bmax.x - bmin.x, bmax.z - bmin.z],
        "tiles": tiles,
        "cores": cores,
        "runs": runs,
        "same_data_hash": same_data,
        "median_1_thread_ms": t1,
        "median_all_cores_ms": tn,
        "speedup": speedup,
        "speedup_per_core": speedup / cores as f64,
        "median_tile_phase_1_thread_ms": p1,
        "median_tile_phase_all_cores_ms": pn,
        "speedup_tile_phase": speedup_tiles,
        "long_paths": long_paths_json,
    });
    if args.json {
        println!("{summary}");
    } else {
        println!(
            "world: {} tris, {:.0} x {:.0} m, {} tiles",
            stats.tris,
            bmax.x - bmin.x,
            bmax.z - bmin.z,
            tiles
        );
        print_table(&runs, cores);
        println!(
            "speed-up {speedup:.2}x on {cores} cores ({:.2} per core; target 0.9); tile phase alone {speedup_tiles:.2}x; tile data identical in every run: {same_data}",
            speedup / cores as f64
        );
        print_paths(&paths, extent);
    }
    drop(temp);
    if !same_data {
        eprintln!("navkit: tile data differed between builds");
    }
    Ok(Outcome::incomplete_if(!same_data))
}

/// The long paths' figures, as text.
fn print_paths(paths: &PathStats, extent: f32) {
    println!(
        "long paths: {} pairs >= {:.0} m apart: {} complete, {} partial ({} out of nodes); {:.0} polys and {:.0} tiles on average (max {} / {}); {:.2} ms mean, {:.2} ms max",
        paths.pairs,
        extent * 0.75,
        paths.complete,
        paths.partial,
        paths.out_of_nodes,
        paths.mean_polys,
        paths.mean_tiles_crossed,
        paths.max_polys,
        paths.max_tiles_crossed,
        paths.mean_ms,
        paths.max_ms
    );
    let h = &paths.hierarchical;
    println!(
        "hierarchical: graph of {} nodes and {} edges built in {:.0} ms; {} complete (flat search {}), {:.2} ms mean ({:.1}x Detour's), {:.2} ms max; length {:.4}x the flat search's on the mean, {:.4}x at worst; {:.0} abstract nodes expanded on average, at most {} polygon nodes in a window (flat search: {}; {:.2} ms mean)",
        h.abstract_nodes,
        h.abstract_edges,
        h.build_ms,
        h.complete,
        h.flat_complete,
        h.mean_ms,
        paths.mean_ms / h.mean_ms.max(1e-9),
        h.max_ms,
        h.mean_length_ratio,
        h.max_length_ratio,
        h.mean_abstract_expanded,
        h.max_window_nodes,
        h.max_flat_nodes,
        h.flat_mean_ms
    );
}
