//! Exact grid pathfinding: 8-connected grids, A*, Jump Point Search and the Moving AI benchmarks.
//!
//! The pieces:
//!
//! - [`Grid`]: a rectangular grid of cells ([`Terrain`]: blocked, ground or water) with an
//!   optional per-cell cost multiplier. It implements [`SearchGraph`], the node-id +
//!   neighbour-function abstraction the searches run on (a multi-level grid derived from a
//!   navmesh can implement it too).
//! - [`astar`]: A* with an octile heuristic, ties in `f` broken depth first, run on a reusable
//!   [`SearchContext`] that allocates nothing per query once warmed up.
//! - [`jps`]: Jump Point Search for uniform-cost grids with no corner cutting; same optimal
//!   lengths as A*, far fewer expansions.
//! - [`jps_plus`]: JPS+, JPS with its jumps read from a [`jps_plus::JumpTable`] built
//!   once per grid; the same results as [`jps`].
//! - [`path`]: path simplification (waypoints on the corner cells).
//! - [`movingai`]: `.map` / `.scen` parsing; [`runner`]: run a scenario file and report.
//!
//! Moves: a straight move costs 1 and a diagonal move sqrt(2) ([`CostModel::Octile`]), or
//! 10 and 14 ([`CostModel::Integer`]); a move costs its base cost times the cost multiplier of
//! the cell it enters (1 unless set). By default a diagonal move needs both cells beside it to
//! be passable ([`CornerCutting::Never`], the Moving AI rule). A move is only allowed between
//! cells of the same terrain class: water is reachable only from water.
//!
//! ```
//! use navkit::grid::{astar, Grid, SearchContext, SearchOptions};
//! use glam::UVec2;
//!
//! let grid = Grid::from_ascii(
//!     "....\n\
//!      .@@.\n\
//!      ....",
//! )?;
//! let mut ctx = SearchContext::new();
//! let result = astar::find_path(&mut ctx, &grid, UVec2::new(0, 1), UVec2::new(3, 1), &SearchOptions::default())?;
//! assert!(result.is_complete());
//! // Around the wall: no corner cutting, so no diagonal past the `@` cells: 5 straight moves.
//! assert_eq!(result.cost, 5.0);
//! let cells = ctx.path_cells(&grid);
//! assert_eq!(cells.first(), Some(&UVec2::new(0, 1)));
//! assert_eq!(cells.last(), Some(&UVec2::new(3, 1)));
//! # Ok::<(), navkit::Error>(())
//! ```

use crate::status::PathStatus;
use crate::{Error, Result};
use glam::UVec2;

pub mod astar;
mod astar_grid;
mod bits;
mod compact;
pub mod jps;
pub mod jps_plus;
pub mod mesh;
pub mod movingai;
pub mod path;
pub mod runner;

pub use astar::{SearchContext, VisitedNode};
pub use runner::{Algorithm, ScenarioReport, run_scenarios};

/// A node of a [`SearchGraph`]: an opaque index below [`SearchGraph::node_count`].
pub type NodeId = u32;

/// Grows `v` to `len` elements of `value`, or fails with [`Error::OutOfMemory`] naming `what`
/// and the bytes asked for (and `v` unchanged) where the allocator refuses: a grid as large as
/// [`MAX_CELLS`] needs gigabytes for its searches, which must not abort the process.
pub(crate) fn try_grow<T: Clone>(v: &mut Vec<T>, len: usize, value: T, what: &str) -> Result<()> {
    let extra = len.saturating_sub(v.len());
    v.try_reserve_exact(extra).map_err(|_| {
        let bytes = (len as u128) * std::mem::size_of::<T>() as u128;
        Error::OutOfMemory(format!("{what}: {bytes} bytes could not be allocated"))
    })?;
    v.resize(len, value);
    Ok(())
}

