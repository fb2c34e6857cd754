//! A* specialised to an unweighted [`Grid`]: the same search as [`super::astar::search`]
//! (same open list, tie-breaking, node states and results), with the moves read from the
//! cell's [`Grid::move_mask`] and the heuristic computed from the expanded cell's column and
//! row (no division per neighbour, the goal's cell computed once).

use super::Cost;
use super::{Grid, MOVES, NodeId, SearchContext, SearchGraph, SearchOptions, SearchResult};
use crate::Result;

/// A* between two passable nodes of an unweighted `grid` (checked by the caller).
pub(super) fn run(
    ctx: &mut SearchContext,
    grid: &Grid,
    start: NodeId,
    goal: NodeId,
    options: &SearchOptions,
) -> Result<SearchResult> {
    debug_assert!(!grid.is_weighted());
    let count = grid.node_count();
    let model = options.cost_model;
    ctx.begin(count)?;
    let goal_cell = grid.cell(goal);
    let h = |x: u32, y: u32| model.octile_fixed(x.abs_diff(goal_cell.x), y.abs_diff(goal_cell.y));
    let s = grid.stride() as isize;
    let cost = [model.straight_fixed(), model.diagonal_fixed()];
    let start_cell = grid.cell(start);
    ctx.relax(start, start, 0, || h(start_cell.x, start_cell.y));
    let mut expanded = 0u32;
    while let Some(n) = ctx.pop() {
        expanded += 1;
        if n == goal {
            return Ok(ctx.reached(start, goal, expanded));
        }
        let gn = ctx.g(n);
        let c = grid.cell(n);
        let mut mask = grid.move_mask(n as usize, options.corner_cutting);
        while mask != 0 {
            let k = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let (dx, dy) = MOVES[k];
            let m = (n as isize + dx as isize + dy as isize * s) as NodeId;
            let g: Cost = gn + cost[(k >= 4) as usize];
            ctx.relax(m, n, g, || {
                h(c.x.wrapping_add_signed(dx), c.y.wrapping_add_signed(dy))
            });
        }
    }
    Ok(ctx.ran_dry(start, count, expanded, |n| grid.heuristic(n, goal, options)))
}
