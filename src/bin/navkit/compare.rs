//! `navkit compare`: grid A* against navmesh paths on the same geometry.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;
use serde_json::{Value, json};

use navkit::Error;
use navkit::tools::compare::{CompareSettings, Comparer, Comparison};

use crate::common::{Kind, PICTURE, PictureArgs, check_output, check_output_opt, level_inputs};
use crate::common::{is_geometry, navmesh_and_grid, parse_vec3};
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{rename, to_json};

// `navkit compare` arguments.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// MESH.obj, MESH.gltf, MESH.glb or GEOM.gset (the grid needs the geometry).
    pub input: PathBuf,
    /// Start point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "to", conflicts_with = "random", required_unless_present = "random")]
    pub from: Option<Vec3>,
    /// Goal point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "from")]
    pub to: Option<Vec3>,
    /// Compare N random pairs of navmesh points instead.
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Also draw the picture (PNG or SVG); with several queries, one file per query
    /// (`NAME-001.png`, ...).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub picture: PictureArgs,
    /// Draw the walkable grid cells too (a square per cell in its area's colour; off by default: they hide the polys).
    #[arg(long)]
    pub grid_cells: bool,
    /// Cell size of the grid (default: the navmesh's cell size).
    #[arg(long, value_name = "SIZE")]
    pub grid_cell_size: Option<f32>,
    /// Frame the picture on the paths (3 units around them) instead of the whole level.
    #[arg(long)]
    pub zoom: bool,
}

pub fn run(args: CompareArgs) -> CliResult {
    let CompareArgs {
        input,
        from,
        to,
        random,
        seed,
        json,
        output,
        picture,
        grid_cells,
        grid_cell_size,
        zoom,
    } = args;
    check_output_opt(
        output.as_deref(),
        PICTURE,
        "-o",
        Kind::Picture,
        &level_inputs(&input),
    )?;
    let picture = picture.options()?;
    let paths = navkit::render::ComparisonPaths {
        grid_cells,
        ..navkit::render::ComparisonPaths::ALL
    };
    let ends = from.zip(to);
    let input = input.as_path();
    if !is_geometry(input) {
        return Err(CliError::from(Error::InvalidArgument(format!(
            "{}: compare needs geometry (.obj, .gltf, .glb or .gset) to build the grid from",
            input.display()
        ))));
    }
    const MAX_RANDOM: usize = 1_000_000;
    if random.is_some_and(|n| n == 0 || n > MAX_RANDOM) {
        return Err(CliError::Usage(format!(
            "--random {}: must be between 1 and {MAX_RANDOM}",
            random.unwrap_or(0)
        )));
    }
    if let (Some(out), Some(n)) = (output.as_deref(), random.filter(|&n| n > 1)) {
        // --random N writes OUT-001 ... OUT-N: each one that exists is checked like OUT (the
        // new names share OUT's folder, checked above).
        for i in 1..=n {
            let p = numbered(out, i);
            if std::fs::symlink_metadata(&p).is_ok() {
                check_output(&p, PICTURE, "-o", Kind::Picture, &level_inputs(input))?;
            }
        }
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
            json!({ "input": input.display().to_string(), "queries": results.iter().map(comparison_json).collect::<Vec<_>>(), "summary": summary })
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
                paths,
            );
            if zoom {
                scene.zoom_to_lines(3.0);
            }
            navkit::render::save(&scene, &path, &picture)?;
            if !json {
                out!("wrote {}", path.display());
            }
        }
    }
    Ok(Outcome::Success)
}

