//! Polyanya (Cui, Harabor and Grastien, IJCAI 2017) over a Detour navmesh: an A* whose nodes
//! are intervals of polygon sides seen from a root (the start, a corner the path bends round,
//! or an off-mesh connection's end), which finds the shortest path on the xz-plane over the
//! polygons a filter lets it visit.
//!
//! A node `(interval, root)` enters the polygon beyond its interval. Expanding it projects the
//! interval from the root across that polygon: the stretch of the far boundary seen through
//! the interval keeps the root (observable successors); the stretches beside it are reached
//! by bending round an end of the interval, which becomes the new root, where that end is a
//! corner (non-observable successors). A node is worth `g` (the root's path length) plus
//! [`heuristic`] (the shortest way on through the interval to the goal, a lower bound), and a
//! root reached again by a longer path is pruned (root-level pruning). Off-mesh connections
//! are taken from end to end at their length, as a goal is reached: the entry point is a
//! target in the polygon under it, and its other end a new root.

use glam::{DVec2, Vec3};
use rustc_hash::{FxHashMap, FxHashSet};

use super::geometry::{flat, heuristic, orient};
use super::heights::Heights;
use super::polys::{Polys, Seen};
use super::sides::{Corners, NO_VERTEX, Side};
use crate::navmesh::NavMesh;
use crate::open_list::OpenList;
use crate::query::{PolyRef, QueryFilter};

/// No parent (a start's root or an initial node).
pub(super) const NONE: u32 = u32::MAX;

/// What a root is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum RootKind {
    Start,
    Corner,
    /// The entry point of an off-mesh connection (its polygon).
    OffMeshEntry(PolyRef),
    /// Its other end, where the path lands.
    OffMeshExit,
}

/// A point the path reaches: the start, a corner, an off-mesh connection's end.
#[derive(Clone, Copy, Debug)]
pub(super) struct Root {
    pub pos: DVec2,
    /// Its height where known (the off-mesh connections' ends), else NaN.
    pub y: f32,
    /// The path length to it.
    pub g: f64,
    pub parent: u32,
    /// A polygon it lies on (for its height).
    pub poly: PolyRef,
    pub kind: RootKind,
    /// Its slot in root-level pruning's shortest lengths (corners and landings), or
    /// [`NONE`].
    pub slot: u32,
}

/// What a node's interval leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    /// An interval of the side between `from` and `poly`, which it enters; `a_end`/`b_end`:
    /// the interval reaches that end of the side (as `poly` walks it).
    Interval { a_end: bool, b_end: bool },
    /// The goal (the interval is the goal point).
    Goal,
    /// The entry point of off-mesh hop `hop`.
    OffMesh { hop: u32 },
}

/// A search node.
#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// The interval's end toward its side's start `a`, and toward its end `b`, as `poly`
    /// walks its sides counter-clockwise.
    pub ia: DVec2,
    pub ib: DVec2,
    pub root: u32,
    pub poly: PolyRef,
    pub from: PolyRef,
    pub parent: u32,
    pub kind: Kind,
}

/// An off-mesh connection as a search may take it: from `entry` (on the polygon under it) to
/// `exit` (on `landing`) at `length`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Hop {
    pub conn: PolyRef,
    pub entry: Vec3,
    pub exit: Vec3,
    pub landing: PolyRef,
    pub length: f64,
}

/// How a search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The goal node.
    Found(u32),
    /// Every node reachable was expanded.
    Unreachable,
    /// More nodes than the limit.
    OutOfNodes,
}

/// One search's problem: where from, where to, over which polygons.
pub(super) struct Problem<'n, 'f> {
    pub nav: &'n NavMesh,
    pub filter: &'f QueryFilter,
    pub start: (PolyRef, Vec3),
    pub goal: (PolyRef, Vec3),
    pub max_nodes: usize,
    /// The filter passes every polygon of the navmesh (corners are then the tiles' own).
    pub passes_all: bool,
}

