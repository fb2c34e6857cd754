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

/// A `--max-memory`: a number of bytes, or none.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLimit {
    /// At most this many bytes.
    Bytes(u64),
    /// No limit (`--max-memory none`).
    None,
}

/// The `--max-memory` of this run, set once by `main`.
static MEMORY_LIMIT: std::sync::OnceLock<MemoryLimit> = std::sync::OnceLock::new();

/// Sets the memory limit of this run (the builds' budget gets it from `main` as well).
pub fn set_memory_limit(limit: MemoryLimit) {
    let _ = MEMORY_LIMIT.set(limit);
}

/// The memory limit of this run in bytes, if any (the default if `main` set none).
pub fn memory_limit() -> Option<u64> {
    match MEMORY_LIMIT
        .get()
        .copied()
        .unwrap_or_else(default_memory_limit)
    {
        MemoryLimit::Bytes(b) => Some(b),
        MemoryLimit::None => None,
    }
}

/// `budget` with this run's memory limit (for builds that make their own budget: the viewer's).
pub fn with_memory_limit(budget: Budget) -> Budget {
    match memory_limit() {
        Some(bytes) => budget.max_memory(bytes),
        None => budget,
    }
}

/// The most the default memory limit allows, whatever is available (8 GiB).
const DEFAULT_MEMORY_CAP: u64 = 8 << 30;
/// The default memory limit where /proc/meminfo cannot be read (4 GiB).
const DEFAULT_MEMORY_FALLBACK: u64 = 4 << 30;

/// The default `--max-memory`: MemAvailable from /proc/meminfo, at most [`DEFAULT_MEMORY_CAP`];
/// [`DEFAULT_MEMORY_FALLBACK`] where it cannot be read.
pub fn default_memory_limit() -> MemoryLimit {
    let available = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
            let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(kb.saturating_mul(1024))
        });
    MemoryLimit::Bytes(available.map_or(DEFAULT_MEMORY_FALLBACK, |a| a.min(DEFAULT_MEMORY_CAP)))
}

/// Parses a `--max-memory`: `none`, or bytes with an optional K, M, G or T suffix (powers of
/// 1024, an optional trailing `B` or `iB`), at least 1M.
pub fn parse_memory_size(s: &str) -> Result<MemoryLimit, String> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("none") {
        return Ok(MemoryLimit::None);
    }
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (num, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    let bad =
        || format!("`{s}` is not a memory size (e.g. 512M, 4G, 1073741824 or none; at least 1M)");
    let v: f64 = num.trim().parse().map_err(|_| bad())?;
    let bytes = v * (1u64 << shift) as f64;
    if !(bytes.is_finite() && bytes >= (1 << 20) as f64 && bytes < 1.8e19) {
        return Err(bad());
    }
    Ok(MemoryLimit::Bytes(bytes as u64))
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
    Ok(NavSource::Cache(Box::new(s.tile_cache_within(
        &geom,
        &settings,
        &budget(),
    )?)))
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

pub use crate::output::{Kind, check_output, check_output_opt, is_stdout, level_inputs, set_force};

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
    Optimal,
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
            PathChoice::Optimal => set.with(PathKind::Optimal),
            PathChoice::All => navkit::render::ComparisonPaths::ALL,
        };
    }
    set
}
