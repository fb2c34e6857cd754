//! The mesh-derived grid: A* over the walkable spans of Recast's eroded compact heightfield.
//!
//! Each walkable span is a node; spans link to their neighbours through Recast's span
//! connections, so stacked floors, bridges and ramps are separate nodes in the same column and
//! the agent can only step where Recast lets it (within the climb height, with enough headroom,
//! at least the agent radius from walls and ledges). It is built with the same
//! [`BuildSettings`] as the navmesh, so the two describe the same walkable surface; the cell
//! size is [`BuildSettings::cell_size`].
//!
//! Moves are the eight grid moves. A straight move follows one span connection; a diagonal move
//! is allowed when both two-step routes around it (x then z, z then x) are walkable and reach
//! the same span: no corner cutting, as on Moving AI grids. Recast has no diagonal links, so
//! [`CornerCutting::IfOneSideFree`] and [`CornerCutting::Always`] both allow a diagonal
//! when one of the two routes is walkable.
//!
//! Off-mesh connections of the input (jumps, ladders) become links between the spans nearest
//! their two ends, one-way or both ways as the connection says, costing their length in cells
//! (never less than the octile distance between the two columns, so the heuristic stays
//! admissible) times the cost of their area.
//!
//! Move costs are in cells (straight 1, diagonal sqrt(2), or 10/14) times the cost of the area
//! entered. The area costs start as those of the navmesh's default filter
//! ([`QueryFilter::default`]: RecastDemo's, water 10, grass 2, jump 1.5), so grid and navmesh
//! paths avoid the same areas; change them with [`MeshGrid::set_area_cost`] or
//! [`MeshGrid::set_area_costs`].
//!
//! ```
//! use navkit::grid::{SearchContext, SearchOptions};
//! use navkit::{InputGeometry, NavMeshBuilder};
//! use glam::Vec3;
//!
//! let geom = InputGeometry::load("meshes/demo_level.gset")?;
//! let grid = NavMeshBuilder::new(&geom).grid()?;
//! let mut ctx = SearchContext::new();
//! let path = grid.find_path(&mut ctx, Vec3::new(2.0, 0.0, 2.0), Vec3::new(33.0, 2.5, 6.0), &SearchOptions::default())?;
//! assert!(path.is_complete());
//! println!("{} cells, {} waypoints, {:.2} long", path.points.len(), path.waypoints.len(), path.length);
//! # Ok::<(), navkit::Error>(())
//! ```

use std::collections::HashMap;

use glam::{UVec2, Vec3};

use super::path::simplify_indices;
use super::{
    CornerCutting, Cost, MAX_COST_MULTIPLIER, NodeId, SearchContext, SearchGraph, SearchOptions,
    SearchResult, astar, to_fixed,
};
use crate::build::{WalkableSpans, build_walkable_spans};
use crate::geometry::InputGeometry;
use crate::query::QueryFilter;
use crate::settings::{BuildSettings, area};
use crate::{Error, Result};

/// Number of area ids (Recast's `RC_WALKABLE_AREA` is 63).
const AREAS: usize = 64;

/// A grid over the walkable spans of a mesh (see the module docs).
#[derive(Clone, Debug)]
pub struct MeshGrid {
    spans: WalkableSpans,
    area_cost: [f32; AREAS],
    min_cost: f64,
    /// Off-mesh links out of each span that has any.
    links: HashMap<u32, Vec<Link>>,
    /// True for spans with links (checked before the map, on the hot path).
    has_links: Vec<bool>,
    /// Every span's moves without corner cutting, computed once ([`MeshGrid::moves_of`]).
    moves8: Vec<[u32; 8]>,
}

/// An off-mesh link out of a span.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    to: u32,
    cost: f64,
    area: u8,
}

/// A path found on a [`MeshGrid`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct MeshGridPath {
    /// How the search ended, its cost (in cells) and the nodes it expanded.
    pub result: SearchResult,
    /// The span the start point was snapped to, and the goal's.
    pub start_span: u32,
    /// The goal's span.
    pub goal_span: u32,
    /// The spans of the path, start to goal.
    pub spans: Vec<u32>,
    /// Every cell of the path as a world point (the cell's centre, on its floor).
    pub points: Vec<Vec3>,
    /// The simplified path: start, the cells where the direction of travel changes, goal.
    pub waypoints: Vec<Vec3>,
    /// Length of the path in world units (`points` as a 3D polyline).
    pub length: f32,
}