/// The search's memory, kept between searches so that they do not allocate.
#[derive(Default)]
pub(in crate::query) struct Search {
    pub(super) nodes: Vec<Node>,
    pub(super) roots: Vec<Root>,
    pub(super) hops: Vec<Hop>,
    /// The open list, keyed on the bits of `f` (non-negative: their order is the numbers').
    open: OpenList,
    /// Nodes made by the expansion under way, not yet on the open list.
    fresh: Vec<u32>,
    /// Root-level pruning: a slot in `best` for each point a root may be (by its key).
    slots: FxHashMap<u64, u32>,
    /// The shortest path length found to each slot's point.
    best: Vec<f64>,
    /// Polygons expanded whole from a root on their boundary, by root and entry side: such an
    /// expansion depends on nothing else, and round a root inside the navmesh they would
    /// go round for ever.
    whole: FxHashSet<(u32, PolyRef, usize)>,
    /// Bends made, by corner and the polygon bent into: the shortest `g` of each.
    bent: FxHashMap<(u64, PolyRef), f64>,
    pub(super) corners: Corners,
    pub(super) polys: Polys,
    /// The detail edges of the polygons the paths' points lie on, for their heights.
    pub(super) heights: Heights,
    /// Nodes expanded by the last search.
    pub(super) expanded: usize,
}

/// A node's view into the polygon it enters: the root and the interval ends it bends at.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cone {
    pub r: DVec2,
    pub root: u32,
    /// Everything in the polygon is seen from the root (it lies on the entry side).
    pub all: bool,
    pub ia: DVec2,
    pub ib: DVec2,
}

impl Search {
    /// Runs one search from `p.start` to `p.goal` (each a polygon and a point on it).
    pub(super) fn run(&mut self, p: &Problem<'_, '_>) -> Outcome {
        self.nodes.clear();
        self.roots.clear();
        self.hops.clear();
        self.open.reset(0);
        self.slots.clear();
        self.best.clear();
        self.whole.clear();
        self.bent.clear();
        self.corners.clear();
        self.polys.prepare(p.nav, p.filter);
        self.expanded = 0;
        let (sp, s) = p.start;
        self.roots.push(Root {
            pos: flat(s),
            y: s.y,
            g: 0.0,
            parent: NONE,
            poly: sp,
            kind: RootKind::Start,
            slot: NONE,
        });
        self.leave_point(p, 0, sp, NONE);
        self.flush(flat(p.goal.1));
        while let Some(node) = self.open.pop() {
            if self.nodes.len() > p.max_nodes {
                return Outcome::OutOfNodes;
            }
            let n = self.nodes[node as usize];
            if self.is_stale(n.root) {
                continue;
            }
            self.expanded += 1;
            match n.kind {
                Kind::Goal => return Outcome::Found(node),
                Kind::OffMesh { hop } => self.take_hop(p, node, hop),
                Kind::Interval { .. } => self.expand_on(p, node),
            }
            self.flush(flat(p.goal.1));
        }
        Outcome::Unreachable
    }

    /// Expands node `node`, and on while an expansion makes a single successor, an interval
    /// in sight of the same root (Polyanya's intermediate pruning): its `f` is its parent's
    /// or more, nothing else can reach it first, and the open list is spared it. Targets
    /// always go through the open list, so the goal is still taken in order of `f`.
    fn expand_on(&mut self, p: &Problem<'_, '_>, node: u32) {
        let mut at = node;
        loop {
            self.expand(p, at);
            let [next] = self.fresh[..] else {
                return;
            };
            let m = &self.nodes[next as usize];
            let same_root = m.root == self.nodes[at as usize].root;
            let interval = matches!(m.kind, Kind::Interval { .. });
            if !same_root || !interval || self.nodes.len() > p.max_nodes {
                return;
            }
            self.fresh.clear();
            self.expanded += 1;
            at = next;
        }
    }

    /// Moves the nodes pushed since the last call onto the open list, keyed on their `f`
    /// towards `goal`.
    fn flush(&mut self, goal: DVec2) {
        for i in 0..self.fresh.len() {
            let node = self.fresh[i];
            let key = self.key(node, goal);
            self.open.push(node, key);
        }
        self.fresh.clear();
    }

    /// True if a shorter path to the root of a node has been found since it was pushed.
    fn is_stale(&self, r: u32) -> bool {
        let root = &self.roots[r as usize];
        root.slot != NONE && self.best[root.slot as usize] < root.g - 1e-9 * (1.0 + root.g)
    }

