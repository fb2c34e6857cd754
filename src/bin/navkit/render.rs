//! `navkit render`: a top-down picture of a navmesh, its grid, paths and obstacles.

use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;

use navkit::tools::compare::{CompareSettings, Comparer};
use navkit::tools::simulation::Scenario;

use navkit::render::{ComparisonPaths, RenderOptions};

use crate::common::{Kind, PICTURE, PathChoice, PictureArgs, check_output, is_stdout, path_set};
use crate::common::{navmesh_and_grid, navmesh_source, parse_vec3};
use crate::exit::{CliResult, Outcome};
use crate::output::inputs;

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
    /// Output file (.png or .svg); `-o -` writes a PNG to standard output.
    #[arg(short, long)]
    pub output: PathBuf,
    #[command(flatten)]
    pub picture: PictureArgs,
    /// The paths to draw between --from and --to (comma-separated): straight, smooth,
    /// spline, follower (with its turn boundaries), grid (grid A* and its waypoints), optimal
    /// (the shortest path), or all.
    #[arg(long, value_delimiter = ',', default_value = "straight")]
    pub paths: Vec<PathChoice>,
    /// Draw the walkable grid cells (a square per cell in its area's colour; off by default: they hide the polys).
    #[arg(long, conflicts_with = "no_grid")]
    pub grid_cells: bool,
    /// Build no grid (so no grid cells and no grid path).
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
        picture,
        paths,
        grid_cells,
        no_grid,
        grid_cell_size,
        zoom,
        tiled,
        tile_size,
        scenario,
    } = args;
    if !is_stdout(&output) {
        check_output(
            &output,
            PICTURE,
            "-o",
            Kind::Picture,
            &inputs(&input, scenario.as_deref()),
        )?;
    }
    let picture = picture.options()?;
    let mut paths = path_set(&paths);
    paths.grid_cells = grid_cells;
    render(RenderJob {
        input: &input,
        ends: from.zip(to),
        output: &output,
        picture,
        paths,
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
    picture: RenderOptions,
    paths: ComparisonPaths,
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
        picture,
        paths,
        zoom,
        no_grid,
        grid_cell_size,
        tiled,
        scenario,
    } = job;
    let scenario = scenario.map(Scenario::load).transpose()?;
    let obstacles = scenario.as_ref().is_some_and(|s| !s.obstacles.is_empty());
    // The grid is built only for what shows it: its cells or its path.
    let no_grid = no_grid || obstacles || !(paths.grid_cells || (paths.grid && ends.is_some()));
    let (navmesh, grid) = navmesh_and_grid(input, no_grid, grid_cell_size, tiled)?;
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
        paths,
    );
    scene.add_tile_borders(navmesh);
    if let Some(c) = &cache {
        scene.add_obstacles(&c.obstacles());
    }
    if zoom {
        scene.zoom_to_lines(3.0);
    }
    if is_stdout(output) {
        let png = navkit::render::render_png(&scene, &picture)?;
        let mut stdout = std::io::stdout().lock();
        if stdout
            .write_all(&png)
            .and_then(|()| stdout.flush())
            .is_err()
        {
            std::process::exit(0);
        }
        return Ok(());
    }
    navkit::render::save(&scene, output, &picture)?;
    out!("wrote {}", output.display());
    Ok(())
}