/// Bytes a search on a `width` x `height` grid needs at most, the grid included: its padded
/// cells (1 byte each), per node the search state (14 bytes: stamp, cost so far, parent) and 6
/// bytes to spare for the open list's stale entries, the open list itself (at most 16 bytes per
/// node, counted for an eighth of them: it holds the search's frontier), and Jump Point Search's bit rows (4 bits per cell, rows and
/// columns of two terrain classes). For a refusal by size before loading or searching, e.g.
/// against `navkit --max-memory`.
pub fn search_memory_bytes(width: u32, height: u32) -> u64 {
    let cells = (u64::from(width) + 2) * (u64::from(height) + 2);
    cells * (1 + 16 + 4)
        + cells / 8 * 16
        + cells / 2
        + 4 * (u64::from(width) + u64::from(height)) * 8
}

/// The largest number of cells a [`Grid`] may have (2^28).
pub const MAX_CELLS: u64 = 1 << 28;

/// What a cell is made of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Terrain {
    /// Impassable (`@`, `O`, `T` in Moving AI maps).
    Blocked,
    /// Passable ground (`.`, `G`, `S`).
    #[default]
    Ground,
    /// Water (`W`): passable, but only from water (no move between water and ground).
    Water,
}

impl Terrain {
    /// The terrain class byte stored in the grid: 0 blocked, otherwise a class id; a move is
    /// allowed only between cells of the same non-zero class.
    #[inline]
    fn class(self) -> u8 {
        match self {
            Terrain::Blocked => 0,
            Terrain::Ground => 1,
            Terrain::Water => 2,
        }
    }

    fn from_class(class: u8) -> Terrain {
        match class {
            1 => Terrain::Ground,
            2 => Terrain::Water,
            _ => Terrain::Blocked,
        }
    }

    /// The terrain for a Moving AI map character, if it is one.
    pub fn from_movingai(c: u8) -> Option<Terrain> {
        match c {
            b'.' | b'G' | b'S' => Some(Terrain::Ground),
            b'@' | b'O' | b'T' => Some(Terrain::Blocked),
            b'W' => Some(Terrain::Water),
            _ => None,
        }
    }

    /// True unless [`Terrain::Blocked`].
    pub fn is_passable(self) -> bool {
        self != Terrain::Blocked
    }
}

/// Base move costs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum CostModel {
    /// Straight 1, diagonal sqrt(2) (the Moving AI benchmark costs).
    #[default]
    Octile,
    /// The classic integer model: straight 10, diagonal 14.
    Integer,
}

impl CostModel {
    /// Cost of a straight move.
    #[inline]
    pub fn straight(self) -> f64 {
        match self {
            CostModel::Octile => 1.0,
            CostModel::Integer => 10.0,
        }
    }

    /// Cost of a diagonal move.
    #[inline]
    pub fn diagonal(self) -> f64 {
        match self {
            CostModel::Octile => std::f64::consts::SQRT_2,
            CostModel::Integer => 14.0,
        }
    }

    /// The octile distance between two cells `dx` and `dy` apart, in this model's units: the
    /// cost of the shortest obstacle-free path.
    #[inline]
    pub fn octile(self, dx: u32, dy: u32) -> f64 {
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        lo as f64 * self.diagonal() + (hi - lo) as f64 * self.straight()
    }

    /// [`CostModel::straight`] in fixed-point [`Cost`] units.
    #[inline]
    pub fn straight_fixed(self) -> Cost {
        // Constants, not `to_fixed` (whose `round` is a libm call on baseline x86-64).
        match self {
            CostModel::Octile => 1 << 24,
            CostModel::Integer => 10 << 24,
        }
    }

    /// [`CostModel::diagonal`] in fixed-point [`Cost`] units.
    #[inline]
    pub fn diagonal_fixed(self) -> Cost {
        match self {
            // round(sqrt(2) * 2^24) = round(23726566.4)
            CostModel::Octile => 23_726_566,
            CostModel::Integer => 14 << 24,
        }
    }

    /// [`CostModel::octile`] in fixed-point units, exactly consistent with moves costing
    /// [`CostModel::straight_fixed`] and [`CostModel::diagonal_fixed`].
    #[inline]
    pub fn octile_fixed(self, dx: u32, dy: u32) -> Cost {
        let (lo, hi) = if dx < dy { (dx, dy) } else { (dy, dx) };
        lo as Cost * self.diagonal_fixed() + (hi - lo) as Cost * self.straight_fixed()
    }
}

