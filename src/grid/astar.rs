//! A* on any [`SearchGraph`], with a reusable [`SearchContext`].
//!
//! Costs are exact fixed-point integers ([`super::Cost`]), so equal `f` values are real ties.
//! The open list (module `heap`) takes successors whose `f` equals the expanded node's (the
//! smallest on the list) on a last-in-first-out stack ahead of its radix heap (a monotone
//! priority queue on `f`, with lazy deletion: an improved node is pushed again); other ties in
//! `f` are not broken on `h` (module `heap` says why). Per-node state is tagged with a
//! generation counter, so starting a query costs nothing and, once the context has seen a graph
//! of the same size, a query allocates nothing. The heuristic is octile distance scaled by the
//! graph's smallest cost multiplier: admissible and consistent, so closed nodes are never
//! reopened and the result is optimal.

use super::compact::CompactStates;
use super::{
    Cost, Grid, NodeId, SearchGraph, SearchOptions, SearchResult, check_endpoints, from_fixed,
};
use crate::open_list::OpenList;
use crate::status::PathStatus;
use crate::{Error, Result};
use glam::UVec2;

/// A node the last search reached ([`SearchContext::visited`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct VisitedNode {
    /// The node.
    pub node: NodeId,
    /// True if it was expanded (taken off the open list); false if it is still open.
    pub closed: bool,
    /// The cost of the best path to it found (for JPS, through jump points).
    pub cost: f64,
    /// The node it was reached from (itself for the start).
    pub parent: NodeId,
}

/// Reusable memory for searches (A* and JPS): per-node state, the open list and the last path.
///
/// Create one per thread and reuse it; it grows to the largest graph it has searched.
#[derive(Debug, Clone)]
pub struct SearchContext {
    states: CompactStates,
    heap: OpenList,
    path: Vec<NodeId>,
    jump_points: Vec<NodeId>,
    /// The moves out of the node being expanded.
    moves: Vec<(NodeId, Cost)>,
}

impl Default for SearchContext {
    fn default() -> Self {
        Self::new()
    }
}

impl SearchContext {
    /// An empty context; it allocates on its first search.
    pub fn new() -> Self {
        SearchContext {
            states: CompactStates::default(),
            heap: OpenList::default(),
            path: Vec::new(),
            jump_points: Vec::new(),
            moves: Vec::with_capacity(16),
        }
    }

    /// A context with memory for graphs of up to `node_count` nodes.
    ///
    /// # Panics
    /// If the memory cannot be allocated ([`try_with_capacity`](Self::try_with_capacity)
    /// returns an error instead).
    pub fn with_capacity(node_count: usize) -> Self {
        match Self::try_with_capacity(node_count) {
            Ok(ctx) => ctx,
            Err(e) => panic!("{e}"),
        }
    }

    /// A context with memory for graphs of up to `node_count` nodes, or
    /// [`Error::OutOfMemory`] naming the bytes needed if they cannot be allocated.
    pub fn try_with_capacity(node_count: usize) -> Result<Self> {
        let mut ctx = Self::new();
        ctx.begin(node_count)?;
        Ok(ctx)
    }

    /// The nodes of the last path found, start to goal (every cell, for JPS too); empty if the
    /// last search found none.
    pub fn path(&self) -> &[NodeId] {
        &self.path
    }

    /// The jump points of the last JPS path, start to goal (empty after A*).
    pub fn jump_points(&self) -> &[NodeId] {
        &self.jump_points
    }

    /// The cells of the last path on `grid` (the grid searched).
    pub fn path_cells(&self, grid: &Grid) -> Vec<UVec2> {
        self.path.iter().map(|&n| grid.cell(n)).collect()
    }

    /// What the last search (A* or JPS) did with `node`: `None` if it never reached it (or
    /// `node` is beyond every graph this context has searched).
    pub fn visit(&self, node: NodeId) -> Option<VisitedNode> {
        let (closed, g, parent) = self.state(node)?;
        Some(VisitedNode {
            node,
            closed,
            cost: from_fixed(g),
            parent,
        })
    }

    /// `(closed, g, parent)` of a node the last search reached.
    fn state(&self, node: NodeId) -> Option<(bool, Cost, NodeId)> {
        self.states.state(node)
    }

    /// Number of nodes with a state.
    fn state_len(&self) -> usize {
        self.states.len()
    }

