//! `navkit path`: one path (or a batch of them) with the corridor, straight and smooth paths
//! (and with `--optimal` the optimal path).

use std::io::Write;
use std::path::PathBuf;

use glam::Vec3;
use serde_json::{Value, json};

use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, NavPath, OptimalOptions, OptimalPath, PathOptions,
    QueryFilter,
};
use navkit::text::{LineReader, quote};
use navkit::tools::simulation::Scenario;
use navkit::{Error, Partition};

use navkit::query::hierarchy::Hierarchy;
use navkit::tools::compare::timed_optimal_path;

use crate::common::{filter_from, navmesh_source, parse_hex, parse_vec3};
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{error_object, num32, status, v3};

// `navkit path` arguments.
#[derive(clap::Args)]
pub struct PathArgs {
    /// MESH.obj, MESH.gltf, MESH.glb, GEOM.gset (built first) or a saved navmesh.
    pub input: PathBuf,
    /// Start point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, required_unless_present = "batch")]
    pub from: Option<Vec3>,
    /// End point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, required_unless_present = "batch")]
    pub to: Option<Vec3>,
    /// Include flags (hex; default: all but disabled).
    #[arg(long, value_parser = parse_hex)]
    pub include: Option<u16>,
    /// Exclude flags (hex; default 0).
    #[arg(long, value_parser = parse_hex)]
    pub exclude: Option<u16>,
    /// Half extents `X,Y,Z` of the box searched for the polygons nearest the start and goal
    /// (default 2,4,2, RecastDemo's); the path then runs between the nearest points found.
    #[arg(long, value_parser = parse_vec3, value_name = "X,Y,Z")]
    pub half_extents: Option<Vec3>,
    /// A file of queries, one `sx sy sz ex ey ez` per line (`#` comments; lines of at most
    /// 1 MiB); prints one JSON object per line.
    #[arg(long, conflicts_with_all = ["from", "to"])]
    pub batch: Option<PathBuf>,
    /// Region partitioning when building.
    #[arg(long)]
    pub partition: Option<Partition>,
    /// A scenario file whose obstacles are carved into the navmesh first (through a tile
    /// cache of the geometry; see `simulate --scenario` for the format).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Also the optimal (shortest) path: its length, length on the xz-plane, nodes expanded,
    /// points and whether it is the cheapest too; in JSON an `optimal` object (with `points`
    /// and `time_us`, the time of an optimal-only query).
    #[arg(long)]
    pub optimal: bool,
    /// Find the corridor with the hierarchical planner (HPA* over the navmesh's tiles: complete
    /// however long the path, with bounded search memory) instead of Detour's findPath; in
    /// JSON a `hierarchical` object (`tiles`, `abstract_expanded`, `max_window_nodes`,
    /// `time_us`). The abstract graph is built first, once.
    #[arg(long, conflicts_with = "optimal")]
    pub hierarchical: bool,
}

pub fn run(args: PathArgs) -> CliResult {
    let PathArgs {
        input,
        from,
        to,
        include,
        exclude,
        batch,
        partition,
        scenario,
        json,
        half_extents,
        optimal,
        hierarchical,
    } = args;
    let optimal = optimal.then(OptimalOptions::default);
    // The batch file is opened before the build, so that a missing one costs nothing.
    let batch = match batch {
        Some(path) => {
            let file = std::fs::File::open(&path).map_err(|e| Error::Io {
                path: path.clone(),
                source: std::sync::Arc::new(e),
            })?;
            Some(LineReader::new(std::io::BufReader::new(file), &path))
        }
        None => None,
    };
    let scenario = scenario.map(Scenario::load).transpose()?;
    let source = navmesh_source(&input, partition, scenario.as_ref(), None)?;
    let navmesh = source.navmesh();
    let mut q = NavMeshQuery::new(navmesh, 2048)?;
    let filter = filter_from(include, exclude);
    let hierarchy = hierarchical.then(|| Hierarchy::build(navmesh, &filter));
    let hierarchy = hierarchy.as_ref();
    let mut incomplete = false;
    if let Some(mut lines) = batch {
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        while let Some((start, goal)) = next_query(&mut lines)? {
            let a = find(
                &mut q,
                start,
                goal,
                &filter,
                half_extents,
                optimal,
                hierarchy,
            );
            incomplete |= !a.is_complete();
            if writeln!(out, "{}", a.to_json()).is_err() {
                return Ok(Outcome::incomplete_if(incomplete)); // stdout closed
            }
        }
    } else {
        let (from, to) = (
            from.expect("clap requires --from"),
            to.expect("clap requires --to"),
        );
        let a = find(&mut q, from, to, &filter, half_extents, optimal, hierarchy);
        incomplete = !a.is_complete();
        if json {
            out!("{}", a.to_json());
        } else {
            print_path(&a.result);
            if optimal.is_some() {
                print_optimal(&a.result);
            }
            if let Some(h) = &a.hierarchical {
                out!(
                    "Hierarchical:  {} tiles, {} abstract nodes expanded, at most {} polygon nodes in a window, {:.0} us",
                    h.tiles,
                    h.abstract_expanded,
                    h.max_window_nodes,
                    h.time_us
                );
            }
            for n in &a.nearest {
                print_nearest(n);
            }
        }
    }
    Ok(Outcome::incomplete_if(incomplete))
}

