//! Hierarchical long paths (HPA*, Botea, Müller and Schaeffer 2004, over a tiled navmesh's
//! tiles): complete wherever a path exists, however long, with search memory bounded by the
//! abstract graph and a window of tiles, where Detour's flat A* runs out of nodes.
//!
//! **The abstract graph** ([`Hierarchy::build`]): every link between two tiles is a node, at
//! the middle of its portal; inside each tile, Dijkstra over the tile's polygons (Detour's
//! costs: distance between portal middles times the area cost) gives the cost from every link
//! entering the tile to every link leaving it. Off-mesh links between tiles are links too.
//!
//! **A query** ([`Hierarchy::path`]): Dijkstra inside the start's tile reaches its exits;
//! A* over the abstract graph (straight-line distance to the goal as its estimate) runs until
//! the goal, reached by Dijkstra inside the goal's tile from each entry popped there, is the
//! cheapest open node. The abstract path names a run of tiles; A* over the polygons of
//! [`WINDOW_TILES`] of them at a time refines it into a corridor, and Detour's
//! `findStraightPath` pulls the string along the whole corridor.
//!
//! **Changes** ([`Hierarchy::refresh`]): a rebuilt tile, or one a tile cache changed, is read
//! again and the costs inside it and its neighbours recomputed; nothing else.
//!
//! The graph is built for one [`QueryFilter`] (its flags and area costs decide the costs); use
//! one hierarchy per filter.

mod dijkstra;
mod tile_graph;

use glam::Vec3;
use rustc_hash::FxHashMap;

use crate::Result;
use crate::navmesh::NavMesh;
use crate::query::{
    Corridor, MAX_BUFFER, NavMeshQuery, NavPath, NearestPoly, PathOptions, PolyRef, QueryFilter,
    SmoothPath, StraightPath, StraightPathOptions,
};
use dijkstra::{Open, within_tile, within_tiles};
use tile_graph::{Entry, Pid, TileGraph, poly_ref};

/// Tiles of the abstract path each refinement A* covers: its polygons are the search's whole
/// memory, whatever the path's length.
pub const WINDOW_TILES: usize = 12;

/// The abstract search's estimate is the straight-line distance times this: the costs between
/// portal middles run 10-20% over the straight line, so an exact estimate leaves every entry
/// of every tile near the line open; at 1.3 the search takes a few entries per tile, and the
/// refinement and string pulling make the path within 1% of the flat search's on the mean
/// (`navkit bench-tiled`).
const ABSTRACT_WEIGHT: f32 = 1.3;

/// The corridor's most polygons when the goal cannot be reached (Detour's partial path).
const MAX_FALLBACK: usize = 4096;

/// The abstract graph of a tiled navmesh under one filter (see the [module](self) docs).
#[derive(Clone, Debug)]
pub struct Hierarchy {
    tiles: Vec<Option<TileGraph>>,
    /// Each polygon's connected part (links taken both ways), per tile: polygons of different
    /// parts cannot reach each other.
    parts: Vec<Vec<u32>>,
    filter: QueryFilter,
    /// The smallest area cost (the A* estimates' scale).
    min_cost: f32,
}

/// A hierarchical path: the path (as [`NavMeshQuery::path`] gives it, its corridor from the
/// hierarchy) and what the search took.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchicalPath {
    /// The path: its corridor, and the straight and smooth paths [`PathOptions`] asks for.
    /// Complete wherever the goal can be reached; else partial, leading to the polygon of the
    /// start's connected part nearest the goal.
    pub path: NavPath,
    /// Tiles the abstract path crosses.
    pub tiles: usize,
    /// Abstract nodes the search took from its open list.
    pub abstract_expanded: usize,
    /// Polygon nodes the refinement searches held, summed over the windows.
    pub refine_nodes: usize,
    /// The most polygon nodes one window held: the search's memory.
    pub max_window_nodes: usize,
}

/// What a search found: the corridor's polygons, complete or not, and its figures.
#[derive(Default)]
struct Found {
    complete: bool,
    tiles: usize,
    abstract_expanded: usize,
    refine_nodes: usize,
    max_window_nodes: usize,
}

/// An abstract node: the entry `entry` of tile `tile`.
type Key = (u32, u32);

/// A node of the abstract search.
#[derive(Clone, Copy, Debug)]
struct AbstractNode {
    cost: f32,
    parent: Option<Key>,
    closed: bool,
}

