//! Crowd update time per frame on nav_test.obj for 25 to 10,000 agents: raw `dtCrowd` calls
//! (upstream's `dtCrowd::update`) against navkit's `Crowd` (navkit's own update, the same
//! results to the bit) on 1 and on 2 threads, in one run; and steering throughput per agent.
//!
//! The three crowds are built over the same tile data with the same agents, parameters,
//! avoidance presets and targets, so they do the same work frame for frame; frames are timed
//! in interleaved blocks (the order rotating per round) and the medians compared. After the
//! timed frames all three must be at the same state: navkit's two crowds agree on every
//! agent's position, velocities, corners, corridor and neighbours to the bit, and the raw
//! crowd on every position and velocity.
//!
//! A fourth crowd, navkit's default (its crowd behaviours on: giving way, head-on yielding,
//! queues, stuck detection; on 2 threads), is timed beside them: the same agents and targets,
//! but the behaviours change where agents walk, so its state is not compared; its column is
//! the cost of the crowd a game gets by default.
//!
//! The 16-thread column is an estimate by Amdahl's law from navkit's 1-thread run: its
//! measured sequential time (the path queue, topology optimisation, the grid and the
//! hand-offs between phases, `Crowd::last_update_timing`) plus the rest divided by 16.
//!
//! `cargo bench --features tools,parallel --bench crowd -- --bench` (about 20 s after the build) or with
//! `--quick`.
//!
//! The raw crowd, set up as RecastDemo's `CrowdTool` sets up its crowd, is in
//! `common/raw_crowd.rs`, shared with the test that checks in CI that both crowds move every
//! agent to the same place for a few hundred frames (`tests/reference_parity.rs`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::agents::crowd::{Crowd, CrowdBehaviours};
use navkit::agents::steering::{Agent, Arrive, Behaviour, Leave};
use navkit::navmesh::NavMesh;
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::{BuildSettings, InputGeometry};

#[path = "common/raw_crowd.rs"]
mod raw_crowd;
#[path = "common/raw_navmesh.rs"]
mod raw_navmesh;
use raw_crowd::{agents_alike, navkit_crowd, twin_crowds};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Every agent's state, corridor and neighbours, as bits.
fn state_bits(crowd: &Crowd<&NavMesh>) -> Vec<u64> {
    let mut out = Vec::new();
    let mut bits = |v: Vec3| out.extend(v.to_array().map(|f| f.to_bits() as u64));
    let mut rest = Vec::new();
    for h in crowd.handles() {
        let a = crowd.agent(h).unwrap();
        let (corridor, planned) = crowd.corridor(h).unwrap();
        for v in [a.position, a.velocity, a.desired_velocity, planned] {
            bits(v);
        }
        a.corners.iter().for_each(|&c| bits(c));
        rest.push(a.target_state as u64);
        rest.extend(corridor.iter().map(|r| r.to_u64()));
        for n in crowd.neighbours(h).unwrap() {
            rest.push(n.agent.index() as u64);
            rest.push(n.distance_squared.to_bits() as u64);
        }
    }
    out.extend(rest);
    out
}

