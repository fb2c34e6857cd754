//! `navkit simulate`: a crowd on a navmesh, random or from a scenario file, with obstacles; or
//! a suite of scenario files, a row per run.

use std::io::Write;
use std::path::{Path, PathBuf};

use navkit::Error;
use navkit::navmesh::NavMesh;
use navkit::tools::crowd_suite::{SuiteScenario, load_suite};
use navkit::tools::simulation::{Scenario, SimReport, SimSettings};

use crate::common::{Kind, PICTURE, PictureArgs, check_output_opt, load_options, progress};
use crate::common::{NavSource, is_geometry, navmesh_source};
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{rename_each, to_json};
use crate::output::inputs;

#[path = "simulate_report.rs"]
mod report;

// `navkit simulate` arguments.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// MESH.obj, MESH.gltf, MESH.glb, GEOM.gset or a saved navmesh (default: the scenario's
    /// `level`; with --suite, the level of the scenarios that name none).
    pub input: Option<PathBuf>,
    /// Number of agents [default: a scenario's random agents', else 50].
    #[arg(long)]
    pub agents: Option<usize>,
    /// Simulated seconds [default: the scenario's `seconds`, else 60].
    #[arg(long)]
    pub seconds: Option<f32>,
    /// Seed for the starts and goals [default: the scenario's random seeds (a run each), else
    /// 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print JSON (`agents`, `arrived`, `last_arrival_s`, `stuck`, `stuck_by_cause`,
    /// `mean_speed_m_per_s`, `min_separation_m`, `collisions` (overlapping pair-frames),
    /// `deepest_overlap_m`, `update_us`, `update_max_us`, ...); for a suite, or a scenario with
    /// several seeds, an array of them, one per run, with `scenario`, `file`, `level` and `seed`.
    #[arg(long)]
    pub json: bool,
    /// Write every agent's start, goal, arrival time and trajectory as JSON here.
    #[arg(long, value_name = "FILE", conflicts_with = "suite")]
    pub trajectories: Option<PathBuf>,
    /// Draw the trajectories over the navmesh (PNG or SVG), goals reached or not, and the agents
    /// stuck at the end ringed by cause.
    #[arg(short, long, conflicts_with = "suite")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub picture: PictureArgs,
    /// Run the agents of this scenario file instead of random ones, around its obstacles
    /// (JSON: `{"agents": [{"start": [x,y,z], "goal": [x,y,z], "behaviour":
    /// "direct"|"wander", "seed": N}], "obstacles": [{"kind": "cylinder", "pos": [x,y,z],
    /// "radius": R, "height": H}, {"kind": "box", "bmin": [..], "bmax": [..]}, {"kind":
    /// "oriented_box", "center": [..], "half_extents": [..], "y_angle": A}], "events": [{"at":
    /// T, "add": {obstacle}, "name": "N"}, {"at": T, "remove": "N"}], "level": "PATH",
    /// "seconds": S, "random": {"agents": N, "seeds": [N, ..]}, "agent": {"radius": R,
    /// "height": H, "max_speed": V, "max_acceleration": A}, "arrive_distance": D}`; all
    /// optional; events are applied while the agents walk; `level` is relative to the
    /// scenario's folder and, like a .gset's mesh, inside it unless --allow-outside-paths;
    /// `random` draws agents as without a scenario, a run per seed, instead of `agents`).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Run a suite of scenarios: folders (their .json files, in name order) or scenario files;
    /// prints a table with a row per run (scenario and seed), or with --json an array. The
    /// project's suite is scenarios/crowd (its RecastDemo levels, beside the repository, need
    /// --allow-outside-paths).
    #[arg(long, value_name = "PATH", num_args = 1.., conflicts_with = "scenario")]
    pub suite: Vec<PathBuf>,
    /// Plain DetourCrowd, without navkit's crowd behaviours (giving way, queueing, stuck
    /// causes), to compare.
    #[arg(long)]
    pub plain_detour: bool,
}

/// What the command line sets over a scenario's own values.
struct Overrides {
    agents: Option<usize>,
    seconds: Option<f32>,
    seed: Option<u64>,
    plain_detour: bool,
}

impl Overrides {
    /// The runs of `scenario` (if any): its settings with the command line's over them, one per
    /// seed (the command line's, else the scenario's random seeds, else 1).
    fn runs(&self, scenario: Option<&Scenario>) -> Vec<(Option<u64>, SimSettings)> {
        let base = SimSettings {
            plain_detour: self.plain_detour,
            ..Default::default()
        };
        let mut s = scenario.map_or(base.clone(), |sc| sc.settings(&base));
        if let Some(a) = self.agents {
            s.agents = a;
        }
        if let Some(t) = self.seconds {
            s.seconds = t;
        }
        let seeds = match (self.seed, scenario.map(Scenario::seeds)) {
            (Some(seed), _) => vec![Some(seed)],
            (None, Some(v)) if !v.is_empty() => v.into_iter().map(Some).collect(),
            _ => vec![None],
        };
        seeds
            .into_iter()
            .map(|seed| {
                let settings = SimSettings {
                    seed: seed.unwrap_or(1),
                    ..s.clone()
                };
                (
                    seed.filter(|_| scenario.is_some_and(|sc| sc.random.is_some())),
                    settings,
                )
            })
            .collect()
    }
}

