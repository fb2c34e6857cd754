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
    goal: usize,
    stride: isize,
    lines: Lines<'a>,
    /// The goal's padded column and row.
    goal_xy: (usize, usize),
    /// Node id to padded (column, row), without a division.
    grid: &'a Grid,
}

/// Where straight jumps find their stops.
#[derive(Clone, Copy)]
enum Lines<'a> {
    /// Scanned over the bit rows of the start's terrain class.
    Bits(&'a ClassBits),
    /// Read from JPS+'s table.
    Table(&'a JumpTable<'a>),
}

impl Jumper<'_> {
    #[inline(always)]
    fn open(&self, i: usize) -> bool {
        self.cls[i] == self.class
    }

    #[inline(always)]
    fn at(i: usize, d: isize) -> usize {
        i.wrapping_add_signed(d)
    }

    #[inline(always)]
    fn xy(&self, i: usize) -> (usize, usize) {
        let c = self.grid.cell(i as NodeId);
        (c.x.wrapping_add(1) as usize, c.y.wrapping_add(1) as usize)
    }

    /// Straight jump from `i` (not included) by step `d` (±1 or ±stride): stops at a wall
    /// (`None`), the goal, or a cell with a forced neighbour. Returns the jump point and the
    /// number of steps. Scans 64 cells at a time along the bit rows (or, for vertical jumps,
    /// the transposed bit rows).
    #[inline(always)]
    fn straight(&self, i: usize, d: isize, _p: isize) -> Option<(usize, u32)> {
        let (x, y) = self.xy(i);
        let (gx, gy) = self.goal_xy;
        let s = self.stride as usize;
        let bits = match self.lines {
            Lines::Bits(bits) => bits,
            Lines::Table(table) => {
                // The table's direction and the goal's distance along the jump's half-line.
                let (k, t) = match d {
                    1 => (0, if gy == y && gx > x { gx - x } else { 0 }),
                    -1 => (1, if gy == y && gx < x { x - gx } else { 0 }),
                    d if d > 0 => (2, if gx == x && gy > y { gy - y } else { 0 }),
                    _ => (3, if gx == x && gy < y { y - gy } else { 0 }),
                };
                return table
                    .jump(i, k, t as u32)
                    .map(|n| (Self::at(i, d * n as isize), n));
            }
        };
        if d == 1 || d == -1 {
            let goal = (gy == y).then_some(gx);
            jump_row(&bits.rows, y, y - 1, y + 1, x, d, goal).map(|(nx, k)| (y * s + nx, k))
        } else {
            let goal = (gx == x).then_some(gy);
            let dir = d.signum();
            jump_row(&bits.cols, x, x - 1, x + 1, y, dir, goal).map(|(ny, k)| (ny * s + x, k))
        }
    }

    /// True if a straight jump from `i` finds anything.
    #[inline(always)]
    fn straight_finds(&self, i: usize, d: isize, p: isize) -> bool {
        self.straight(i, d, p).is_some()
    }

    /// Diagonal jump from `i` (not included) by `dx` (±1) and `dy` (±stride).
    #[inline(always)]
    fn diagonal(&self, i: usize, dx: isize, dy: isize) -> Option<(usize, u32)> {
        if let Lines::Table(table) = self.lines {
            let s = self.stride as usize;
            return table.diagonal(i, self.xy(i), (dx, dy.signum()), self.goal_xy, s);
        }
        let mut i = i;
        let mut steps = 0u32;
        loop {
            let next = Self::at(i, dx + dy);
            if !(self.open(next) && self.open(Self::at(i, dx)) && self.open(Self::at(i, dy))) {
                return None;
            }
            i = next;
            steps += 1;
            if i == self.goal
                || self.straight_finds(i, dx, self.stride)
                || self.straight_finds(i, dy, 1)
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
    let goal_cell = grid.cell(goal);
    let j = Jumper {
        cls,
        class,
        goal: goal as usize,
        stride,
        lines: match table {
            Some(table) => Lines::Table(table),
            None => Lines::Bits(grid.jump_bits(class)?),
        },
        goal_xy: (goal_cell.x as usize + 1, goal_cell.y as usize + 1),
        grid,
    };
    let h = |n: usize| {
        let c = grid.cell(n as NodeId);
        options
            .cost_model
            .octile_fixed(c.x.abs_diff(goal_cell.x), c.y.abs_diff(goal_cell.y))
    };
    ctx.relax(start, start, 0, || h(start as usize));
    if cls[goal as usize] != j.class {
        ctx.retrace(start, start);
        return Ok(SearchResult {
            status: PathStatus::Partial,
            cost: 0.0,
            expanded: 0,
        });
    }
    let mut expanded = 0u32;
    while let Some(n) = ctx.pop() {
        expanded += 1;
        if n == goal {
            ctx.retrace(start, goal);
            ctx.expand_jump_points(grid);
            return Ok(SearchResult {
                status: PathStatus::Complete,
                cost: ctx.jump_points_cost(grid, options),
                expanded,
            });
        }
        let gn = ctx.g(n);
        let i = n as usize;
        let (dx, dy) = if n == start {
            (0, 0)
        } else {
            let (c, p) = (grid.cell(n).as_ivec2(), grid.cell(ctx.parent(n)).as_ivec2());
            let d = (c - p).signum();
            (d.x as isize, d.y as isize)
        };
        let mut add = |found: Option<(usize, u32)>, base: Cost| {
            if let Some((m, steps)) = found {
                ctx.relax(m as NodeId, n, gn + steps as Cost * base, || h(m));
            }
        };
        if dx == 0 && dy == 0 {
            // The start: every direction.
            for (d, p) in [(1, stride), (-1, stride), (stride, 1), (-stride, 1)] {
                add(j.straight(i, d, p), straight);
            }
            for (ddx, ddy) in [(1, stride), (-1, stride), (1, -stride), (-1, -stride)] {
                add(j.diagonal(i, ddx, ddy), diagonal);
            }
        } else if dx != 0 && dy != 0 {
            // Diagonal arrival: the two straight components and the diagonal, no forced ones.
            let dys = dy * stride;
            add(j.straight(i, dx, stride), straight);
            add(j.straight(i, dys, 1), straight);
            add(j.diagonal(i, dx, dys), diagonal);
        } else {
            // Straight arrival by `d`: onwards, plus the forced perpendicular and diagonal
            // moves on each side `q` where the cell behind that side is blocked.
            let (d, p) = if dx != 0 {
                (dx, stride)
            } else {
                (dy * stride, 1)
            };
            add(j.straight(i, d, p), straight);
            let back = Jumper::at(i, -d);
            for q in [p, -p] {
                if j.open(Jumper::at(i, q)) && !j.open(Jumper::at(back, q)) {
                    add(j.straight(i, q, d.abs()), straight);
                    let (hx, vy) = if dx != 0 { (d, q) } else { (q, d) };
                    add(j.diagonal(i, hx, vy), diagonal);
                }
            }
        }
    }
    ctx.retrace_nearest(start, grid.node_count(), |n| h(n as usize));
    ctx.expand_jump_points(grid);
    Ok(SearchResult {
        status: PathStatus::Partial,
        cost: ctx.exact_cost(grid, options),
        expanded,
    })
}
