//! Optimal any-angle paths: the shortest path on the navmesh between two points
//! ([`PathOptions::optimal`](super::PathOptions::optimal), [`OptimalPath`]), found by
//! Polyanya (Cui, Harabor and Grastien, IJCAI 2017) over the navmesh's own polygons.
//!
//! Detour's straight path follows the corridor its A* found through polygon centres and edge
//! midpoints; it is usually, not always, the shortest path (on RecastDemo's levels up to a
//! fifth longer). This search returns the shortest: on solo, tiled and tile-cache navmeshes,
//! across tile borders, on floors over floors (adjacency is Detour's links, never the
//! plane), over off-mesh connections (taken from end to end at their length), visiting only
//! polygons the filter passes.
//!
//! **What is minimised.** The length on the xz-plane of the path over the ground, plus the
//! length of each off-mesh connection taken. Area costs are not weights here: the answer is
//! the shortest path among the polygons the filter passes, exact when every area it may
//! visit costs the same (the default filter's ground, road and door do; its water and grass
//! do not), and [`OptimalPath::exact`] says which. (The least-cost path under unequal costs
//! is a weighted-region problem, with no polygon-exact algorithm of this kind.)

mod geometry;
mod heights;
mod output;
mod polys;
mod search;
mod sides;
mod successors;

use glam::Vec3;

use super::{NavMeshQuery, NearestPoly, PolyRef, QueryFilter, StraightPoint};
use crate::status::PathStatus;
use crate::{Error, Result};

pub(in crate::query) use search::Search;

/// How [`PathOptions::optimal`](super::PathOptions::optimal) searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct OptimalOptions {
    /// The most search nodes it may make before it gives up with
    /// [`Error::OutOfNodes`] (about 100 bytes each; default 1,000,000).
    pub max_nodes: usize,
    /// Also a point wherever the path crosses from one polygon to the next (flagged
    /// [`CROSSING`](super::straight_flags::CROSSING)), so that with the heights of the detail
    /// mesh the path follows the surface; without, only the corners (default: with).
    pub crossings: bool,
}

impl Default for OptimalOptions {
    fn default() -> Self {
        OptimalOptions {
            max_nodes: 1_000_000,
            crossings: true,
        }
    }
}

/// The shortest path between two points of the navmesh ([`super::NavPath::optimal`]).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OptimalPath {
    /// Its points, start to end, on the detail mesh's surface: the start, each corner it bends
    /// round, each side crossing (with [`OptimalOptions::crossings`]), each off-mesh
    /// connection's start ([`OFFMESH_CONNECTION`](super::straight_flags::OFFMESH_CONNECTION))
    /// and end, and the end.
    pub points: Vec<StraightPoint>,
    /// [`PathStatus::Complete`] if it reaches the goal; when the goal cannot be reached,
    /// [`PathStatus::Partial`] and the shortest path to where Detour's partial path ends (the
    /// point nearest the goal on the last polygon of its corridor).
    pub status: PathStatus,
    /// Its length along its points, in 3D.
    pub length: f32,
    /// Its length on the xz-plane: the quantity minimised (with the off-mesh connections'
    /// lengths, when it takes any).
    pub length_xz: f32,
    /// Search nodes expanded.
    pub expanded: usize,
    /// True if it is the least-cost path under the filter too: every area the filter lets a
    /// path visit on this navmesh costs the same (see [`PathOptions::optimal`](super::PathOptions::optimal)
    /// and the README's "The shortest path").
    pub exact: bool,
}

impl NavMeshQuery<'_> {
    /// The optimal path from `s` to `g` (snapped ends), and the polygons it crosses; if the
    /// goal cannot be reached, the path to where Detour's partial corridor (at most
    /// `max_polys` polygons) ends, partial.
    pub(crate) fn optimal_path(
        &mut self,
        s: NearestPoly,
        g: NearestPoly,
        filter: &QueryFilter,
        max_polys: usize,
        options: &OptimalOptions,
    ) -> Result<(OptimalPath, Vec<PolyRef>)> {
        let (exact, passes_all) = self.filter_reach(filter);
        let mut problem = search::Problem {
            nav: self.nav,
            filter,
            start: (s.poly, s.point),
            goal: (g.poly, g.point),
            max_nodes: options.max_nodes,
            passes_all,
        };
        let mut search = std::mem::take(&mut self.optimal);
        let mut outcome = search.run(&problem);
        let mut status = PathStatus::Complete;
        let mut expanded = search.expanded;
        if !matches!(outcome, search::Outcome::Found(_)) {
            self.optimal = search;
            let corridor = self.find_path(s.poly, g.poly, s.point, g.point, filter, max_polys)?;
            search = std::mem::take(&mut self.optimal);
            if let Some(&last) = corridor.polys.last().filter(|_| !corridor.is_complete()) {
                let end = self.closest_point_on_poly(last, g.point)?.0;
                problem.goal = (last, end);
                outcome = search.run(&problem);
                expanded += search.expanded;
                status = PathStatus::Partial;
            }
        }
        let result = match outcome {
            search::Outcome::Found(last) => {
                let crossings = options.crossings;
                let (nodes, roots) = output::chains(&search, last);
                let chain = (&nodes[..], &roots[..]);
                self.optimal_points(&mut search, chain, problem.start, problem.goal.1, crossings)
                    .map(|points| (points, output::corridor(&search, &nodes)))
            }
            search::Outcome::OutOfNodes => Err(Error::OutOfNodes {
                operation: "optimal path",
            }),
            search::Outcome::Unreachable => Err(Error::Geometry(format!(
                "the optimal search found no way from {} to {} where Detour's search found one",
                s.point, problem.goal.1
            ))),
        };
        self.optimal = search;
        let (points, polys) = result?;
        let path = OptimalPath {
            length: length(&points, |v| v),
            length_xz: length(&points, |v| Vec3::new(v.x, 0.0, v.z)),
            points,
            status,
            expanded,
            exact,
        };
        Ok((path, polys))
    }

    /// What `filter` lets a search reach on this navmesh: whether every area of a polygon it
    /// passes costs the same, and whether it passes every polygon (remembered per flags).
    fn filter_reach(&mut self, filter: &QueryFilter) -> (bool, bool) {
        let key = (filter.include_flags(), filter.exclude_flags());
        let (areas, all) = match self.optimal_areas {
            Some((k, areas, all)) if k == key => (areas, all),
            _ => {
                let (mut areas, mut all) = (0u64, true);
                for tile in self.nav.tiles() {
                    for poly in tile.polys() {
                        if sides::passes(filter, poly.flags()) {
                            areas |= 1 << poly.area();
                        } else {
                            all = false;
                        }
                    }
                }
                self.optimal_areas = Some((key, areas, all));
                (areas, all)
            }
        };
        let mut costs = (0..64u8)
            .filter(|a| areas >> a & 1 == 1)
            .map(|a| filter.area_cost(a));
        let first = costs.next();
        (costs.all(|c| Some(c) == first), all)
    }
}

/// The length of the polyline through `points`, each moved by `f`.
fn length(points: &[StraightPoint], f: impl Fn(Vec3) -> Vec3) -> f32 {
    points
        .windows(2)
        .map(|w| f(w[0].pos).distance(f(w[1].pos)))
        .sum()
}