impl Hierarchy {
    /// The abstract graph of every tile of `nav` under `filter`.
    pub fn build(nav: &NavMesh, filter: &QueryFilter) -> Hierarchy {
        let mut tiles = vec![None; nav.max_tiles()];
        for t in nav.tiles() {
            tiles[t.index()] = Some(TileGraph::read(nav, t, filter));
        }
        let min_cost = (0..64u8)
            .map(|a| filter.area_cost(a))
            .filter(|c| c.is_finite() && *c > 0.0)
            .fold(f32::INFINITY, f32::min);
        let mut h = Hierarchy {
            tiles,
            parts: Vec::new(),
            filter: filter.clone(),
            min_cost: if min_cost.is_finite() { min_cost } else { 1.0 },
        };
        let all: Vec<u32> = (0..h.tiles.len() as u32).collect();
        h.connect(&all);
        h
    }

    /// Brings the graph up to date with `nav` after tiles changed (a tiled navmesh's tiles
    /// rebuilt, added or removed; a tile cache's update after obstacles came or went): the
    /// tiles whose ref changed (Detour gives a replaced tile a new salt) are read again, and
    /// the costs inside them and the tiles they link to or from are recomputed; nothing else.
    /// Returns how many tiles were read again. `nav` must be the navmesh the hierarchy was
    /// built from.
    ///
    /// ```
    /// # fn f(cache: &mut navkit::TileCache) -> navkit::Result<()> {
    /// use navkit::query::{QueryFilter, hierarchy::Hierarchy};
    /// let mut hierarchy = Hierarchy::build(cache.navmesh(), &QueryFilter::default());
    /// let post = navkit::tilecache::ObstacleShape::Cylinder {
    ///     pos: glam::Vec3::new(1.0, 0.0, 1.0), radius: 0.5, height: 2.0,
    /// };
    /// cache.add(&post)?;
    /// cache.update_until_done()?;
    /// hierarchy.refresh(cache.navmesh());
    /// # Ok(()) }
    /// ```
    pub fn refresh(&mut self, nav: &NavMesh) -> usize {
        if self.tiles.len() != nav.max_tiles() {
            *self = Hierarchy::build(nav, &self.filter);
            return self.tiles.iter().flatten().count();
        }
        let now = |i: usize| nav.tile(i).map(|t| t.tile_ref());
        let mut touched: Vec<u32> = (0..self.tiles.len())
            .filter(|&i| self.tiles[i].as_ref().map(|g| g.tile_ref) != now(i))
            .map(|i| i as u32)
            .collect();
        if touched.is_empty() {
            return 0;
        }
        let mut redo = touched.clone();
        // Old links out of the changed tiles, and every tile linking into them.
        for (i, g) in self.tiles.iter().enumerate() {
            let Some(g) = g else { continue };
            if touched.contains(&(i as u32)) {
                redo.extend(g.exits.iter().map(|e| e.to.tile));
            } else if g.exits.iter().any(|e| touched.contains(&e.to.tile)) {
                redo.push(i as u32);
            }
        }
        let read = |i: u32| {
            nav.tile(i as usize)
                .map(|t| TileGraph::read(nav, t, &self.filter))
        };
        for &i in &touched {
            self.tiles[i as usize] = read(i);
        }
        // New links out of the changed tiles.
        for &i in &touched {
            if let Some(g) = &self.tiles[i as usize] {
                redo.extend(g.exits.iter().map(|e| e.to.tile));
            }
        }
        redo.sort_unstable();
        redo.dedup();
        touched.sort_unstable();
        for &i in &redo {
            if touched.binary_search(&i).is_err() {
                self.tiles[i as usize] = read(i);
            }
        }
        self.connect(&redo);
        redo.len()
    }

    /// Recomputes the entries of every tile and the costs inside the tiles `redo`.
    fn connect(&mut self, redo: &[u32]) {
        for g in self.tiles.iter_mut().flatten() {
            g.entries.clear();
        }
        let n = self.tiles.len();
        for from in 0..n {
            let Some(exits) = self.tiles[from].as_ref().map(|g| g.exits.clone()) else {
                continue;
            };
            for (k, e) in exits.iter().enumerate() {
                let entry = match self.tiles.get_mut(e.to.tile as usize) {
                    Some(Some(to)) => {
                        to.entries.push(Entry {
                            poly: e.to.poly,
                            at: e.at,
                        });
                        (to.entries.len() - 1) as u32
                    }
                    _ => u32::MAX,
                };
                if let Some(Some(g)) = self.tiles.get_mut(from) {
                    g.exits[k].entry = entry;
                }
            }
        }
        for &i in redo {
            if let Some(Some(g)) = self.tiles.get_mut(i as usize) {
                g.intra = intra_costs(g, i);
            }
        }
        self.parts = parts(&self.tiles);
        // Every tile's entries are listed again, in the same order as before unless a link
        // into it changed, and then it is in `redo`: its costs are recomputed.
    }

