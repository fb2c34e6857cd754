//! `navkit testcase`: a RecastDemo test-case file, run as RecastDemo runs it.

use std::io::Write;
use std::path::PathBuf;

use navkit::BuildSettings;
use navkit::NavMeshBuilder;
use navkit::query::NavMeshQuery;
use navkit::tools::testcase::{self, TestCase, TestKind, TestResult};
use serde_json::{Value, json};

use crate::exit::{CliResult, Outcome};
use crate::json::{rename, status, to_json};

// `navkit testcase` arguments.
#[derive(clap::Args)]
pub struct TestcaseArgs {
    /// The test-case file; its mesh is found relative to it.
    pub file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: TestcaseArgs) -> CliResult {
    let TestcaseArgs { file, json } = args;
    let case = TestCase::load_with(&file, &crate::common::load_options())?;
    let geom = crate::common::load_input(&case.mesh)?;
    let built = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .budget(crate::common::budget())
        .solo()?;
    let mut q = NavMeshQuery::new(built.navmesh(), 2048)?;
    let results = testcase::run(&case, &mut q)?;
    if json {
        for r in &results {
            out!("{}", result_json(r));
        }
    } else {
        out!(
            "Sample: {} (built as Solo Mesh), mesh {}",
            case.sample,
            case.mesh.display()
        );
        out!("Test Results:");
        for (n, r) in results.iter().enumerate() {
            let total = (r.nearest_us + r.path_us + r.straight_us) / 1000.0;
            let kind = match r.query.kind {
                TestKind::Pathfind => "Path",
                TestKind::Raycast => "Ray ",
            };
            let outcome = match (r.query.kind, r.start_ref != 0 && r.end_ref != 0, r.complete) {
                (_, false, _) => "no start/end poly".to_string(),
                (TestKind::Pathfind, _, c) => format!(
                    "{} polys, {} corners, {}",
                    r.polys.len(),
                    r.straight.len(),
                    if c { "complete" } else { "PARTIAL" }
                ),
                (TestKind::Raycast, _, c) => format!(
                    "{} polys, {}",
                    r.polys.len(),
                    if c { "reached end" } else { "hit wall" }
                ),
            };
            out!(
                " - {kind} {n:02}:     {total:.4} ms  (line {}: {outcome})",
                r.query.line
            );
            out!("    - poly:     {:.4} ms", r.nearest_us / 1000.0);
            out!("    - path:     {:.4} ms", r.path_us / 1000.0);
            out!("    - straight: {:.4} ms", r.straight_us / 1000.0);
        }
    }
    Ok(Outcome::Success)
}

/// One test-case query in the shared vocabulary: `query.goal`, `goal_ref`, and `status`
/// (`complete`, `partial`: the path did not reach the goal's polygon or the ray hit a wall,
/// `failed`: no polygon near the start or the goal).
fn result_json(r: &TestResult) -> Value {
    let mut v = to_json(r);
    if let Some(q) = v.get_mut("query") {
        rename(q, &[("end", "goal")]);
    }
    rename(&mut v, &[("end_ref", "goal_ref"), ("complete", "status")]);
    v["status"] = if r.start_ref == 0 || r.end_ref == 0 {
        json!("failed")
    } else {
        json!(status(r.complete))
    };
    v
}
