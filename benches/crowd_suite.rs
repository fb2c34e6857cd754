//! The crowd scenario suite (`scenarios/crowd/`) side by side: navkit's crowd (`navkit
//! simulate`'s run), a raw `dtCrowd` set up as RecastDemo's `CrowdTool` (`common/raw_crowd.rs`)
//! and an ORCA crowd (`dodgy_2d` as landmass uses it, `common/orca_crowd.rs`) on the flat levels
//! it can run, with the same agents, radius (0.6 m), maximum speed (3.5 m/s) and time step
//! (1/30 s). Every crowd is measured by the same code (`navkit::tools::crowd_metrics`, fed
//! positions and radii after every update); one table: scenario x crowd -> arrived / total,
//! last arrival, stuck (the crowd's causes where it gives them, else navkit's no-progress
//! measure), minimum separation, deepest overlap, mean speed and update time per frame.
//!
//! `cargo bench --features tools --bench crowd_suite -- --bench` (a few minutes: every
//! scenario for its full length, the random ones over their five seeds); without `--bench`
//! (cargo test's smoke run) every scenario for 2 simulated seconds, its first seed only.
//!
//! What it showed first (plain DetourCrowd, before navkit's crowd behaviours): navkit's crowd
//! is raw dtCrowd to the bit (every measure alike but the time). ORCA as landmass uses it
//! deadlocks where agents meet head-on in symmetric layouts (circle swap, corridor swap: no
//! agent arrives; RVO2's own examples perturb the preferred velocities slightly to break such
//! symmetry, landmass does not) but keeps agents apart (no overlap deeper than 0.08 m, where
//! DetourCrowd's deepest is 1.18 m in the bottleneck), at a fifth to a third of the time per
//! frame with brute-force neighbours.
//!
//! The RecastDemo levels of the random scenarios lie beside the repository
//! (`../shared/meshes/recastdemo/`); the suite's own files are trusted to name them
//! (`allow_outside_paths`), as `navkit simulate --suite scenarios/crowd --allow-outside-paths`.

use std::time::Instant;

use glam::Vec3;

use navkit::geometry::LoadOptions;
use navkit::query::{DEFAULT_HALF_EXTENTS, QueryFilter};
use navkit::tools::crowd_metrics::{CrowdMetrics, CrowdMetricsReport};
use navkit::tools::crowd_suite::load_suite;
use navkit::tools::simulation::{
    AgentSpec, SimReport, SimSettings, random_specs, simulate_scenario,
};
use navkit::{InputGeometry, NavMeshBuilder};

#[path = "common/orca_crowd.rs"]
mod orca_crowd;
#[path = "common/raw_crowd.rs"]
#[allow(dead_code)]
mod raw_crowd;
#[path = "common/raw_navmesh.rs"]
mod raw_navmesh;

use orca_crowd::OrcaCrowd;
use raw_crowd::{AGENT_RADIUS, RawCrowd};

/// One row of the table.
struct Row {
    scenario: String,
    crowd: &'static str,
    agents: usize,
    arrived: usize,
    last_arrival: Option<f32>,
    stuck: String,
    min_separation: f32,
    deepest_overlap: f32,
    mean_speed: f32,
    update_us: f64,
}

impl Row {
    fn from_metrics(scenario: &str, crowd: &'static str, m: &CrowdMetricsReport) -> Row {
        Row {
            scenario: scenario.to_string(),
            crowd,
            agents: m.agents,
            arrived: m.arrived,
            last_arrival: m.last_arrival,
            stuck: stuck_text(m.stuck.total(), &m.stuck.named()),
            min_separation: m.min_separation,
            deepest_overlap: m.deepest_overlap,
            mean_speed: m.mean_speed,
            update_us: m.update_mean_us,
        }
    }

    fn from_sim(scenario: &str, r: &SimReport) -> Row {
        Row {
            scenario: scenario.to_string(),
            crowd: "navkit",
            agents: r.agents,
            arrived: r.arrived,
            last_arrival: r.last_arrival,
            stuck: stuck_text(r.stuck, &r.stuck_causes.named()),
            min_separation: r.min_separation,
            deepest_overlap: r.deepest_overlap,
            mean_speed: r.mean_speed,
            update_us: r.update_us,
        }
    }

    fn print(&self) {
        println!(
            "| {} | {} | {}/{} | {} | {} | {:.3} | {:.3} | {:.2} | {:.0} |",
            self.scenario,
            self.crowd,
            self.arrived,
            self.agents,
            self.last_arrival
                .map_or("-".to_string(), |t| format!("{t:.1}")),
            self.stuck,
            self.min_separation,
            self.deepest_overlap,
            self.mean_speed,
            self.update_us
        );
    }
}

/// `3 (no_progress 3)`, or the count alone when it is 0.
fn stuck_text(total: usize, named: &[(&str, usize)]) -> String {
    let causes: Vec<String> = named
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(name, n)| format!("{name} {n}"))
        .collect();
    if causes.is_empty() {
        total.to_string()
    } else {
        format!("{total} ({})", causes.join(", "))
    }
}