/// One comparison in the shared vocabulary: `start`/`goal`, each side's `status`, lengths in
/// `_m`, the follower's `travelled_m` and `time_s`.
pub fn comparison_json(c: &Comparison) -> Value {
    let mut v = to_json(c);
    rename(&mut v, &[("from", "start"), ("to", "goal")]);
    let follower = |side: &mut Value| {
        if let Some(f) = side.get_mut("follower") {
            rename(f, &[("travelled", "travelled_m"), ("time", "time_s")]);
        }
    };
    if let Some(side) = v.get_mut("grid").filter(|s| !s.is_null()) {
        rename(side, &[("length", "length_m")]);
        follower(side);
    }
    if let Some(side) = v.get_mut("navmesh").filter(|s| !s.is_null()) {
        rename(
            side,
            &[
                ("straight_length", "straight_length_m"),
                ("smooth_length", "smooth_length_m"),
                ("spline_length", "spline_length_m"),
            ],
        );
        follower(side);
    }
    if let Some(side) = v.get_mut("optimal").filter(|s| !s.is_null()) {
        rename(
            side,
            &[("length", "length_m"), ("length_xz", "length_xz_m")],
        );
    }
    v
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
pub fn compare_summary(results: &[Comparison]) -> Value {
    let both: Vec<_> = results
        .iter()
        .filter_map(|c| match (&c.grid, &c.navmesh) {
            (Some(g), Some(n)) if g.status.is_complete() && n.status.is_complete() => Some((g, n)),
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
        "both_complete": both.len(),
        "grid_complete": results.iter().filter(|c| c.grid.as_ref().is_some_and(|g| g.status.is_complete())).count(),
        "navmesh_complete": results.iter().filter(|c| c.navmesh.as_ref().is_some_and(|n| n.status.is_complete())).count(),
        "mean_grid_length_m": mean(&|(g, _)| g.length as f64),
        "mean_straight_length_m": mean(&|(_, n)| n.straight_length as f64),
        "mean_smooth_length_m": mean(&|(_, n)| n.smooth_length as f64),
        "mean_length_ratio_grid_to_straight": mean(&|(g, n)| g.length as f64 / (n.straight_length as f64).max(1e-6)),
        "mean_grid_waypoints": mean(&|(g, _)| g.waypoints as f64),
        "mean_corners": mean(&|(_, n)| n.corners as f64),
        "mean_expanded": mean(&|(g, _)| g.expanded as f64),
        "mean_grid_us": mean(&|(g, _)| g.time_us),
        "mean_navmesh_us": mean(&|(_, n)| n.time_us),
        "mean_smooth_us": mean(&|(_, n)| n.smooth_time_us),
        "follower_arrived_grid": both.iter().filter(|(g, _)| arrived(g.follower.as_ref())).count(),
        "follower_arrived_straight": both.iter().filter(|(_, n)| arrived(n.follower.as_ref())).count(),
        "mean_follower_time_grid_s": mean(&|(g, _)| g.follower.as_ref().map_or(0.0, |f| f.time as f64)),
        "mean_follower_time_straight_s": mean(&|(_, n)| n.follower.as_ref().map_or(0.0, |f| f.time as f64)),
        "over_optimal": over_optimal_summary(results),
    })
}

/// Over the queries with a complete optimal path: its count, mean xz length and search time,
/// and for each kind the mean and worst of its xz length over the optimum's (and over how
/// many queries).
fn over_optimal_summary(results: &[Comparison]) -> Value {
    use navkit::tools::compare::OverOptimal;
    let done: Vec<_> = results
        .iter()
        .filter_map(|c| Some((c.optimal.as_ref()?, c.over_optimal.as_ref()?)))
        .collect();
    let k = done.len().max(1) as f64;
    let mut v = json!({
        "queries": done.len(),
        "mean_length_xz_m": done.iter().map(|(o, _)| o.length_xz as f64).sum::<f64>() / k,
        "mean_time_us": done.iter().map(|(o, _)| o.time_us).sum::<f64>() / k,
    });
    type Pick = fn(&OverOptimal) -> Option<f32>;
    let kinds: [(&str, Pick); 6] = [
        ("straight", |r| r.straight),
        ("smooth", |r| r.smooth),
        ("spline", |r| r.spline),
        ("grid", |r| r.grid),
        ("follower_straight", |r| r.follower_straight),
        ("follower_grid", |r| r.follower_grid),
    ];
    for (name, f) in kinds {
        let r: Vec<f64> = done
            .iter()
            .filter_map(|(_, r)| f(r))
            .map(f64::from)
            .collect();
        v[name] = json!({
            "queries": r.len(),
            "mean": r.iter().sum::<f64>() / r.len().max(1) as f64,
            "worst": r.iter().copied().fold(0.0, f64::max),
        });
    }
    v
}

pub fn print_comparisons(results: &[Comparison], summary: &Value) {
    out!(
        "(optimal: the shortest path's length on the xz-plane; str/opt, smo/opt, grd/opt: the \
         straight, smooth and grid paths' xz lengths over the optimal (shortest) path's; 1.000 = \
         as short as the optimum, 1.050 = 5% longer)"
    );
    out!(
        "{:>4} | {:>8} {:>4} {:>8} {:>9} | {:>8} {:>4} {:>8} {:>8} {:>8} | {:>8} {:>7} {:>7} {:>7} | {:>15} {:>15}",
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
        "optimal",
        "str/opt",
        "smo/opt",
        "grd/opt",
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
            Some(g) if g.status.is_complete() => format!(
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
                ) + if n.status.is_complete() { "" } else { "P" }
            }
            None => format!("{:>40}", "no navmesh path"),
        };
        out!(
            "{:>4} | {grid} | {nav} | {} | {:>15} {:>15}",
            i + 1,
            optimal_columns(c),
            follow(c.grid.as_ref().and_then(|g| g.follower.as_ref())),
            follow(c.navmesh.as_ref().and_then(|n| n.follower.as_ref()))
        );
        for e in c
            .grid_error
            .iter()
            .chain(&c.navmesh_error)
            .chain(&c.optimal_error)
        {
            out!("       {e}");
        }
    }
    out!("(follower: distance/simulated time; `!` = did not arrive; P = partial navmesh path)");
    let f = |k: &str| summary[k].as_f64().unwrap_or(0.0);
    let u = |k: &str| summary[k].as_u64().unwrap_or(0);
    out!(
        "{} queries, both paths found for {}: grid {:.2} vs straight {:.2} vs smooth {:.2} long (grid/straight {:.3}); {:.1} waypoints vs {:.1} corners; grid {:.1} us ({:.0} expanded) vs navmesh {:.1} us (+{:.1} us smooth); follower arrived {}/{} on grid paths ({:.1} s), {}/{} on straight paths ({:.1} s)",
        u("queries"),
        u("both_complete"),
        f("mean_grid_length_m"),
        f("mean_straight_length_m"),
        f("mean_smooth_length_m"),
        f("mean_length_ratio_grid_to_straight"),
        f("mean_grid_waypoints"),
        f("mean_corners"),
        f("mean_grid_us"),
        f("mean_expanded"),
        f("mean_navmesh_us"),
        f("mean_smooth_us"),
        u("follower_arrived_grid"),
        u("both_complete"),
        f("mean_follower_time_grid_s"),
        u("follower_arrived_straight"),
        u("both_complete"),
        f("mean_follower_time_straight_s"),
    );
    let o = &summary["over_optimal"];
    let r = |k: &str| {
        let (mean, worst) = (o[k]["mean"].as_f64(), o[k]["worst"].as_f64());
        format!(
            "{k} {:.3} (worst {:.3})",
            mean.unwrap_or(0.0),
            worst.unwrap_or(0.0)
        )
    };
    out!(
        "optimal path found for {} ({:.2} long on the xz-plane, {:.1} us); over it, mean: {}, {}, {}, {}",
        o["queries"].as_u64().unwrap_or(0),
        o["mean_length_xz_m"].as_f64().unwrap_or(0.0),
        o["mean_time_us"].as_f64().unwrap_or(0.0),
        r("straight"),
        r("smooth"),
        r("spline"),
        r("grid"),
    );
}

/// The optimal path's columns: its xz length (`P` if partial) and the straight, smooth and
/// grid paths' xz lengths over it.
fn optimal_columns(c: &Comparison) -> String {
    let Some(o) = &c.optimal else {
        return format!("{:>32}", "no optimal path");
    };
    let r = |x: Option<f32>| x.map_or("-".to_string(), |x| format!("{x:.3}"));
    let over = c.over_optimal.unwrap_or_default();
    format!(
        "{:>8.2} {:>7} {:>7} {:>7}",
        o.length_xz,
        r(over.straight),
        r(over.smooth),
        r(over.grid)
    ) + if o.status.is_complete() { "" } else { "P" }
}