    /// The abstract graph's size: its nodes (links between tiles) and edges (costs inside a
    /// tile from a link entering it to a link leaving it).
    pub fn size(&self) -> (usize, usize) {
        let tiles = self.tiles.iter().flatten();
        let nodes = tiles.clone().map(|g| g.entries.len()).sum();
        let edges = tiles
            .map(|g| g.intra.iter().map(Vec::len).sum::<usize>())
            .sum();
        (nodes, edges)
    }

    /// The polygon of `s`'s part whose centre is nearest `b`, and that centre.
    fn nearest_in_part(&self, s: Pid, b: Vec3) -> Option<(Pid, Vec3)> {
        let want = *self.parts.get(s.tile as usize)?.get(s.poly as usize)?;
        let mut best: Option<(f32, Pid, Vec3)> = None;
        for (t, g) in self.tiles.iter().enumerate() {
            let (Some(g), Some(parts)) = (g, self.parts.get(t)) else {
                continue;
            };
            for (p, (&c, &part)) in g.centre.iter().zip(parts).enumerate() {
                let d = c.distance_squared(b);
                if part == want && best.is_none_or(|x| d < x.0) {
                    best = Some((
                        d,
                        Pid {
                            tile: t as u32,
                            poly: p as u32,
                        },
                        c,
                    ));
                }
            }
        }
        best.map(|(_, p, c)| (p, c))
    }

    fn graph(&self, tile: u32) -> Option<&TileGraph> {
        self.tiles.get(tile as usize)?.as_ref()
    }

    /// The abstract nodes reachable from the start `s` (entered at `a`): the cost to each
    /// entry of a neighbouring tile, and, if the goal is in the start's tile, its cost.
    fn starts(&self, s: Pid, a: Vec3, goal: Pid, b: Vec3) -> (Vec<(Key, f32)>, Option<f32>) {
        let Some(g) = self.graph(s.tile) else {
            return (Vec::new(), None);
        };
        let (cost, pos) = within_tile(g, s.tile, s.poly, a);
        let out = g
            .exits
            .iter()
            .filter(|e| cost[e.from as usize].is_finite() && e.entry != u32::MAX)
            .map(|e| {
                let f = e.from as usize;
                let c = cost[f] + pos[f].distance(e.at) * g.cost[f];
                ((e.to.tile, e.entry), c)
            })
            .collect();
        let direct = (goal.tile == s.tile && cost[goal.poly as usize].is_finite()).then(|| {
            let p = goal.poly as usize;
            cost[p] + pos[p].distance(b) * g.cost[p]
        });
        (out, direct)
    }

    /// The cost from entry `k` of the goal's tile to the goal.
    fn to_goal(&self, k: u32, goal: Pid, b: Vec3) -> Option<f32> {
        let g = self.graph(goal.tile)?;
        let e = g.entries.get(k as usize)?;
        let (cost, pos) = within_tile(g, goal.tile, e.poly, e.at);
        let p = goal.poly as usize;
        cost[p]
            .is_finite()
            .then(|| cost[p] + pos[p].distance(b) * g.cost[p])
    }

