//! Benchmark: navkit's safe API against the same calls made directly over raw
//! `recastnavigation_sys` FFI, on RecastDemo's three meshes (`dungeon`, `nav_test`,
//! `undulating` from `../shared/meshes/recastdemo`).
//!
//! What it measures, in one run:
//! 1. build time of each mesh (`NavMeshBuilder::solo` with default settings);
//! 2. per mesh, 500 seeded random start/end pairs (`find_random_point` with
//!    `Pcg32::seed_from_u64`), and for these, per query, `findPath` (from the nearest polys),
//!    `findStraightPath` (from the corridor, 256 points) and the smooth path (navkit's
//!    `smooth_path` with default options), each through navkit and through raw FFI. The raw
//!    smooth path is a Rust transcription of RecastDemo's `NavMeshTesterTool` "Pathfind Follow"
//!    loop (`getSteerTarget`, `fixupShortcuts`, the `TOOLMODE_PATHFIND_FOLLOW` block of
//!    `recalc()`), with fixed-size stack arrays as the C++ has (`common/raw_detour.rs`);
//! 3. a correctness check (asserted, `raw_detour::check`): for every pair the navkit corridor
//!    equals the raw one, the straight paths are equal, and the smooth paths are bit-identical
//!    (or, where navkit reports `stuck`, navkit's points are a prefix of the raw loop's). CI
//!    runs the same check on the same pairs (`tests/reference_parity.rs`);
//! 4. a table of navkit/raw time ratios per operation and mesh, from interleaved rounds
//!    (navkit and raw alternate, who goes first alternating too), since shared machines are
//!    noisy: the ratio of the two sides' medians (the target's figure), the median of the
//!    rounds' own ratios (each pair of timings back to back), the ratio of the minima, and
//!    the load average the run saw.
//!
//! The raw side (`common/raw_detour.rs`, shared with the test) uses its own `dtNavMesh`, made
//! from the same tile data (`SoloBuild::tile_data`) with `dtNavMesh::init(data, size,
//! DT_TILE_FREE_DATA)`, so polygons and refs are the same.
//!
//! Run: `cargo bench --bench navmesh` (criterion groups, then the ratio table), or
//! `cargo bench --bench navmesh -- --quick` / `NAVKIT_BENCH_QUICK=1 cargo bench --bench navmesh`
//! for the correctness check and the ratio table only (no criterion). `NAVKIT_BENCH_ROUNDS`
//! sets the number of interleaved rounds (default 15).

#[path = "common/median.rs"]
mod median;
use median::median;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};
use recastnavigation_sys as sys;

use navkit::NavMeshBuilder;
use navkit::build::SoloBuild;
use navkit::query::{
    Corridor, NavMeshQuery, QueryFilter, SmoothPath, SmoothPathOptions, StraightPath,
};
use navkit::{BuildSettings, InputGeometry};

#[path = "common/raw_detour.rs"]
mod raw_detour;
#[path = "common/raw_navmesh.rs"]
mod raw_navmesh;
use raw_detour::pairs::{MESHES, PAIRS, stuck_pairs};
use raw_detour::{
    MAX_NODES, MAX_POLYS, MAX_SMOOTH, Pair, RawNav, RawStraight, make_pairs, raw_find_path,
    raw_smooth_path, raw_straight_path, straight_options,
};

const DEFAULT_ROUNDS: usize = 15;

fn mesh_path(name: &str) -> String {
    format!(
        "{}/../shared/meshes/recastdemo/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// One mesh: both sides and the pairs.
struct MeshBench<'a> {
    name: &'static str,
    q: NavMeshQuery<'a>,
    filter: QueryFilter,
    raw: RawNav,
    pairs: Vec<Pair>,
    smooth_opts: SmoothPathOptions,
    nk_path: Corridor,
    nk_straight: StraightPath,
    nk_smooth: SmoothPath,
    // Raw output buffers (RecastDemo keeps these as tool members).
    raw_path: [sys::dtPolyRef; MAX_POLYS],
    raw_straight: Box<RawStraight>,
    raw_smooth: Box<[[f32; 3]; MAX_SMOOTH]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Path,
    Straight,
    Smooth,
}

impl Op {
    const ALL: [Op; 3] = [Op::Path, Op::Straight, Op::Smooth];
    fn name(self) -> &'static str {
        match self {
            Op::Path => "findPath",
            Op::Straight => "findStraightPath",
            Op::Smooth => "smoothPath",
        }
    }
}

