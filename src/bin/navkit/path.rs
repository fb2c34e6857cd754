//! `navkit path`: one path (or a batch of them) with the corridor, straight and smooth paths.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use glam::Vec3;
use serde_json::{Value, json};

use navkit::query::smooth::{FullPath, SmoothPathOptions, full_path};
use navkit::query::{NavMeshQuery, PathStatus};
use navkit::tools::simulation::Scenario;
use navkit::{Error, Partition};

use crate::common::{filter_from, navmesh_source, parse_hex, parse_vec3};
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{error_object, num32, status, v3};

// `navkit path` arguments.
#[derive(clap::Args)]
pub struct PathArgs {
    /// MESH.obj, GEOM.gset (built first) or a saved navmesh.
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
    /// A file of queries, one `sx sy sz ex ey ez` per line; prints one JSON object per line.
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
    } = args;
    let scenario = scenario.map(Scenario::load).transpose()?;
    let source = navmesh_source(&input, partition, scenario.as_ref(), None)?;
    let navmesh = source.navmesh();
    let mut q = NavMeshQuery::new(navmesh, 2048)?;
    let filter = filter_from(include, exclude);
    let opts = SmoothPathOptions::default();
    let mut incomplete = false;
    if let Some(batch) = batch {
        let file = std::fs::File::open(&batch).map_err(|e| Error::Io {
            path: batch.clone(),
            source: e,
        })?;
        let stdout = std::io::stdout();
        let mut out = stdout.lock();
        for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
            let line = line.map_err(|e| Error::Io {
                path: batch.clone(),
                source: e,
            })?;
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
                    path: batch.clone(),
                    line: i + 1,
                    message: format!("expected `sx sy sz ex ey ez` (6 finite numbers), got `{t}`"),
                }));
            }
            let (start, goal) = (
                Vec3::new(nums[0], nums[1], nums[2]),
                Vec3::new(nums[3], nums[4], nums[5]),
            );
            let r = full_path(&mut q, start, goal, &filter, &opts);
            incomplete |= !r.as_ref().is_ok_and(|p| p.path.is_complete());
            if writeln!(out, "{}", path_json(start, goal, &r)).is_err() {
                return Ok(Outcome::incomplete_if(incomplete)); // stdout closed
            }
        }
    } else {
        let (from, to) = (
            from.expect("clap requires --from"),
            to.expect("clap requires --to"),
        );
        let r = full_path(&mut q, from, to, &filter, &opts);
        incomplete = !r.as_ref().is_ok_and(|p| p.path.is_complete());
        if json {
            out!("{}", path_json(from, to, &r));
        } else {
            print_path(&r);
        }
    }
    Ok(Outcome::incomplete_if(incomplete))
}

/// One path in the shared vocabulary; a failed one has empty lists and an `error` object.
pub fn path_json(start: Vec3, goal: Vec3, p: &navkit::Result<FullPath>) -> Value {
    match p {
        Ok(fp) => json!({
            "status": status(fp.path.status == PathStatus::Complete),
            "start": v3(start),
            "goal": v3(goal),
            "start_ref": fp.start.poly.0,
            "goal_ref": fp.end.poly.0,
            "polys": fp.path.polys.iter().map(|p| p.0).collect::<Vec<_>>(),
            "straight": fp.straight.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
            "straight_length_m": num32(fp.straight.length()),
            "smooth": fp.smooth.points.iter().map(|&p| v3(p)).collect::<Vec<_>>(),
            "smooth_length_m": num32(fp.smooth.length()),
            "smooth_stuck": fp.smooth.stuck,
            "off_mesh_jumps": fp.smooth.off_mesh_jumps,
        }),
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

pub fn print_path(p: &navkit::Result<FullPath>) {
    match p {
        Ok(fp) => {
            let status = if fp.path.is_complete() {
                "complete"
            } else {
                "PARTIAL (goal not reachable)"
            };
            out!("Path:      {status}, {} polys", fp.path.polys.len());
            out!("Start:     poly {} at {}", fp.start.poly, fp.start.point);
            out!("Goal:      poly {} at {}", fp.end.poly, fp.end.point);
            out!(
                "Straight:  {} corners, length {:.3}",
                fp.straight.points.len(),
                fp.straight.length()
            );
            for p in &fp.straight.points {
                out!("  ({:9.4}, {:9.4}, {:9.4})", p.pos.x, p.pos.y, p.pos.z);
            }
            out!(
                "Smooth:    {} points, length {:.3}, {} off-mesh jumps{}",
                fp.smooth.points.len(),
                fp.smooth.length(),
                fp.smooth.off_mesh_jumps,
                if fp.smooth.stuck {
                    ", STUCK (stopped where RecastDemo would repeat a point)"
                } else {
                    ""
                }
            );
        }
        Err(e) => out!("Path:      failed: {e}"),
    }
}
