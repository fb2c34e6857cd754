//! Budgets for builds: a [`CancelToken`] another thread can trip, a time limit, limits on the
//! grid's cells and on the estimated memory, and the check for stray vertices; plus
//! [`estimate`], what a build will cost, computed from the geometry's bounds and the settings
//! before Recast sees anything.
//!
//! A build checks its budget before every stage, before every tile of a tiled build or tile
//! cache, between batches of triangles while it rasterizes, and inside Recast at every level
//! of the watershed partition and every region of the contours (navkit's glue arms Recast's
//! timer hooks for those two stages), and stops with [`Error::Cancelled`] or
//! [`Error::TimedOut`] at the first check after the token trips or the time runs out. The
//! checks are cheap (an atomic load and a clock read). On a 300,000-triangle solo build, a
//! time limit that falls inside the partition returned 2 to 21 ms after it. The other stages
//! run to their end once started: on ordinary levels they take milliseconds per tile, and
//! shapes that make them slow (stray vertices stretching the grid) are refused before
//! building; a caller that must have a hard bound whatever the input runs the build in a
//! process it can end, as `navkit --timeout` does.
//!
//! ```
//! use std::time::Duration;
//! use navkit::build::{Budget, CancelToken};
//! use navkit::{InputGeometry, NavMeshBuilder};
//! # let geom = InputGeometry::from_mesh(navkit::TriMesh::new(
//! #     vec![0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 10.0, 0.0, 10.0], vec![0, 2, 1])?);
//! let cancel = CancelToken::new();
//! let budget = Budget::new()
//!     .cancel_token(cancel.clone())          // cancel.cancel() from any thread stops the build
//!     .time_limit(Duration::from_secs(30))
//!     .max_cells(100_000_000)
//!     .max_memory(2 << 30);
//! let estimate = NavMeshBuilder::new(&geom).estimate()?;
//! println!("{} cells, about {} MB", estimate.cells, estimate.memory_bytes >> 20);
//! let build = NavMeshBuilder::new(&geom).budget(budget).solo()?;
//! # Ok::<(), navkit::Error>(())
//! ```

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::settings::BuildSettings;
use crate::stage::Stage;
use crate::{Error, InputGeometry, Result};

/// A flag shared between a build and whoever may want to stop it: clone it, hand one clone to
/// the build ([`Budget::cancel_token`]), call [`cancel`](Self::cancel) on another.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token that has not been cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every build holding this token to stop at its next check.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether [`cancel`](Self::cancel) was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// Limits on a build. The default has none but the check for stray vertices (see
/// [`allow_stray_vertices`](Self::allow_stray_vertices)): in particular no memory limit, as a
/// library cannot know what its caller can spare (`navkit --max-memory` sets one, by default
/// the memory available at start, at most 8 GiB).
#[derive(Clone, Debug, Default)]
pub struct Budget {
    cancel: Option<CancelToken>,
    time_limit: Option<Duration>,
    max_cells: Option<u64>,
    max_memory: Option<u64>,
    allow_stray_vertices: bool,
}

impl Budget {
    /// No limits (the stray-vertex check on).
    pub fn new() -> Self {
        Self::default()
    }

    /// Stop with [`Error::Cancelled`] once `token` is cancelled.
    pub fn cancel_token(mut self, token: CancelToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// Stop with [`Error::TimedOut`] once the build has run this long.
    pub fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// Refuse, before building, a grid of more cells than this (width times depth of the whole
    /// build area, see [`BuildEstimate::cells`]).
    pub fn max_cells(mut self, cells: u64) -> Self {
        self.max_cells = Some(cells);
        self
    }

    /// Refuse, before building, a build whose estimated peak memory
    /// ([`BuildEstimate::memory_bytes`]) is above this many bytes.
    pub fn max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = Some(bytes);
        self
    }

    /// Build even if a few vertices lie far from the rest of the level and blow up its grid
    /// (see [`StrayVertices`]); by default such a build is refused with [`Error::Geometry`].
    pub fn allow_stray_vertices(mut self, allow: bool) -> Self {
        self.allow_stray_vertices = allow;
        self
    }

    /// Checks the limits that can be checked before building against `estimate`, as for a solo
    /// build: its cells, its memory ([`BuildEstimate::memory_bytes`]) and stray vertices.
    pub fn check_estimate(&self, estimate: &BuildEstimate) -> Result<()> {
        self.check_estimate_for(estimate, BuildKind::Solo)
    }