impl<'a> MeshBench<'a> {
    fn new(name: &'static str, build: &'a SoloBuild) -> MeshBench<'a> {
        let mut q = NavMeshQuery::new(build.navmesh(), MAX_NODES as usize).expect("query");
        let filter = QueryFilter::default();
        let raw = RawNav::new(build.tile_data());
        let pairs = make_pairs(name, &mut q, &filter, PAIRS);
        MeshBench {
            name,
            q,
            filter,
            raw,
            pairs,
            smooth_opts: SmoothPathOptions::default(),
            nk_path: Corridor::default(),
            nk_straight: StraightPath::default(),
            nk_smooth: SmoothPath::default(),
            raw_path: [0; MAX_POLYS],
            raw_straight: Box::new(RawStraight::new()),
            raw_smooth: Box::new([[0.0; 3]; MAX_SMOOTH]),
        }
    }

    /// Runs `op` for every pair through navkit, with the `_into` variants that reuse output
    /// buffers (as the raw side reuses its fixed arrays).
    fn run_navkit(&mut self, op: Op) {
        let (q, f) = (&mut self.q, &self.filter);
        match op {
            Op::Path => {
                for p in &self.pairs {
                    let p = black_box(p);
                    q.find_path_into(
                        p.start_ref,
                        p.end_ref,
                        p.start,
                        p.end,
                        f,
                        MAX_POLYS,
                        &mut self.nk_path,
                    )
                    .expect("findPath");
                    black_box(&self.nk_path);
                }
            }
            Op::Straight => {
                let options = straight_options();
                for p in &self.pairs {
                    let p = black_box(p);
                    q.find_straight_path_into(
                        p.start,
                        p.straight_end,
                        &p.corridor,
                        &options,
                        &mut self.nk_straight,
                    )
                    .expect("findStraightPath");
                    black_box(&self.nk_straight);
                }
            }
            Op::Smooth => {
                for p in &self.pairs {
                    let p = black_box(p);
                    q.smooth_path_into(
                        &p.corridor,
                        p.start,
                        p.end,
                        f,
                        &self.smooth_opts,
                        &mut self.nk_smooth,
                    )
                    .expect("smooth_path");
                    black_box(&self.nk_smooth);
                }
            }
        }
    }

    /// Runs `op` for every pair through raw FFI.
    fn run_raw(&mut self, op: Op) {
        let r = &self.raw;
        match op {
            Op::Path => {
                for p in &self.pairs {
                    let n = raw_find_path(r, black_box(p), &mut self.raw_path);
                    black_box(&self.raw_path[..n]);
                }
            }
            Op::Straight => {
                for p in &self.pairs {
                    let n = raw_straight_path(r, black_box(p), &mut self.raw_straight);
                    black_box((&self.raw_straight, n));
                }
            }
            Op::Smooth => {
                for p in &self.pairs {
                    let n = raw_smooth_path(r, black_box(p), &mut self.raw_smooth);
                    black_box(&self.raw_smooth[..n]);
                }
            }
        }
    }
    /// Asserts navkit and raw agree for every pair (`raw_detour::check`); prints the counts.
    fn check(&mut self) {
        let c = raw_detour::check(self.name, &mut self.q, &self.filter, &self.raw, &self.pairs);
        println!("check {:<10} {c}", self.name);
        assert!(
            c.smooth_differ.is_empty(),
            "{}: smooth paths differ from RecastDemo's loop on pairs {:?}",
            self.name,
            c.smooth_differ
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Measurement.
// ---------------------------------------------------------------------------------------------

/// The machine's load average (`/proc/loadavg`, Linux), to read the ratios against: the
/// benchmark shares the CPUs with whatever else runs.
fn load_average() -> String {
    match std::fs::read_to_string("/proc/loadavg") {
        Ok(s) => format!(
            "load average {}",
            s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
        ),
        Err(_) => "load average unknown".into(),
    }
}

fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// Interleaved rounds: per round, per mesh and op, navkit and raw alternate (who goes first
/// alternates too). Prints the ratio table.
fn interleaved(benches: &mut [MeshBench<'_>], rounds: usize) {
    // Warm up once per side.
    for b in benches.iter_mut() {
        for op in Op::ALL {
            b.run_navkit(op);
            b.run_raw(op);
        }
    }
    let nops = Op::ALL.len();
    let mut nav_t = vec![Vec::with_capacity(rounds); benches.len() * nops];
    let mut raw_t = vec![Vec::with_capacity(rounds); benches.len() * nops];
    for round in 0..rounds {
        for (bi, b) in benches.iter_mut().enumerate() {
            for (oi, op) in Op::ALL.into_iter().enumerate() {
                let k = bi * nops + oi;
                if round % 2 == 0 {
                    nav_t[k].push(time(|| b.run_navkit(op)));
                    raw_t[k].push(time(|| b.run_raw(op)));
                } else {
                    raw_t[k].push(time(|| b.run_raw(op)));
                    nav_t[k].push(time(|| b.run_navkit(op)));
                }
            }
        }
    }
    println!();
    println!(
        "navkit vs raw FFI: {rounds} interleaved rounds, {PAIRS} queries per mesh and op; \
         ratio of the medians, median of each round's navkit/raw ratio (the two sides timed \
         back to back, so a change of load between rounds cancels), ratio of the minima; {}",
        load_average()
    );
    println!();
    println!(
        "| mesh | op | navkit us/query | raw us/query | ratio (median) | ratio (paired) | \
         ratio (min) |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|");
    let mut worst: f64 = 0.0;
    for (bi, b) in benches.iter().enumerate() {
        let n = b.pairs.len() as f64;
        for (oi, op) in Op::ALL.into_iter().enumerate() {
            let k = bi * nops + oi;
            let paired: Vec<f64> = nav_t[k].iter().zip(&raw_t[k]).map(|(a, b)| a / b).collect();
            let nmin = nav_t[k].iter().copied().fold(f64::INFINITY, f64::min);
            let rmin = raw_t[k].iter().copied().fold(f64::INFINITY, f64::min);
            let nmed = median(&nav_t[k]);
            let rmed = median(&raw_t[k]);
            let ratio = nmed / rmed;
            worst = worst.max(ratio);
            println!(
                "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} |",
                b.name,
                op.name(),
                nmed / n * 1e6,
                rmed / n * 1e6,
                ratio,
                median(&paired),
                nmin / rmin,
            );
        }
    }
    println!();
    println!(
        "worst median ratio {worst:.3} (target <= 1.030: {})",
        if worst <= 1.03 { "met" } else { "NOT met" }
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick")
        || std::env::var("NAVKIT_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    // `cargo bench` passes --bench; without it (e.g. `cargo test --benches`) run a smoke test.
    let bench_mode = args.iter().any(|a| a == "--bench");
    let rounds = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&r| r > 0)
        .unwrap_or(if bench_mode { DEFAULT_ROUNDS } else { 1 });

    let settings = BuildSettings::default();
    let geoms: Vec<InputGeometry> = MESHES
        .iter()
        .map(|m| InputGeometry::load(mesh_path(m)).expect("load mesh"))
        .collect();
    let builds: Vec<SoloBuild> = geoms
        .iter()
        .map(|g| {
            NavMeshBuilder::new(g)
                .settings(settings.clone())
                .solo()
                .expect("build")
        })
        .collect();

    // Build times: median of a few builds per mesh, interleaved across meshes.
    let build_reps = if bench_mode { 5 } else { 1 };
    let mut build_t = vec![Vec::new(); MESHES.len()];
    for _ in 0..build_reps {
        for (i, g) in geoms.iter().enumerate() {
            build_t[i].push(time(|| {
                black_box(
                    NavMeshBuilder::new(g)
                        .settings(settings.clone())
                        .solo()
                        .expect("build"),
                );
            }));
        }
    }
    println!("| mesh | polys | tile bytes | build_solo ms (median of {build_reps}) |");
    println!("|---|---:|---:|---:|");
    for (i, b) in builds.iter().enumerate() {
        println!(
            "| {} | {} | {} | {:.2} |",
            MESHES[i],
            b.report().polymesh_polys,
            b.tile_data().len(),
            median(&build_t[i]) * 1e3
        );
    }
    println!();

    let mut benches: Vec<MeshBench<'_>> = MESHES
        .iter()
        .zip(&builds)
        .map(|(&name, b)| MeshBench::new(name, b))
        .collect();
    for b in benches.iter_mut() {
        b.check();
        // Stuck pairs are checked, not timed: RecastDemo's loop runs to its cap on them while
        // navkit stops, which would flatter navkit's times.
        let stuck = stuck_pairs(b.name).len();
        b.pairs.drain(..stuck);
    }

    if bench_mode && !quick {
        let mut c = Criterion::default()
            .sample_size(10)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .configure_from_args();
        {
            let mut g = c.benchmark_group("build");
            g.sampling_mode(SamplingMode::Flat);
            for (i, geom) in geoms.iter().enumerate() {
                g.bench_function(MESHES[i], |bn| {
                    bn.iter(|| {
                        NavMeshBuilder::new(black_box(geom))
                            .settings(settings.clone())
                            .solo()
                            .expect("build")
                    })
                });
            }
            g.finish();
        }
        for b in benches.iter_mut() {
            for op in Op::ALL {
                let mut g = c.benchmark_group(format!("{}/{}", op.name(), b.name));
                g.sampling_mode(SamplingMode::Flat);
                g.throughput(Throughput::Elements(b.pairs.len() as u64));
                g.bench_function("navkit", |bn| bn.iter(|| b.run_navkit(op)));
                g.bench_function("raw", |bn| bn.iter(|| b.run_raw(op)));
                g.finish();
            }
        }
        c.final_summary();
    }

    interleaved(&mut benches, rounds);
}