/// The next query of a `--batch` file (`sx sy sz ex ey ez`; blank lines and `#` comments
/// skipped), read a line at a time: a line longer than [`navkit::text::MAX_LINE_BYTES`], not
/// UTF-8 or not six finite numbers is an error naming it, quoting at most its start.
fn next_query<R: std::io::BufRead>(
    lines: &mut LineReader<R>,
) -> Result<Option<(Vec3, Vec3)>, CliError> {
    let path = lines.path().to_path_buf();
    while let Some((n, line)) = lines.next_str()? {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let nums: Vec<f32> = t
            .split_whitespace()
            .filter_map(|s| s.parse().ok())
            .collect();
        if nums.len() != 6
            || t.split_whitespace().count() != 6
            || nums.iter().any(|v| !v.is_finite())
        {
            return Err(CliError::from(Error::Parse {
                path,
                line: n,
                message: format!(
                    "expected `sx sy sz ex ey ez` (6 finite numbers), got `{}`",
                    quote(t)
                ),
            }));
        }
        return Ok(Some((
            Vec3::new(nums[0], nums[1], nums[2]),
            Vec3::new(nums[3], nums[4], nums[5]),
        )));
    }
    Ok(None)
}

/// A path query's answer: the path, and for an endpoint off the navmesh its nearest walkable
/// point.
pub struct Answer {
    start: Vec3,
    goal: Vec3,
    result: navkit::Result<NavPath>,
    nearest: Vec<Nearest>,
    /// With the optimal path asked for: the time of an optimal-only query, microseconds.
    optimal_time_us: Option<f64>,
    /// With the hierarchical planner: what it took.
    hierarchical: Option<HierarchicalFigures>,
}

/// What the hierarchical planner took for one path.
#[derive(serde::Serialize)]
pub struct HierarchicalFigures {
    tiles: usize,
    abstract_expanded: usize,
    max_window_nodes: usize,
    time_us: f64,
}

impl Answer {
    /// The path, or why there is none.
    pub fn result(&self) -> &navkit::Result<NavPath> {
        &self.result
    }

    fn is_complete(&self) -> bool {
        self.result.as_ref().is_ok_and(|p| p.is_complete())
    }

    fn to_json(&self) -> Value {
        let mut v = path_json(self.start, self.goal, &self.result);
        if let Some(time_us) = self.optimal_time_us {
            v["optimal"] = match &self.result {
                Ok(NavPath {
                    optimal: Some(o), ..
                }) => optimal_json(o, time_us),
                _ => Value::Null,
            };
        }
        if let Some(h) = &self.hierarchical {
            v["hierarchical"] = crate::json::to_json(h);
        }
        if !self.nearest.is_empty() {
            let map: serde_json::Map<String, Value> = self
                .nearest
                .iter()
                .map(|n| (n.endpoint.to_string(), n.to_json()))
                .collect();
            v["nearest"] = Value::Object(map);
        }
        v
    }
}

/// The walkable point nearest an endpoint that has no polygon within the search box.
pub struct Nearest {
    /// `start` or `goal`.
    endpoint: &'static str,
    /// The box it was searched with.
    searched: Vec3,
    /// The point, its polygon, its distance and the half extents of the box it was found in;
    /// `None` if none was found even in the widest box.
    found: Option<(Vec3, navkit::query::PolyRefBits, f32, Vec3)>,
}

