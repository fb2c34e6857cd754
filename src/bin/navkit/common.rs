//! What several commands share: argument parsers, loading or building a navmesh, filters.

use std::path::Path;

use glam::Vec3;

use navkit::build::{Budget, BuildReport};
use navkit::geometry::LoadOptions;
use navkit::grid::mesh::MeshGrid;
use navkit::navmesh::NavMesh;
use navkit::query::QueryFilter;
use navkit::tilecache::TileCache;
use navkit::tools::simulation::Scenario;
use navkit::{BuildSettings, Error, InputGeometry, NavMeshBuilder, Partition};

use crate::exit::CliError;

/// The global options' budget (`--timeout`, `--allow-stray-vertices`), set once by `main`.
static BUDGET: std::sync::OnceLock<Budget> = std::sync::OnceLock::new();

/// Sets the budget every build of this run uses.
pub fn set_budget(budget: Budget) {
    let _ = BUDGET.set(budget);
}

/// The budget every build of this run uses (the default if `main` set none).
pub fn budget() -> Budget {
    BUDGET.get().cloned().unwrap_or_default()
}

/// Where a `.gset` or test case may find its mesh (`--allow-outside-paths`), set once by `main`.
static LOAD_OPTIONS: std::sync::OnceLock<LoadOptions> = std::sync::OnceLock::new();

/// Sets how every command of this run loads `.gset` files and test cases.
pub fn set_load_options(options: LoadOptions) {
    let _ = LOAD_OPTIONS.set(options);
}

/// How every command of this run loads `.gset` files and test cases (the default if `main`
/// set none).
pub fn load_options() -> LoadOptions {
    LOAD_OPTIONS.get().cloned().unwrap_or_default()
}

/// Loads geometry (a mesh or a `.gset`) with the run's [`load_options`], and prints what the
/// reader warns about (faces RecastDemo would cut short ...) on stderr.
pub fn load_input(path: &Path) -> navkit::Result<InputGeometry> {
    let geom = InputGeometry::load_with(path, &load_options())?;
    for w in &geom.mesh.warnings {
        eprintln!("navkit: warning: {w}");
    }
    Ok(geom)
}

pub fn parse_vec3(s: &str) -> Result<Vec3, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected X,Y,Z, got `{s}`"));
    }
    let mut v = [0f32; 3];
    for (i, p) in parts.iter().enumerate() {
        v[i] = p
            .parse::<f32>()
            .map_err(|_| format!("`{p}` is not a number"))?;
        if !v[i].is_finite() {
            return Err(format!("`{p}` is not a finite number"));
        }
    }
    Ok(Vec3::from_array(v))
}

pub fn parse_hex(s: &str) -> Result<u16, String> {
    let t = s.trim_start_matches("0x").trim_start_matches("0X");
    u16::from_str_radix(t, 16).map_err(|_| format!("`{s}` is not a 16-bit hex number"))
}

/// Whether `path` is geometry (a mesh navkit reads, or a `.gset`) rather than a saved navmesh.
pub fn is_geometry(path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    ext.as_deref()
        .is_some_and(|e| e == "gset" || navkit::geometry::MESH_EXTENSIONS.contains(&e))
}

/// Loads geometry and builds it, with the .gset's settings (if any) and an optional partition.
pub fn build_input(
    input: &Path,
    partition: Option<Partition>,
) -> navkit::Result<(NavMesh, BuildReport)> {
    let geom = load_input(input)?;
    let mut settings = geom.settings.clone().unwrap_or_else(BuildSettings::default);
    if let Some(p) = partition {
        settings.partition = p;
    }
    let built = NavMeshBuilder::new(&geom)
        .settings(settings)
        .budget(budget())
        .solo()?;
    let (navmesh, report, _) = built.into_parts();
    Ok((navmesh, report))
}

/// The process's peak resident memory (VmHWM) in bytes, where /proc tells it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// A command's navmesh: loaded or built, or, when a scenario has obstacles, a tile cache of the
/// geometry with them carved in.
pub enum NavSource {
    Plain(NavMesh),
    Cache(Box<TileCache>),
}

impl NavSource {
    pub fn navmesh(&self) -> &NavMesh {
        match self {
            NavSource::Plain(n) => n,
            NavSource::Cache(c) => c.navmesh(),
        }
    }