    /// The memory limit, if any ([`max_memory`](Self::max_memory)).
    pub fn memory_limit(&self) -> Option<u64> {
        self.max_memory
    }

    /// [`check_estimate`](Self::check_estimate) for a build of `kind`: its memory is that of
    /// the kind ([`BuildKind::memory_bytes`]) and the error says what to change for it.
    pub fn check_estimate_for(&self, estimate: &BuildEstimate, kind: BuildKind) -> Result<()> {
        if let Some(max) = self.max_cells
            && estimate.cells > max
        {
            return Err(Error::OverBudget {
                what: "grid cells",
                estimate: estimate.cells,
                limit: max,
                hint: kind.hint(estimate, estimate.cells as f64 / max as f64, "grid-cell"),
            });
        }
        let memory = kind.memory_bytes(estimate);
        if let Some(max) = self.max_memory
            && memory > max
        {
            return Err(Error::OverBudget {
                what: "estimated memory (bytes)",
                estimate: memory,
                limit: max,
                hint: kind.hint(estimate, memory as f64 / max.max(1) as f64, "memory"),
            });
        }
        if !self.allow_stray_vertices
            && let Some(stray) = &estimate.stray
            && stray.refused()
        {
            return Err(Error::Geometry(stray.to_string()));
        }
        Ok(())
    }

    /// Starts the clock: the guard a build checks between its steps.
    pub(crate) fn start(&self) -> Guard {
        Guard {
            cancel: self.cancel.clone(),
            deadline: self.time_limit.map(|l| (Instant::now() + l, l)),
        }
    }
}

/// Which build an estimate is checked for: what its memory is and what to change when it is
/// over the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildKind {
    /// A solo build: the whole grid at once.
    Solo,
    /// A tiled build on this many threads: a tile per thread, plus the navmesh it makes.
    Tiled(usize),
    /// A tile cache on this many threads: a tile per thread, plus the compressed layers.
    TileCache(usize),
    /// One tile's stages.
    Tile,
}

/// Estimated bytes of a tiled navmesh (Detour's tiles and the copy kept for rebuilds) per
/// walkable span; see [`BuildKind::memory_bytes`]. Measured: 1.5 to 1.9 (demo_level at cell
/// size 0.01, nav_test at 0.05, two threads).
const NAVMESH_BYTES_PER_WALKABLE_SPAN: u64 = 3;
/// Estimated bytes of a tile cache's compressed layers per walkable span (with the navmesh's,
/// 5 per walkable span against 1 to 1.6 measured on the same levels).
const LAYER_BYTES_PER_WALKABLE_SPAN: u64 = 2;

impl BuildKind {
    /// The estimated peak memory of this kind of build of `e`: [`BuildEstimate::memory_bytes`]
    /// for a solo build; for tiled builds and tile caches
    /// [`BuildEstimate::tile_memory_bytes`] per thread (at most the solo build's), the input,
    /// and their output (Detour's tiles and the compressed layers, counted per walkable span).
    pub fn memory_bytes(self, e: &BuildEstimate) -> u64 {
        let in_flight = |threads: usize| {
            e.tile_memory_bytes
                .saturating_mul(threads.max(1) as u64)
                .min(e.memory_bytes.saturating_sub(e.input_bytes))
                .saturating_add(e.input_bytes)
        };
        match self {
            BuildKind::Solo => e.memory_bytes,
            BuildKind::Tiled(threads) => in_flight(threads).saturating_add(
                e.walkable_spans
                    .saturating_mul(NAVMESH_BYTES_PER_WALKABLE_SPAN),
            ),
            BuildKind::TileCache(threads) => {
                in_flight(threads).saturating_add(e.walkable_spans.saturating_mul(
                    LAYER_BYTES_PER_WALKABLE_SPAN + NAVMESH_BYTES_PER_WALKABLE_SPAN,
                ))
            }
            BuildKind::Tile => e.tile_memory_bytes.saturating_add(e.input_bytes),
        }
    }