/// The raw dtCrowd on `tile_data` with the agents of `specs`, measured.
fn run_raw(
    navmesh: &navkit::NavMesh,
    tile_data: &[u8],
    specs: &[AgentSpec],
    s: &SimSettings,
) -> CrowdMetricsReport {
    let n = specs.len();
    let mut raw = RawCrowd::new(tile_data, n as i32);
    let mut q = navmesh.query().unwrap();
    let filter = QueryFilter::default();
    let mut goals = Vec::with_capacity(n);
    for a in specs {
        let start = q
            .find_nearest_poly(a.start, DEFAULT_HALF_EXTENTS, &filter)
            .unwrap();
        let goal = q
            .find_nearest_poly(a.goal, DEFAULT_HALF_EXTENTS, &filter)
            .unwrap();
        let idx = raw.add(start.point);
        assert!(idx >= 0, "raw crowd full");
        raw.target(idx, goal.poly.0, goal.point);
        goals.push(goal.point);
    }
    let mut metrics = CrowdMetrics::new(goals, vec![AGENT_RADIUS; n], s.arrive_radius, s.dt);
    let (mut pos, mut vel) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
    for _ in 0..frames(s) {
        let t = Instant::now();
        raw.update(s.dt);
        let took = t.elapsed();
        for i in 0..n {
            (pos[i], vel[i]) = raw.agent(i as i32);
        }
        metrics.frame(&pos, &vel, took);
    }
    metrics.report(&[])
}

/// The ORCA crowd on the floor of `triangles` with the agents of `specs`, measured.
fn run_orca(
    navmesh: &navkit::NavMesh,
    triangles: &[[Vec3; 3]],
    specs: &[AgentSpec],
    s: &SimSettings,
) -> CrowdMetricsReport {
    let n = specs.len();
    let pairs: Vec<(Vec3, Vec3)> = specs.iter().map(|a| (a.start, a.goal)).collect();
    let mut orca = OrcaCrowd::new(
        navmesh,
        triangles,
        &pairs,
        s.params.radius,
        s.params.max_speed,
        s.arrive_radius,
    );
    let mut q = navmesh.query().unwrap();
    let filter = QueryFilter::default();
    let goals = specs
        .iter()
        .map(|a| {
            q.find_nearest_poly(a.goal, DEFAULT_HALF_EXTENTS, &filter)
                .unwrap()
                .point
        })
        .collect();
    let mut metrics = CrowdMetrics::new(goals, vec![s.params.radius; n], s.arrive_radius, s.dt);
    let (mut pos, mut vel) = (vec![Vec3::ZERO; n], vec![Vec3::ZERO; n]);
    for _ in 0..frames(s) {
        let t = Instant::now();
        orca.update(s.dt);
        let took = t.elapsed();
        orca.state(&mut pos, &mut vel);
        metrics.frame(&pos, &vel, took);
    }
    metrics.report(&[])
}

/// Frames of a run, as `simulate` counts them.
fn frames(s: &SimSettings) -> usize {
    (s.seconds / s.dt).ceil() as usize
}

/// The level's triangles if it is flat (every vertex at one height): ORCA is 2D.
fn flat_triangles(geom: &InputGeometry) -> Option<Vec<[Vec3; 3]>> {
    let v = &geom.mesh.verts;
    let y0 = *v.get(1)?;
    if v.chunks(3).any(|p| (p[1] - y0).abs() > 1e-4) {
        return None;
    }
    let at = |i: i32| Vec3::from_slice(&v[3 * i as usize..3 * i as usize + 3]);
    Some(
        geom.mesh
            .tris
            .chunks(3)
            .map(|t| [at(t[0]), at(t[1]), at(t[2])])
            .collect(),
    )
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench_mode = args.iter().any(|a| a == "--bench");
    let suite_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios/crowd");
    let trusted = LoadOptions {
        allow_outside_paths: true,
    };
    let suite = load_suite(&[suite_dir], &trusted).expect("the crowd suite");
    println!(
        "crowd suite ({}): navkit's crowd, raw dtCrowd and ORCA (dodgy_2d, flat levels only), radius {AGENT_RADIUS} m, 3.5 m/s, dt 1/30 s{}",
        suite.len(),
        if bench_mode {
            ""
        } else {
            "; smoke run: 2 s, first seed"
        }
    );
    println!(
        "| scenario | crowd | arrived | last arrival s | stuck | min separation m | deepest overlap m | mean speed m/s | update us/frame |"
    );
    println!("|---|---|---:|---:|---|---:|---:|---:|---:|");
    for entry in &suite {
        let level = entry
            .level
            .as_deref()
            .expect("every suite scenario names its level");
        let geom = InputGeometry::load_with(level, &trusted).expect("the level");
        let settings = geom.settings.clone().unwrap_or_default();
        let built = NavMeshBuilder::new(&geom)
            .settings(settings)
            .solo()
            .expect("build");
        let navmesh = built.navmesh();
        let flat = flat_triangles(&geom);
        let mut runs = entry.runs(&SimSettings::default());
        if !bench_mode {
            runs.truncate(1);
            runs[0].settings.seconds = 2.0;
        }
        for run in runs {
            let s = &run.settings;
            let name = match run.seed {
                Some(seed) => format!("{} seed {seed}", entry.name),
                None => entry.name.clone(),
            };
            let specs = match &entry.scenario.random {
                Some(_) => random_specs(navmesh, s.agents, s.seed).expect("random agents"),
                None => entry.scenario.agents.clone(),
            };
            let ours = simulate_scenario(navmesh, &specs, s).expect("navkit's crowd");
            Row::from_sim(&name, &ours).print();
            let raw = run_raw(navmesh, built.tile_data(), &specs, s);
            Row::from_metrics(&name, "raw dtCrowd", &raw).print();
            if let Some(tris) = &flat {
                let orca = run_orca(navmesh, tris, &specs, s);
                Row::from_metrics(&name, "ORCA (dodgy_2d)", &orca).print();
            }
        }
    }
}