impl MeshGrid {
    /// Runs the build up to erosion and convex volumes ([`build_walkable_spans`]) and wraps the
    /// walkable spans. Convex volumes mark their areas as in the navmesh build.
    /// The input's off-mesh connections become links ([`MeshGrid::add_link`]); one whose ends
    /// have no walkable span within its radius is left out, as Detour leaves it unconnected.
    pub(crate) fn build(geom: &InputGeometry, settings: &BuildSettings) -> Result<MeshGrid> {
        let mut grid = Self::from_spans(build_walkable_spans(geom, settings)?);
        for c in &geom.off_mesh_connections {
            grid.add_link(
                c.start,
                c.end,
                c.radius,
                settings.agent_max_climb,
                c.bidirectional,
                c.area,
            );
        }
        Ok(grid)
    }

    /// Adds an off-mesh link from `start` to `end` (and back if `bidirectional`): between the
    /// walkable spans nearest the two points within `radius` in xz and `climb` in height.
    /// Returns false (and adds nothing) if an end has no such span or a value is not finite.
    pub fn add_link(
        &mut self,
        start: Vec3,
        end: Vec3,
        radius: f32,
        climb: f32,
        bidirectional: bool,
        area: u8,
    ) -> bool {
        if !(start.is_finite() && end.is_finite() && radius.is_finite() && climb.is_finite()) {
            return false;
        }
        let cs = self.spans.cell_size;
        // Within the radius (and half a cell diagonal, as cell centres are the candidates) in
        // xz, and the climb height in y.
        let reach = (radius.max(0.0) + cs * std::f32::consts::FRAC_1_SQRT_2).min(64.0 * cs);
        let up = climb.max(self.spans.cell_height);
        let snap = |p: Vec3| {
            let n = self.nearest_node(p, Vec3::new(reach, up, reach))?;
            let q = self.point(n);
            (glam::Vec2::new(q.x - p.x, q.z - p.z).length() <= reach).then_some(n)
        };
        let (Some(a), Some(b)) = (snap(start), snap(end)) else {
            return false;
        };
        if a == b {
            return false;
        }
        let (pa, pb) = (self.position(a), self.position(b));
        let octile = super::CostModel::Octile.octile(pa.x.abs_diff(pb.x), pa.y.abs_diff(pb.y));
        let cost = ((self.point(a).distance(self.point(b)) / cs) as f64).max(octile);
        let area = area % AREAS as u8;
        let mut add = |from: u32, to: u32| {
            self.links
                .entry(from)
                .or_default()
                .push(Link { to, cost, area });
            self.has_links[from as usize] = true;
        };
        add(a, b);
        if bidirectional {
            add(b, a);
        }
        true
    }

    /// Number of off-mesh links (one per direction).
    pub fn link_count(&self) -> usize {
        self.links.values().map(Vec::len).sum()
    }

    /// A grid over spans built elsewhere.
    pub fn from_spans(spans: WalkableSpans) -> MeshGrid {
        let mut grid = MeshGrid {
            has_links: vec![false; spans.spans.len()],
            spans,
            area_cost: [1.0; AREAS],
            min_cost: 1.0,
            links: HashMap::new(),
            moves8: Vec::new(),
        };
        grid.moves8 = (0..grid.spans.spans.len() as u32)
            .map(|i| grid.moves_of(i, CornerCutting::Never))
            .collect();
        grid.set_area_costs(&QueryFilter::default());
        grid
    }

    /// Takes every area cost from a navmesh query filter. Recast's walkable area
    /// ([`area::WALKABLE`], which the navmesh build turns into [`area::GROUND`]) gets the
    /// ground cost. Costs below 1e-3 (Detour allows 0) are raised to 1e-3.
    pub fn set_area_costs(&mut self, filter: &QueryFilter) {
        for a in 0..AREAS as u8 {
            let src = if a == area::WALKABLE { area::GROUND } else { a };
            let c = filter.area_cost(src);
            self.area_cost[a as usize] = if c.is_finite() {
                c.clamp(1e-3, MAX_COST_MULTIPLIER)
            } else {
                1.0
            };
        }
        self.update_min_cost();
    }