    /// What to change when the build is `over` times over its `what` limit.
    fn hint(self, e: &BuildEstimate, over: f64, what: &str) -> String {
        // Cells and most spans shrink with the square of the cell size.
        let cs = significant(f64::from(e.cell_size) * over.sqrt() * 1.05);
        let gb = |b: u64| b as f64 / f64::from(1u32 << 30);
        let size = format!(
            "{} x {} cells at cell_size {} and about {:.3e} spans, about {:.2} GB (input {:.2} GB)",
            e.width,
            e.depth,
            e.cell_size,
            e.spans as f64,
            gb(self.memory_bytes(e)),
            gb(e.input_bytes),
        );
        match self {
            BuildKind::Solo => format!(
                "{size}: raise cell_size to at least {cs}, set smaller bounds, build it tiled, \
                 or raise the {what} limit (--max-memory)"
            ),
            BuildKind::Tiled(threads) | BuildKind::TileCache(threads) => format!(
                "{size}, {threads} tile(s) in flight at about {:.3} GB each: use fewer threads \
                 or a smaller tile_size, raise cell_size to at least {cs}, or raise the {what} \
                 limit (--max-memory)",
                gb(e.tile_memory_bytes)
            ),
            BuildKind::Tile => {
                format!("one tile of {size}: use a smaller tile_size or raise the {what} limit")
            }
        }
    }
}

/// `x` rounded up to three significant digits.
fn significant(x: f64) -> f64 {
    if !(x.is_finite() && x > 0.0) {
        return x;
    }
    let scale = 10f64.powi(2 - x.log10().floor() as i32);
    (x * scale).ceil() / scale
}

/// A running build's view of its [`Budget`]: cheap to clone into worker threads.
#[derive(Clone, Debug, Default)]
pub(crate) struct Guard {
    cancel: Option<CancelToken>,
    deadline: Option<(Instant, Duration)>,
}

impl Guard {
    /// A guard that never stops anything.
    pub(crate) fn none() -> Self {
        Self::default()
    }

    /// What stops an interruptible Recast stage for this guard.
    pub(crate) fn interrupt(&self) -> crate::ffi::context::Interrupt<'_> {
        crate::ffi::context::Interrupt {
            cancel: self.cancel.as_ref().map(|c| &*c.0),
            deadline: self.deadline.map(|(d, _)| d),
        }
    }

    /// The error for a stage that was interrupted inside Recast: cancelled or timed out.
    pub(crate) fn stopped(&self, stage: Stage) -> Error {
        match self.check(stage) {
            Err(e) => e,
            // The glue only interrupts when the flag is set or the deadline has passed, and
            // neither goes back; report a cancellation if the clock disagrees.
            Ok(()) => Error::Cancelled { stage },
        }
    }

    /// `Err` if the build must stop before `stage`.
    pub(crate) fn check(&self, stage: Stage) -> Result<()> {
        if let Some(c) = &self.cancel
            && c.is_cancelled()
        {
            return Err(Error::Cancelled { stage });
        }
        if let Some((deadline, limit)) = self.deadline
            && Instant::now() >= deadline
        {
            return Err(Error::TimedOut { stage, limit });
        }
        Ok(())
    }
}

/// What a build of some geometry with some settings will cost, estimated from the geometry's
/// bounds and triangles without building anything ([`estimate`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct BuildEstimate {
    /// Grid width (x) in cells of the whole build area.
    pub width: u64,
    /// Grid depth (z) in cells.
    pub depth: u64,
    /// `width * depth`.
    pub cells: u64,
    /// Estimated heightfield spans: the cells the triangles cover, counted once per triangle
    /// (an upper bound for a single floor, about right for stacked floors).
    pub spans: u64,
    /// Estimated walkable spans: the cells under triangles within the slope limit, by their
    /// projected area (a lower bound where walkable floors do not overlap). A solo build whose
    /// estimate is far over [`crate::build::MAX_COMPACT_SPANS`] is refused before rasterizing.
    pub walkable_spans: u64,
    /// Estimated peak memory of a solo build in bytes (the heightfield's columns and spans, then
    /// the compact heightfield with its regions and distance field, and the input geometry).
    /// A tiled build needs far less at a time: [`tile_memory_bytes`](Self::tile_memory_bytes)
    /// per worker thread, plus its output.
    pub memory_bytes: u64,
    /// Estimated peak memory of one tile's build (its grid with the border, at the span
    /// density of the densest tile by triangle centroids, or the mean if that is more).
    pub tile_memory_bytes: u64,
    /// The memory of the input geometry itself, counted in both estimates.
    pub input_bytes: u64,
    /// The cell size the estimate is for (the settings' `cell_size`).
    pub cell_size: f32,
    /// A few vertices far from all the others that inflate the grid, if any.
    pub stray: Option<StrayVertices>,
    /// Shapes that make a solo build slow without being wrong (a solo build puts these first
    /// in its report's warnings): a grid that is a long strip ([`LONG_STRIP_CELLS`] or more
    /// long and at least [`LONG_STRIP_RATIO`] times longer than wide), whose one long region
    /// makes the contours and the poly mesh grow with the square of its length.
    pub warnings: Vec<String>,
}