pub fn run(args: SimulateArgs) -> CliResult {
    let overrides = Overrides {
        agents: args.agents,
        seconds: args.seconds,
        seed: args.seed,
        plain_detour: args.plain_detour,
    };
    if !args.suite.is_empty() {
        return run_suite(&args.suite, args.input.as_deref(), &overrides, args.json);
    }
    let SimulateArgs {
        input,
        json,
        trajectories,
        output,
        picture,
        scenario: scenario_file,
        ..
    } = args;
    let scenario = scenario_file.as_deref().map(Scenario::load).transpose()?;
    let level = match (&scenario, &scenario_file) {
        (Some(s), Some(f)) => s.level_file(f, &load_options())?,
        _ => None,
    };
    let Some(input) = input.or(level) else {
        return Err(CliError::Usage(
            "no level: give MESH, or a --scenario that names its `level`".into(),
        ));
    };
    let inputs = inputs(&input, scenario_file.as_deref());
    check_output_opt(
        trajectories.as_deref(),
        &["json"],
        "--trajectories",
        Kind::Json,
        &inputs,
    )?;
    check_output_opt(output.as_deref(), PICTURE, "-o", Kind::Picture, &inputs)?;
    if let (Some(t), Some(o)) = (&trajectories, &output) {
        crate::output::check_distinct(t, o, "--trajectories", "-o")?;
    }
    let picture = picture.options()?;
    let runs = overrides.runs(scenario.as_ref());
    if runs.len() > 1 {
        if trajectories.is_some() || output.is_some() {
            return Err(CliError::Usage(format!(
                "the scenario has {} seeds: --trajectories and -o need one run; choose it with --seed",
                runs.len()
            )));
        }
        let file = scenario_file.unwrap_or_default();
        let name = file
            .file_stem()
            .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
        let entry = SuiteScenario {
            name,
            file,
            scenario: scenario.unwrap_or_default(),
            level: Some(input.clone()),
        };
        return run_entries(&[entry], None, &overrides, json);
    }
    let source = navmesh_source(&input, None, scenario.as_ref(), None)?;
    let navmesh = source.navmesh();
    let (_, settings) = runs.into_iter().next().unwrap_or_default();
    let bar = progress(
        json,
        &format!(
            "{{spinner}} simulating {} agents for {} s ({{elapsed}})",
            settings.agents, settings.seconds
        ),
        None,
    );
    let r = run_one(&input, &source, scenario.as_ref(), &settings)?;
    bar.finish_and_clear();
    if json {
        out!("{}", report::to_json_object(&r));
    } else {
        out!("{}", report::line(&r));
    }
    if let Some(path) = &trajectories {
        let mut agents = to_json(&r.agents_detail);
        rename_each(&mut agents, &[("arrived_at", "arrived_at_s")]);
        let text = agents.to_string();
        navkit::atomic_file::write(path, text.as_bytes())?;
    }
    if let Some(path) = &output {
        draw(navmesh, &source, scenario.as_ref(), &r, path, &picture)?;
    }
    Ok(Outcome::Success)
}

/// One run on `input`'s navmesh (`source`): the scenario's agents, obstacles and events, or
/// random agents.
fn run_one(
    input: &Path,
    source: &NavSource,
    scenario: Option<&Scenario>,
    settings: &SimSettings,
) -> Result<SimReport, CliError> {
    use navkit::tools::simulation as sim;
    let navmesh = source.navmesh();
    Ok(match scenario {
        Some(s) if !s.events.is_empty() => {
            if !is_geometry(input) {
                return Err(CliError::from(Error::InvalidArgument(format!(
                    "{}: obstacle events need the geometry (.obj, .gltf, .glb or .gset)",
                    input.display()
                ))));
            }
            let geom = crate::common::load_input(input)?;
            let build = geom.settings.clone().unwrap_or_default();
            sim::simulate_dynamic_within(&geom, &build, s, settings, &crate::common::budget())?
        }
        Some(s) if !s.agents.is_empty() => sim::simulate_scenario(navmesh, &s.agents, settings)?,
        Some(s) if s.obstacles.is_empty() && s.random.is_none() => {
            return Err(CliError::from(Error::InvalidArgument(
                "the scenario has neither agents nor obstacles".into(),
            )));
        }
        _ => sim::simulate(navmesh, settings)?,
    })
}

/// `navkit simulate --suite`: every scenario of `paths`, a row per run.
fn run_suite(
    paths: &[PathBuf],
    input: Option<&Path>,
    overrides: &Overrides,
    json: bool,
) -> CliResult {
    let entries = load_suite(paths, &load_options())?;
    run_entries(&entries, input, overrides, json)
}