    fn update_min_cost(&mut self) {
        self.min_cost = self.area_cost.iter().fold(f32::INFINITY, |m, &c| m.min(c)) as f64;
    }

    /// The walkable spans.
    pub fn spans(&self) -> &WalkableSpans {
        &self.spans
    }

    /// The cell size (xz) in world units.
    pub fn cell_size(&self) -> f32 {
        self.spans.cell_size
    }

    /// Number of walkable spans (nodes that can be stood on).
    pub fn walkable_count(&self) -> usize {
        (0..self.spans.spans.len() as u32)
            .filter(|&i| self.spans.walkable(i))
            .count()
    }

    /// Sets the cost multiplier of moves into spans of area `area` (like
    /// [`crate::query::QueryFilter::set_area_cost`]). The cost must be finite and positive.
    pub fn set_area_cost(&mut self, area: u8, cost: f32) -> Result<()> {
        if !(cost.is_finite() && cost > 0.0 && cost <= MAX_COST_MULTIPLIER) {
            return Err(Error::InvalidArgument(format!(
                "area cost {cost}: must be finite, positive and at most {MAX_COST_MULTIPLIER}"
            )));
        }
        let slot = self.area_cost.get_mut(area as usize).ok_or_else(|| {
            Error::InvalidArgument(format!("area {area}: area ids are below {AREAS}"))
        })?;
        *slot = cost;
        self.update_min_cost();
        Ok(())
    }

    /// The cost multiplier of an area.
    pub fn area_cost(&self, area: u8) -> f32 {
        self.area_cost.get(area as usize).copied().unwrap_or(1.0)
    }

    /// The walkable span under `p`: in `p`'s cell column, the floor nearest `p` in height.
    /// `None` off the grid or where the column has no walkable span.
    pub fn node_at(&self, p: Vec3) -> Option<NodeId> {
        if !p.is_finite() {
            return None;
        }
        self.spans.span_at(p)
    }

    /// The walkable span nearest `p` (by 3D distance to its cell centre on its floor) among
    /// those within `half_extents` of it: x and z around `p`'s column, y above and below `p`,
    /// as Detour's `findNearestPoly` searches a box. A floor far above or below `p` in its own
    /// column is not taken for the one `p` stands on.
    pub fn nearest_node(&self, p: Vec3, half_extents: Vec3) -> Option<NodeId> {
        if !p.is_finite() || !half_extents.is_finite() {
            return None;
        }
        let s = &self.spans;
        let ext = half_extents.abs();
        let lo = ((p - ext - s.origin) / s.cell_size).floor();
        let hi = ((p + ext - s.origin) / s.cell_size).floor();
        let clamp = |v: f32, n: u32| (v.max(0.0) as i64).min(n as i64 - 1);
        let (x0, x1) = (clamp(lo.x, s.width), clamp(hi.x, s.width));
        let (z0, z1) = (clamp(lo.z, s.height), clamp(hi.z, s.height));
        if hi.x < 0.0 || hi.z < 0.0 || lo.x >= s.width as f32 || lo.z >= s.height as f32 {
            return None;
        }
        let mut best: Option<(f32, u32)> = None;
        for z in z0..=z1 {
            for x in x0..=x1 {
                let (first, count) = s.cells[(x + z * s.width as i64) as usize];
                for i in first..first + count as u32 {
                    if !s.walkable(i) {
                        continue;
                    }
                    let q = s.position(i);
                    if (q.y - p.y).abs() > ext.y {
                        continue;
                    }
                    let d = q.distance_squared(p);
                    if best.is_none_or(|(bd, _)| d < bd) {
                        best = Some((d, i));
                    }
                }
            }
        }
        best.map(|(_, i)| i)
    }

    /// The world point of a node: its cell's centre, on its floor.
    pub fn point(&self, node: NodeId) -> Vec3 {
        self.spans.position(node)
    }