/// A path cost in fixed point: real cost times [`COST_SCALE`], rounded.
///
/// The searches add and compare costs as integers, so two paths with the same moves have the
/// same cost whatever order they were added in, and ties in `f` are real ties (with floats,
/// `1 + sqrt2 + 1` and `sqrt2 + 1 + 1` differ in the last bit, which breaks the tie-breaking on
/// `h` and makes A* expand more nodes). Rounding moves a diagonal step's cost by 2.4e-8.
pub type Cost = u64;

/// Fixed-point units per unit of cost (2^24).
pub const COST_SCALE: f64 = (1u64 << 24) as f64;

/// The largest cost multiplier a cell or area may have, so no path cost can overflow.
pub const MAX_COST_MULTIPLIER: f32 = 1e6;

/// A real cost in fixed-point units, rounded to nearest (non-finite or negative costs become 0).
#[inline]
pub fn to_fixed(cost: f64) -> Cost {
    // `+ 0.5` and a truncating cast rather than `round`, which is a libm call on baseline
    // x86-64; the cast saturates, and makes NaN 0.
    (cost * COST_SCALE + 0.5) as Cost
}

/// A fixed-point cost as a real one.
#[inline]
pub fn from_fixed(cost: Cost) -> f64 {
    cost as f64 / COST_SCALE
}

/// When a diagonal move is allowed (the cells beside a diagonal move are the two cells it
/// passes between).
///
/// Moving AI's benchmarks forbid corner cutting: a diagonal move needs both cells beside it to
/// be passable ([`CornerCutting::Never`], the default). The optimal lengths in `.scen` files
/// ([`movingai::Problem::optimal_length`]) hold only under that rule: with
/// [`CornerCutting::IfOneSideFree`] (a diagonal may pass one blocked cell, as in many games and
/// the original Jump Point Search paper) or [`CornerCutting::Always`] paths can be shorter, so
/// compare them with a search under the same rule, not with the file. A* ([`astar`]) supports
/// every rule; JPS ([`jps`], [`jps_plus`]) only `Never`, and refuses the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "kebab-case"))]
pub enum CornerCutting {
    /// Both cells beside the move must be passable (Moving AI rule; the only rule JPS supports).
    #[default]
    Never,
    /// At least one cell beside the move must be passable (no squeezing between two blocked
    /// cells that touch at a corner).
    IfOneSideFree,
    /// Diagonal moves ignore the cells beside them.
    Always,
}

/// Options for a search.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SearchOptions {
    /// Base move costs.
    pub cost_model: CostModel,
    /// When diagonal moves may cut corners.
    pub corner_cutting: CornerCutting,
}

impl SearchOptions {
    /// The classic integer 10/14 model, no corner cutting.
    pub fn integer() -> Self {
        SearchOptions {
            cost_model: CostModel::Integer,
            ..Self::default()
        }
    }

    /// These options with the given corner-cutting rule.
    pub fn with_corner_cutting(mut self, corner_cutting: CornerCutting) -> Self {
        self.corner_cutting = corner_cutting;
        self
    }
}

/// The outcome of one search; the path itself is kept in the [`SearchContext`]
/// ([`SearchContext::path`], [`SearchContext::path_cells`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SearchResult {
    /// [`PathStatus::Complete`] if the path reaches the goal (it is then optimal); else
    /// [`PathStatus::Partial`]: the goal cannot be reached, and the path leads to the node
    /// nearest the goal (by the heuristic) that the search reached, as Detour's corridors do.
    pub status: PathStatus,
    /// The path's cost (in the units of the [`CostModel`]), to the goal or, for a partial path,
    /// to its end.
    pub cost: f64,
    /// Nodes expanded (taken off the open list), the goal included.
    pub expanded: u32,
}

impl SearchResult {
    /// True if the path reaches the goal.
    pub fn is_complete(&self) -> bool {
        self.status.is_complete()
    }
}

