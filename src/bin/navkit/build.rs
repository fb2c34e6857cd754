//! `navkit build`: a solo or tiled navmesh from geometry, its report, optionally saved.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use navkit::build::BuildReport;
use navkit::build::tiled::{TiledNavMesh, TiledOptions};
use navkit::{InputGeometry, Partition};

use crate::common::{build_input, peak_rss_bytes};

// `navkit build` arguments.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The input: MESH.obj or GEOM.gset.
    pub input: PathBuf,
    /// Region partitioning (default: the .gset's, else watershed).
    #[arg(long)]
    pub partition: Option<Partition>,
    /// Build a tiled navmesh (RecastDemo's Tile Mesh) instead of a solo one.
    #[arg(long)]
    pub tiled: bool,
    /// Tile size in cells (default: the .gset's, else 32); implies --tiled.
    #[arg(long)]
    pub tile_size: Option<u32>,
    /// Worker threads for a tiled build (default: one per core); implies --tiled.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Save the navmesh here (RecastDemo's MSET format).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: BuildArgs) -> navkit::Result<()> {
    let BuildArgs {
        input,
        partition,
        tiled,
        tile_size,
        threads,
        output,
        json,
    } = args;
    if tiled || tile_size.is_some() || threads.is_some() {
        return build_tiled_cmd(&input, partition, tile_size, threads, output, json);
    }
    let (navmesh, report) = build_input(&input, partition)?;
    if let Some(out) = &output {
        navmesh.save(out)?;
    }
    if json {
        out!("{}", report_json(&report));
    } else {
        print_report(&report);
        if let Some(out) = &output {
            out!("Saved:         {}", out.display());
        }
    }
    Ok(())
}

/// `navkit build --tiled`: a parallel tiled build with a progress bar on a terminal.
fn build_tiled_cmd(
    input: &Path,
    partition: Option<Partition>,
    tile_size: Option<u32>,
    threads: Option<usize>,
    output: Option<PathBuf>,
    json: bool,
) -> navkit::Result<()> {
    let geom = InputGeometry::load(input)?;
    let mut settings = geom.settings.clone().unwrap_or_default();
    if let Some(p) = partition {
        settings.partition = p;
    }
    if let Some(ts) = tile_size {
        settings.tile_size = ts as f32;
    }
    let options = TiledOptions {
        threads: threads.unwrap_or(0),
    };
    let bar = indicatif::ProgressBar::new(0);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} tiles {pos}/{len} [{bar:40}] {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    let tiled = TiledNavMesh::build_with(geom, &settings, &options, &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    });
    bar.finish_and_clear();
    let tiled = tiled?;
    if let Some(out) = &output {
        tiled.navmesh().save(out)?;
    }
    let r = tiled.report();
    if json {
        let mut v = serde_json::to_value(r).unwrap_or(Value::Null);
        v["tile_count"] = json!(r.tile_count);
        v["data_hash"] = json!(r.data_hash);
        v["navmesh_bytes"] = json!(tiled.navmesh().data_size());
        v["peak_rss_bytes"] = json!(peak_rss_bytes());
        out!("{v}");
    } else {
        let g = &r.grid;
        out!(
            "Grid:          {} x {} tiles of {} cells ({:.2} units)",
            g.tiles_x,
            g.tiles_z,
            g.tile_size,
            g.tile_width()
        );
        out!("Input:         {} tris", r.input_tris);
        out!(
            "Tiles:         {} with polygons of {} built; {} polys (at most {} in a tile)",
            r.tile_count,
            r.tiles.built,
            r.tiles.polys,
            r.tiles.max_polys_per_tile
        );
        out!(
            "Refs:          {} tile bits, {} poly bits",
            r.tile_bits,
            r.poly_bits
        );
        out!(
            "Time:          {:.1} ms on {} threads; {:.2} ms per tile (slowest {:.1} ms)",
            r.total_ms,
            r.threads,
            r.tiles.mean_ms,
            r.tiles.max_ms
        );
        out!(
            "Data:          {} bytes, hash {}",
            tiled.navmesh().data_size(),
            r.data_hash
        );
        for w in r.warnings.iter().take(10) {
            out!("Warning:       {w}");
        }
        if let Some(out) = &output {
            out!("Saved:         {}", out.display());
        }
    }
    Ok(())
}

pub fn report_json(r: &BuildReport) -> Value {
    let timings: serde_json::Map<String, Value> = r
        .timings_ms
        .iter()
        .map(|(s, ms)| (s.name().to_string(), json!(ms)))
        .chain(std::iter::once(("total".to_string(), json!(r.total_ms))))
        .collect();
    json!({
        "grid_width": r.grid_width,
        "grid_height": r.grid_height,
        "input_verts": r.input_verts,
        "input_tris": r.input_tris,
        "polymesh_verts": r.polymesh_verts,
        "polymesh_polys": r.polymesh_polys,
        "detail_verts": r.detail_verts,
        "detail_tris": r.detail_tris,
        "off_mesh_connections": r.off_mesh_connections,
        "navmesh_bytes": r.navmesh_bytes,
        "timings_ms": timings,
        "warnings": r.warnings,
    })
}

pub fn print_report(r: &BuildReport) {
    out!("Grid:          {} x {} cells", r.grid_width, r.grid_height);
    out!(
        "Input:         {} verts, {} tris",
        r.input_verts,
        r.input_tris
    );
    out!(
        "Poly mesh:     {} verts, {} polys",
        r.polymesh_verts,
        r.polymesh_polys
    );
    out!(
        "Detail mesh:   {} verts, {} tris",
        r.detail_verts,
        r.detail_tris
    );
    out!("Off-mesh:      {} connections", r.off_mesh_connections);
    out!("Navmesh data:  {} bytes", r.navmesh_bytes);
    out!("Timings (ms):");
    for (s, ms) in &r.timings_ms {
        out!("  {:<34}{:>9.3}", s.name(), ms);
    }
    out!("  {:<34}{:>9.3}", "total", r.total_ms);
    for w in &r.warnings {
        out!("warning: {w}");
    }
}