    /// Every node the last search reached, by node id: the closed ones (expanded: as many as
    /// its [`SearchResult::expanded`]) and those still on the open list. A search refused
    /// before it started (blocked or off-grid endpoints) reached none.
    pub fn visited(&self) -> impl Iterator<Item = VisitedNode> + '_ {
        (0..self.state_len() as NodeId).filter_map(|n| self.visit(n))
    }

    /// Starts a new query on a graph of `node_count` nodes.
    /// Fails with [`Error::OutOfMemory`] (and nothing changed) if the per-node memory for
    /// `node_count` nodes cannot be allocated.
    pub(crate) fn begin(&mut self, node_count: usize) -> Result<()> {
        self.states.begin(node_count)?;
        self.heap.reset(node_count);
        self.path.clear();
        self.jump_points.clear();
        Ok(())
    }

    /// Forgets the last search (no path, no visited nodes); allocates nothing.
    pub(crate) fn forget(&mut self) {
        // Nothing to allocate for no nodes: this cannot fail.
        let _ = self.begin(0);
    }

    /// Opens `node` with cost `g` through `parent`, or lowers its cost if it is open and `g`
    /// is lower; closed nodes are left alone. `h` is called only when the node is opened or improved.
    #[inline(always)]
    pub(crate) fn relax(
        &mut self,
        node: NodeId,
        parent: NodeId,
        g: Cost,
        h: impl FnOnce() -> Cost,
    ) {
        if self.states.open(node, parent, g) {
            // An improved node is pushed again (lazy deletion): its older entry is skipped
            // once the node is closed.
            self.heap.push(node, g.saturating_add(h()));
        }
    }

    /// Pops the best open node and closes it (skipping the stale entries of closed nodes).
    #[inline(always)]
    pub(crate) fn pop(&mut self) -> Option<NodeId> {
        loop {
            let n = self.heap.pop()?;
            if self.states.close(n) {
                return Some(n);
            }
        }
    }

    /// The cost of the best path found so far to a node that has been opened this query.
    #[inline(always)]
    pub(crate) fn g(&self, node: NodeId) -> Cost {
        self.states.g(node)
    }

    /// The parent of a node that has been opened this query.
    #[inline(always)]
    pub(crate) fn parent(&self, node: NodeId) -> NodeId {
        self.states.parent(node)
    }

    /// After a search that ran dry without reaching its goal: fills `path` with the parent
    /// chain from `start` to the node it reached nearest the goal (smallest `h`, then smallest
    /// cost, then smallest id), and gives that node. Scans the first `node_count` nodes.
    pub(crate) fn retrace_nearest(
        &mut self,
        start: NodeId,
        node_count: usize,
        h: impl Fn(NodeId) -> Cost,
    ) -> NodeId {
        let nearest = (0..node_count.min(self.state_len()) as NodeId)
            .filter_map(|n| self.state(n).map(|(_, g, _)| (h(n), g, n)))
            .min()
            .map_or(start, |(_, _, n)| n);
        self.retrace(start, nearest);
        nearest
    }

    /// The result of an A* search that expanded `goal` after `expanded` nodes: its path
    /// retraced into `path`, complete, at its search cost.
    pub(crate) fn reached(&mut self, start: NodeId, goal: NodeId, expanded: u32) -> SearchResult {
        self.retrace(start, goal);
        SearchResult {
            status: PathStatus::Complete,
            cost: from_fixed(self.g(goal)),
            expanded,
        }
    }

    /// The result of an A* search that ran dry after `expanded` nodes: a partial path to the
    /// node nearest the goal by `h` ([`SearchContext::retrace_nearest`]).
    pub(crate) fn ran_dry(
        &mut self,
        start: NodeId,
        node_count: usize,
        expanded: u32,
        h: impl Fn(NodeId) -> Cost,
    ) -> SearchResult {
        let nearest = self.retrace_nearest(start, node_count, h);
        SearchResult {
            status: PathStatus::Partial,
            cost: from_fixed(self.g(nearest)),
            expanded,
        }
    }

    /// Fills `path` with the parent chain from `start` to `goal`.
    pub(crate) fn retrace(&mut self, start: NodeId, goal: NodeId) {
        self.path.clear();
        let mut n = goal;
        self.path.push(n);
        while n != start {
            n = self.parent(n);
            self.path.push(n);
        }
        self.path.reverse();
    }

    /// The real cost of the last path on `grid` (the search's fixed-point sum is within 2.4e-8
    /// per diagonal of it). On an unweighted grid: its straight moves times the straight cost
    /// plus its diagonal moves times the diagonal cost, the moves counted from the node ids;
    /// on a weighted one, summed in f64 move by move.
    pub(crate) fn exact_cost(&self, grid: &Grid, options: &SearchOptions) -> f64 {
        if !grid.is_weighted() {
            let s = grid.stride() as NodeId;
            let diagonals = self
                .path
                .windows(2)
                .filter(|w| {
                    let d = w[0].abs_diff(w[1]);
                    d != 1 && d != s
                })
                .count();
            let straights = self.path.len().saturating_sub(1) - diagonals;
            return straights as f64 * options.cost_model.straight()
                + diagonals as f64 * options.cost_model.diagonal();
        }
        let mut cost = 0.0;
        for w in self.path.windows(2) {
            let (a, b) = (grid.cell(w[0]), grid.cell(w[1]));
            let base = if a.x != b.x && a.y != b.y {
                options.cost_model.diagonal()
            } else {
                options.cost_model.straight()
            };
            cost += base * grid.weight(b) as f64;
        }
        cost
    }

    /// Moves the retraced path to the jump-point list and expands it into every cell between
    /// consecutive jump points (each pair is on a straight or diagonal line) of the unweighted
    /// `grid`; returns the path's real cost, as [`SearchContext::exact_cost`] (straight moves
    /// times the straight cost plus diagonal moves times the diagonal cost, the moves counted
    /// per pair of jump points).
    pub(crate) fn expand_jump_points(&mut self, grid: &Grid, options: &SearchOptions) -> f64 {
        debug_assert!(!grid.is_weighted());
        std::mem::swap(&mut self.path, &mut self.jump_points);
        self.path.clear();
        let Some((&first, rest)) = self.jump_points.split_first() else {
            return 0.0;
        };
        self.path.push(first);
        let s = grid.stride() as NodeId;
        let (mut straights, mut diagonals) = (0u32, 0u32);
        let (mut a, mut from) = (first, grid.cell(first).as_ivec2());
        for &b in rest {
            let to = grid.cell(b).as_ivec2();
            let d = to - from;
            let count = d.x.unsigned_abs().max(d.y.unsigned_abs());
            if d.x != 0 && d.y != 0 {
                diagonals += count;
            } else {
                straights += count;
            }
            // The step between node ids in wrapping arithmetic (a step back is a wrapped add);
            // a counted range, so one capacity check per segment.
            let step =
                (d.x.signum() as NodeId).wrapping_add((d.y.signum() as NodeId).wrapping_mul(s));
            self.path
                .extend((1..count + 1).map(|k| a.wrapping_add(k.wrapping_mul(step))));
            (a, from) = (b, to);
        }
        straights as f64 * options.cost_model.straight()
            + diagonals as f64 * options.cost_model.diagonal()
    }
}