    pub fn obstacles(&self) -> Vec<navkit::tilecache::Obstacle> {
        match self {
            NavSource::Plain(_) => Vec::new(),
            NavSource::Cache(c) => c.obstacles(),
        }
    }
}

pub fn navmesh_source(
    input: &Path,
    partition: Option<Partition>,
    scenario: Option<&Scenario>,
    tile_size: Option<u32>,
) -> navkit::Result<NavSource> {
    let Some(s) = scenario.filter(|s| !s.obstacles.is_empty()) else {
        return Ok(NavSource::Plain(load_navmesh(input, partition)?));
    };
    if !is_geometry(input) {
        return Err(Error::InvalidArgument(format!(
            "{}: obstacles need the geometry (.obj, .gltf, .glb or .gset) to build a tile cache from",
            input.display()
        )));
    }
    let (geom, settings) = load_geometry(input, partition, tile_size)?;
    Ok(NavSource::Cache(Box::new(s.tile_cache(&geom, &settings)?)))
}

pub fn load_navmesh(input: &Path, partition: Option<Partition>) -> navkit::Result<NavMesh> {
    if is_geometry(input) {
        Ok(build_input(input, partition)?.0)
    } else {
        NavMesh::load(input)
    }
}

pub fn filter_from(include: Option<u16>, exclude: Option<u16>) -> QueryFilter {
    let mut f = QueryFilter::default();
    if let Some(i) = include {
        f.set_include_flags(i);
    }
    if let Some(e) = exclude {
        f.set_exclude_flags(e);
    }
    f
}

/// The navmesh of an input and, for geometry (unless `no_grid`), the mesh-derived grid built
/// with the same settings (but for the cell size, if `grid_cell_size` is given).
pub fn navmesh_and_grid(
    input: &Path,
    no_grid: bool,
    grid_cell_size: Option<f32>,
    tiled: Option<Option<u32>>,
) -> navkit::Result<(NavMesh, Option<MeshGrid>)> {
    if !is_geometry(input) {
        return Ok((NavMesh::load(input)?, None));
    }
    let geom = load_input(input)?;
    let mut builder = NavMeshBuilder::new(&geom).budget(budget());
    let navmesh = match tiled {
        Some(tile_size) => {
            if let Some(ts) = tile_size {
                builder = builder.tile_size(ts);
            }
            builder.tiled()?.into_navmesh()
        }
        None => builder.solo()?.into_navmesh(),
    };
    let grid = if no_grid {
        None
    } else {
        let mut grid_settings = builder.build_settings();
        if let Some(cs) = grid_cell_size {
            grid_settings.cell_size = cs;
        }
        Some(builder.settings(grid_settings).grid()?)
    };
    Ok((navmesh, grid))
}

/// Loads geometry and its settings (the `.gset`'s or RecastDemo's defaults), with the
/// command line's partition and tile size, if given, in place of the file's.
pub fn load_geometry(
    input: &Path,
    partition: Option<Partition>,
    tile_size: Option<u32>,
) -> navkit::Result<(InputGeometry, BuildSettings)> {
    let geom = load_input(input)?;
    let mut settings = geom.settings.clone().unwrap_or_default();
    if let Some(p) = partition {
        settings.partition = p;
    }
    if let Some(ts) = tile_size {
        settings.tile_size = ts;
    }
    Ok((geom, settings))
}

/// A count with an optional `k` (thousand) or `M` (million) suffix: `250000`, `250k`, `1.5M`.
pub fn parse_count(s: &str) -> Result<usize, String> {
    let t = s.trim().replace('_', "");
    let (num, mult) = match t.char_indices().last() {
        Some((i, 'k' | 'K')) => (&t[..i], 1e3),
        Some((i, 'm' | 'M')) => (&t[..i], 1e6),
        _ => (t.as_str(), 1.0),
    };
    match num.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 && v * mult <= 1e15 => Ok((v * mult).round() as usize),
        _ => Err(format!("`{s}` is not a count (e.g. 20000, 250k, 1M)")),
    }
}