impl Nearest {
    fn to_json(&self) -> Value {
        match self.found {
            Some((p, poly, d, h)) => json!({
                "point": v3(p),
                "poly_ref": poly,
                "distance_m": num32(d),
                "half_extents": v3(h),
            }),
            None => Value::Null,
        }
    }
}

/// How many times the search box doubles when looking for the nearest walkable point.
const WIDENINGS: usize = 16;

/// The walkable point nearest `p`: boxes doubling from `half_extents` until one holds a polygon.
fn nearest_walkable(
    q: &mut NavMeshQuery<'_>,
    p: Vec3,
    half_extents: Vec3,
    filter: &QueryFilter,
) -> Option<(Vec3, navkit::query::PolyRefBits, f32, Vec3)> {
    let mut h = half_extents.max(Vec3::splat(0.25));
    for _ in 0..WIDENINGS {
        h *= 2.0;
        match q.find_nearest_poly(p, h, filter) {
            Ok(n) => return Some((n.point, n.poly.0, n.point.distance(p), h)),
            Err(Error::PointOffMesh { .. }) => continue,
            Err(_) => return None, // the box grew too big for the navmesh
        }
    }
    None
}

/// The polygons nearest `start` and `goal` within `half_extents` (default (2, 4, 2)), then the
/// path with its corridor, straight and smooth path, and with `optimal` the optimal path (and
/// the time of an optimal-only query, [`navkit::tools::compare::timed_optimal_path`]). With explicit half extents the path runs
/// between the nearest points found (with the default it is [`NavMeshQuery::path`] exactly, as
/// RecastDemo computes it). An endpoint with no polygon in its box fails the path and gets its
/// nearest walkable point.
pub fn find(
    q: &mut NavMeshQuery<'_>,
    start: Vec3,
    goal: Vec3,
    filter: &QueryFilter,
    half_extents: Option<Vec3>,
    optimal: Option<OptimalOptions>,
    hierarchy: Option<&Hierarchy>,
) -> Answer {
    let h = half_extents.unwrap_or(DEFAULT_HALF_EXTENTS);
    let mut snapped = [start, goal];
    let mut nearest = Vec::new();
    let mut error = None;
    for (i, (endpoint, p)) in [("start", start), ("goal", goal)].into_iter().enumerate() {
        match q.find_nearest_poly(p, h, filter) {
            Ok(n) => snapped[i] = n.point,
            Err(e) => {
                if matches!(e, Error::PointOffMesh { .. }) {
                    nearest.push(Nearest {
                        endpoint,
                        searched: h,
                        found: nearest_walkable(q, p, h, filter),
                    });
                }
                error.get_or_insert(e);
            }
        }
    }
    let options = PathOptions {
        half_extents: h,
        ..PathOptions::default()
    };
    let (from, to) = match half_extents {
        Some(_) => (snapped[0], snapped[1]),
        None => (start, goal),
    };
    let mut optimal_time_us = optimal.map(|_| 0.0);
    let mut hierarchical = None;
    let result = match (error, optimal) {
        (Some(e), _) => Err(e),
        (None, None) => match hierarchy {
            Some(h) => {
                let t = std::time::Instant::now();
                h.path(q, from, to, &options).map(|hp| {
                    hierarchical = Some(HierarchicalFigures {
                        tiles: hp.tiles,
                        abstract_expanded: hp.abstract_expanded,
                        max_window_nodes: hp.max_window_nodes,
                        time_us: t.elapsed().as_secs_f64() * 1e6,
                    });
                    hp.path
                })
            }
            None => q.path(from, to, filter, &options),
        },
        (None, Some(o)) => {
            let timed = timed_optimal_path(q, from, to, filter, &options, o);
            timed.map(|(p, t)| {
                optimal_time_us = Some(t);
                p
            })
        }
    };
    Answer {
        start,
        goal,
        result,
        nearest,
        optimal_time_us,
        hierarchical,
    }
}

/// The optimal path in JSON: `points` ([x, y, z] each), `length_m` (3D), `length_xz_m` (the
/// quantity minimised), `expanded`, `time_us` (an optimal-only query), `exact`, `status`.
pub fn optimal_json(o: &OptimalPath, time_us: f64) -> Value {
    json!({
        "points": o.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
        "length_m": num32(o.length),
        "length_xz_m": num32(o.length_xz),
        "expanded": o.expanded,
        "time_us": time_us,
        "exact": o.exact,
        "status": status(o.status.is_complete()),
    })
}