/// See [`BuildEstimate::warnings`]: the length in cells from which a strip-shaped solo grid is
/// warned about.
pub const LONG_STRIP_CELLS: u64 = 4096;
/// See [`BuildEstimate::warnings`].
pub const LONG_STRIP_RATIO: u64 = 32;

/// A few vertices far from all the other vertices of a level, along x or z (a vertex typed
/// wrong, a leftover of an editing tool, a far-away marker): they stretch the build grid and
/// the triangles that use them become long wedges whose regions and contours cost far more
/// than the rest of the level. Found by [`estimate`] when bounds come from the mesh.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct StrayVertices {
    /// `'x'` or `'z'`.
    pub axis: char,
    /// 1-based OBJ vertex numbers of the stray vertices (at most the first 8).
    pub vertices: Vec<usize>,
    /// How many vertices are stray.
    pub count: usize,
    /// The first stray vertex's position.
    pub first: [f32; 3],
    /// The extent in metres of the other vertices along the axis, `(min, max)`.
    pub rest: (f32, f32),
    /// Grid cells with the stray vertices.
    pub cells_with: u64,
    /// Grid cells without them.
    pub cells_without: u64,
}

impl StrayVertices {
    /// The grid grows at least this many times for the stray vertices to be refused...
    pub const REFUSE_GROWTH: u64 = 32;
    /// ... and has at least this many cells with them (smaller grids build fast anyway).
    pub const REFUSE_CELLS: u64 = 1 << 16;

    /// Whether a build with the default [`Budget`] refuses these stray vertices.
    pub fn refused(&self) -> bool {
        self.cells_with >= Self::REFUSE_CELLS
            && self.cells_with >= self.cells_without.saturating_mul(Self::REFUSE_GROWTH)
    }
}

impl std::fmt::Display for StrayVertices {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list: Vec<String> = self.vertices.iter().map(|v| v.to_string()).collect();
        let more = if self.count > self.vertices.len() {
            format!(" and {} more", self.count - self.vertices.len())
        } else {
            String::new()
        };
        let (count, verb) = match self.count {
            1 => ("1 vertex".to_string(), "lies"),
            n => (format!("{n} vertices"), "lie"),
        };
        write!(
            f,
            "{count} {verb} far from the rest of the level along {}: OBJ vertex {}{more} \
             (the first at ({}, {}, {})), while every other vertex lies within {} .. {}; they \
             stretch the build grid from {} to {} cells and make long wedges that are slow to \
             build. Remove or fix them, set the build bounds in the settings, or allow them \
             (Budget::allow_stray_vertices, navkit build --allow-stray-vertices)",
            self.axis,
            list.join(", "),
            self.first[0],
            self.first[1],
            self.first[2],
            self.rest.0,
            self.rest.1,
            self.cells_without,
            self.cells_with,
        )
    }
}

/// Bytes per grid cell: the heightfield's column pointer and the compact heightfield's cell.
const BYTES_PER_CELL: u64 = 8 + 4;
/// Bytes per span: the heightfield's span, the compact span, its area, distance, region and
/// the partition's temporary buffers.
const BYTES_PER_SPAN: u64 = 16 + 12 + 1 + 2 + 2 + 8;

/// What building `geom` with `settings` will cost: grid size, spans and memory, and stray
/// vertices that inflate the grid. Runs in time linear in the mesh's size; refuses what
/// [`BuildSettings`] refuses.
pub fn estimate(geom: &InputGeometry, settings: &BuildSettings) -> Result<BuildEstimate> {
    geom.mesh.validate()?;
    geom.mesh.check_build_reach()?;
    estimate_validated(geom, settings)
}

/// Spans counted from the triangles before rasterizing (see [`count_spans`]).
struct SpanCounts {
    /// All spans: per triangle its projected cells, at least one.
    spans: u64,
    /// Cells under walkable triangles (those within the slope limit), by projected area only.
    walkable: u64,
    /// The most spans whose triangles have their centroid in one tile of `tile_side` cells.
    densest_tile: u64,
}

