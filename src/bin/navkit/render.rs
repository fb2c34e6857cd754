//! `navkit render`: a top-down picture of a navmesh, its grid, paths and obstacles.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;

use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::tools::simulation::Scenario;

use crate::common::{PICTURE, check_output};
use crate::common::{navmesh_and_grid, navmesh_source, parse_vec3};
use crate::exit::{CliResult, Outcome};

// `navkit render` arguments.
#[derive(clap::Args)]
pub struct RenderArgs {
    /// MESH.obj/.gltf/.glb, GEOM.gset or a saved navmesh (grid cells need the geometry).
    pub input: PathBuf,
    /// Start point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "to")]
    pub from: Option<Vec3>,
    /// End point `X,Y,Z`.
    #[arg(long, value_parser = parse_vec3, allow_hyphen_values = true, requires = "from")]
    pub to: Option<Vec3>,
    /// Output file (.png or .svg).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Picture width in pixels.
    #[arg(long, default_value_t = 1200)]
    pub width: u32,
    /// Leave out the walkable grid cells (and the grid path).
    #[arg(long)]
    pub no_grid: bool,
    /// Cell size of the grid (default: the navmesh's cell size).
    #[arg(long, value_name = "SIZE")]
    pub grid_cell_size: Option<f32>,
    /// Frame the picture on the paths (3 units around them) instead of the whole level.
    #[arg(long)]
    pub zoom: bool,
    /// Build the navmesh tiled (and draw the tile borders).
    #[arg(long)]
    pub tiled: bool,
    /// Tile size in cells (default: the .gset's, else 32); implies --tiled.
    #[arg(long)]
    pub tile_size: Option<u32>,
    /// Carve and draw this scenario file's obstacles (through a tile cache; no grid).
    #[arg(long, value_name = "FILE")]
    pub scenario: Option<PathBuf>,
}

pub fn run(args: RenderArgs) -> CliResult {
    let RenderArgs {
        input,
        from,
        to,
        output,
        width,
        no_grid,
        grid_cell_size,
        zoom,
        tiled,
        tile_size,
        scenario,
    } = args;
    check_output(&output, PICTURE, "-o")?;
    render(RenderJob {
        input: &input,
        ends: from.zip(to),
        output: &output,
        width,
        zoom,
        no_grid,
        grid_cell_size,
        tiled: (tiled || tile_size.is_some()).then_some(tile_size),
        scenario: scenario.as_deref(),
    })?;
    Ok(Outcome::Success)
}

/// What `navkit render` draws.
struct RenderJob<'a> {
    input: &'a Path,
    ends: Option<(Vec3, Vec3)>,
    output: &'a Path,
    width: u32,
    zoom: bool,
    no_grid: bool,
    grid_cell_size: Option<f32>,
    /// Tiled (with an optional tile size) or solo.
    tiled: Option<Option<u32>>,
    scenario: Option<&'a Path>,
}

fn render(job: RenderJob<'_>) -> navkit::Result<()> {
    let RenderJob {
        input,
        ends,
        output,
        width,
        zoom,
        no_grid,
        grid_cell_size,
        tiled,
        scenario,
    } = job;
    let scenario = scenario.map(Scenario::load).transpose()?;
    let obstacles = scenario.as_ref().is_some_and(|s| !s.obstacles.is_empty());
    let (navmesh, grid) = navmesh_and_grid(input, no_grid || obstacles, grid_cell_size, tiled)?;
    let cache = match &scenario {
        Some(s) if obstacles => Some(navmesh_source(input, None, Some(s), tiled.flatten())?),
        _ => None,
    };
    let navmesh = match &cache {
        Some(c) => c.navmesh(),
        None => &navmesh,
    };
    let comparison = match ends {
        Some((from, to)) => Some(
            Comparer::new(navmesh, grid.as_ref(), CompareSettings::default())?.compare(from, to)?,
        ),
        None => None,
    };
    let mut scene = navkit::render::comparison_scene(
        navmesh,
        grid.as_ref(),
        comparison.as_ref(),
        format!("navkit: {}", input.display()),
    );
    scene.add_tile_borders(navmesh);
    if let Some(c) = &cache {
        scene.add_obstacles(&c.obstacles());
    }
    if zoom {
        scene.zoom_to_lines(3.0);
    }
    navkit::render::save(&scene, output, width)?;
    out!("wrote {}", output.display());
    Ok(())
}
