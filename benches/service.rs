//! Benchmark: the path service ([`PathService`]) on RecastDemo's dungeon.obj
//! (`../shared/meshes/recastdemo`), without criterion.
//!
//! What it measures:
//! 1. the direct cost of one path (nearest polys, `findPath`, `findStraightPath`, smooth path:
//!    `NavMeshQuery::path` with the default options) on one thread, over 1,000 seeded random reachable pairs: the most a worker
//!    could answer per second;
//! 2. per number of workers (1, 2, 4 by default), a closed loop: 8 client threads, each with 16
//!    requests in flight (a new one as soon as one is answered), distinct agents (nothing
//!    superseded), callbacks; requests per second in all and per worker, and the latency from
//!    submit to outcome (the callback's start) at p50, p90, p99, p99.9 and max. With more
//!    requests in flight than workers, the latency is mostly time in the queue;
//! 3. the same with one client and one request in flight (no queue): the latency of a request
//!    alone;
//! 4. the service's own cost: the closed loop with a planner that does nothing.
//!
//! Run: `cargo bench --bench service`. `NAVKIT_BENCH_SERVICE_REQUESTS` sets the requests per
//! run (default 40,000), `NAVKIT_BENCH_SERVICE_WORKERS` the worker counts (default `1,2,4`).
//! Figures only; nothing here is asserted but that every request is answered.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

use glam::Vec3;
use rand::SeedableRng;

use navkit::NavMeshBuilder;
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::service::{
    AgentId, NavMeshPlanner, NavMeshRequest, PathOutcome, PathResponse, Planner, Service,
};
use navkit::{BuildSettings, InputGeometry};

const CLIENTS: usize = 8;
const IN_FLIGHT: usize = 16;
const PAIRS: usize = 1000;

fn main() {
    let requests: usize = env_or("NAVKIT_BENCH_SERVICE_REQUESTS", "40000")
        .parse()
        .expect("NAVKIT_BENCH_SERVICE_REQUESTS: a number");
    let rounds: usize = env_or("NAVKIT_BENCH_SERVICE_ROUNDS", "3")
        .parse()
        .expect("NAVKIT_BENCH_SERVICE_ROUNDS: a number");
    let workers: Vec<usize> = env_or("NAVKIT_BENCH_SERVICE_WORKERS", "1,2,4")
        .split(',')
        .map(|w| {
            w.trim()
                .parse()
                .expect("NAVKIT_BENCH_SERVICE_WORKERS: numbers")
        })
        .collect();
    let mesh = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/meshes/recastdemo/dungeon.obj");
    let geom = InputGeometry::load(&mesh).expect("../shared/meshes/recastdemo/dungeon.obj");
    let navmesh = Arc::new(
        NavMeshBuilder::new(&geom)
            .settings(BuildSettings::default())
            .solo()
            .expect("build")
            .into_navmesh(),
    );
    let filter = QueryFilter::default();
    let options = PathOptions::default();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "path service on dungeon.obj: {cores} cores, {CLIENTS} clients x {IN_FLIGHT} in flight, {requests} requests per run"
    );

    // 1. Direct.
    let pairs: Arc<Vec<(Vec3, Vec3)>> = {
        let mut q = NavMeshQuery::new(&navmesh, 2048).unwrap();
        let mut rng = rand_pcg::Pcg32::seed_from_u64(0x6e61_766b_6974);
        let mut pairs = Vec::with_capacity(PAIRS);
        while pairs.len() < PAIRS {
            let (_, a) = q.find_random_point(&filter, &mut rng).unwrap();
            let (_, b) = q.find_random_point(&filter, &mut rng).unwrap();
            if q.path(a, b, &filter, &options)
                .is_ok_and(|p| p.is_complete())
            {
                pairs.push((a, b));
            }
        }
        Arc::new(pairs)
    };
    // Per pair, its fastest of the rounds (the machine may be shared); then the mean and the
    // median over the pairs.
    let direct: Vec<Duration> = {
        let mut q = NavMeshQuery::new(&navmesh, 2048).unwrap();
        let mut best = vec![Duration::MAX; PAIRS];
        for _ in 0..rounds.max(3) {
            for (b, &(a, z)) in best.iter_mut().zip(pairs.iter()) {
                let t = Instant::now();
                std::hint::black_box(q.path(a, z, &filter, &options).unwrap());
                *b = (*b).min(t.elapsed());
            }
        }
        best.sort_unstable();
        best
    };
    let mean = direct.iter().sum::<Duration>() / PAIRS as u32;
    println!(
        "direct path, one thread: mean {:.1} us per path ({:.0} paths/s), median {:.1} us, max {:.1} us (each pair's fastest of {} rounds, {PAIRS} pairs)",
        us(mean),
        1.0 / mean.as_secs_f64(),
        us(direct[PAIRS / 2]),
        us(direct[PAIRS - 1]),
        rounds.max(3)
    );
    println!();
    println!(
        "{:<26} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "run",
        "workers",
        "requests",
        "req/s",
        "req/s/wkr",
        "req/cpu-s",
        "p50 us",
        "p90 us",
        "p99 us",
        "p99.9 us",
        "max us"
    );

    let navmesh_planner = || NavMeshPlanner {
        navmesh: navmesh.clone(),
        options,
        max_nodes: 2048,
    };
    let navmesh_request = |i: usize| {
        let (start, end) = pairs[i % PAIRS];
        NavMeshRequest {
            start,
            goal: end,
            filter: QueryFilter::default(),
            options: None,
        }
    };
    // Rounds interleaved (every configuration once per round), and the round with the median
    // throughput reported: the machine may be shared.
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); workers.len() * 3];
    for _ in 0..rounds.max(1) {
        for (k, &w) in workers.iter().enumerate() {
            let service = Service::start(navmesh_planner(), w);
            runs[k].push(closed_loop(
                &service,
                CLIENTS,
                IN_FLIGHT,
                requests,
                navmesh_request,
            ));
            runs[workers.len() + k].push(closed_loop(
                &service,
                1,
                1,
                requests / 4,
                navmesh_request,
            ));
            let service = Service::start(Nothing, w);
            runs[2 * workers.len() + k].push(closed_loop(
                &service,
                CLIENTS,
                IN_FLIGHT,
                requests * 5,
                |i| i,
            ));
        }
    }
    let names = [
        "navmesh, loaded",
        "navmesh, one at a time",
        "no-op planner (overhead)",
    ];
    for (j, name) in names.iter().enumerate() {
        for (k, &w) in workers.iter().enumerate() {
            let mut r = std::mem::take(&mut runs[j * workers.len() + k]);
            r.sort_by_key(|run| run.elapsed);
            r[r.len() / 2].print(name, w);
        }
    }
    println!();
    println!(
        "req/s/wkr: requests per second divided by the workers; req/cpu-s: requests per second of CPU\n\
         time the whole process used (workers and clients; what a shared machine cannot take\n\
         away); latency: submit to outcome (the callback's start), in microseconds; each row\n\
         the median by throughput of {} interleaved rounds",
        rounds.max(1)
    );
}