/// A* from `start` to `goal` on any graph; the path is left in [`SearchContext::path`].
///
/// A node id not below `graph.node_count()` is [`Error::InvalidArgument`]; a node that is not
/// passable is [`Error::BlockedCell`] (with its grid column). A goal that cannot be reached
/// gives a [`PathStatus::Partial`] path to the node nearest it that the search reached.
pub fn search<G: SearchGraph>(
    ctx: &mut SearchContext,
    graph: &G,
    start: NodeId,
    goal: NodeId,
    options: &SearchOptions,
) -> Result<SearchResult> {
    let count = graph.node_count();
    for (argument, node) in [("start", start), ("goal", goal)] {
        let e = if node as usize >= count {
            Error::InvalidArgument(format!(
                "{argument} node {node} is not a node of the graph (it has {count})"
            ))
        } else if !graph.is_passable(node) {
            Error::BlockedCell {
                argument,
                cell: graph.position(node),
                outside: false,
            }
        } else {
            continue;
        };
        ctx.forget(); // the last path is gone: this search has none
        return Err(e);
    }
    run(ctx, graph, start, goal, options)
}

/// A* between two passable nodes (checked by the caller).
fn run<G: SearchGraph>(
    ctx: &mut SearchContext,
    graph: &G,
    start: NodeId,
    goal: NodeId,
    options: &SearchOptions,
) -> Result<SearchResult> {
    let count = graph.node_count();
    ctx.begin(count)?;
    ctx.relax(start, start, 0, || graph.heuristic(start, goal, options));
    let mut expanded = 0u32;
    while let Some(n) = ctx.pop() {
        expanded += 1;
        if n == goal {
            return Ok(ctx.reached(start, goal, expanded));
        }
        let gn = ctx.g(n);
        // Collect the moves first (a trivial closure the compiler inlines into every call
        // site), then relax them in one loop where `relax` is inlined once.
        let mut moves = std::mem::take(&mut ctx.moves);
        moves.clear();
        graph.for_each_neighbour(n, options, |m, c| moves.push((m, c)));
        for &(m, c) in &moves {
            ctx.relax(m, n, gn.saturating_add(c), || {
                graph.heuristic(m, goal, options)
            });
        }
        ctx.moves = moves;
    }
    Ok(ctx.ran_dry(start, count, expanded, |n| {
        graph.heuristic(n, goal, options)
    }))
}

/// A* between two cells of a [`Grid`]; the path's nodes are in [`SearchContext::path`]
/// ([`SearchContext::path_cells`] for cells). A start or goal off the grid or blocked is
/// [`Error::BlockedCell`]; an unreachable goal gives a [`PathStatus::Partial`] path (see
/// [`search`]).
pub fn find_path(
    ctx: &mut SearchContext,
    grid: &Grid,
    start: UVec2,
    goal: UVec2,
    options: &SearchOptions,
) -> Result<SearchResult> {
    let (s, g) = check_endpoints(grid, start, goal).inspect_err(|_| ctx.forget())?;
    let mut r = if grid.is_weighted() {
        run(ctx, grid, s, g, options)?
    } else {
        super::astar_grid::run(ctx, grid, s, g, options)?
    };
    r.cost = ctx.exact_cost(grid, options);
    Ok(r)
}