/// A graph the searches run on: nodes are ids `0..node_count()`, each with a position on a
/// grid for the heuristic, and a neighbour function.
///
/// [`Grid`] implements it; a mesh-derived grid (several spans per column, 8-connected
/// between levels) can implement it as well: its nodes map to `(x, y)` columns through
/// [`SearchGraph::position`], and the octile heuristic on those columns stays admissible.
pub trait SearchGraph {
    /// One past the largest node id.
    fn node_count(&self) -> usize;

    /// True if the node can be stood on (a start or goal that is not is rejected).
    fn is_passable(&self, node: NodeId) -> bool;

    /// The grid column of a node, for the heuristic.
    fn position(&self, node: NodeId) -> UVec2;

    /// The smallest cost multiplier of any move (1 for an unweighted graph); the heuristic is
    /// scaled by it so that it stays admissible.
    fn min_cost_multiplier(&self) -> f64 {
        1.0
    }

    /// Calls `f(neighbour, move_cost)` for every move out of `node` allowed by `options`, with
    /// the cost in fixed-point units ([`to_fixed`] of the real cost).
    fn for_each_neighbour<F: FnMut(NodeId, Cost)>(
        &self,
        node: NodeId,
        options: &SearchOptions,
        f: F,
    );

    /// An admissible and consistent estimate of the cost from `from` to `to`, in fixed-point
    /// units: the octile distance between their columns, scaled down by
    /// [`SearchGraph::min_cost_multiplier`] (with one unit per move to spare for the rounding
    /// of weighted moves).
    #[inline]
    fn heuristic(&self, from: NodeId, to: NodeId, options: &SearchOptions) -> Cost {
        let a = self.position(from);
        let b = self.position(to);
        let (dx, dy) = (a.x.abs_diff(b.x), a.y.abs_diff(b.y));
        let exact = options.cost_model.octile_fixed(dx, dy);
        let m = self.min_cost_multiplier();
        if m == 1.0 {
            exact
        } else {
            ((exact as f64 * m) as Cost).saturating_sub(dx.max(dy) as Cost)
        }
    }
}

/// JPS's bit rows for ground and water, cached in a [`Grid`]; two grids compare equal whatever
/// their caches hold.
#[derive(Clone, Debug, Default)]
struct JumpBitsCache(std::sync::OnceLock<[bits::ClassBits; 2]>);

impl PartialEq for JumpBitsCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// A rectangular 8-connected grid. (0, 0) is the top-left cell; x is the column, y the row.
///
/// Cells are stored with a one-cell blocked border, so a node id is the index of the cell in
/// that padded array (see [`Grid::node`] and [`Grid::cell`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    width: u32,
    height: u32,
    stride: usize,
    /// `u64::MAX / stride + 1`: divides a node id by `stride` with one multiplication
    /// (Lemire's method, exact for every u32), for the heuristic's hot path.
    stride_magic: u64,
    class: Vec<u8>,
    /// JPS's bit rows per terrain class, built on first use and dropped on any terrain change.
    jump_bits: JumpBitsCache,
    weights: Option<Vec<f32>>,
    min_weight: f64,
}

impl Grid {
    /// An all-ground grid. Fails if a dimension is zero or the grid has more than
    /// [`MAX_CELLS`] cells.
    pub fn new(width: u32, height: u32) -> Result<Grid> {
        Self::filled(width, height, Terrain::Ground)
    }

    /// A grid with every cell of one terrain.
    pub fn filled(width: u32, height: u32, terrain: Terrain) -> Result<Grid> {
        if width == 0 || height == 0 {
            return Err(Error::InvalidArgument(format!(
                "grid size {width}x{height}: both dimensions must be at least 1"
            )));
        }
        if width as u64 * height as u64 > MAX_CELLS {
            return Err(Error::InvalidArgument(format!(
                "grid size {width}x{height}: more than {MAX_CELLS} cells"
            )));
        }
        let stride = width as usize + 2;
        let mut class = Vec::new();
        let what = format!("the cells of a {width}x{height} grid");
        try_grow(&mut class, stride * (height as usize + 2), 0u8, &what)?;
        for y in 0..height as usize {
            let row = (y + 1) * stride + 1;
            class[row..row + width as usize].fill(terrain.class());
        }
        Ok(Grid {
            width,
            height,
            stride,
            stride_magic: u64::MAX / stride as u64 + 1,
            class,
            weights: None,
            min_weight: 1.0,
            jump_bits: JumpBitsCache::default(),
        })
    }