/// CPU time used by the whole process so far (utime + stime of /proc/self/stat, in clock ticks
/// of 1/100 s, Linux's USER_HZ).
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn env_or(name: &str, default: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| default.to_string())
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

/// A planner that does nothing: the service's own cost.
struct Nothing;

impl Planner for Nothing {
    type Worker<'a> = ();
    type Request = usize;
    type Output = usize;
    fn worker(&self) {}
    fn plan(&self, _: &mut (), r: usize) -> usize {
        r
    }
}

#[derive(Clone)]
struct Run {
    requests: usize,
    elapsed: Duration,
    /// CPU time the process used meanwhile (every thread: workers and clients), if known.
    cpu: Option<Duration>,
    /// Submit-to-outcome latencies, in nanoseconds, sorted.
    latencies: Vec<u64>,
}

impl Run {
    fn print(&self, what: &str, workers: usize) {
        let rps = self.requests as f64 / self.elapsed.as_secs_f64();
        let q = |p: f64| {
            let i =
                ((self.latencies.len() as f64 * p).ceil() as usize).clamp(1, self.latencies.len());
            self.latencies[i - 1] as f64 / 1e3
        };
        let per_cpu = self
            .cpu
            .filter(|c| !c.is_zero())
            .map_or(f64::NAN, |c| self.requests as f64 / c.as_secs_f64());
        println!(
            "{:<26} {:>7} {:>9} {:>9.0} {:>9.0} {:>9.0} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            what,
            workers,
            self.requests,
            rps,
            rps / workers as f64,
            per_cpu,
            q(0.50),
            q(0.90),
            q(0.99),
            q(0.999),
            q(1.0)
        );
    }
}

/// `clients` threads, each keeping `in_flight` requests submitted (a new one as each is
/// answered) until `total` are answered; every request from its own agent.
fn closed_loop<P: Planner>(
    service: &Service<P>,
    clients: usize,
    in_flight: usize,
    total: usize,
    make: impl Fn(usize) -> P::Request + Sync,
) -> Run {
    let next = AtomicU64::new(0);
    let cpu_before = cpu_time();
    let start = Instant::now();
    let mut latencies: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                let (next, make) = (&next, &make);
                s.spawn(move || {
                    let (tx, rx) = channel::<(u64, bool)>();
                    let mut lat = Vec::with_capacity(total / clients + 1);
                    let submit = || {
                        let i = next.fetch_add(1, Ordering::Relaxed) as usize;
                        if i >= total {
                            return false;
                        }
                        let tx = tx.clone();
                        let t = Instant::now();
                        service.submit_with(
                            AgentId(i as u64),
                            make(i),
                            move |r: PathResponse<P::Output>| {
                                let ns = t.elapsed().as_nanos() as u64;
                                let _ = tx.send((ns, matches!(r.outcome, PathOutcome::Done(_))));
                            },
                        );
                        true
                    };
                    let mut waiting = (0..in_flight).take_while(|_| submit()).count();
                    while waiting > 0 {
                        let (ns, done) = rx.recv().expect("an answer");
                        assert!(done, "a request was not planned");
                        lat.push(ns);
                        waiting -= 1;
                        if submit() {
                            waiting += 1;
                        }
                    }
                    lat
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let elapsed = start.elapsed();
    let cpu = cpu_time().zip(cpu_before).map(|(a, b)| a.saturating_sub(b));
    assert_eq!(latencies.len(), total);
    latencies.sort_unstable();
    Run {
        requests: total,
        elapsed,
        cpu,
        latencies,
    }
}
