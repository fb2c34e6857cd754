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
//! Move costs are in cells (straight 1, diagonal sqrt(2), or 10/14) times the cost of the area
//! entered ([`MeshGrid::set_area_cost`], 1 by default), so world lengths are costs times the
//! cell size.
//!
//! ```no_run
//! use navkit::grid::{mesh::MeshGrid, SearchContext, SearchOptions};
//! use navkit::{BuildSettings, InputGeometry};
//! use glam::Vec3;
//!
//! let geom = InputGeometry::load("nav_test.obj")?;
//! let grid = MeshGrid::build(&geom, &BuildSettings::default())?;
//! let mut ctx = SearchContext::new();
//! let path = grid.find_path(&mut ctx, Vec3::new(-2.0, -2.0, 0.0), Vec3::new(40.0, 10.0, 5.0), &SearchOptions::default())?;
//! println!("{} cells, {} waypoints, {:.2} long", path.points.len(), path.waypoints.len(), path.length);
//! # Ok::<(), navkit::Error>(())
//! ```

use glam::{UVec2, Vec3};
use serde::Serialize;

use super::path::simplify_indices;
use super::{
    astar, CornerCutting, NodeId, SearchContext, SearchGraph, SearchOptions, SearchResult,
    SearchStatus,
};
use crate::build::{build_walkable_spans, WalkableSpans};
use crate::geometry::InputGeometry;
use crate::settings::BuildSettings;
use crate::{Error, Result};

/// Number of area ids (Recast's `RC_WALKABLE_AREA` is 63).
const AREAS: usize = 64;

/// A grid over the walkable spans of a mesh (see the module docs).
#[derive(Clone, Debug)]
pub struct MeshGrid {
    spans: WalkableSpans,
    area_cost: [f32; AREAS],
    min_cost: f64,
}

/// A path found on a [`MeshGrid`].
#[derive(Clone, Debug, PartialEq, Serialize)]
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
    pub fn build(geom: &InputGeometry, settings: &BuildSettings) -> Result<MeshGrid> {
        Ok(Self::from_spans(build_walkable_spans(geom, settings)?))
    }

    /// A grid over spans built elsewhere.
    pub fn from_spans(spans: WalkableSpans) -> MeshGrid {
        MeshGrid {
            spans,
            area_cost: [1.0; AREAS],
            min_cost: 1.0,
        }
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
        if !(cost.is_finite() && cost > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "area cost {cost}: must be finite and positive"
            )));
        }
        let slot = self.area_cost.get_mut(area as usize).ok_or_else(|| {
            Error::InvalidArgument(format!("area {area}: area ids are below {AREAS}"))
        })?;
        *slot = cost;
        self.min_cost = self.area_cost.iter().fold(f32::INFINITY, |m, &c| m.min(c)) as f64;
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

    /// The walkable span nearest `p`: the one under it if any, else the nearest (by 3D distance
    /// to its cell centre) within `radius` cells around its column.
    pub fn nearest_node(&self, p: Vec3, radius: u32) -> Option<NodeId> {
        if let Some(n) = self.node_at(p) {
            return Some(n);
        }
        if !p.is_finite() {
            return None;
        }
        let s = &self.spans;
        let local = (p - s.origin) / s.cell_size;
        let (cx, cz) = (local.x.floor() as i64, local.z.floor() as i64);
        let r = radius as i64;
        let mut best: Option<(f32, u32)> = None;
        for z in (cz - r).max(0)..=(cz + r).min(s.height as i64 - 1) {
            for x in (cx - r).max(0)..=(cx + r).min(s.width as i64 - 1) {
                let (first, count) = s.cells[(x + z * s.width as i64) as usize];
                for i in first..first + count as u32 {
                    if s.walkable(i) {
                        let d = s.position(i).distance_squared(p);
                        if best.is_none_or(|(bd, _)| d < bd) {
                            best = Some((d, i));
                        }
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

    /// A* between the spans nearest two world points (searched within 8 cells of each point's
    /// column). Errors if a point is not finite or has no walkable span near it; an unreachable
    /// goal gives a path with [`SearchStatus::Unreachable`] and no points.
    pub fn find_path(
        &self,
        ctx: &mut SearchContext,
        from: Vec3,
        to: Vec3,
        options: &SearchOptions,
    ) -> Result<MeshGridPath> {
        let snap = |what: &str, p: Vec3| {
            if !p.is_finite() {
                return Err(Error::InvalidArgument(format!(
                    "{what} point {p} is not finite"
                )));
            }
            self.nearest_node(p, 8).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{what} point {p} has no walkable grid cell within 8 cells"
                ))
            })
        };
        let (s, g) = (snap("start", from)?, snap("goal", to)?);
        let result = astar::search(ctx, self, s, g, options);
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

    fn for_each_neighbour<F: FnMut(NodeId, f64)>(
        &self,
        node: NodeId,
        options: &SearchOptions,
        mut f: F,
    ) {
        let s = &self.spans;
        let straight = options.cost_model.straight();
        let diagonal = options.cost_model.diagonal();
        let mut side = [None; 4];
        for (d, slot) in side.iter_mut().enumerate() {
            *slot = s.step(node, d);
            if let Some(n) = *slot {
                f(n, straight * self.cost_into(n));
            }
        }
        for d in 0..4 {
            let e = (d + 1) % 4;
            let a = side[d].and_then(|n| s.step(n, e));
            let b = side[e].and_then(|n| s.step(n, d));
            let target = match (a, b, options.corner_cutting) {
                (Some(a), Some(b), _) if a == b => Some(a),
                (Some(_), Some(_), CornerCutting::Never) => None,
                (_, _, CornerCutting::Never) => None,
                (Some(a), _, _) => Some(a),
                (None, b, _) => b,
            };
            if let Some(n) = target {
                f(n, diagonal * self.cost_into(n));
            }
        }
    }
}

impl MeshGridPath {
    /// True if a path was found.
    pub fn found(&self) -> bool {
        self.result.status == SearchStatus::Found
    }
}