    /// A grid from rows of Moving AI map characters separated by newlines (leading and
    /// trailing whitespace of each row is ignored, blank lines are skipped). Handy for tests.
    pub fn from_ascii(text: &str) -> Result<Grid> {
        let rows: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let height = rows.len() as u32;
        let width = rows.first().map_or(0, |r| r.len()) as u32;
        let mut grid = Grid::new(width, height)?;
        for (y, row) in rows.iter().enumerate() {
            if row.len() != width as usize {
                return Err(Error::InvalidArgument(format!(
                    "row {y} has {} cells, expected {width}",
                    row.len()
                )));
            }
            for (x, c) in row.bytes().enumerate() {
                let t = Terrain::from_movingai(c).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "row {y} column {x}: `{}` is not a map character",
                        c as char
                    ))
                })?;
                grid.set_terrain(UVec2::new(x as u32, y as u32), t);
            }
        }
        Ok(grid)
    }

    /// Width in cells.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in cells.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// True if the cell is inside the grid.
    #[inline]
    pub fn contains(&self, cell: UVec2) -> bool {
        cell.x < self.width && cell.y < self.height
    }

    /// The node id of a cell, `None` if it is outside the grid.
    #[inline]
    pub fn node(&self, cell: UVec2) -> Option<NodeId> {
        self.contains(cell)
            .then(|| ((cell.y as usize + 1) * self.stride + cell.x as usize + 1) as NodeId)
    }

    /// The cell of a node id (node ids of the blocked border map to wrapped coordinates).
    #[inline]
    pub fn cell(&self, node: NodeId) -> UVec2 {
        let row = ((self.stride_magic as u128 * node as u128) >> 64) as u32;
        let col = node - row * self.stride as u32;
        UVec2::new(col.wrapping_sub(1), row.wrapping_sub(1))
    }

    /// The terrain of a cell; [`Terrain::Blocked`] outside the grid.
    pub fn terrain(&self, cell: UVec2) -> Terrain {
        self.node(cell).map_or(Terrain::Blocked, |n| {
            Terrain::from_class(self.class[n as usize])
        })
    }

    /// True if the cell is inside the grid and not blocked.
    pub fn is_cell_passable(&self, cell: UVec2) -> bool {
        self.terrain(cell).is_passable()
    }

    /// Sets the terrain of a cell (ignored outside the grid).
    pub fn set_terrain(&mut self, cell: UVec2, terrain: Terrain) {
        if let Some(n) = self.node(cell) {
            if self.class[n as usize] != terrain.class() {
                self.class[n as usize] = terrain.class();
                self.jump_bits = JumpBitsCache::default();
            }
        }
    }

    /// The bit rows of terrain class `class` (1 ground, 2 water), built on first use.
    /// Fails with [`Error::OutOfMemory`] if they cannot be allocated.
    pub(crate) fn jump_bits(&self, class: u8) -> Result<&bits::ClassBits> {
        if self.jump_bits.0.get().is_none() {
            let ground = bits::ClassBits::build(&self.class, self.stride, 1)?;
            let water = bits::ClassBits::build(&self.class, self.stride, 2)?;
            // Another thread may have set them meanwhile: the same bits.
            let _ = self.jump_bits.0.set([ground, water]);
        }
        let all = self.jump_bits.0.get().expect("set above");
        Ok(&all[(class as usize).clamp(1, 2) - 1])
    }

    /// Number of passable cells.
    pub fn passable_count(&self) -> usize {
        self.class.iter().filter(|&&c| c != 0).count()
    }

    /// True if some cell has a cost multiplier other than 1.
    pub fn is_weighted(&self) -> bool {
        self.weights.is_some()
    }

    /// The cost multiplier of a cell (1 unless set; 1 outside the grid).
    pub fn weight(&self, cell: UVec2) -> f32 {
        match (&self.weights, self.node(cell)) {
            (Some(w), Some(n)) => w[n as usize],
            _ => 1.0,
        }
    }

    /// Sets the cost multiplier of a cell: a move into the cell costs its base cost times
    /// `weight`. The weight must be finite, positive and at most [`MAX_COST_MULTIPLIER`]; the
    /// heuristic is scaled by the smallest weight on the grid, so it stays admissible.
    pub fn set_weight(&mut self, cell: UVec2, weight: f32) -> Result<()> {
        if !(weight.is_finite() && weight > 0.0 && weight <= MAX_COST_MULTIPLIER) {
            return Err(Error::InvalidArgument(format!(
                "cell weight {weight}: must be finite, positive and at most {MAX_COST_MULTIPLIER}"
            )));
        }
        let n = self.node(cell).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "cell ({}, {}) is outside the {}x{} grid",
                cell.x, cell.y, self.width, self.height
            ))
        })?;
        let weights = self
            .weights
            .get_or_insert_with(|| vec![1.0; self.class.len()]);
        weights[n as usize] = weight;
        self.min_weight = weights.iter().fold(f32::INFINITY, |m, &w| m.min(w)) as f64;
        Ok(())
    }

    /// Removes every cost multiplier.
    pub fn clear_weights(&mut self) {
        self.weights = None;
        self.min_weight = 1.0;
    }

    /// The terrain class bytes of the padded array (0 = blocked), for the searches.
    #[inline]
    pub(crate) fn classes(&self) -> &[u8] {
        &self.class
    }

    /// The padded row length.
    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }

    /// True if a single move from `from` to the adjacent cell `to` is allowed.
    pub fn can_move(&self, from: UVec2, to: UVec2, corner_cutting: CornerCutting) -> bool {
        let (Some(a), Some(b)) = (self.node(from), self.node(to)) else {
            return false;
        };
        let dx = to.x as i64 - from.x as i64;
        let dy = to.y as i64 - from.y as i64;
        if dx.abs() > 1 || dy.abs() > 1 || (dx == 0 && dy == 0) {
            return false;
        }
        let c = self.class[a as usize];
        if c == 0 || self.class[b as usize] != c {
            return false;
        }
        if dx == 0 || dy == 0 {
            return true;
        }
        let side1 = self.class[(a as i64 + dx) as usize] == c;
        let side2 = self.class[(a as i64 + dy * self.stride as i64) as usize] == c;
        match corner_cutting {
            CornerCutting::Never => side1 && side2,
            CornerCutting::IfOneSideFree => side1 || side2,
            CornerCutting::Always => true,
        }
    }

    /// Sum of the move costs along a path of adjacent cells under `options`, or `None` if a
    /// step is not an allowed move. Useful to check a path.
    pub fn path_cost(&self, cells: &[UVec2], options: &SearchOptions) -> Option<f64> {
        let mut cost = 0.0;
        for w in cells.windows(2) {
            if !self.can_move(w[0], w[1], options.corner_cutting) {
                return None;
            }
            let base = if w[0].x != w[1].x && w[0].y != w[1].y {
                options.cost_model.diagonal()
            } else {
                options.cost_model.straight()
            };
            cost += base * self.weight(w[1]) as f64;
        }
        Some(cost)
    }
}

