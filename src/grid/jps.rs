//! Jump Point Search (Harabor & Grastien) for uniform-cost 8-connected grids where a diagonal
//! move needs both cells beside it to be passable (no corner cutting).
//!
//! With corner cutting forbidden the pruning rules are:
//!
//! - a diagonal move has no forced neighbours: its natural neighbours are the two straight
//!   moves along its components and the diagonal move itself. A diagonal jump stops at a cell
//!   from which either straight component jump finds a jump point (or the goal), and it stops
//!   (fails) when the next diagonal move is not allowed;
//! - a straight move arriving at cell `x` from `x - d` has a forced neighbour on side `p`
//!   (perpendicular to `d`) when `x + p` is passable but `x - d + p` is blocked: the parent
//!   could not have reached `x + p` diagonally. The forced successors are the perpendicular
//!   move `p` and the diagonal `d + p`. A straight jump stops at such a cell (or the goal).
//!
//! Paths are the same length as A*'s ([`super::astar`]); the cells between jump points are
//! filled in, so [`SearchContext::path`] holds every cell and
//! [`SearchContext::jump_points`] the jump points.
//!
//! Terrain classes are respected: the search only walks cells of the start's class (a move
//! between classes is never allowed), which is the same as treating every other cell as
//! blocked.

use super::bits::{ClassBits, jump_row};
use super::jps_plus::JumpTable;
use super::{
    CornerCutting, Cost, Grid, NodeId, SearchContext, SearchGraph, SearchOptions, SearchResult,
    check_endpoints,
};
use crate::status::PathStatus;
use crate::{Error, Result};
use glam::UVec2;

/// Checks that JPS can run on `grid` with `options`: the grid must be unweighted and corner
/// cutting forbidden.
pub fn check_supported(grid: &Grid, options: &SearchOptions) -> Result<()> {
    if grid.is_weighted() {
        return Err(Error::InvalidArgument(
            "jump point search needs uniform costs: the grid has cell weights (use A*)".into(),
        ));
    }
    if options.corner_cutting != CornerCutting::Never {
        return Err(Error::InvalidArgument(format!(
            "jump point search supports only corner_cutting = never, not {:?} (use A*)",
            options.corner_cutting
        )));
    }
    Ok(())
}

/// The jumping machinery for one query.
struct Jumper<'a> {
    cls: &'a [u8],
    class: u8,
    stride: isize,
    lines: Lines<'a>,
    /// The goal's padded column and row.
    goal_xy: (usize, usize),
}

/// Where straight jumps find their stops.
#[derive(Clone, Copy)]
enum Lines<'a> {
    /// Scanned over the bit rows of the start's terrain class.
    Bits(&'a ClassBits),
    /// Read from JPS+'s table.
    Table(&'a JumpTable<'a>),
}

/// A padded column and row.
type Xy = (usize, usize);

