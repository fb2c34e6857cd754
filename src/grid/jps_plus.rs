//! JPS+: Jump Point Search with its jumps read from a table precomputed per grid (Harabor &
//! Grastien, "Improving Jump Point Search", ICAPS 2014).
//!
//! A [`JumpTable`] holds, for every cell and each of the eight directions, how far a jump from
//! that cell goes. Straight: to the first cell with a forced neighbour (a jump point), or up to
//! a wall. Diagonal: to the first cell from which a straight jump along either component finds
//! a jump point, or up to the last diagonal move allowed. Building it is one pass over the grid
//! per direction (linear in the cells, 32 bytes per cell, the eight distances of a cell in one
//! half cache line); it borrows the grid, so the grid cannot change while the table lives.
//!
//! A search with it ([`find_path`]) is [`super::jps::find_path`] with each jump one table read
//! plus a check for the goal: on a straight jump's line; for a diagonal jump, at the one step
//! where the jump reaches the goal's column or row, whether the straight jump from there along
//! it reaches the goal (another read). The same jump points, so the same expansions, optimal
//! lengths and paths as plain JPS.
//!
//! ```
//! use navkit::grid::{jps_plus::{self, JumpTable}, Grid, SearchContext, SearchOptions};
//! use glam::UVec2;
//!
//! let grid = Grid::from_ascii(
//!     "......\n\
//!      .@@@@.\n\
//!      ......",
//! )?;
//! let table = JumpTable::new(&grid)?; // once per grid; reused by every query
//! let mut ctx = SearchContext::new();
//! let r = jps_plus::find_path(&mut ctx, &table, UVec2::new(0, 1), UVec2::new(5, 1), &SearchOptions::default())?;
//! // Around the wall: no diagonal past the `@` cells (no corner cutting), so 1 up, 5 across
//! // and 1 down.
//! assert_eq!(r.cost, 7.0);
//! # Ok::<(), navkit::Error>(())
//! ```

use super::{Grid, NodeId, SearchContext, SearchOptions, SearchResult, check_endpoints};
use crate::Result;
use glam::UVec2;

/// Straight jump distances per cell of a [`Grid`], for [`find_path`].
#[derive(Clone, Debug)]
pub struct JumpTable<'g> {
    grid: &'g Grid,
    /// Per padded cell, for east, west, south and north ([`JumpTable::DIRS`]) then north-east,
    /// north-west, south-east and south-west ([`JumpTable::DIAGONALS`]): `k > 0` if the jump
    /// stops at the jump point `k` cells away; `-k <= 0` if `k` moves are allowed and then none
    /// (a wall: a cell of another terrain class, or for a diagonal a corner it may not cut).
    dist: Vec<[i32; 8]>,
}

impl<'g> JumpTable<'g> {
    /// The table's directions: +x (east), -x (west), +y (south), -y (north).
    const DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
    /// The diagonal directions, entries 4 to 7.
    const DIAGONALS: [(i32, i32); 4] = [(1, -1), (-1, -1), (1, 1), (-1, 1)];

    /// The table entry of straight direction `(dx, dy)` (one of them 0, the other ±1).
    #[inline(always)]
    pub(crate) fn straight_index(dx: isize, dy: isize) -> usize {
        // East 0, west 1, south 2, north 3, without branches.
        (dx < 0) as usize + 2 * (dy != 0) as usize + (dy < 0) as usize
    }

    /// The table entry of diagonal direction `(dx, dy)` (both ±1).
    #[inline(always)]
    fn diagonal_index(dx: isize, dy: isize) -> usize {
        4 + (dx < 0) as usize + 2 * (dy > 0) as usize
    }

    /// Visits the padded cells so that the next cell along `(dx, dy)` comes first.
    fn cells_against(s: usize, rows: usize, dx: i32, dy: i32) -> impl Iterator<Item = isize> {
        (0..s * rows).map(move |idx| {
            let (x, y) = (idx % s, idx / s);
            let x = if dx > 0 { s - 1 - x } else { x };
            let y = if dy > 0 { rows - 1 - y } else { y };
            (y * s + x) as isize
        })
    }