    /// A* between the spans nearest two world points ([`MeshGrid::nearest_node`] within
    /// Detour's default half extents (2, 4, 2), as the navmesh queries snap them). A point that
    /// is not finite is [`Error::NonFinite`]; one with no walkable span that near is
    /// [`Error::PointOffMesh`], the navmesh's error for the same case. An unreachable goal gives
    /// a [`crate::PathStatus::Partial`] path to the span nearest it that can be reached.
    pub fn find_path(
        &self,
        ctx: &mut SearchContext,
        start: Vec3,
        goal: Vec3,
        options: &SearchOptions,
    ) -> Result<MeshGridPath> {
        let snap = |argument: &'static str, point: Vec3| {
            if !point.is_finite() {
                return Err(Error::NonFinite {
                    argument,
                    value: point,
                });
            }
            let half_extents = crate::query::DEFAULT_HALF_EXTENTS;
            self.nearest_node(point, half_extents)
                .ok_or(Error::PointOffMesh {
                    argument,
                    point,
                    half_extents,
                })
        };
        let (s, g) = (snap("start", start)?, snap("goal", goal)?);
        let result = astar::search(ctx, self, s, g, options)?;
        let spans: Vec<u32> = ctx.path().to_vec();
        let points: Vec<Vec3> = spans.iter().map(|&n| self.point(n)).collect();
        let cells: Vec<UVec2> = spans.iter().map(|&n| self.position(n)).collect();
        let waypoints = simplify_indices(&cells)
            .into_iter()
            .map(|i| points[i])
            .collect();
        let length = points.windows(2).fold(0.0, |a, w| a + w[0].distance(w[1]));
        Ok(MeshGridPath {
            result,
            start_span: s,
            goal_span: g,
            spans,
            points,
            waypoints,
            length,
        })
    }

    #[inline]
    fn cost_into(&self, node: NodeId) -> f64 {
        self.area_cost[(self.spans.spans[node as usize].area as usize) % AREAS] as f64
    }
}

impl SearchGraph for MeshGrid {
    fn node_count(&self) -> usize {
        self.spans.spans.len()
    }

    fn is_passable(&self, node: NodeId) -> bool {
        self.spans.walkable(node)
    }

    #[inline]
    fn position(&self, node: NodeId) -> UVec2 {
        let s = &self.spans.spans[node as usize];
        UVec2::new(s.x, s.z)
    }

    fn min_cost_multiplier(&self) -> f64 {
        self.min_cost
    }

    fn for_each_neighbour<F: FnMut(NodeId, Cost)>(
        &self,
        node: NodeId,
        options: &SearchOptions,
        mut f: F,
    ) {
        let straight = options.cost_model.straight();
        let diagonal = options.cost_model.diagonal();
        let computed;
        let moves = match options.corner_cutting {
            CornerCutting::Never => &self.moves8[node as usize],
            cc => {
                computed = self.moves_of(node, cc);
                &computed
            }
        };
        for (k, &n) in moves.iter().enumerate() {
            if n != NO_MOVE {
                let base = if k < 4 { straight } else { diagonal };
                f(n, to_fixed(base * self.cost_into(n)));
            }
        }
        if self.has_links[node as usize] {
            for l in self.links.get(&node).into_iter().flatten() {
                // The integer model's straight cost is 10: scale the link the same way.
                f(
                    l.to,
                    to_fixed(l.cost * straight * self.area_cost[l.area as usize] as f64),
                );
            }
        }
    }
}

impl MeshGrid {
    /// The spans one move from `node`: four straight moves (directions as
    /// [`crate::build::SPAN_DIRS`]), then four diagonal ones; [`NO_MOVE`] where there is none.
    fn moves_of(&self, node: NodeId, corner_cutting: CornerCutting) -> [u32; 8] {
        let s = &self.spans;
        let mut out = [NO_MOVE; 8];
        if !s.walkable(node) {
            return out;
        }
        let side: [Option<u32>; 4] = std::array::from_fn(|d| s.step(node, d));
        for d in 0..4 {
            out[d] = side[d].unwrap_or(NO_MOVE);
            let e = (d + 1) % 4;
            let a = side[d].and_then(|n| s.step(n, e));
            let b = side[e].and_then(|n| s.step(n, d));
            let target = match (a, b, corner_cutting) {
                (Some(a), Some(b), _) if a == b => Some(a),
                (_, _, CornerCutting::Never) => None,
                (Some(a), _, _) => Some(a),
                (None, b, _) => b,
            };
            out[4 + d] = target.unwrap_or(NO_MOVE);
        }
        out
    }
}

/// "No move" in a move table.
const NO_MOVE: u32 = u32::MAX;

impl MeshGridPath {
    /// True if the path reaches the goal's span.
    pub fn is_complete(&self) -> bool {
        self.result.is_complete()
    }
}
