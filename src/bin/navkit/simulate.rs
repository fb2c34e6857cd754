//! `navkit simulate`: a crowd on a navmesh, random or from a scenario file, with obstacles.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::json;

use navkit::Error;
use navkit::navmesh::NavMesh;
use navkit::tools::simulation::{Scenario, SimReport};

use crate::common::{Kind, PICTURE, PictureArgs, check_output_opt, progress};
use crate::common::{NavSource, is_geometry, navmesh_source};
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{num32, rename_each, to_json};
use crate::output::inputs;

// `navkit simulate` arguments.
#[derive(clap::Args)]
pub struct SimulateArgs {
    /// MESH.obj, MESH.gltf, MESH.glb, GEOM.gset or a saved navmesh.
    pub input: PathBuf,
    /// Number of agents.
    #[arg(long, default_value_t = 50)]
    pub agents: usize,
    /// Simulated seconds.
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f32,
    /// Seed for the starts and goals.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON (`agents`, `arrived`, `stuck`, `mean_speed`, `min_separation`,
    /// `update_us`, `collisions`).
    #[arg(long)]
    pub json: bool,
    /// Write every agent's start, goal, arrival time and trajectory as JSON here.
    #[arg(long, value_name = "FILE")]
    pub trajectories: Option<PathBuf>,
    /// Draw the trajectories over the navmesh (PNG or SVG).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub picture: PictureArgs,
    /// Run the agents of this scenario file instead of random ones, around its obstacles
    /// (JSON: `{"agents": [{"start": [x,y,z], "goal": [x,y,z], "behaviour":
    /// "direct"|"wander", "seed": N}], "obstacles": [{"kind": "cylinder", "pos": [x,y,z],
    /// "radius": R, "height": H}, {"kind": "box", "bmin": [..], "bmax": [..]}, {"kind":
    /// "oriented_box", "center": [..], "half_extents": [..], "y_angle": A}], "events": [{"at":
    /// T, "add": {obstacle}, "name": "N"}, {"at": T, "remove": "N"}]}`; all lists optional;
    /// events are applied while the agents walk).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
}

pub fn run(args: SimulateArgs) -> CliResult {
    let SimulateArgs {
        input,
        agents,
        seconds,
        seed,
        json,
        trajectories,
        output,
        picture,
        scenario,
    } = args;
    let inputs = inputs(&input, scenario.as_deref());
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
    let scenario = scenario.map(Scenario::load).transpose()?;
    let source = navmesh_source(&input, None, scenario.as_ref(), None)?;
    let navmesh = source.navmesh();
    let settings = navkit::tools::simulation::SimSettings {
        agents,
        seconds,
        seed,
        ..Default::default()
    };
    let bar = progress(
        json,
        &format!("{{spinner}} simulating {agents} agents for {seconds} s ({{elapsed}})"),
        None,
    );
    let r = match &scenario {
        Some(s) if !s.events.is_empty() => {
            if !is_geometry(&input) {
                return Err(CliError::from(Error::InvalidArgument(format!(
                    "{}: obstacle events need the geometry (.obj, .gltf, .glb or .gset)",
                    input.display()
                ))));
            }
            let geom = crate::common::load_input(&input)?;
            let build = geom.settings.clone().unwrap_or_default();
            navkit::tools::simulation::simulate_dynamic_within(
                &geom,
                &build,
                s,
                &settings,
                &crate::common::budget(),
            )?
        }
        Some(s) if !s.agents.is_empty() => {
            navkit::tools::simulation::simulate_scenario(navmesh, &s.agents, &settings)?
        }
        Some(s) if s.obstacles.is_empty() => {
            return Err(CliError::from(Error::InvalidArgument(
                "the scenario has neither agents nor obstacles".into(),
            )));
        }
        _ => navkit::tools::simulation::simulate(navmesh, &settings)?,
    };
    bar.finish_and_clear();
    print_report(&r, json);
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

/// The report, as JSON or as a line of text.
fn print_report(r: &SimReport, json: bool) {
    if json {
        out!(
            "{}",
            json!({
                "agents": r.agents,
                "arrived": r.arrived,
                "stuck": r.stuck,
                "mean_speed_m_per_s": num32(r.mean_speed),
                "min_separation_m": num32(r.min_separation),
                "update_us": r.update_us,
                "collisions": r.collisions,
                "simulated_s": num32(r.seconds),
                "obstacle_events": r.obstacle_events,
                "tiles_rebuilt": r.tiles_rebuilt,
                "obstacle_settle_max_s": num32(r.obstacle_settle_max),
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
    navkit::render::save(&scene, path, picture)
}