/// The optimal path's text lines (nothing for a failed path: its error is printed already).
fn print_optimal(p: &navkit::Result<NavPath>) {
    let Ok(NavPath {
        optimal: Some(o), ..
    }) = p
    else {
        return;
    };
    out!(
        "Optimal:   {} points, length {:.3}, length_xz {:.3}, expanded {}, exact {}{}",
        o.points.len(),
        o.length,
        o.length_xz,
        o.expanded,
        o.exact,
        if o.status.is_complete() {
            ""
        } else {
            ", PARTIAL (to where the corridor ends)"
        }
    );
    for p in &o.points {
        out!("  ({:9.4}, {:9.4}, {:9.4})", p.pos.x, p.pos.y, p.pos.z);
    }
}

/// The text for an endpoint off the navmesh.
fn print_nearest(n: &Nearest) {
    let h = n.searched;
    let label = if n.endpoint == "start" {
        "Start:"
    } else {
        "Goal: "
    };
    match n.found {
        Some((p, poly, d, wide)) => out!(
            "{label}     off the navmesh (no polygon within ({}, {}, {})); nearest walkable point \
             ({:.3}, {:.3}, {:.3}) on poly {poly}, {d:.3} away: move the point there, or pass \
             --half-extents {},{},{}",
            h.x,
            h.y,
            h.z,
            p.x,
            p.y,
            p.z,
            wide.x,
            wide.y,
            wide.z
        ),
        None => out!(
            "{label}     off the navmesh: no walkable polygon near it at all (searched up to \
             {}x the box ({}, {}, {}))",
            1u32 << WIDENINGS,
            h.x,
            h.y,
            h.z
        ),
    }
}

/// One path in the shared vocabulary; a failed one has empty lists and an `error` object.
pub fn path_json(start: Vec3, goal: Vec3, p: &navkit::Result<NavPath>) -> Value {
    match p {
        Ok(fp) => {
            let (straight, smooth) = (&fp.straight, &fp.smooth);
            json!({
                "status": status(fp.is_complete()),
                "start": v3(start),
                "goal": v3(goal),
                "start_ref": fp.start.poly.0,
                "goal_ref": fp.goal.poly.0,
                "polys": fp.corridor.polys.iter().map(|p| p.0).collect::<Vec<_>>(),
                "straight": straight.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
                "straight_length_m": num32(straight.length()),
                "smooth": smooth.points.iter().map(|&p| v3(p)).collect::<Vec<_>>(),
                "smooth_length_m": num32(smooth.length()),
                "smooth_stuck": smooth.stuck,
                "off_mesh_jumps": smooth.off_mesh_jumps,
            })
        }
        Err(e) => json!({
            "status": "failed",
            "start": v3(start),
            "goal": v3(goal),
            "start_ref": 0,
            "goal_ref": 0,
            "polys": [],
            "straight": [],
            "straight_length_m": 0,
            "smooth": [],
            "smooth_length_m": 0,
            "smooth_stuck": false,
            "off_mesh_jumps": 0,
            "error": error_object(e),
        }),
    }
}

pub fn print_path(p: &navkit::Result<NavPath>) {
    match p {
        Ok(fp) => {
            let status = if fp.is_complete() {
                "complete"
            } else {
                "PARTIAL (goal not reachable)"
            };
            let (straight, smooth) = (&fp.straight, &fp.smooth);
            out!("Path:      {status}, {} polys", fp.corridor.polys.len());
            out!("Start:     poly {} at {}", fp.start.poly, fp.start.point);
            out!("Goal:      poly {} at {}", fp.goal.poly, fp.goal.point);
            out!(
                "Straight:  {} corners, length {:.3}",
                straight.points.len(),
                straight.length()
            );
            for p in &straight.points {
                out!("  ({:9.4}, {:9.4}, {:9.4})", p.pos.x, p.pos.y, p.pos.z);
            }
            out!(
                "Smooth:    {} points, length {:.3}, {} off-mesh jumps{}",
                smooth.points.len(),
                smooth.length(),
                smooth.off_mesh_jumps,
                if smooth.stuck {
                    ", STUCK (stopped where RecastDemo would repeat a point)"
                } else {
                    ""
                }
            );
        }
        Err(e) => out!("Path:      failed: {e}"),
    }
}
