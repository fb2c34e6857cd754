//! Benchmark: sliced pathfinding run to completion against `find_path`, on the navmesh
//! benchmark's pairs (`benches/common/pairs.rs`: 500 per RecastDemo mesh), in one run.
//!
//! For every mesh it times, over all pairs: `find_path`; a sliced search run at once
//! (`update(usize::MAX)`); sliced searches advanced 64 and 7 iterations per call; and a
//! `PathQueue` with a budget of 64 iterations per frame. The criterion groups come first (with
//! `cargo bench`), then a table of each variant's time over `find_path`'s from interleaved
//! rounds (the variants alternate within each round, each round starting with the next variant; medians per variant), since shared
//! machines are noisy: each cell is the ratio of medians, and in brackets the ratio of
//! minimums (the least disturbed round, steadier on a loaded machine). Every variant's corridors are checked equal to `find_path`'s first.
//!
//! Run: `cargo bench --bench sliced` (criterion, then the table), or
//! `cargo bench --bench sliced -- --quick` for the check and the table only.
//! `NAVKIT_BENCH_ROUNDS` sets the interleaved rounds (default 15).

#[path = "common/median.rs"]
mod median;
use median::median;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};

use navkit::NavMeshBuilder;
use navkit::build::SoloBuild;
use navkit::navmesh::NavMesh;
use navkit::query::{Corridor, NavMeshQuery, QueryFilter, SliceState, SlicedOptions};
use navkit::service::{PathQueue, PathRequest};
use navkit::{BuildSettings, InputGeometry};

#[path = "common/pairs.rs"]
mod pairs;
use pairs::{BenchPair, MESHES, PAIRS, bench_pairs};

const MAX_NODES: usize = 2048;
const MAX_POLYS: usize = 256;
const DEFAULT_ROUNDS: usize = 15;

#[derive(Clone, Copy, Debug)]
enum Variant {
    FindPath,
    /// Sliced, the given iterations per update call.
    Sliced(usize),
    /// A PathQueue with this budget per frame.
    Queue(usize),
}

impl Variant {
    const ALL: [Variant; 5] = [
        Variant::FindPath,
        Variant::Sliced(usize::MAX),
        Variant::Sliced(64),
        Variant::Sliced(7),
        Variant::Queue(64),
    ];
    fn name(self) -> String {
        match self {
            Variant::FindPath => "find_path".into(),
            Variant::Sliced(usize::MAX) => "sliced, at once".into(),
            Variant::Sliced(n) => format!("sliced, {n}/update"),
            Variant::Queue(n) => format!("PathQueue, {n}/frame"),
        }
    }
}

fn run(
    nav: &NavMesh,
    q: &mut NavMeshQuery<'_>,
    f: &QueryFilter,
    pairs: &[BenchPair],
    v: Variant,
    out: &mut Vec<Corridor>,
) {
    out.clear();
    match v {
        Variant::FindPath => {
            for p in pairs {
                out.push(
                    q.find_path(p.start_ref, p.end_ref, p.start, p.end, f, MAX_POLYS)
                        .unwrap(),
                );
            }
        }
        Variant::Sliced(n) => {
            for p in pairs {
                let mut s = q
                    .begin_sliced_path(
                        p.start_ref,
                        p.end_ref,
                        p.start,
                        p.end,
                        f,
                        SlicedOptions::default(),
                    )
                    .unwrap();
                while s.state() == SliceState::InProgress {
                    s.update(n).unwrap();
                }
                out.push(s.finalize(MAX_POLYS).unwrap());
            }
        }
        Variant::Queue(budget) => {
            let mut queue = PathQueue::new(nav, MAX_NODES, MAX_POLYS).unwrap();
            let handles: Vec<_> = pairs
                .iter()
                .map(|p| {
                    queue
                        .submit(PathRequest::new(
                            p.start_ref,
                            p.end_ref,
                            p.start,
                            p.end,
                            f.clone(),
                        ))
                        .unwrap()
                })
                .collect();
            while !queue.is_idle() {
                queue.update(budget).unwrap();
            }
            out.extend(handles.into_iter().map(|h| queue.take(h).unwrap().unwrap()));
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let bench_mode = args.iter().any(|a| a == "--bench");
    let rounds = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&r| r > 0)
        .unwrap_or(if bench_mode { DEFAULT_ROUNDS } else { 1 });

    let builds: Vec<SoloBuild> = MESHES
        .iter()
        .map(|m| {
            let path = format!(
                "{}/../shared/meshes/recastdemo/{m}.obj",
                env!("CARGO_MANIFEST_DIR")
            );
            NavMeshBuilder::new(&InputGeometry::load(path).expect("load mesh"))
                .settings(BuildSettings::default())
                .solo()
                .expect("build")
        })
        .collect();
    let filter = QueryFilter::default();
    let mut sets: Vec<(&str, &NavMesh, NavMeshQuery<'_>, Vec<BenchPair>)> = MESHES
        .iter()
        .zip(&builds)
        .map(|(&name, b)| {
            let mut q = NavMeshQuery::new(b.navmesh(), MAX_NODES).expect("query");
            let pairs = bench_pairs(name, &mut q, &filter, PAIRS);
            (name, b.navmesh(), q, pairs)
        })
        .collect();

    // Check: every variant gives find_path's corridors.
    let mut want = Vec::new();
    let mut got = Vec::new();
    for (name, nav, q, pairs) in sets.iter_mut() {
        run(nav, q, &filter, pairs, Variant::FindPath, &mut want);
        for v in Variant::ALL {
            run(nav, q, &filter, pairs, v, &mut got);
            assert_eq!(got, want, "{name}: {} differs from find_path", v.name());
        }
    }

    if bench_mode && !quick {
        let mut c = Criterion::default()
            .sample_size(10)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .configure_from_args();
        for (name, nav, q, pairs) in sets.iter_mut() {
            let mut g = c.benchmark_group(format!("sliced/{name}"));
            g.sampling_mode(SamplingMode::Flat);
            g.throughput(Throughput::Elements(pairs.len() as u64));
            for v in Variant::ALL {
                g.bench_function(v.name(), |bn| {
                    bn.iter(|| run(nav, q, &filter, black_box(pairs), v, &mut got))
                });
            }
            g.finish();
        }
        c.final_summary();
    }

    // Interleaved rounds: per mesh, every variant once per round.
    println!(
        "| mesh | {} |",
        Variant::ALL[1..]
            .iter()
            .map(|v| format!("{} / find_path", v.name()))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}", "---:|".repeat(Variant::ALL.len() - 1));
    for (name, nav, q, pairs) in sets.iter_mut() {
        let mut times = vec![Vec::new(); Variant::ALL.len()];
        let n = Variant::ALL.len();
        for r in 0..rounds {
            // Each round starts with another variant, so no variant always runs first.
            for i in (0..n).map(|k| (k + r) % n) {
                let v = &Variant::ALL[i];
                let t = Instant::now();
                run(nav, q, &filter, pairs, *v, &mut got);
                black_box(&got);
                times[i].push(t.elapsed().as_secs_f64());
            }
        }
        let min = |t: &[f64]| t.iter().copied().fold(f64::INFINITY, f64::min);
        let (base, base_min) = (median(&times[0]), min(&times[0]));
        let ratios: Vec<String> = times[1..]
            .iter_mut()
            .map(|t| format!("{:.3} ({:.3})", median(t) / base, min(t) / base_min))
            .collect();
        println!(
            "| {name} ({:.2} ms for {} find_path) | {} |",
            base * 1e3,
            pairs.len(),
            ratios.join(" | ")
        );
    }
}
