//! `navkit merge`: the parts of a sharded tiled build (`navkit build --shard I/N -o PART`) put
//! together into the whole navmesh, checked first: one build, every shard once, every tile in
//! its own shard and once.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::json;

use navkit::build::tiled::{Part, merge_parts};
use navkit::navmesh::mset::RefWidth;

use crate::common::{Kind, check_output};
use crate::exit::{CliResult, Outcome};

// `navkit merge` arguments.
#[derive(clap::Args)]
pub struct MergeArgs {
    /// The parts, one per shard, in any order.
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Save the whole navmesh here (RecastDemo's MSET format).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Poly ref width of the saved file, 32 or 64 bits (default: this build's).
    #[arg(long, value_parser = crate::build::parse_refs)]
    pub refs: Option<RefWidth>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Reads the parts, merges them and saves the navmesh.
pub fn run(args: MergeArgs) -> CliResult {
    check_output(&args.output, &[], "-o", Kind::Navmesh, &args.parts)?;
    let started = Instant::now();
    let parts = args
        .parts
        .iter()
        .map(Part::load)
        .collect::<navkit::Result<Vec<_>>>()?;
    let merged = merge_parts(&parts)?;
    merged
        .navmesh
        .save_with(&args.output, args.refs.unwrap_or(RefWidth::NATIVE))?;
    let ms = started.elapsed().as_secs_f64() * 1e3;
    if args.json {
        out!(
            "{}",
            json!({
                "shards": merged.shards,
                "tile_count": merged.tiles,
                "data_hash": merged.data_hash,
                "navmesh_bytes": merged.navmesh.data_size(),
                "output": args.output,
                "total_ms": ms,
            })
        );
    } else {
        out!(
            "Merged:        {} shards, {} tiles, {} bytes, hash {}",
            merged.shards,
            merged.tiles,
            merged.navmesh.data_size(),
            merged.data_hash
        );
        out!("Saved:         {} ({ms:.0} ms)", args.output.display());
    }
    Ok(Outcome::Success)
}
