//! `navkit gen`: a reproducible test world written as OBJ and .gset.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::common::{Kind, check_output, parse_count, progress};
use crate::exit::{CliResult, Outcome};
use crate::json::{rename, rename_each, to_json, v3};

// `navkit gen` arguments.
#[derive(clap::Args)]
pub struct GenArgs {
    /// Target triangle count (5000 to 50000000; `k` and `M` suffixes allowed, e.g. 1M).
    #[arg(long, value_parser = parse_count)]
    pub tris: usize,
    /// Seed: the same seed and count give byte-identical files.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The OBJ file to write (the .gset goes beside it, same stem).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Print the stats (with the features' sample points) as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: GenArgs) -> CliResult {
    check_output(&args.output, &["obj"], "-o", Kind::Obj, &[])?;
    let gset = navkit::tools::worldgen::gset_path(&args.output);
    check_output(&gset, &["gset"], "-o's .gset", Kind::Obj, &[])?;
    gen_world(args.tris, args.seed, &args.output, args.json)?;
    Ok(Outcome::Success)
}

/// `navkit gen`: generate a world, write it, print its stats.
fn gen_world(tris: usize, seed: u64, output: &Path, json: bool) -> navkit::Result<()> {
    use navkit::tools::worldgen::{WorldSpec, generate, gset_path, write_world};
    let bar = progress(json, "{spinner} {msg} ({elapsed})", None);
    bar.set_message(format!("generating a world of {tris} triangles"));
    let started = std::time::Instant::now();
    let (geom, stats) = generate(&WorldSpec::new(tris, seed))?;
    let generate_ms = started.elapsed().as_secs_f64() * 1e3;
    let written = std::time::Instant::now();
    bar.set_message(format!("writing {}", output.display()));
    write_world(&geom, output)?;
    bar.finish_and_clear();
    let write_ms = written.elapsed().as_secs_f64() * 1e3;
    let gset = gset_path(output);
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    if json {
        // Serialized directly (not through a `Value`) so that f32s print as f32s.
        #[derive(serde::Serialize)]
        struct GenJson<'a> {
            #[serde(flatten)]
            stats: &'a navkit::tools::worldgen::WorldStats,
            obj: String,
            gset: String,
            obj_bytes: u64,
            generate_ms: f64,
            write_ms: f64,
        }
        let v = GenJson {
            stats: &stats,
            obj: output.display().to_string(),
            gset: gset.display().to_string(),
            obj_bytes: size(output),
            generate_ms,
            write_ms,
        };
        let mut v = to_json(&v);
        rename(
            &mut v,
            &[("terrain_cell", "terrain_cell_m"), ("side", "side_m")],
        );
        // The extent as the level's bounds, as `build` prints them.
        if let Some(o) = v.as_object_mut() {
            o.shift_remove("extent");
            o.insert("bmin".into(), v3(stats.extent.min));
            o.insert("bmax".into(), v3(stats.extent.max));
        }
        rename_each(&mut v["features"], &[("radius", "radius_m")]);
        out!("{v}");
        return Ok(());
    }
    print_stats(&stats, output, &gset, size(output), generate_ms, write_ms);
    Ok(())
}

/// The world's figures as text.
fn print_stats(
    stats: &navkit::tools::worldgen::WorldStats,
    output: &Path,
    gset: &Path,
    obj_bytes: u64,
    generate_ms: f64,
    write_ms: f64,
) {
    let (lo, hi) = stats.extent.into();
    let pct = |n: usize| 100.0 * n as f64 / stats.tris.max(1) as f64;
    out!(
        "World:      seed {}, {} triangles (target {}), {} vertices",
        stats.seed,
        stats.tris,
        stats.target_tris,
        stats.verts
    );
    out!(
        "Extent:     {:.1} x {:.1} m, heights {:.1} to {:.1}; terrain cell {:.2} m",
        hi.x - lo.x,
        hi.z - lo.z,
        lo.y,
        hi.y,
        stats.terrain_cell
    );
    out!(
        "Triangles:  terrain {} ({:.0}%), structures {} ({:.0}%), clutter {} ({:.0}%)",
        stats.terrain_tris,
        pct(stats.terrain_tris),
        stats.structure_tris,
        pct(stats.structure_tris),
        stats.clutter_tris,
        pct(stats.clutter_tris)
    );
    out!(
        "Buildings:  {} ({} doorways, {} roofs, {} upper floors, {} yards)",
        stats.buildings,
        stats.doorways,
        stats.roofs,
        stats.upper_floors,
        stats.yards
    );
    out!(
        "Access:     {} platforms, {} bridges, {} staircases, {} ramps",
        stats.platforms,
        stats.bridges,
        stats.stairs,
        stats.ramps
    );
    out!(
        "Areas:      {} water volumes, {} steep crags, {} jump links, {} clutter items",
        stats.water_volumes,
        stats.steep_patches,
        stats.jump_links,
        stats.clutter
    );
    out!(
        "Features:   {} sample points (--json lists them)",
        stats.features.len()
    );
    out!(
        "Written:    {} ({} bytes), {}",
        output.display(),
        obj_bytes,
        gset.display()
    );
    out!("Time:       generate {generate_ms:.1} ms, write {write_ms:.1} ms");
}