/// Checks, before any work starts, that `path` can be written: not a directory, an extension
/// among `exts` (any if empty), its directory exists and is writable (and the file itself, if
/// it exists). `what` names the output in the message (`-o`, `--trajectories` ...).
pub fn check_output(path: &Path, exts: &[&str], what: &str) -> Result<(), CliError> {
    let fail = |message: String| {
        Err(CliError::OutputPath {
            path: path.to_path_buf(),
            message,
        })
    };
    if path.is_dir() {
        return fail(format!("{what} is a directory; give a file name"));
    }
    if !exts.is_empty() {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        if !ext.as_deref().is_some_and(|e| exts.contains(&e)) {
            let list: Vec<String> = exts.iter().map(|e| format!(".{e}")).collect();
            return fail(format!(
                "{what} must end in {} (the format is chosen by the extension)",
                list.join(" or ")
            ));
        }
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if !dir.is_dir() {
        return fail(format!(
            "{what}: the directory {} does not exist",
            dir.display()
        ));
    }
    if path.exists() {
        if let Err(e) = std::fs::OpenOptions::new().append(true).open(path) {
            return fail(format!("{what}: the file cannot be written ({e})"));
        }
        return Ok(());
    }
    let probe = dir.join(format!(".navkit-write-check-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => fail(format!(
            "{what}: the directory {} is not writable ({e})",
            dir.display()
        )),
    }
}

/// [`check_output`] for an optional path.
pub fn check_output_opt(path: Option<&Path>, exts: &[&str], what: &str) -> Result<(), CliError> {
    path.map_or(Ok(()), |p| check_output(p, exts, what))
}

/// The picture formats `render`, `compare`, `simulate` and `demo` write.
pub const PICTURE: &[&str] = &["png", "svg"];

/// A progress bar (with a length) or a spinner (without) on stderr: drawn only when stderr is a
/// terminal and the output is not JSON, hidden otherwise.
pub fn progress(json: bool, template: &str, len: Option<u64>) -> indicatif::ProgressBar {
    use std::io::IsTerminal;
    if json || !std::io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let bar = match len {
        Some(n) => indicatif::ProgressBar::new(n),
        None => indicatif::ProgressBar::new_spinner(),
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    if len.is_none() {
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
    }
    bar
}

/// Picture options shared by `render`, `compare` and `simulate`.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct PictureArgs {
    /// Picture width in pixels (200 to 8192; default 1200, or --max-size if smaller).
    #[arg(long, value_parser = clap::value_parser!(u32).range(navkit::render::MIN_SIZE as i64..=navkit::render::MAX_SIZE as i64))]
    pub width: Option<u32>,
    /// The longest side the picture may have, in pixels (200 to 8192): a tall level is
    /// scaled down to fit.
    #[arg(long, default_value_t = navkit::render::DEFAULT_MAX_SIZE, value_parser = clap::value_parser!(u32).range(navkit::render::MIN_SIZE as i64..=navkit::render::MAX_SIZE as i64))]
    pub max_size: u32,
    /// Ground poly colours: auto (by height where floors are stacked, else by area), area,
    /// or height (a colour ramp with a bar in metres).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Auto,
    Area,
    Height,
}

impl PictureArgs {
    /// The render options, or a usage error if --width is more than --max-size.
    pub fn options(&self) -> Result<navkit::render::RenderOptions, CliError> {
        let width = self
            .width
            .unwrap_or(navkit::render::DEFAULT_WIDTH.min(self.max_size));
        if width > self.max_size {
            return Err(CliError::Usage(format!(
                "--width {width} is more than --max-size {}",
                self.max_size
            )));
        }
        Ok(navkit::render::RenderOptions {
            width,
            max_size: self.max_size,
            colors: match self.color {
                ColorChoice::Auto => navkit::render::PolyColors::Auto,
                ColorChoice::Area => navkit::render::PolyColors::Area,
                ColorChoice::Height => navkit::render::PolyColors::Height,
            },
        })
    }
}

/// A path kind to draw (`render --paths`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathChoice {
    Straight,
    Smooth,
    Spline,
    Follower,
    Grid,
    All,
}

/// The paths `choices` select.
pub fn path_set(choices: &[PathChoice]) -> navkit::render::ComparisonPaths {
    use navkit::debug_draw::paths::PathKind;
    let mut set = navkit::render::ComparisonPaths::NONE;
    for c in choices {
        set = match c {
            PathChoice::Straight => set.with(PathKind::Straight),
            PathChoice::Smooth => set.with(PathKind::Smooth),
            PathChoice::Spline => set.with(PathKind::Spline),
            PathChoice::Follower => set.with(PathKind::Trajectory),
            PathChoice::Grid => set.with(PathKind::Grid),
            PathChoice::All => navkit::render::ComparisonPaths::ALL,
        };
    }
    set
}