/// Counts the spans the triangles will make on the grid of `cfg`: per triangle its projected
/// xz area in cells, a cell's width along its edges, and one more (so at least one span per
/// triangle); walkable spans by area alone (a lower bound where walkable floors do not
/// overlap); and the densest tile's spans for tiles of `tile_side` cells.
fn count_spans(
    geom: &InputGeometry,
    cfg: &crate::settings::VoxelConfig,
    tile_side: u64,
) -> SpanCounts {
    let mesh = &geom.mesh;
    let cs = cfg.cs as f64;
    let cells = (cfg.width.max(0) as u64).saturating_mul(cfg.height.max(0) as u64);
    let tile_cells = tile_side.saturating_mul(tile_side).max(1);
    let tile_w = cs * tile_side.max(1) as f64;
    let min_normal_y = (cfg.walkable_slope_angle as f64).to_radians().cos();
    let p = |i: i32| {
        let i = i as usize * 3;
        [
            mesh.verts[i] as f64,
            mesh.verts[i + 1] as f64,
            mesh.verts[i + 2] as f64,
        ]
    };
    let mut per_tile = TileSums::new(cfg, tile_side);
    let (mut spans, mut walkable) = (0u64, 0u64);
    for t in mesh.tris.chunks_exact(3) {
        let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
        let (e1, e2) = (
            [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
            [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
        );
        let n = [
            e1[1] * e2[2] - e1[2] * e2[1],
            e1[2] * e2[0] - e1[0] * e2[2],
            e1[0] * e2[1] - e1[1] * e2[0],
        ];
        let area = n[1].abs() / 2.0;
        // Cells the triangle covers: its area, a cell's width along its edges, one more.
        let tri = covered_cells(a, b, c, area / (cs * cs), cs, cells as f64);
        spans = spans.saturating_add(tri);
        let norm = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        if norm > 0.0 && n[1] / norm > min_normal_y {
            walkable = walkable.saturating_add((area / (cs * cs)).min(cells as f64) as u64);
        }
        let key = (
            (((a[0] + b[0] + c[0]) / 3.0 - cfg.bmin[0] as f64) / tile_w).floor() as i64,
            (((a[2] + b[2] + c[2]) / 3.0 - cfg.bmin[2] as f64) / tile_w).floor() as i64,
        );
        per_tile.add(key, tri.min(tile_cells));
    }
    let densest_tile = per_tile.max();
    SpanCounts {
        spans: spans.min(cells.saturating_mul(64)),
        walkable,
        densest_tile,
    }
}

/// `(area_cells + perimeter / cs + 1).min(cells)` rounded down, the perimeter being that of the
/// triangle `a b c` seen from above, its sides measured as `f64::hypot` does. The sides are
/// first taken as plain square roots (within a few units in the last place of `hypot`'s); only
/// a count within a hair of a whole number, where they could round the other way, is made again
/// with `hypot`, so the count is `hypot`'s, faster.
fn covered_cells(
    a: [f64; 3],
    b: [f64; 3],
    c: [f64; 3],
    area_cells: f64,
    cs: f64,
    cells: f64,
) -> u64 {
    let count = |len: &dyn Fn([f64; 3], [f64; 3]) -> f64| {
        let perimeter = len(a, b) + len(b, c) + len(c, a);
        (area_cells + perimeter / cs + 1.0).min(cells)
    };
    let fast = count(&|p, q| {
        let (dx, dz) = (p[0] - q[0], p[2] - q[2]);
        (dx * dx + dz * dz).sqrt()
    });
    let frac = fast - fast.floor();
    if fast.is_finite() && frac.min(1.0 - frac) > 1e-9 * (fast.abs() + 1.0) {
        return fast as u64;
    }
    count(&|p, q| (p[0] - q[0]).hypot(p[2] - q[2])) as u64
}

/// Spans summed per tile of `tile_side` cells, keyed by tile column and row: in a table over
/// the grid's tiles (and one more each way), and a map for keys outside it (a triangle whose
/// centroid lies outside the build bounds).
struct TileSums {
    cols: i64,
    rows: i64,
    table: Vec<u64>,
    outside: std::collections::HashMap<(i64, i64), u64>,
}

impl TileSums {
    /// Most tiles kept in the table (8 MiB); a grid of more keeps them all in the map.
    const MAX_TABLE: u64 = 1 << 20;

    fn new(cfg: &crate::settings::VoxelConfig, tile_side: u64) -> Self {
        let side = tile_side.max(1);
        let tiles = |cells: i32| (cells.max(0) as u64).div_ceil(side) + 1;
        let (cols, rows) = (tiles(cfg.width), tiles(cfg.height));
        let fits = cols.saturating_mul(rows) <= Self::MAX_TABLE;
        let (cols, rows) = if fits { (cols, rows) } else { (0, 0) };
        TileSums {
            cols: cols as i64,
            rows: rows as i64,
            table: vec![0; (cols * rows) as usize],
            outside: Default::default(),
        }
    }

    fn add(&mut self, (x, z): (i64, i64), n: u64) {
        let sum = if (0..self.cols).contains(&x) && (0..self.rows).contains(&z) {
            &mut self.table[(z * self.cols + x) as usize]
        } else {
            self.outside.entry((x, z)).or_default()
        };
        *sum = sum.saturating_add(n);
    }

    fn max(&self) -> u64 {
        let table = self.table.iter().copied().max().unwrap_or(0);
        table.max(self.outside.values().copied().max().unwrap_or(0))
    }
}

/// Peak memory of building a grid of `cells` cells holding `spans` spans: the heightfield's
/// columns and spans, then the compact heightfield with its regions and distance field (all
/// counted as alive at once, which over-estimates a little).
pub(crate) fn grid_memory(cells: u64, spans: u64) -> u64 {
    cells
        .saturating_mul(BYTES_PER_CELL)
        .saturating_add(spans.saturating_mul(BYTES_PER_SPAN))
}

/// The memory the input geometry takes while it is built (vertices, triangles, their area
/// flags and the chunky index's copy of the triangles).
fn input_memory(geom: &InputGeometry) -> u64 {
    let (v, t) = (geom.mesh.verts.len() as u64, geom.mesh.tris.len() as u64);
    v * 4 + t * 4 + t / 3 + t * 4
}

/// [`estimate`] of a mesh the caller has validated already (the builds do, first).
pub(crate) fn estimate_validated(
    geom: &InputGeometry,
    settings: &BuildSettings,
) -> Result<BuildEstimate> {
    let mesh = &geom.mesh;
    let (bmin, bmax) = mesh.bounds().into();
    let cfg = settings.to_config(bmin, bmax)?;
    let (width, depth) = (cfg.width.max(0) as u64, cfg.height.max(0) as u64);
    let cells = width * depth;
    let cs = settings.cell_size.max(f32::MIN_POSITIVE);
    let border = (settings.agent_radius / cs).ceil().max(0.0) as u64 + 3;
    let tile_side = u64::from(settings.tile_size) + 2 * border;
    let counts = count_spans(geom, &cfg, tile_side);
    let spans = counts.spans;
    let input = input_memory(geom);
    let memory_bytes = grid_memory(cells, spans).saturating_add(input);
    // One tile with its border: its cells, and the densest tile's spans or the mean, whichever
    // is more.
    let tile_cells = tile_side.saturating_mul(tile_side).min(cells.max(1));
    let mean = (spans as f64 / cells.max(1) as f64 * tile_cells as f64) as u64;
    let tile_memory_bytes = grid_memory(tile_cells, counts.densest_tile.max(mean).min(spans));
    let stray = if settings.bounds.is_some() {
        None
    } else {
        find_stray(geom, cfg.cs as f64, width, depth)
    };
    let (long, short) = (width.max(depth), width.min(depth).max(1));
    let mut warnings = Vec::new();
    if long >= LONG_STRIP_CELLS && long >= short.saturating_mul(LONG_STRIP_RATIO) {
        warnings.push(format!(
            "the build area is a long strip of {width} x {depth} cells: a solo build's contours \
             and polygons grow with the square of its length (a 25 x 24,475-cell strip took 9 s); \
             build it tiled"
        ));
    }
    Ok(BuildEstimate {
        width,
        depth,
        cells,
        spans,
        walkable_spans: counts.walkable,
        memory_bytes,
        tile_memory_bytes,
        input_bytes: input,
        cell_size: cfg.cs,
        stray,
        warnings,
    })
}

/// Most vertices that count as "a few" stray ones: at most this many, and at most an eighth of
/// all (at least one).
const MAX_STRAY: usize = 16;

/// The vertex numbers `0..n` as a stable sort by coordinate `k` orders them, where only the
/// first `m` and the last `m` places are right (the middle is any order): the ends found by
/// selection and sorted, ties in vertex order as a stable sort leaves them.
fn ends_in_order(verts: &[f32], k: usize, n: usize, m: usize) -> Vec<usize> {
    let by = |a: &usize, b: &usize| verts[a * 3 + k].total_cmp(&verts[b * 3 + k]).then(a.cmp(b));
    let mut order: Vec<usize> = (0..n).collect();
    if m == 0 || n < 4 * m {
        order.sort_by(by);
        return order;
    }
    order.select_nth_unstable_by(m - 1, by);
    order[m..].select_nth_unstable_by(n - 2 * m, by);
    order[..m].sort_by(by);
    order[n - m..].sort_by(by);
    order
}

/// Looks along x and along z for a small group of vertices at either end or both, separated
/// from all others by a gap wider than the rest of the level; returns the group whose removal
/// shrinks the grid most.
fn find_stray(geom: &InputGeometry, cs: f64, width: u64, depth: u64) -> Option<StrayVertices> {
    let verts = &geom.mesh.verts;
    let n = verts.len() / 3;
    let max_stray = MAX_STRAY.min(n / 8).max(1).min(n.saturating_sub(2));
    if max_stray == 0 {
        return None;
    }
    let mut best: Option<StrayVertices> = None;
    for (axis, k) in [('x', 0usize), ('z', 2usize)] {
        let order = ends_in_order(verts, k, n, max_stray + 1);
        let c = |i: usize| verts[order[i] * 3 + k] as f64;
        let (along_with, other) = if k == 0 {
            (width, depth)
        } else {
            (depth, width)
        };
        // `lo` vertices at the low end and `hi` at the high end are stray; the rest span
        // `c(lo) ..= c(n - 1 - hi)`.
        for lo in 0..=max_stray {
            for hi in 0..=(max_stray - lo) {
                if lo + hi == 0 {
                    continue;
                }
                let (rest_lo, rest_hi) = (c(lo), c(n - 1 - hi));
                let wide = (rest_hi - rest_lo).max(64.0 * cs);
                if (lo > 0 && c(lo) - c(lo - 1) <= wide)
                    || (hi > 0 && c(n - hi) - c(n - 1 - hi) <= wide)
                {
                    continue;
                }
                let along_without = ((rest_hi - rest_lo) / cs + 0.5).max(1.0) as u64;
                let cells_with = along_with.saturating_mul(other);
                let cells_without = along_without.saturating_mul(other);
                if cells_with <= cells_without.saturating_mul(4) {
                    continue;
                }
                let mut numbers: Vec<usize> = order[..lo]
                    .iter()
                    .chain(&order[n - hi..])
                    .map(|&i| i + 1)
                    .collect();
                numbers.sort_unstable();
                let first = numbers[0] - 1;
                let s = StrayVertices {
                    axis,
                    count: numbers.len(),
                    vertices: numbers.into_iter().take(8).collect(),
                    first: [verts[first * 3], verts[first * 3 + 1], verts[first * 3 + 2]],
                    rest: (rest_lo as f32, rest_hi as f32),
                    cells_with,
                    cells_without,
                };
                // Fewest cells left wins; for equal cells, the smaller group (found first).
                if best
                    .as_ref()
                    .is_none_or(|b| s.cells_without < b.cells_without)
                {
                    best = Some(s);
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ends_in_order` puts the same vertices in the first and last `m` places as the stable
    /// sort `find_stray` used before it, ties included (coordinates drawn from a few values so
    /// that most of them tie).
    #[test]
    fn ends_in_order_matches_a_stable_sort() {
        let mut seed = 12345u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32
        };
        for n in [3usize, 7, 40, 100, 1000] {
            let verts: Vec<f32> = (0..n * 3).map(|_| (next() % 9) as f32 - 4.0).collect();
            for k in [0, 2] {
                let mut sorted: Vec<usize> = (0..n).collect();
                sorted.sort_by(|&a, &b| verts[a * 3 + k].total_cmp(&verts[b * 3 + k]));
                for m in [1usize, 3, 17] {
                    let got = ends_in_order(&verts, k, n, m);
                    let m = m.min(n);
                    assert_eq!(got[..m], sorted[..m], "n {n}, axis {k}, first {m}");
                    assert_eq!(got[n - m..], sorted[n - m..], "n {n}, axis {k}, last {m}");
                }
            }
        }
    }
}