    /// Builds the table of `grid`. Fails with [`crate::Error::OutOfMemory`] if its 32 bytes per
    /// cell cannot be allocated, or [`crate::Error::InvalidArgument`] if a jump would be longer
    /// than `i32::MAX` cells.
    pub fn new(grid: &'g Grid) -> Result<JumpTable<'g>> {
        let s = grid.stride();
        let cls = grid.classes();
        if s > i32::MAX as usize || cls.len() / s > i32::MAX as usize {
            return Err(crate::Error::InvalidArgument(format!(
                "jump table: a {}x{} grid has lines longer than i32::MAX cells",
                grid.width(),
                grid.height()
            )));
        }
        let mut dist = Vec::new();
        super::try_grow(&mut dist, cls.len(), [0i32; 8], "the jump table")?;
        let rows = cls.len() / s;
        let open = |i: isize, c: u8| cls[i as usize] == c;
        for (k, &(dx, dy)) in Self::DIRS.iter().enumerate() {
            let d = dx as isize + dy as isize * s as isize;
            // The side step perpendicular to the jump.
            let p = if dx != 0 { s as isize } else { 1 };
            for i in Self::cells_against(s, rows, dx, dy) {
                let c = cls[i as usize];
                let next = i + d;
                // The border is blocked, so `next` is inside whenever `i` is not blocked.
                if c == 0 {
                    continue;
                }
                dist[i as usize][k] = if !open(next, c) {
                    0
                } else if (open(next + p, c) && !open(i + p, c))
                    || (open(next - p, c) && !open(i - p, c))
                {
                    1
                } else {
                    let after = dist[next as usize][k];
                    if after > 0 { after + 1 } else { after - 1 }
                };
            }
        }
        for &(dx, dy) in &Self::DIAGONALS {
            let (hx, vy) = (dx as isize, dy as isize * s as isize);
            let k = Self::diagonal_index(dx as isize, dy as isize);
            let (kx, ky) = (
                Self::straight_index(dx as isize, 0),
                Self::straight_index(0, dy as isize),
            );
            for i in Self::cells_against(s, rows, dx, dy) {
                let c = cls[i as usize];
                if c == 0 {
                    continue;
                }
                let next = i + hx + vy;
                // No corner cutting: both cells beside the move must be open too.
                dist[i as usize][k] = if !(open(next, c) && open(i + hx, c) && open(i + vy, c)) {
                    0
                } else if dist[next as usize][kx] > 0 || dist[next as usize][ky] > 0 {
                    1
                } else {
                    let after = dist[next as usize][k];
                    if after > 0 { after + 1 } else { after - 1 }
                };
            }
        }
        Ok(JumpTable { grid, dist })
    }

    /// The grid the table was built for.
    pub fn grid(&self) -> &'g Grid {
        self.grid
    }

    /// Bytes the table holds.
    pub fn memory_bytes(&self) -> usize {
        self.dist.len() * std::mem::size_of::<[i32; 8]>()
    }

    /// The straight jump from padded cell `i` (not included) in table direction `k`, with `t`
    /// the goal's distance along it if the goal is on that half-line (else 0): the jump point
    /// or the goal, whichever comes first, and its distance; `None` at a wall.
    #[inline(always)]
    pub(crate) fn jump(&self, i: usize, k: usize, t: u32) -> Option<u32> {
        let v = self.dist[i][k];
        let reach = v.unsigned_abs();
        if t != 0 && t <= reach {
            Some(t)
        } else if v > 0 {
            Some(reach)
        } else {
            None
        }
    }

    /// The diagonal jump from padded cell `i` (not included), at padded column and row `xy`,
    /// by `(dx, dy)` (both ±1) on a grid of padded row length `s`, towards the goal at padded
    /// `goal_xy`: the first stop (a jump point, or the cell on the goal's column or row from
    /// which a straight jump reaches the goal, or the goal) and its number of steps; `None` if
    /// the jump runs into a wall first.
    #[inline(always)]
    pub(crate) fn diagonal(
        &self,
        i: usize,
        xy: (usize, usize),
        (dx, dy): (isize, isize),
        goal_xy: (usize, usize),
        s: usize,
    ) -> Option<(usize, u32)> {
        let v = self.dist[i][Self::diagonal_index(dx, dy)];
        let reach = v.unsigned_abs();
        let step = dx + dy * s as isize;
        let ((x, y), (gx, gy)) = (xy, goal_xy);
        let (ax, ay) = (gx as isize - x as isize, gy as isize - y as isize);
        // Only the step where the jump reaches the goal's column or row (the nearer one) can
        // stop for the goal, and only if the goal lies ahead on both axes.
        if ax.signum() == dx && ay.signum() == dy {
            let m = ax.unsigned_abs().min(ay.unsigned_abs());
            if m as u32 <= reach {
                let c = i.wrapping_add_signed(step * m as isize);
                let t = ax.unsigned_abs().abs_diff(ay.unsigned_abs());
                let stops = t == 0 || {
                    // Along the axis on which the goal is still `t` cells away.
                    let k = if ax.unsigned_abs() < ay.unsigned_abs() {
                        Self::straight_index(0, dy)
                    } else {
                        Self::straight_index(dx, 0)
                    };
                    t as u32 <= self.dist[c][k].unsigned_abs()
                };
                if stops {
                    return Some((c, m as u32));
                }
            }
        }
        (v > 0).then(|| (i.wrapping_add_signed(step * reach as isize), reach))
    }
}

/// JPS between two cells of the table's grid, with straight jumps from `table`: as
/// [`super::jps::find_path`] (the same errors, status, optimal cost, expansions and path).
pub fn find_path(
    ctx: &mut SearchContext,
    table: &JumpTable<'_>,
    start: UVec2,
    goal: UVec2,
    options: &SearchOptions,
) -> Result<SearchResult> {
    let grid = table.grid;
    super::jps::check_supported(grid, options)?;
    let (s, g) = check_endpoints(grid, start, goal).inspect_err(|_| ctx.forget())?;
    super::jps::search_with_table(ctx, grid, s as NodeId, g, options, table)
}