    /// Adds a corner root at `pos` (on `poly`) reached from root `parent`, unless it has
    /// been reached by a path at least as short: its index, or `None` (pruned).
    pub(super) fn corner(
        &mut self,
        parent: u32,
        pos: DVec2,
        poly: PolyRef,
        key: u64,
    ) -> Option<u32> {
        let from = &self.roots[parent as usize];
        let g = from.g + from.pos.distance(pos);
        let slot = self.reach(key, g)?;
        if !self.bend_once(key, poly, g) {
            return None;
        }
        self.roots.push(Root {
            pos,
            y: f32::NAN,
            g,
            parent,
            poly,
            kind: RootKind::Corner,
            slot,
        });
        Some((self.roots.len() - 1) as u32)
    }

    /// Records that the root known by `key` is reached at `g`: its pruning slot, or `None`
    /// (pruned) if it was reached before by a shorter path. (One as short is kept: it may
    /// see other stretches.)
    pub(super) fn reach(&mut self, key: u64, g: f64) -> Option<u32> {
        let next = self.best.len() as u32;
        let slot = *self.slots.entry(key).or_insert(next);
        if slot == next {
            self.best.push(g);
            return Some(slot);
        }
        let best = &mut self.best[slot as usize];
        if *best < g - 1e-9 * (1.0 + g) {
            return None;
        }
        *best = best.min(g);
        Some(slot)
    }

    /// Records a bend round the corner known by `key` into polygon `poly` at `g`: false if
    /// the search bent round it into that polygon before as short (the same successors
    /// again: collinear roots reach a corner at the same length from many nodes).
    fn bend_once(&mut self, key: u64, poly: PolyRef, g: f64) -> bool {
        match self.bent.get(&(key, poly)) {
            Some(&done) if done <= g + 1e-9 * (1.0 + g) => false,
            _ => {
                self.bent.insert((key, poly), g);
                true
            }
        }
    }

    /// Pushes a node. Its key on the open list (`f`, from its root's `g` and the heuristic)
    /// is worked out when it goes there ([`Search::flush`]): a node that intermediate pruning
    /// expands at once never needs it.
    pub(super) fn push(&mut self, node: Node) {
        self.nodes.push(node);
        self.fresh.push((self.nodes.len() - 1) as u32);
    }

    /// The open list's key of node `node`: its `f`, the root's `g` plus the heuristic to
    /// `goal`.
    fn key(&self, node: u32, goal: DVec2) -> u64 {
        let node = &self.nodes[node as usize];
        let root = &self.roots[node.root as usize];
        let h = match node.kind {
            Kind::Interval { .. } => heuristic(root.pos, node.ia, node.ib, goal),
            // A target: the straight line to it, then on to the goal.
            Kind::Goal => root.pos.distance(node.ia),
            Kind::OffMesh { .. } => root.pos.distance(node.ia) + node.ia.distance(goal),
        };
        open_key(root.g + h)
    }

    /// The nodes from root `root`, a point on polygon `poly` (the start, or where an
    /// off-mesh connection lands, reached by node `parent`): every passable side of the
    /// polygon, whole, and the targets on it, all in sight of a point in a convex polygon.
    pub(super) fn leave_point(
        &mut self,
        p: &Problem<'_, '_>,
        root: u32,
        poly: PolyRef,
        parent: u32,
    ) {
        let Some(seen) = self.polys.get(p.nav, p.filter, poly) else {
            return;
        };
        for k in 0..seen.len as usize {
            let s = self.polys.side(seen, k);
            if let Some(next) = s.across {
                let node = Node {
                    ia: s.b,
                    ib: s.a,
                    root,
                    poly: next,
                    from: poly,
                    parent,
                    kind: Kind::Interval {
                        a_end: true,
                        b_end: true,
                    },
                };
                self.push(node);
            }
        }
        let cone = Cone {
            r: self.roots[root as usize].pos,
            root,
            all: true,
            ia: DVec2::ZERO,
            ib: DVec2::ZERO,
        };
        self.push_targets(p, (poly, seen), cone, parent, (None, None));
    }

