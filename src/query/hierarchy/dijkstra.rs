//! The searches over polygons the hierarchy runs: Dijkstra inside one tile (its entries' costs
//! to its exits, and the start's and goal's costs) and A* inside a few tiles (the refinement of
//! the abstract path), both with Detour's costs: a polygon is entered at the middle of the
//! portal crossed, and moving through it costs the distance to where it is left times its area
//! cost.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use glam::Vec3;
use rustc_hash::FxHashMap;

use super::tile_graph::{Pid, TileGraph};

/// An open-list entry: a node and its priority (smallest first).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Open<T> {
    pub key: f32,
    pub item: T,
}

impl<T> PartialEq for Open<T> {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl<T> Eq for Open<T> {}
impl<T> PartialOrd for Open<T> {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl<T> Ord for Open<T> {
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.total_cmp(&self.key)
    }
}

/// Dijkstra inside `g` from polygon `start`, entered at `at`: each polygon's cost and the point
/// it is entered at (`f32::INFINITY` where it is not reached).
pub(crate) fn within_tile(g: &TileGraph, me: u32, start: u32, at: Vec3) -> (Vec<f32>, Vec<Vec3>) {
    let n = g.cost.len();
    let mut cost = vec![f32::INFINITY; n];
    let mut pos = vec![at; n];
    if start as usize >= n || !g.cost[start as usize].is_finite() {
        return (cost, pos);
    }
    cost[start as usize] = 0.0;
    let mut open = BinaryHeap::new();
    open.push(Open {
        key: 0.0,
        item: start,
    });
    while let Some(Open { key, item: p }) = open.pop() {
        if key > cost[p as usize] {
            continue;
        }
        let here = pos[p as usize];
        let area = g.cost[p as usize];
        for e in g.links(p) {
            if e.to.tile != me || !g.cost[e.to.poly as usize].is_finite() {
                continue;
            }
            let c = key + here.distance(e.at) * area;
            let q = e.to.poly as usize;
            if c < cost[q] {
                cost[q] = c;
                pos[q] = e.at;
                open.push(Open {
                    key: c,
                    item: q as u32,
                });
            }
        }
    }
    (cost, pos)
}

/// A node of [`within_tiles`].
#[derive(Clone, Copy, Debug)]
struct Node {
    cost: f32,
    at: Vec3,
    parent: Option<Pid>,
    closed: bool,
}

/// A* from `start` (entered at `from`) to `goal` (left for the point `to`) over the polygons of
/// the tiles `allowed` says yes to: the polygons of the cheapest route, start to goal, and the
/// point the goal is entered at; `None` if the goal is not reached. `graph(tile)` gives a
/// tile's graph; `scale` (the smallest area cost) times the straight-line distance is the
/// estimate.
pub(crate) fn within_tiles<'g>(
    graph: impl Fn(u32) -> Option<&'g TileGraph>,
    allowed: impl Fn(u32) -> bool,
    (start, from): (Pid, Vec3),
    (goal, to): (Pid, Vec3),
    scale: f32,
    nodes: &mut usize,
) -> Option<(Vec<Pid>, Vec3)> {
    let mut seen: FxHashMap<Pid, Node> = FxHashMap::default();
    let mut open = BinaryHeap::new();
    seen.insert(
        start,
        Node {
            cost: 0.0,
            at: from,
            parent: None,
            closed: false,
        },
    );
    open.push(Open {
        key: from.distance(to) * scale,
        item: start,
    });
    while let Some(Open { item: p, .. }) = open.pop() {
        let node = *seen.get(&p)?;
        if node.closed {
            continue;
        }
        if p == goal {
            let mut path = vec![p];
            let mut cur = node.parent;
            while let Some(q) = cur {
                path.push(q);
                cur = seen.get(&q).and_then(|n| n.parent);
            }
            path.reverse();
            *nodes += seen.len();
            return Some((path, node.at));
        }
        if let Some(n) = seen.get_mut(&p) {
            n.closed = true;
        }
        let g = graph(p.tile)?;
        let area = g.cost[p.poly as usize];
        for e in g.links(p.poly) {
            if !allowed(e.to.tile) {
                continue;
            }
            let Some(tg) = graph(e.to.tile) else {
                continue;
            };
            if !tg
                .cost
                .get(e.to.poly as usize)
                .is_some_and(|c| c.is_finite())
            {
                continue;
            }
            let c = node.cost + node.at.distance(e.at) * area;
            let better = seen.get(&e.to).is_none_or(|n| !n.closed && c < n.cost);
            if better {
                seen.insert(
                    e.to,
                    Node {
                        cost: c,
                        at: e.at,
                        parent: Some(p),
                        closed: false,
                    },
                );
                open.push(Open {
                    key: c + e.at.distance(to) * scale,
                    item: e.to,
                });
            }
        }
    }
    *nodes += seen.len();
    None
}
