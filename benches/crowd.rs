//! Crowd update time per frame through navkit's `Crowd` against raw `dtCrowd` calls, in one
//! run, for 25, 100, 500 and 1000 agents on nav_test.obj; and steering throughput per agent.
//!
//! Both crowds are built over the same tile data with the same agents, parameters, avoidance
//! presets and targets, so they do the same work frame for frame (DetourCrowd is
//! deterministic; asserted after the timed frames); frames are timed in interleaved blocks and
//! the medians compared.
//!
//! `cargo bench --bench crowd` (about a minute) or `-- --quick`.
//!
//! The raw crowd, set up as RecastDemo's `CrowdTool` sets up its crowd, is in
//! `common/raw_crowd.rs`, shared with the test that checks in CI that both crowds move every
//! agent to the same place for a few hundred frames (`tests/reference_parity.rs`).

use std::hint::black_box;
use std::time::Instant;

use navkit::NavMeshBuilder;
use navkit::agents::steering::{Agent, Arrive, Behaviour, Leave};
use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::{BuildSettings, InputGeometry};

#[path = "common/raw_crowd.rs"]
mod raw_crowd;
#[path = "common/raw_navmesh.rs"]
mod raw_navmesh;
use raw_crowd::{agents_alike, twin_crowds};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let bench_mode = args.iter().any(|a| a == "--bench");
    let (rounds, frames) = match (bench_mode, quick) {
        (false, _) => (1, 2),
        (true, true) => (5, 10),
        (true, false) => (15, 20),
    };
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
    let pairs = cmp.random_pairs(1000, 3).unwrap();
    let dt = 1.0 / 30.0;
    println!(
        "crowd update per frame on nav_test.obj, navkit Crowd vs raw dtCrowd, {rounds} interleaved rounds of {frames} frames, medians"
    );
    println!("| agents | navkit us/frame | raw us/frame | ratio |");
    println!("|---:|---:|---:|---:|");
    for n in [25usize, 100, 500, 1000] {
        let (mut crowd, mut raw) = twin_crowds(built.navmesh(), built.tile_data(), &pairs[..n]);
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            let mut run_ours = |v: &mut Vec<f64>| {
                let t = Instant::now();
                for _ in 0..frames {
                    crowd.update(black_box(dt)).unwrap();
                }
                v.push(t.elapsed().as_secs_f64() * 1e6 / frames as f64);
            };
            let mut run_raw = |v: &mut Vec<f64>| {
                let t = Instant::now();
                for _ in 0..frames {
                    raw.update(black_box(dt));
                }
                v.push(t.elapsed().as_secs_f64() * 1e6 / frames as f64);
            };
            if r % 2 == 0 {
                run_ours(&mut ours);
                run_raw(&mut theirs);
            } else {
                run_raw(&mut theirs);
                run_ours(&mut ours);
            }
        }
        // Same work: after the same frames every agent is at the same place, to the bit.
        assert_eq!(
            agents_alike(&crowd, &raw),
            n,
            "{n} agents: navkit and raw crowds diverged"
        );
        let (a, b) = (median(ours), median(theirs));
        println!("| {n} | {a:.1} | {b:.1} | {:.3} |", a / b);
    }

    // Steering throughput: Arrive blended with Leave, per agent update.
    let mut agents: Vec<Agent> = pairs
        .iter()
        .map(|&(a, _)| Agent::new(a, 3.5, 8.0))
        .collect();
    let behaviours: Vec<Behaviour> = pairs
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
