//! `navkit build`: a solo or tiled navmesh from geometry, its report, optionally saved.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;
use serde_json::{Value, json};

use navkit::build::tiled::{Shard, ShardInput, TileStore, TiledReport};
use navkit::build::{BuildReport, OffMeshIssue, StageCounts};
use navkit::{BuildSettings, NavMeshBuilder, Partition};

use crate::common::{Kind, check_output_opt, is_stdout, level_inputs};
use crate::common::{build_input, peak_rss_bytes, progress};
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{num32, to_json, v3};
use navkit::navmesh::mset::RefWidth;

// `navkit build` arguments.
#[derive(clap::Args)]
pub struct BuildArgs {
    /// The input: MESH.obj, MESH.gltf, MESH.glb or GEOM.gset.
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
    /// Save the navmesh here (RecastDemo's MSET format); `-o -` writes it to standard output
    /// (and prints no report).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Poly ref width of the saved file, 32 or 64 bits, for a RecastDemo (Detour) built with
    /// that width (default: this build's, 32 unless built with the large-refs feature).
    #[arg(long, value_parser = parse_refs)]
    pub refs: Option<RefWidth>,
    /// Keep built tiles in this folder, keyed by a hash of their input, and take from it every
    /// tile whose input is unchanged (a content-addressed tile store, safe to share between
    /// builds and machines); implies --tiled. The report counts tiles_built and tiles_reused.
    #[arg(long, value_name = "DIR")]
    pub tile_store: Option<PathBuf>,
    /// Build only shard I of N (0 <= I < N: every tile in exactly one shard, runs of whole tile
    /// rows) and save its part with -o: RecastDemo's MSET with the whole navmesh's parameters
    /// and this shard's tiles, for `navkit merge`; implies --tiled.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<Shard>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// What a tiled build reuses and which part it builds (`--tile-store`, `--shard`).
struct Reuse {
    store: Option<PathBuf>,
    shard: Option<Shard>,
}

pub fn parse_refs(s: &str) -> Result<RefWidth, String> {
    match s {
        "32" => Ok(RefWidth::Bits32),
        "64" => Ok(RefWidth::Bits64),
        _ => Err(format!("{s:?}: the poly ref width is 32 or 64")),
    }
}

pub fn run(args: BuildArgs) -> CliResult {
    let BuildArgs {
        input,
        partition,
        tiled,
        tile_size,
        threads,
        output,
        refs,
        tile_store,
        shard,
        json,
    } = args;
    if shard.is_some() && refs.is_some_and(|r| r != RefWidth::NATIVE) {
        return Err(CliError::Usage(format!(
            "--shard: a part is saved with this build's {} refs (--refs applies to `navkit merge`)",
            RefWidth::NATIVE
        )));
    }
    let refs = refs.unwrap_or(RefWidth::NATIVE);
    let reuse = Reuse {
        store: tile_store,
        shard,
    };
    let tiled = tiled || reuse.store.is_some() || reuse.shard.is_some();
    if output.as_deref().is_some_and(is_stdout) {
        if reuse.store.is_some() || reuse.shard.is_some() {
            return Err(CliError::Usage(
                "-o -: not with --tile-store or --shard (save to a file)".into(),
            ));
        }
        return build_to_stdout(&input, partition, tile_size, threads, tiled, refs);
    }
    check_output_opt(
        output.as_deref(),
        &[],
        "-o",
        Kind::Navmesh,
        &level_inputs(&input),
    )?;
    if tiled || tile_size.is_some() || threads.is_some() {
        build_tiled_cmd(
            &input, partition, tile_size, threads, output, refs, &reuse, json,
        )?;
        return Ok(Outcome::Success);
    }
    let (navmesh, report) = build_input(&input, partition)?;
    if let Some(out) = &output {
        navmesh.save_with(out, refs)?;
    }
    if json {
        out!("{}", report_json(&report));
    } else {
        print_report(&report);
        if let Some(out) = &output {
            out!("Saved:         {}", out.display());
        }
    }
    Ok(Outcome::Success)
}

/// `navkit build -o -`: the navmesh's bytes on standard output, no report.
fn build_to_stdout(
    input: &Path,
    partition: Option<Partition>,
    tile_size: Option<u32>,
    threads: Option<usize>,
    tiled: bool,
    refs: RefWidth,
) -> CliResult {
    let bytes = if tiled || tile_size.is_some() || threads.is_some() {
        let (geom, settings) = crate::common::load_geometry(input, partition, tile_size)?;
        let tiled = NavMeshBuilder::new(&geom)
            .settings(settings)
            .threads(threads.unwrap_or(0))
            .budget(crate::common::budget())
            .tiled()?;
        tiled.navmesh().to_mset_bytes_with(refs)?
    } else {
        build_input(input, partition)?.0.to_mset_bytes_with(refs)?
    };
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(&bytes)
        .and_then(|()| stdout.flush())
        .is_err()
    {
        std::process::exit(0);
    }
    Ok(Outcome::Success)
}

/// `navkit build --tiled`: a parallel tiled build with a progress bar on a terminal, reusing
/// and keeping tiles in a tile store, or building one shard.
#[allow(clippy::too_many_arguments)]
fn build_tiled_cmd(
    input: &Path,
    partition: Option<Partition>,
    tile_size: Option<u32>,
    threads: Option<usize>,
    output: Option<PathBuf>,
    refs: RefWidth,
    reuse: &Reuse,
    json: bool,
) -> navkit::Result<()> {
    // A shard reads only its part of the level (ShardInput); a whole build all of it.
    let shard_input = match reuse.shard {
        Some(shard) => Some(load_shard(input, shard, partition, tile_size)?),
        None => None,
    };
    let whole;
    let (builder, settings, tris_read) = match &shard_input {
        Some(si) => (si.builder(), si.settings.clone(), si.triangles_read),
        None => {
            whole = crate::common::load_geometry(input, partition, tile_size)?;
            let (geom, settings) = &whole;
            let b = NavMeshBuilder::new(geom).settings(settings.clone());
            (b, settings.clone(), geom.mesh.tri_count())
        }
    };
    let bar = progress(
        json,
        "{spinner} tiles {pos}/{len} [{bar:40}] {elapsed} (eta {eta})",
        Some(0),
    );
    let show = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let mut builder = builder
        .threads(threads.unwrap_or(0))
        .budget(crate::common::budget())
        .progress(&show);
    if let Some(dir) = &reuse.store {
        builder = builder.tile_store(&TileStore::open(dir)?);
    }
    let tiled = builder.tiled();
    bar.finish_and_clear();
    let tiled = tiled?;
    match (&output, reuse.shard) {
        (Some(out), Some(_)) => navkit::atomic_file::write(out, &tiled.part_bytes()?)?,
        (Some(out), None) => tiled.navmesh().save_with(out, refs)?,
        (None, _) => {}
    }
    let r = tiled.report();
    if json {
        let mut report = tiled_json(r, &settings, tiled.navmesh().data_size());
        report["input_tris_read"] = json!(tris_read);
        out!("{report}");
    } else {
        print_tiled_report(r, tiled.navmesh().data_size(), output.as_deref());
    }
    Ok(())
}

/// Shard `shard`'s part of the level at `input` (`navkit build --shard`), with the
/// command line's settings.
fn load_shard(
    input: &Path,
    shard: Shard,
    partition: Option<Partition>,
    tile_size: Option<u32>,
) -> navkit::Result<ShardInput> {
    let si = ShardInput::load(input, &crate::common::load_options(), shard, |s| {
        if let Some(p) = partition {
            s.partition = p;
        }
        if let Some(ts) = tile_size {
            s.tile_size = ts;
        }
    })?;
    for w in &si.geometry.mesh.warnings {
        eprintln!("navkit: warning: {w}");
    }
    Ok(si)
}

/// A tiled build's report, as text.
fn print_tiled_report(r: &TiledReport, navmesh_bytes: usize, output: Option<&Path>) {
    let g = &r.grid;
    out!(
        "Grid:          {} x {} tiles of {} cells ({:.2} units)",
        g.tiles_x,
        g.tiles_z,
        g.tile_size,
        g.tile_width()
    );
    print_bounds(g.bmin, g.bmax);
    out!("Input:         {} tris", r.input_tris);
    out!(
        "Tiles:         {} with polygons of {} built; {} polys (at most {} in a tile)",
        r.tile_count,
        r.tiles.built,
        r.tiles.polys,
        r.tiles.max_polys_per_tile
    );
    let (c, m) = (&r.totals, &r.max);
    out!(
        "Rasterized:    {} tris (at most {} in a tile)",
        c.rasterized_tris,
        m.rasterized_tris
    );
    out!(
        "Heightfield:   {} spans, {} compact (at most {} and {} in a tile); max distance {}; \
         max regions {}; {} contours",
        c.spans,
        c.compact_spans,
        m.spans,
        m.compact_spans,
        c.max_distance,
        c.max_regions,
        c.contours
    );
    out!(
        "Poly mesh:     {} verts, {} polys (at most {} and {} in a tile)",
        c.polymesh_verts,
        c.polymesh_polys,
        m.polymesh_verts,
        m.polymesh_polys
    );
    out!(
        "Detail mesh:   {} meshes, {} verts, {} tris",
        c.detail_meshes,
        c.detail_verts,
        c.detail_tris
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
        navmesh_bytes,
        r.data_hash
    );
    if r.tiles_reused > 0 || r.store_entries_refused > 0 {
        out!(
            "Tile store:    {} tiles built, {} reused, {} entries refused and rebuilt",
            r.tiles_built,
            r.tiles_reused,
            r.store_entries_refused
        );
    }
    if let Some(s) = r.shard {
        out!("Shard:         {s} ({} tile positions)", r.tiles.built);
    }
    for w in r.warnings.iter().take(10) {
        out!("Warning:       {w}");
    }
    print_off_mesh_issues(&r.off_mesh_issues);
    if let Some(out) = output {
        out!("Saved:         {}", out.display());
    }
}

/// Stage timings as an object `{stage: ms, ..., "total": ms}`.
fn timings(stages: &[(navkit::build::Stage, f64)], total: Option<f64>) -> Value {
    let map: serde_json::Map<String, Value> = stages
        .iter()
        .map(|(s, ms)| (s.name().to_string(), json!(ms)))
        .chain(total.map(|t| ("total".to_string(), json!(t))))
        .collect();
    Value::Object(map)
}

/// Cells across `bmin..bmax` (`rcCalcGridSize`).
fn cells(bmin: f32, bmax: f32, cell_size: f32) -> i64 {
    ((bmax - bmin) / cell_size + 0.5) as i64
}

/// A solo build's report in the shared vocabulary.
pub fn report_json(r: &BuildReport) -> Value {
    let c = &r.config;
    json!({
        "grid": {
            "bmin": to_json(&c.bmin),
            "bmax": to_json(&c.bmax),
            "cell_size_m": num32(c.cs),
            "cell_height_m": num32(c.ch),
            "cells_x": r.grid_width,
            "cells_z": r.grid_height,
        },
        "input_verts": r.input_verts,
        "input_tris": r.input_tris,
        "rasterized_tris": r.rasterized_tris,
        "spans": r.spans,
        "compact_spans": r.compact_spans,
        "max_distance": r.max_distance,
        "max_regions": r.max_regions,
        "contours": r.contours,
        "polymesh_verts": r.polymesh_verts,
        "polymesh_polys": r.polymesh_polys,
        "detail_meshes": r.detail_meshes,
        "detail_verts": r.detail_verts,
        "detail_tris": r.detail_tris,
        "off_mesh_connections": r.off_mesh_connections,
        "off_mesh_issues": off_mesh_issues_json(&r.off_mesh_issues),
        "navmesh_bytes": r.navmesh_bytes,
        "timings_ms": timings(&r.timings_ms, Some(r.total_ms)),
        "total_ms": r.total_ms,
        "warnings": r.warnings,
    })
}

/// A tiled build's report in the shared vocabulary (the solo `grid` with the tiles added).
fn tiled_json(r: &TiledReport, settings: &BuildSettings, navmesh_bytes: usize) -> Value {
    let g = &r.grid;
    let t = &r.tiles;
    json!({
        "grid": {
            "bmin": v3(g.bmin),
            "bmax": v3(g.bmax),
            "cell_size_m": num32(g.cell_size),
            "cell_height_m": num32(settings.cell_height),
            "cells_x": cells(g.bmin.x, g.bmax.x, g.cell_size),
            "cells_z": cells(g.bmin.z, g.bmax.z, g.cell_size),
            "tile_size_cells": g.tile_size,
            "tiles_x": g.tiles_x,
            "tiles_z": g.tiles_z,
            "tile_width_m": num32(g.tile_width()),
        },
        "tile_count": r.tile_count,
        "tile_bits": r.tile_bits,
        "poly_bits": r.poly_bits,
        "threads": r.threads,
        "input_tris": r.input_tris,
        "tiles": {
            "built": t.built,
            "non_empty": t.non_empty,
            "sum_ms": t.sum_ms,
            "mean_ms": t.mean_ms,
            "max_ms": t.max_ms,
            "polys": t.polys,
            "max_polys_per_tile": t.max_polys_per_tile,
            "data_bytes": t.bytes,
            "timings_ms": timings(&t.stage_ms, None),
        },
        "counts": {
            "totals": counts_json(&r.totals),
            "max_per_tile": counts_json(&r.max),
            "per_tile": r.tile_counts.iter().map(|t| {
                let mut o = counts_json(&t.counts);
                o["tile"] = json!([t.tile.x, t.tile.z]);
                o["ms"] = json!(t.ms);
                o
            }).collect::<Vec<_>>(),
        },
        "off_mesh_issues": off_mesh_issues_json(&r.off_mesh_issues),
        "data_hash": r.data_hash,
        "tiles_built": r.tiles_built,
        "tiles_reused": r.tiles_reused,
        "store_entries_refused": r.store_entries_refused,
        "shard": r.shard.map(|s| json!({"index": s.index, "count": s.count})),
        "total_ms": r.total_ms,
        "tiles_ms": r.tiles_ms,
        "index_ms": r.index_ms,
        "navmesh_bytes": navmesh_bytes,
        "peak_rss_bytes": peak_rss_bytes(),
        "warnings": r.warnings,
    })
}

/// Stage counts as an object with the keys of [`StageCounts::named`].
fn counts_json(c: &StageCounts) -> Value {
    Value::Object(
        c.named()
            .iter()
            .map(|&(k, v)| (k.to_string(), json!(v)))
            .collect(),
    )
}

/// The level's bounds, as text.
fn print_bounds(bmin: Vec3, bmax: Vec3) {
    out!(
        "Bounds:        ({:.3}, {:.3}, {:.3}) to ({:.3}, {:.3}, {:.3})",
        bmin.x,
        bmin.y,
        bmin.z,
        bmax.x,
        bmax.y,
        bmax.z
    );
}

pub fn print_report(r: &BuildReport) {
    out!("Grid:          {} x {} cells", r.grid_width, r.grid_height);
    print_bounds(
        Vec3::from_array(r.config.bmin),
        Vec3::from_array(r.config.bmax),
    );
    out!(
        "Input:         {} verts, {} tris ({} rasterized)",
        r.input_verts,
        r.input_tris,
        r.rasterized_tris
    );
    out!(
        "Heightfield:   {} spans, {} compact; max distance {}; {} regions, {} contours",
        r.spans,
        r.compact_spans,
        r.max_distance,
        r.max_regions.saturating_sub(1),
        r.contours
    );
    out!(
        "Poly mesh:     {} verts, {} polys",
        r.polymesh_verts,
        r.polymesh_polys
    );
    out!(
        "Detail mesh:   {} meshes, {} verts, {} tris",
        r.detail_meshes,
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
    print_off_mesh_issues(&r.off_mesh_issues);
}

/// The off-mesh links paths cannot take, one line each.
fn print_off_mesh_issues(issues: &[OffMeshIssue]) {
    for i in issues {
        out!("Unusable link: {i}");
    }
}

/// The off-mesh links paths cannot take: each issue's fields (`index`, `user_id`, `problem`
/// with its `kind`) and its sentence (`message`).
pub fn off_mesh_issues_json(issues: &[OffMeshIssue]) -> Value {
    issues
        .iter()
        .map(|i| {
            let mut v = to_json(i);
            v["message"] = json!(i.to_string());
            v
        })
        .collect()
}
