//! `navkit testcase`: a RecastDemo test-case file, run as RecastDemo runs it.

use std::io::Write;
use std::path::PathBuf;

use navkit::build::build_solo;
use navkit::query::NavMeshQuery;
use navkit::tools::testcase::{self, TestCase, TestKind};
use navkit::{BuildSettings, InputGeometry};

// `navkit testcase` arguments.
#[derive(clap::Args)]
pub struct TestcaseArgs {
    /// The test-case file; its mesh is found relative to it.
    pub file: PathBuf,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: TestcaseArgs) -> navkit::Result<()> {
    let TestcaseArgs { file, json } = args;
    let case = TestCase::load(&file)?;
    let geom = InputGeometry::load(&case.mesh)?;
    let built = build_solo(&geom, &BuildSettings::default())?;
    let mut q = NavMeshQuery::new(&built.navmesh, 2048)?;
    let results = testcase::run(&case, &mut q)?;
    if json {
        for r in &results {
            out!("{}", serde_json::to_string(r).unwrap_or_default());
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
    Ok(())
}