/// Runs `entries` (each on its level, else on `input`) and prints the table or JSON array.
fn run_entries(
    entries: &[SuiteScenario],
    input: Option<&Path>,
    overrides: &Overrides,
    json: bool,
) -> CliResult {
    let mut rows = Vec::new();
    for e in entries {
        let Some(level) = e.level.as_deref().or(input) else {
            return Err(CliError::from(Error::Parse {
                path: e.file.clone(),
                line: 0,
                message: "level: the scenario names no level and no MESH was given".into(),
            }));
        };
        let source = navmesh_source(level, None, Some(&e.scenario), None)?;
        for (seed, settings) in overrides.runs(Some(&e.scenario)) {
            let bar = progress(
                json,
                &format!(
                    "{{spinner}} {}{}: {} s ({{elapsed}})",
                    e.name,
                    seed.map_or(String::new(), |s| format!(" seed {s}")),
                    settings.seconds
                ),
                None,
            );
            let r = run_one(level, &source, Some(&e.scenario), &settings)?;
            bar.finish_and_clear();
            rows.push(report::Row {
                name: e.name.clone(),
                file: e.file.clone(),
                level: level.to_path_buf(),
                seed,
                report: r,
            });
        }
    }
    if json {
        out!("{}", report::rows_json(&rows));
    } else {
        out!("{}", report::table(&rows));
    }
    Ok(Outcome::Success)
}

/// The trajectories over the navmesh (one colour per agent), goals green (reached) or red,
/// obstacles.
fn draw(
    navmesh: &NavMesh,
    source: &NavSource,
    scenario: Option<&Scenario>,
    r: &SimReport,
    path: &Path,
    picture: &navkit::render::RenderOptions,
) -> navkit::Result<()> {
    use navkit::debug_draw::{Color, Layer, paths};
    use navkit::render::{Scene, Swatch};
    let mut scene = Scene::with_navmesh(
        navmesh,
        format!(
            "navkit simulate: {} agents, {} s, {} arrived",
            r.agents, r.seconds, r.arrived
        ),
    );
    scene.add_obstacles(&source.obstacles());
    if let Some(sc) = scenario {
        let later: Vec<_> = sc.events.iter().filter_map(|e| e.add).collect();
        let n = later.len();
        scene.add_obstacle_shapes(&later, format!("obstacles added by events ({n})"));
    }
    let trajectories: Vec<Vec<glam::Vec3>> = r
        .agents_detail
        .iter()
        .map(|a| a.trajectory.clone())
        .collect();
    let layer = paths::trajectories(&trajectories);
    let mut colors: Vec<Color> = Vec::new();
    for (_, _, c, _) in layer.lines() {
        if !colors.contains(&c) {
            colors.push(c);
        }
    }
    scene.add_overlay(
        layer,
        Some((
            Swatch::Colors(colors),
            format!(
                "agent trajectories ({}, one colour per agent, dashed)",
                r.agents
            ),
        )),
    );
    let (reached, missed) = (Color::rgba(40, 200, 40, 255), Color::rgba(220, 40, 40, 255));
    for (want, c, label) in [
        (true, reached, "goals reached"),
        (false, missed, "goals not reached"),
    ] {
        let mut l = Layer::new("simulate.goals");
        for a in r
            .agents_detail
            .iter()
            .filter(|a| a.arrived_at.is_some() == want)
        {
            l.point(a.goal, c, 8.0);
        }
        let n = l.primitives.len();
        scene.add_overlay(l, Some((Swatch::Point(c, 8.0), format!("{label} ({n})"))));
    }
    add_stuck(&mut scene, r);
    navkit::render::save(&scene, path, picture)
}

/// The agents stuck at the end where they stand, ringed in one colour per cause (legend rows
/// only for causes present).
fn add_stuck(scene: &mut navkit::render::Scene, r: &SimReport) {
    use navkit::agents::crowd::StuckCause;
    use navkit::debug_draw::{Color, Layer};
    use navkit::render::Swatch;
    use navkit::tools::crowd_metrics::Stuck;
    let causes = [
        (
            Stuck::Crowd(StuckCause::BlockedByAgents),
            Color::rgba(255, 140, 0, 255),
        ),
        (
            Stuck::Crowd(StuckCause::BlockedByObstacle),
            Color::rgba(150, 60, 200, 255),
        ),
        (
            Stuck::Crowd(StuckCause::Unreachable),
            Color::rgba(20, 20, 20, 255),
        ),
        (Stuck::NoProgress, Color::rgba(120, 120, 120, 255)),
    ];
    for (cause, c) in causes {
        let mut l = Layer::new("simulate.stuck");
        let at = r.agents_detail.iter().filter(|a| a.stuck == Some(cause));
        let mut n = 0;
        for p in at.filter_map(|a| a.trajectory.last()) {
            l.circle(*p, 0.6, c, 2.0, 16);
            l.point(*p, c, 7.0);
            n += 1;
        }
        if n > 0 {
            let label = format!("stuck at the end: {} ({n})", cause.name());
            scene.add_overlay(l, Some((Swatch::Point(c, 8.0), label)));
        }
    }
}