    /// The abstract path from `s` to `goal`: the entries crossed, in order (empty if the goal
    /// is best reached without leaving the start's tile), and the nodes expanded; `None` if
    /// the goal cannot be reached.
    fn abstract_path(&self, s: Pid, a: Vec3, goal: Pid, b: Vec3) -> Option<(Vec<Key>, usize)> {
        const GOAL: Key = (u32::MAX, u32::MAX);
        let (starts, direct) = self.starts(s, a, goal, b);
        let mut seen: FxHashMap<Key, AbstractNode> = FxHashMap::default();
        let mut open = std::collections::BinaryHeap::new();
        let h = |p: Vec3| p.distance(b) * self.min_cost * ABSTRACT_WEIGHT;
        if let Some(c) = direct {
            seen.insert(
                GOAL,
                AbstractNode {
                    cost: c,
                    parent: None,
                    closed: false,
                },
            );
            open.push(Open { key: c, item: GOAL });
        }
        for (k, c) in starts {
            let at = self.graph(k.0)?.entries.get(k.1 as usize)?.at;
            let better = seen.get(&k).is_none_or(|n| c < n.cost);
            if better {
                seen.insert(
                    k,
                    AbstractNode {
                        cost: c,
                        parent: None,
                        closed: false,
                    },
                );
                open.push(Open {
                    key: c + h(at),
                    item: k,
                });
            }
        }
        let mut expanded = 0;
        while let Some(Open { item: k, .. }) = open.pop() {
            let node = *seen.get(&k)?;
            if node.closed {
                continue;
            }
            expanded += 1;
            if k == GOAL {
                let mut path = Vec::new();
                let mut cur = node.parent;
                while let Some(p) = cur {
                    path.push(p);
                    cur = seen.get(&p).and_then(|n| n.parent);
                }
                path.reverse();
                return Some((path, expanded));
            }
            if let Some(n) = seen.get_mut(&k) {
                n.closed = true;
            }
            let g = self.graph(k.0)?;
            if k.0 == goal.tile {
                if let Some(c) = self.to_goal(k.1, goal, b) {
                    let c = node.cost + c;
                    if seen.get(&GOAL).is_none_or(|n| c < n.cost) {
                        seen.insert(
                            GOAL,
                            AbstractNode {
                                cost: c,
                                parent: Some(k),
                                closed: false,
                            },
                        );
                        open.push(Open { key: c, item: GOAL });
                    }
                }
            }
            for &(x, c) in g.intra.get(k.1 as usize).map_or(&[][..], |v| v.as_slice()) {
                let e = g.exits[x as usize];
                if e.entry == u32::MAX {
                    continue;
                }
                let next = (e.to.tile, e.entry);
                let c = node.cost + c;
                if seen.get(&next).is_none_or(|n| !n.closed && c < n.cost) {
                    seen.insert(
                        next,
                        AbstractNode {
                            cost: c,
                            parent: Some(k),
                            closed: false,
                        },
                    );
                    open.push(Open {
                        key: c + h(e.at),
                        item: next,
                    });
                }
            }
        }
        None
    }

    /// A path from `start` to `goal` with its corridor from the hierarchy: the points snap to
    /// their nearest polygons within `options.half_extents` under the hierarchy's filter, and
    /// the straight, smooth and optimal paths are made as [`NavMeshQuery::path`] makes them
    /// (`options.max_polys` does not cut this corridor). `query` must be on the navmesh the
    /// hierarchy was built from. A goal that cannot be reached gives a partial path (to the
    /// polygon of the start's connected part nearest the goal); an end with no polygon near it
    /// is [`Error::PointOffMesh`](crate::Error::PointOffMesh).
    ///
    /// ```
    /// # fn f(navmesh: &navkit::NavMesh) -> navkit::Result<()> {
    /// use glam::Vec3;
    /// use navkit::query::{PathOptions, QueryFilter, hierarchy::Hierarchy};
    /// let filter = QueryFilter::default();
    /// let hierarchy = Hierarchy::build(navmesh, &filter);   // once per navmesh and filter
    /// let mut query = navmesh.query()?;
    /// let (a, b) = (Vec3::new(-18.0, -2.4, 24.0), Vec3::new(20.0, -2.3, -18.0));
    /// let found = hierarchy.path(&mut query, a, b, &PathOptions::default())?;
    /// println!("{:?}, {:.1} m over {} tiles", found.path.status(), found.path.straight.length(), found.tiles);
    /// # Ok(()) }
    /// ```
    pub fn path(
        &self,
        query: &mut NavMeshQuery<'_>,
        start: Vec3,
        goal: Vec3,
        options: &PathOptions,
    ) -> Result<HierarchicalPath> {
        self.path_with(query, start, goal, options, |s, a, g, b, found| {
            let (keys, expanded) = self.abstract_path(s, a, g, b)?;
            found.tiles = keys.len() + 1;
            found.abstract_expanded = expanded;
            self.refine(&keys, s, a, g, b, found)
        })
    }