/// Rounds and frames per round for `n` agents.
fn schedule(n: usize, bench_mode: bool, quick: bool) -> (usize, usize) {
    match (bench_mode, quick, n) {
        (false, _, _) => (1, 2),
        (true, true, ..=1000) => (5, 10),
        (true, true, ..=5000) => (3, 4),
        (true, true, _) => (3, 2),
        (true, false, ..=1000) => (15, 20),
        (true, false, ..=5000) => (7, 6),
        (true, false, _) => (5, 4),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let bench_mode = args.iter().any(|a| a == "--bench");
    let mesh = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/meshes/recastdemo/nav_test.obj"
    );
    let geom = InputGeometry::load(mesh).expect("nav_test.obj beside the repository");
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .expect("build");
    let mut cmp = Comparer::new(built.navmesh(), None, CompareSettings::default()).unwrap();
    let pairs = cmp.random_pairs(10_000, 3).unwrap();
    let dt = 1.0 / 30.0;
    println!(
        "crowd update per frame on nav_test.obj: raw dtCrowd vs navkit's Crowd on 1 and 2 threads \
         ({} cores here), interleaved rounds, medians; 16 threads estimated (Amdahl)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!(
        "| agents | rounds x frames | raw us/frame | navkit 1 thread | navkit 2 threads | 1t / raw | 2t / raw | default 2t | default / raw | sequential share | 16 threads (est.) | est. / raw |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for n in [25usize, 100, 500, 1000, 5000, 10_000] {
        let (rounds, frames) = schedule(n, bench_mode, quick);
        let (mut one, mut raw) = twin_crowds(built.navmesh(), built.tile_data(), &pairs[..n]);
        let mut two = navkit_crowd(built.navmesh(), &pairs[..n]);
        let mut def = navkit_crowd(built.navmesh(), &pairs[..n]);
        def.set_behaviours(CrowdBehaviours::default()).unwrap();
        one.set_threads(1).unwrap();
        two.set_threads(2).unwrap();
        def.set_threads(2).unwrap();
        let (mut t_raw, mut t_one, mut t_two, mut t_def) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut seq, mut seq_total) = (Duration::ZERO, Duration::ZERO);
        for r in 0..rounds {
            for k in 0..4 {
                let t = Instant::now();
                match (r + k) % 4 {
                    0 => {
                        for _ in 0..frames {
                            raw.update(black_box(dt));
                        }
                    }
                    1 => {
                        for _ in 0..frames {
                            one.update(black_box(dt)).unwrap();
                            let timing = one.last_update_timing();
                            seq += timing.sequential;
                            seq_total += timing.total;
                        }
                    }
                    2 => {
                        for _ in 0..frames {
                            two.update(black_box(dt)).unwrap();
                        }
                    }
                    _ => {
                        for _ in 0..frames {
                            def.update(black_box(dt)).unwrap();
                        }
                    }
                }
                let us = t.elapsed().as_secs_f64() * 1e6 / frames as f64;
                [&mut t_raw, &mut t_one, &mut t_two, &mut t_def][(r + k) % 4].push(us);
            }
        }
        // Same work: after the same frames all three are at the same state, to the bit.
        assert_eq!(
            agents_alike(&one, &raw),
            n,
            "{n} agents: navkit and raw diverged"
        );
        assert!(
            state_bits(&one) == state_bits(&two),
            "{n} agents: navkit on 1 and 2 threads diverged"
        );
        let (a, b, c, d) = (median(t_raw), median(t_one), median(t_two), median(t_def));
        let share = seq.as_secs_f64() / seq_total.as_secs_f64().max(1e-12);
        let est = b * share + b * (1.0 - share) / 16.0;
        println!(
            "| {n} | {rounds} x {frames} | {a:.1} | {b:.1} | {c:.1} | {:.3} | {:.3} | {d:.1} | {:.3} | {:.1}% | {est:.1} | {:.3} |",
            b / a,
            c / a,
            d / a,
            share * 100.0,
            est / a
        );
    }

    // Steering throughput: Arrive blended with Leave, per agent update.
    let mut agents: Vec<Agent> = pairs[..1000]
        .iter()
        .map(|&(a, _)| Agent::new(a, 3.5, 8.0))
        .collect();
    let behaviours: Vec<Behaviour> = pairs[..1000]
        .iter()
        .map(|&(a, b)| {
            Behaviour::Blend(vec![
                (1.0, Behaviour::Arrive(Arrive::new(b, 0.2, 3.0))),
                (0.5, Behaviour::Leave(Leave::new(a, 1.0, 4.0))),
            ])
        })
        .collect();
    let steps = if bench_mode { 200 } else { 2 };
    let t = Instant::now();
    for _ in 0..steps {
        for (a, b) in agents.iter_mut().zip(&behaviours) {
            let s = b.steer(a);
            a.integrate(s, dt);
        }
    }
    black_box(&agents);
    let per = t.elapsed().as_secs_f64() * 1e9 / (steps * agents.len()) as f64;
    println!(
        "\nsteering (Arrive + Leave blend, integrate): {per:.1} ns per agent update ({:.1} M agent updates/s)",
        1e3 / per
    );
}
