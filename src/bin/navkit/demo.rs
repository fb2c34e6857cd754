//! `navkit demo`: the sample level built, a path walked, grid against navmesh, an obstacle, a
//! generated world built tiled.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;

use navkit::InputGeometry;
use navkit::NavMeshBuilder;
use navkit::navmesh::NavMesh;
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::tools::compare::{CompareSettings, Comparer};

use crate::build::print_report;
use crate::common::{Kind, PICTURE, check_output, level_inputs, progress};
use crate::compare::{compare_summary, print_comparisons};
use crate::exit::{CliError, CliResult, Outcome};
use crate::path::print_path;

// `navkit demo` arguments.
#[derive(clap::Args)]
pub struct DemoArgs {
    /// The geometry set to use (default: meshes/demo_level.gset, looked for in the current
    /// directory, then in the navkit sources this program was built from).
    #[arg(long)]
    pub gset: Option<PathBuf>,
    /// Where to write the picture of the demo's path (PNG or SVG; default: navkit-demo.png in
    /// the system's temporary directory).
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

/// The sample level, relative to the navkit sources.
const SAMPLE: &str = "meshes/demo_level.gset";

pub fn run(args: DemoArgs) -> CliResult {
    let picture = args
        .output
        .unwrap_or_else(|| std::env::temp_dir().join("navkit-demo.png"));
    let gset = match args.gset {
        Some(g) => g,
        None => find_sample()?,
    };
    check_output(&picture, PICTURE, "-o", Kind::Picture, &level_inputs(&gset))?;
    demo(&gset, &picture)?;
    Ok(Outcome::Success)
}

/// The sample level: in the current directory (a checkout's root), beside the sources this
/// program was built from, or above the executable (`target/release/navkit` in a checkout).
fn find_sample() -> Result<PathBuf, CliError> {
    let mut candidates = vec![
        PathBuf::from(SAMPLE),
        Path::new(env!("CARGO_MANIFEST_DIR")).join(SAMPLE),
    ];
    if let Ok(exe) = std::env::current_exe() {
        candidates.extend(exe.ancestors().skip(1).take(4).map(|d| d.join(SAMPLE)));
    }
    if let Some(found) = candidates.iter().find(|c| c.is_file()) {
        return Ok(found.clone());
    }
    let looked: Vec<String> = candidates.iter().map(|c| c.display().to_string()).collect();
    Err(CliError::NotFound(format!(
        "the sample level {SAMPLE} was not found (looked at {}); pass \
         --gset /path/to/navkit/{SAMPLE} (it is in the navkit repository)",
        looked.join(", ")
    )))
}

fn demo(gset: &Path, picture: &Path) -> navkit::Result<()> {
    let geom = crate::common::load_input(gset)?;
    let settings = geom.settings.clone().unwrap_or_default();
    out!("navkit demo: {}", gset.display());
    out!(
        "  {} verts, {} tris, {} off-mesh connections, {} convex volumes",
        geom.mesh.vert_count(),
        geom.mesh.tri_count(),
        geom.off_mesh_connections.len(),
        geom.convex_volumes.len()
    );
    let builder = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .budget(crate::common::budget());
    let built = builder.solo()?;
    print_report(built.report());
    let (from, to) = demo_endpoints(&geom);
    out!("\nSmooth path from {from} to {to}:");
    let mut q = NavMeshQuery::new(built.navmesh(), 2048)?;
    let r = q.path(from, to, &QueryFilter::default(), &PathOptions::default());
    print_path(&r);
    if let Ok(p) = &r {
        let smooth = &p.smooth;
        for (i, p) in smooth.points.iter().enumerate() {
            if i % 8 == 0 || i + 1 == smooth.points.len() {
                out!("  [{i:4}] ({:9.4}, {:9.4}, {:9.4})", p.x, p.y, p.z);
            }
        }
    }
    out!(
        "\nGrid A* on the same level (the eroded walkable cells, the jump as a grid link) against the navmesh, and the turn-boundary follower on both:"
    );
    let grid = builder.grid()?;
    let mut cmp = Comparer::new(built.navmesh(), Some(&grid), CompareSettings::default())?;
    let results = [cmp.compare(from, to)?];
    print_comparisons(&results, &compare_summary(&results));
    let mut scene = navkit::render::comparison_scene(
        built.navmesh(),
        Some(&grid),
        Some(&results[0]),
        format!("navkit demo: {}", gset.display()),
        navkit::render::ComparisonPaths {
            grid_cells: true,
            ..navkit::render::ComparisonPaths::ALL
        },
    );
    scene.add_tile_borders(built.navmesh());
    navkit::render::save(&scene, picture, &navkit::render::RenderOptions::default())?;
    out!(
        "Picture:   {} (the navmesh by area, the walkable grid cells, the grid A* path, the \
         straight and smooth paths, the follower on both)",
        picture.display()
    );
    out!(
        "(draw it: navkit compare {} --from {},{},{} --to {},{},{} -o demo.png)",
        gset.display(),
        from.x,
        from.y,
        from.z,
        to.x,
        to.y,
        to.z
    );

    obstacle_demo(&geom, &settings, from, to)?;
    world_demo()
}

/// A tile cache of the level, a cylinder on the path's longest leg, then removed.
fn obstacle_demo(
    geom: &InputGeometry,
    settings: &navkit::BuildSettings,
    from: Vec3,
    to: Vec3,
) -> navkit::Result<()> {
    // Obstacles: a tile cache of the level, a cylinder on the path's longest leg, then removed.
    let mut cache = NavMeshBuilder::new(geom)
        .settings(settings.clone())
        .budget(crate::common::budget())
        .tile_cache()?;
    let corners = |nav: &NavMesh| -> navkit::Result<(bool, Vec<Vec3>)> {
        let mut q = NavMeshQuery::new(nav, 2048)?;
        let options = PathOptions {
            smooth: None,
            ..PathOptions::default()
        };
        let p = q.path(from, to, &QueryFilter::default(), &options)?;
        Ok((p.is_complete(), p.straight.positions()))
    };
    let length = |p: &[Vec3]| p.windows(2).map(|w| w[0].distance(w[1])).sum::<f32>();
    let (_, before) = corners(cache.navmesh())?;
    let leg = before
        .windows(2)
        .max_by(|a, b| a[0].distance(a[1]).total_cmp(&b[0].distance(b[1])))
        .map(|w| (w[0] + w[1]) * 0.5)
        .unwrap_or(from);
    let ob = cache.add(&navkit::ObstacleShape::Cylinder {
        pos: leg - Vec3::Y,
        radius: 1.2,
        height: 3.0,
    })?;
    let up = cache.update_until_done()?;
    let (complete, with) = corners(cache.navmesh())?;
    out!(
        "\nTile cache ({} layers in {} x {} tiles of 48 cells, {} bytes FastLZ): path {:.2} long; with a \
         cylinder (r 1.2) at ({:.1}, {:.1}, {:.1}): {:.2} long{} (tiles rebuilt: {})",
        cache.report().layers,
        cache.report().tiles_x,
        cache.report().tiles_z,
        cache.report().compressed_bytes,
        length(&before),
        leg.x,
        leg.y,
        leg.z,
        length(&with),
        if complete { "" } else { ", partial" },
        up.tiles_rebuilt
    );
    cache.remove(ob)?;
    cache.update_until_done()?;
    let (_, after) = corners(cache.navmesh())?;
    out!(
        "  removed again: {:.2} long, {}",
        length(&after),
        if after == before {
            "the original path"
        } else {
            "a different path"
        }
    );

    Ok(())
}

/// A large world, tiled on every core.
fn world_demo() -> navkit::Result<()> {
    // A large world, tiled on every core.
    let (world, stats) =
        navkit::tools::worldgen::generate(&navkit::tools::worldgen::WorldSpec::new(200_000, 1))?;
    let world_settings = world.settings.clone().unwrap_or_default();
    let bar = progress(
        false,
        "{spinner} world tiles {pos}/{len} [{bar:40}] {elapsed}",
        Some(0),
    );
    let show = |done: usize, total: usize| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    };
    let tiled = NavMeshBuilder::new(&world)
        .settings(world_settings)
        .budget(crate::common::budget())
        .progress(&show)
        .tiled();
    bar.finish_and_clear();
    let tiled = tiled?;
    let r = tiled.report();
    out!(
        "\nA generated world of {} triangles ({:.0} m square: {} buildings, {} bridges, {} jump links): \
         {} tiles on {} threads in {:.0} ms ({:.2} ms per tile), data hash {}",
        stats.tris,
        stats.side,
        stats.buildings,
        stats.bridges,
        stats.jump_links,
        r.tile_count,
        r.threads,
        r.total_ms,
        r.tiles.mean_ms,
        r.data_hash
    );
    out!(
        "(more: navkit gen --tris 1M -o world.obj; navkit build --tiled world.gset; navkit bench-tiled)"
    );
    Ok(())
}

/// The demo's start and end: given by `# demo-path sx sy sz ex ey ez` in the .gset's mesh
/// neighbourhood, else the two ends of the mesh bounds' diagonal.
fn demo_endpoints(geom: &InputGeometry) -> (Vec3, Vec3) {
    if let Some(src) = &geom.source {
        if let Ok(file) = std::fs::File::open(src) {
            // A line at a time, each of at most navkit::text::MAX_LINE_BYTES.
            let mut lines = navkit::text::LineReader::new(std::io::BufReader::new(file), src);
            while let Ok(Some((_, raw))) = lines.next_line() {
                let l = String::from_utf8_lossy(raw);
                if let Some(rest) = l.trim().strip_prefix("# demo-path") {
                    let n: Vec<f32> = rest
                        .split_whitespace()
                        .filter_map(|s| s.parse().ok())
                        .collect();
                    if n.len() == 6 {
                        return (Vec3::new(n[0], n[1], n[2]), Vec3::new(n[3], n[4], n[5]));
                    }
                }
            }
        }
    }
    let (a, b) = geom.mesh.bounds().into();
    (a, b)
}