    /// [`Hierarchy::path`] with its corridor from one A* over every polygon, with the same
    /// costs and no node limit: the reference the hierarchical path's length is measured
    /// against (what Detour's search finds with an unbounded node pool). Its memory grows
    /// with the path.
    pub fn flat_path(
        &self,
        query: &mut NavMeshQuery<'_>,
        start: Vec3,
        goal: Vec3,
        options: &PathOptions,
    ) -> Result<HierarchicalPath> {
        self.path_with(query, start, goal, options, |s, a, g, b, found| {
            let mut nodes = 0;
            let path = within_tiles(
                |t| self.graph(t),
                |_| true,
                (s, a),
                (g, b),
                self.min_cost,
                &mut nodes,
            );
            found.refine_nodes = nodes;
            found.max_window_nodes = nodes;
            path.map(|(p, _)| p)
        })
    }

    /// A path between the polygons nearest `start` and `goal`, its corridor found by `search`
    /// (to the nearest polygon of the start's part if the goal is in another).
    fn path_with(
        &self,
        query: &mut NavMeshQuery<'_>,
        start: Vec3,
        goal: Vec3,
        options: &PathOptions,
        search: impl Fn(Pid, Vec3, Pid, Vec3, &mut Found) -> Option<Vec<Pid>>,
    ) -> Result<HierarchicalPath> {
        let sp = query.nearest_poly("start", start, options.half_extents, &self.filter)?;
        let gp = query.nearest_poly("goal", goal, options.half_extents, &self.filter)?;
        let layout = query.navmesh().params().ref_layout();
        let pid = |r: PolyRef| {
            let (_, t, p) = layout.decode(r.to_u64());
            Pid { tile: t, poly: p }
        };
        let (s, g) = (pid(sp.poly), pid(gp.poly));
        let (a, b) = (sp.point, gp.point);
        let nav = query.navmesh();
        for p in [s, g] {
            let current = nav.tile(p.tile as usize).map(|t| t.tile_ref());
            let known = self
                .graph(p.tile)
                .filter(|t| (p.poly as usize) < t.cost.len());
            if known.map(|t| t.tile_ref) != current {
                return Err(crate::Error::InvalidArgument(
                    "the hierarchy is older than the navmesh's tiles (or of another navmesh): \
                     call Hierarchy::refresh after tiles change"
                        .into(),
                ));
            }
        }
        let part = |p: Pid| {
            self.parts
                .get(p.tile as usize)?
                .get(p.poly as usize)
                .copied()
        };
        let mut found = Found::default();
        let mut pids = if part(s).is_some() && part(s) == part(g) {
            search(s, a, g, b, &mut found)
        } else {
            None
        };
        found.complete = pids.is_some();
        if pids.is_none() {
            // Unreachable: a complete path to the polygon of the start's part nearest the goal,
            // partial (as Detour's search ends as near the goal as it got).
            pids = self
                .nearest_in_part(s, b)
                .and_then(|(t, at)| search(s, a, t, at, &mut found));
        }
        let polys: Vec<PolyRef> = match pids {
            Some(pids) => pids
                .iter()
                .map(|&p| poly_ref(nav, self.graph(p.tile).map_or(0, |t| t.tile_ref), p))
                .collect(),
            // A part the hierarchy cannot cross (one-way links): Detour's partial path.
            None => {
                let c =
                    query.find_path(sp.poly, gp.poly, start, goal, &self.filter, MAX_FALLBACK)?;
                c.polys
            }
        };
        self.finish(query, start, goal, (sp, gp), polys, found, options)
    }