impl SearchGraph for Grid {
    #[inline]
    fn node_count(&self) -> usize {
        self.class.len()
    }

    #[inline]
    fn is_passable(&self, node: NodeId) -> bool {
        self.class.get(node as usize).is_some_and(|&c| c != 0)
    }

    #[inline]
    fn position(&self, node: NodeId) -> UVec2 {
        self.cell(node)
    }

    #[inline]
    fn min_cost_multiplier(&self) -> f64 {
        self.min_weight
    }

    #[inline]
    fn for_each_neighbour<F: FnMut(NodeId, Cost)>(
        &self,
        node: NodeId,
        options: &SearchOptions,
        mut f: F,
    ) {
        let n = node as usize;
        let mut mask = self.move_mask(n, options.corner_cutting);
        let s = self.stride as isize;
        let w = self.weights.as_deref();
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let (dx, dy) = MOVES[k];
            let m = n.wrapping_add_signed(dx as isize + dy as isize * s);
            let diagonal = k >= 4;
            let cost = match w {
                None if diagonal => options.cost_model.diagonal_fixed(),
                None => options.cost_model.straight_fixed(),
                Some(w) => {
                    let base = if diagonal {
                        options.cost_model.diagonal()
                    } else {
                        options.cost_model.straight()
                    };
                    to_fixed(base * w[m] as f64)
                }
            };
            f(m as NodeId, cost);
        }
    }
}