impl Jumper<'_> {
    #[inline(always)]
    fn open(&self, i: usize) -> bool {
        self.cls[i] == self.class
    }

    #[inline(always)]
    fn at(i: usize, d: isize) -> usize {
        i.wrapping_add_signed(d)
    }

    /// Straight jump from `i` (not included), at padded column and row `(x, y)`, by
    /// `(dx, dy)` (one of them 0, the other ±1): stops at a wall (`None`), the goal, or a cell
    /// with a forced neighbour. Returns the jump point and the number of steps. Reads the
    /// table, or scans 64 cells at a time along the bit rows (or, for vertical jumps, the
    /// transposed bit rows).
    #[inline(always)]
    fn straight(&self, i: usize, (x, y): Xy, (dx, dy): (isize, isize)) -> Option<(usize, u32)> {
        let (gx, gy) = self.goal_xy;
        let s = self.stride as usize;
        let bits = match self.lines {
            Lines::Bits(bits) => bits,
            Lines::Table(table) => {
                // The goal is on the jump's half-line if it lies ahead along the jump's axis
                // and level on the other (a zero step has a zero sign).
                let (ax, ay) = (gx as isize - x as isize, gy as isize - y as isize);
                let t = if ax.signum() == dx && ay.signum() == dy {
                    (ax.unsigned_abs() + ay.unsigned_abs()) as u32
                } else {
                    0
                };
                let k = JumpTable::straight_index(dx, dy);
                let d = dx + dy * self.stride;
                return table
                    .jump(i, k, t)
                    .map(|n| (Self::at(i, d * n as isize), n));
            }
        };
        if dy == 0 {
            let goal = (gy == y).then_some(gx);
            jump_row(&bits.rows, y, y - 1, y + 1, x, dx, goal).map(|(nx, k)| (y * s + nx, k))
        } else {
            let goal = (gx == x).then_some(gy);
            jump_row(&bits.cols, x, x - 1, x + 1, y, dy, goal).map(|(ny, k)| (ny * s + x, k))
        }
    }

    /// Diagonal jump from `i` (not included), at padded column and row `xy`, by `(dx, dy)`
    /// (both ±1).
    #[inline(always)]
    fn diagonal(&self, i: usize, xy: Xy, (dx, dy): (isize, isize)) -> Option<(usize, u32)> {
        let s = self.stride;
        if let Lines::Table(table) = self.lines {
            return table.diagonal(i, xy, (dx, dy), self.goal_xy, s as usize);
        }
        let (hx, vy) = (dx, dy * s);
        let (mut i, (mut x, mut y)) = (i, xy);
        let mut steps = 0u32;
        loop {
            let next = Self::at(i, hx + vy);
            if !(self.open(next) && self.open(Self::at(i, hx)) && self.open(Self::at(i, vy))) {
                return None;
            }
            i = next;
            (x, y) = (x.wrapping_add_signed(dx), y.wrapping_add_signed(dy));
            steps += 1;
            if (x, y) == self.goal_xy
                || self.straight(i, (x, y), (dx, 0)).is_some()
                || self.straight(i, (x, y), (0, dy)).is_some()
            {
                return Some((i, steps));
            }
        }
    }
}

/// JPS between two cells of a [`Grid`]. Errors if the grid is weighted or `options` allow
/// corner cutting ([`check_supported`]), or as [`super::astar::find_path`] for blocked or
/// off-grid cells; otherwise the result is as for [`super::astar::find_path`] (same status
/// and optimal cost; fewer expansions). For an unreachable goal the [`PathStatus::Partial`]
/// path leads to the jump point nearest the goal that the search reached (the start alone
/// for a goal of another terrain class, which JPS knows at once cannot be reached).
pub fn find_path(
    ctx: &mut SearchContext,
    grid: &Grid,
    start: UVec2,
    goal: UVec2,
    options: &SearchOptions,
) -> Result<SearchResult> {
    check_supported(grid, options)?;
    let (s, g) = check_endpoints(grid, start, goal).inspect_err(|_| ctx.forget())?;
    search_with(ctx, grid, s, g, options, None)
}

/// [`search_with`] with a table: a copy of the search compiled for table jumps only (the
/// constant `Some` lets the compiler drop the bit-row branches), for JPS+.
pub(crate) fn search_with_table(
    ctx: &mut SearchContext,
    grid: &Grid,
    start: NodeId,
    goal: NodeId,
    options: &SearchOptions,
    table: &JumpTable<'_>,
) -> Result<SearchResult> {
    search_with(ctx, grid, start, goal, options, Some(table))
}