    /// The path along `polys` (from `ends.0` to `ends.1`): its straight, smooth and optimal
    /// paths as `options` asks.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        &self,
        query: &mut NavMeshQuery<'_>,
        start: Vec3,
        goal: Vec3,
        ends: (NearestPoly, NearestPoly),
        polys: Vec<PolyRef>,
        found: Found,
        options: &PathOptions,
    ) -> Result<HierarchicalPath> {
        let (s, g) = ends;
        let complete = found.complete && polys.last() == Some(&g.poly);
        let corridor = Corridor::found(polys, complete);
        let straight = match &options.straight {
            Some(o) => {
                let o = StraightPathOptions {
                    max_points: o
                        .max_points
                        .max(corridor.polys.len() * 2 + 2)
                        .min(MAX_BUFFER),
                    ..*o
                };
                query.straight_to(&corridor, start, goal, g, &o)?
            }
            None => StraightPath::default(),
        };
        let smooth = match &options.smooth {
            Some(o) => query.smooth_path(&corridor.polys, start, goal, &self.filter, o)?,
            None => SmoothPath::default(),
        };
        let optimal = match &options.optimal {
            Some(o) => Some(
                query
                    .optimal_path(s, g, &self.filter, options.max_polys, o)?
                    .0,
            ),
            None => None,
        };
        Ok(HierarchicalPath {
            path: NavPath {
                start: s,
                goal: g,
                corridor,
                straight,
                smooth,
                optimal,
            },
            tiles: found.tiles,
            abstract_expanded: found.abstract_expanded,
            refine_nodes: found.refine_nodes,
            max_window_nodes: found.max_window_nodes,
        })
    }

    /// The corridor along the abstract path `keys`, by A* over [`WINDOW_TILES`] tiles at a
    /// time.
    fn refine(
        &self,
        keys: &[Key],
        s: Pid,
        a: Vec3,
        g: Pid,
        b: Vec3,
        out: &mut Found,
    ) -> Option<Vec<Pid>> {
        let mut tiles = vec![s.tile];
        tiles.extend(keys.iter().map(|k| k.0));
        let mut corridor: Vec<Pid> = Vec::new();
        let (mut from, mut at) = (s, a);
        let mut i = 0;
        loop {
            let j = (i + WINDOW_TILES).min(tiles.len() - 1);
            let window = &tiles[i..=j];
            let (to, to_at) = if j == tiles.len() - 1 {
                (g, b)
            } else {
                let k = keys[j - 1];
                let e = self.graph(k.0)?.entries.get(k.1 as usize)?;
                (
                    Pid {
                        tile: k.0,
                        poly: e.poly,
                    },
                    e.at,
                )
            };
            let mut nodes = 0;
            let (part, entered) = within_tiles(
                |t| self.graph(t),
                |t| window.contains(&t),
                (from, at),
                (to, to_at),
                self.min_cost,
                &mut nodes,
            )?;
            out.refine_nodes += nodes;
            out.max_window_nodes = out.max_window_nodes.max(nodes);
            let skip = usize::from(!corridor.is_empty());
            corridor.extend_from_slice(&part[skip..]);
            if j == tiles.len() - 1 {
                return Some(corridor);
            }
            (from, at) = (to, entered);
            i = j;
        }
    }
}

/// For each entry of `g` (tile `me`), the cost to each exit it reaches.
fn intra_costs(g: &TileGraph, me: u32) -> Vec<Vec<(u32, f32)>> {
    g.entries
        .iter()
        .map(|e| {
            let (cost, pos) = within_tile(g, me, e.poly, e.at);
            g.exits
                .iter()
                .enumerate()
                .filter(|(_, x)| cost[x.from as usize].is_finite())
                .map(|(k, x)| {
                    let f = x.from as usize;
                    (k as u32, cost[f] + pos[f].distance(x.at) * g.cost[f])
                })
                .collect()
        })
        .collect()
}

/// Each polygon's connected part over `tiles`' links (taken both ways; excluded polygons are
/// parts of their own), per tile.
fn parts(tiles: &[Option<TileGraph>]) -> Vec<Vec<u32>> {
    let mut base = Vec::with_capacity(tiles.len() + 1);
    let mut n = 0u32;
    for g in tiles {
        base.push(n);
        n += g.as_ref().map_or(0, |g| g.cost.len() as u32);
    }
    let mut up: Vec<u32> = (0..n).collect();
    fn root(up: &mut [u32], mut x: u32) -> u32 {
        while up[x as usize] != x {
            up[x as usize] = up[up[x as usize] as usize];
            x = up[x as usize];
        }
        x
    }
    for (t, g) in tiles.iter().enumerate() {
        let Some(g) = g else { continue };
        for p in 0..g.cost.len() as u32 {
            if !g.cost[p as usize].is_finite() {
                continue;
            }
            for e in g.links(p) {
                let Some(Some(to)) = tiles.get(e.to.tile as usize) else {
                    continue;
                };
                if !to
                    .cost
                    .get(e.to.poly as usize)
                    .is_some_and(|c| c.is_finite())
                {
                    continue;
                }
                let (a, b) = (
                    root(&mut up, base[t] + p),
                    root(&mut up, base[e.to.tile as usize] + e.to.poly),
                );
                up[a.max(b) as usize] = a.min(b);
            }
        }
    }
    tiles
        .iter()
        .enumerate()
        .map(|(t, g)| {
            let len = g.as_ref().map_or(0, |g| g.cost.len() as u32);
            (0..len).map(|p| root(&mut up, base[t] + p)).collect()
        })
        .collect()
}