/// The eight moves `(dx, dy)` in the order the searches try them: north, south, west, east,
/// then the diagonals north-east, north-west, south-east, south-west (bit `k` of
/// [`Grid::move_mask`] is move `k`; moves 4 to 7 are diagonal).
pub(crate) const MOVES: [(i32, i32); 8] = [
    (0, -1),
    (0, 1),
    (-1, 0),
    (1, 0),
    (1, -1),
    (-1, -1),
    (1, 1),
    (-1, 1),
];

impl Grid {
    /// The moves allowed out of padded cell `n` (which must not be on the blocked border) under
    /// `corner_cutting`, as a mask over [`MOVES`]: a move goes to a cell of the same terrain
    /// class, and a diagonal one also needs the cells beside it as the rule says.
    #[inline(always)]
    pub(crate) fn move_mask(&self, n: usize, corner_cutting: CornerCutting) -> u8 {
        let cls = &self.class[..];
        let s = self.stride;
        let c = cls[n];
        let (north, south) = (n - s, n + s);
        let on = cls[north] == c;
        let os = cls[south] == c;
        let ow = cls[n - 1] == c;
        let oe = cls[n + 1] == c;
        let corner = |a: bool, b: bool| match corner_cutting {
            CornerCutting::Never => a && b,
            CornerCutting::IfOneSideFree => a || b,
            CornerCutting::Always => true,
        };
        let ne = cls[north + 1] == c && corner(on, oe);
        let nw = cls[north - 1] == c && corner(on, ow);
        let se = cls[south + 1] == c && corner(os, oe);
        let sw = cls[south - 1] == c && corner(os, ow);
        (on as u8)
            | (os as u8) << 1
            | (ow as u8) << 2
            | (oe as u8) << 3
            | (ne as u8) << 4
            | (nw as u8) << 5
            | (se as u8) << 6
            | (sw as u8) << 7
    }
}

/// A grid start/goal pair as nodes, if both are passable cells of the grid
/// ([`Error::BlockedCell`] naming the one that is not).
pub(crate) fn check_endpoints(grid: &Grid, start: UVec2, goal: UVec2) -> Result<(NodeId, NodeId)> {
    let node = |argument: &'static str, cell: UVec2| {
        let n = grid.node(cell).ok_or_else(|| Error::BlockedCell {
            argument,
            cell,
            outside: true,
        })?;
        if SearchGraph::is_passable(grid, n) {
            Ok(n)
        } else {
            Err(Error::BlockedCell {
                argument,
                cell,
                outside: false,
            })
        }
    };
    Ok((node("start", start)?, node("goal", goal)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_fixed_rounds_and_saturates() {
        assert_eq!(to_fixed(1.0), 1 << 24);
        assert_eq!(to_fixed(-3.0), 0);
        assert_eq!(to_fixed(f64::NAN), 0);
        assert_eq!(to_fixed(f64::INFINITY), Cost::MAX);
        assert_eq!(from_fixed(to_fixed(2.5)), 2.5);
    }

    #[test]
    fn fixed_costs_are_the_rounded_real_ones() {
        for m in [CostModel::Octile, CostModel::Integer] {
            assert_eq!(m.straight_fixed(), to_fixed(m.straight()));
            assert_eq!(m.diagonal_fixed(), to_fixed(m.diagonal()));
        }
    }
}
