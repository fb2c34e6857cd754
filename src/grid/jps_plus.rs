//! JPS+: Jump Point Search with its straight jumps read from a table precomputed per grid
//! (the idea of Harabor & Grastien, "Improving Jump Point Search", ICAPS 2014, for the straight
//! moves; diagonal jumps still step cell by cell, each step asking the table).
//!
//! A [`JumpTable`] holds, for every cell and each of the four straight directions, how far a
//! straight jump from that cell goes: to the first cell with a forced neighbour (a jump point),
//! or up to a wall. Building it is one pass over the grid per direction (linear in the cells,
//! 16 bytes per cell); it borrows the grid, so the grid cannot change while the table lives.
//! A search with it ([`find_path`]) is [`super::jps::find_path`] with each straight jump one
//! table read plus a check for the goal on the jump's line: the same jump points, so the same
//! expansions, optimal lengths and paths as plain JPS.
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
    /// Per padded cell, for east, west, south and north ([`JumpTable::DIRS`]): `k > 0` if the
    /// jump stops at the jump point `k` cells away; `-k <= 0` if `k` open cells are followed by
    /// a wall (a cell of another terrain class).
    dist: Vec<[i32; 4]>,
}

impl<'g> JumpTable<'g> {
    /// The table's directions: +x (east), -x (west), +y (south), -y (north).
    const DIRS: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];

    /// Builds the table of `grid`. Fails with [`crate::Error::OutOfMemory`] if its 16 bytes per
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
        super::try_grow(&mut dist, cls.len(), [0i32; 4], "the jump table")?;
        let rows = cls.len() / s;
        for (k, &(dx, dy)) in Self::DIRS.iter().enumerate() {
            let d = dx as isize + dy as isize * s as isize;
            // The side step perpendicular to the jump.
            let p = if dx != 0 { s as isize } else { 1 };
            let open = |i: isize, c: u8| cls[i as usize] == c;
            // Visit cells so that the next cell along `d` is done first: against `d`.
            let order = |idx: usize| -> isize {
                let (x, y) = (idx % s, idx / s);
                let x = if dx > 0 { s - 1 - x } else { x };
                let y = if dy > 0 { rows - 1 - y } else { y };
                (y * s + x) as isize
            };
            for idx in 0..cls.len() {
                let i = order(idx);
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
        Ok(JumpTable { grid, dist })
    }

    /// The grid the table was built for.
    pub fn grid(&self) -> &'g Grid {
        self.grid
    }

    /// Bytes the table holds.
    pub fn memory_bytes(&self) -> usize {
        self.dist.len() * std::mem::size_of::<[i32; 4]>()
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
    super::jps::search_with(ctx, grid, s as NodeId, g, options, Some(table))
}