    /// Expands node `node`: the polygon it enters, seen through its interval.
    fn expand(&mut self, p: &Problem<'_, '_>, node: u32) {
        let n = self.nodes[node as usize];
        let Some(seen) = self.polys.get(p.nav, p.filter, n.poly) else {
            return;
        };
        let Some(k) =
            (0..seen.len as usize).find(|&k| self.polys.side(seen, k).across == Some(n.from))
        else {
            return;
        };
        let entry = self.polys.side(seen, k);
        let Some(cone) = self.cone(p, &n, (seen, &entry)) else {
            return;
        };
        if cone.all && !self.whole.insert((cone.root, n.poly, k)) {
            return;
        }
        let Kind::Interval { a_end, b_end } = n.kind else {
            return;
        };
        // The roots round the interval's ends, where they are corners and not pruned.
        let bend = |s: &mut Self, end: bool, pos: DVec2, vertex: u16| {
            if cone.all || !end {
                return None;
            }
            let filter = (p.filter, p.passes_all);
            let at = (seen.tile as usize, n.poly);
            if !s.corners.is_corner(p.nav, filter, at, vertex, pos) {
                return None;
            }
            let key = if vertex == NO_VERTEX {
                point_key(pos, n.poly)
            } else {
                u64::from(seen.tile) << 16 | u64::from(vertex)
            };
            s.corner(cone.root, pos, n.poly, key)
        };
        let b_root = bend(self, b_end, entry.b, entry.b_vertex);
        let a_root = bend(self, a_end, entry.a, entry.a_vertex);
        self.successors(p, node, (seen, k), cone, (a_root, b_root));
        self.push_targets(p, (n.poly, seen), cone, node, (a_root, b_root));
    }

    /// How node `n` sees the polygon it enters through `entry` (side `seen`'s): from its root
    /// through its interval, or (the root on the entry side's line) all of it, from the root
    /// or, when the root lies beyond the interval on that line, from the interval's nearer
    /// end; `None` if the node leads nowhere.
    ///
    /// In that last case the root sees the polygon only along the line: its other points are
    /// reached this way only by bending at the nearer end. Where that end is a vertex of the
    /// side and no corner, an optimal path never bends there, so the node is dropped: a tile
    /// border is such a line, with a vertex wherever a polygon meets it, and bending at each
    /// multiplied the search along every border it ran by.
    fn cone(
        &mut self,
        p: &Problem<'_, '_>,
        n: &Node,
        (seen, entry): (Seen, &Side),
    ) -> Option<Cone> {
        let r = self.roots[n.root as usize].pos;
        let line = entry.b - entry.a;
        let side = orient(entry.a, entry.b, r);
        let mut cone = Cone {
            r,
            root: n.root,
            all: false,
            ia: n.ia,
            ib: n.ib,
        };
        if side < -1e-9 * line.length_squared() {
            return Some(cone);
        }
        cone.all = true;
        let t = |q: DVec2| (q - entry.a).dot(line);
        let (lo, hi) = (t(n.ia).min(t(n.ib)), t(n.ia).max(t(n.ib)));
        let tr = t(r);
        let slack = 1e-9 * line.length_squared();
        if tr < lo - slack || tr > hi + slack {
            // Along the line to the interval's nearer end, and on from there.
            let near_a = (tr - t(n.ia)).abs() < (tr - t(n.ib)).abs();
            let end = if near_a { n.ia } else { n.ib };
            let Kind::Interval { a_end, b_end } = n.kind else {
                return None;
            };
            let (vertex, at_vertex) = match near_a {
                true => (entry.a_vertex, a_end),
                false => (entry.b_vertex, b_end),
            };
            let filter = (p.filter, p.passes_all);
            let at = (seen.tile as usize, n.poly);
            if at_vertex && !self.corners.is_corner(p.nav, filter, at, vertex, end) {
                return None;
            }
            let root = self.corner(n.root, end, n.poly, point_key(end, n.poly))?;
            cone.r = end;
            cone.root = root;
        }
        Some(cone)
    }
}

/// The open list's key of `f`: its bits, whose order is the order of non-negative numbers
/// (`f` is never negative; a NaN, which valid input never makes, goes last). With Polyanya's
/// consistent heuristic `f` never decreases along the search, so the open list's monotone
/// radix heap fits; a successor whose `f` rounds below its parent's goes on the list's stack
/// of the least `f`, expanded next, which is as exact as a binary heap's order.
fn open_key(f: f64) -> u64 {
    if f.is_nan() {
        u64::MAX
    } else {
        f.max(0.0).to_bits()
    }
}

/// The pruning key of a corner that is not a tile vertex: its position on `poly` (the top bit
/// set, apart from tile vertices' keys).
fn point_key(pos: DVec2, poly: PolyRef) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    std::hash::Hash::hash(&(pos.x.to_bits(), pos.y.to_bits(), poly), &mut h);
    std::hash::Hasher::finish(&h) | 1 << 63
}