/// JPS between two passable nodes of `grid` (checked by the caller), with jumps read
/// from `table` (built for `grid`) if given, else scanned over the grid's bit rows.
#[inline(always)]
pub(crate) fn search_with(
    ctx: &mut SearchContext,
    grid: &Grid,
    start: NodeId,
    goal: NodeId,
    options: &SearchOptions,
    table: Option<&JumpTable<'_>>,
) -> Result<SearchResult> {
    let cls = grid.classes();
    let stride = grid.stride() as isize;
    let straight = options.cost_model.straight_fixed();
    let diagonal = options.cost_model.diagonal_fixed();
    ctx.begin(grid.node_count())?;
    let class = cls[start as usize];
    let padded = |n: NodeId| padded_xy(grid, n);
    let goal_xy = padded(goal);
    let j = Jumper {
        cls,
        class,
        stride,
        lines: match table {
            Some(table) => Lines::Table(table),
            None => Lines::Bits(grid.jump_bits(class)?),
        },
        goal_xy,
    };
    let h = |(x, y): Xy| {
        let (ax, ay) = (x.abs_diff(goal_xy.0), y.abs_diff(goal_xy.1));
        options.cost_model.octile_fixed(ax as u32, ay as u32)
    };
    ctx.relax(start, start, 0, || h(padded(start)));
    if cls[goal as usize] != j.class {
        ctx.retrace(start, start);
        return Ok(partial(0.0, 0));
    }
    let mut expanded = 0u32;
    while let Some(n) = ctx.pop() {
        expanded += 1;
        if n == goal {
            ctx.retrace(start, goal);
            return Ok(SearchResult {
                status: PathStatus::Complete,
                cost: ctx.expand_jump_points(grid, options),
                expanded,
            });
        }
        let gn = ctx.g(n);
        let i = n as usize;
        let xy = padded(n);
        let (dx, dy) = if n == start {
            (0, 0)
        } else {
            let (px, py) = padded(ctx.parent(n));
            let sign = |a: usize, b: usize| (a as isize - b as isize).signum();
            (sign(xy.0, px), sign(xy.1, py))
        };
        // Jumps from `n` by `(ex, ey)` (a straight or a diagonal step) and opens what it finds
        // (a macro, not a closure: inlined for sure, so each call site keeps only its kind of
        // jump and the table or bit-row code, not both).
        macro_rules! go {
            ($e:expr) => {{
                let (ex, ey): (isize, isize) = $e;
                let (found, base) = if ex != 0 && ey != 0 {
                    (j.diagonal(i, xy, (ex, ey)), diagonal)
                } else {
                    (j.straight(i, xy, (ex, ey)), straight)
                };
                if let Some((m, steps)) = found {
                    let k = steps as isize;
                    let mxy = (xy.0.wrapping_add_signed(ex * k), xy.1.wrapping_add_signed(ey * k));
                    ctx.relax(m as NodeId, n, gn + steps as Cost * base, || h(mxy));
                }
            }};
        }
        if dx == 0 && dy == 0 {
            // The start: every direction (east, west, south, north, then south-east,
            // south-west, north-east, north-west).
            // Written out, so each jump's direction is a constant.
            go!((1, 0));
            go!((-1, 0));
            go!((0, 1));
            go!((0, -1));
            go!((1, 1));
            go!((-1, 1));
            go!((1, -1));
            go!((-1, -1));
        } else if dx != 0 && dy != 0 {
            // Diagonal arrival: the two straight components and the diagonal, no forced ones.
            go!((dx, 0));
            go!((0, dy));
            go!((dx, dy));
        } else {
            // Straight arrival by `(dx, dy)`: onwards, plus the forced perpendicular and
            // diagonal moves on each side `q` where the cell behind that side is blocked.
            go!((dx, dy));
            let back = Jumper::at(i, -(dx + dy * stride));
            let (px, py) = (dy.abs(), dx.abs());
            // The two sides written out: a loop over them was not unrolled, and cost a tenth
            // of the search on a maze.
            macro_rules! side {
                ($qx:expr, $qy:expr) => {{
                    let (qx, qy): (isize, isize) = ($qx, $qy);
                    let q = qx + qy * stride;
                    if j.open(Jumper::at(i, q)) && !j.open(Jumper::at(back, q)) {
                        go!((qx, qy));
                        go!((dx + qx, dy + qy));
                    }
                }};
            }
            side!(px, py);
            side!(-px, -py);
        }
    }
    ctx.retrace_nearest(start, grid.node_count(), |n| h(padded(n)));
    Ok(partial(ctx.expand_jump_points(grid, options), expanded))
}

/// Node `n`'s padded column and row (one division); the jumps work on these, and a jump's end
/// is found by stepping them, not by dividing its node id again.
#[inline(always)]
fn padded_xy(grid: &Grid, n: NodeId) -> Xy {
    let c = grid.cell(n);
    (c.x.wrapping_add(1) as usize, c.y.wrapping_add(1) as usize)
}

/// A search that did not reach the goal: the path to the nearest node, of `cost`.
fn partial(cost: f64, expanded: u32) -> SearchResult {
    SearchResult {
        status: PathStatus::Partial,
        cost,
        expanded,
    }
}
