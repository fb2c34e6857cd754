//! The yardstick of a comparison: the optimal (shortest) path on the navmesh
//! ([`crate::query::PathOptions::optimal`]), and each other kind's length over it.

use std::time::Instant;

use glam::Vec3;

use super::{Comparison, GridSide, NavMeshSide};
use crate::Result;
use crate::query::{NavMeshQuery, NavPath, OptimalOptions, PathOptions, QueryFilter};
use crate::status::PathStatus;

/// The optimal side of a comparison: the shortest path on the navmesh between the snapped
/// start and goal, the yardstick the other kinds are measured against ([`OverOptimal`]).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OptimalSide {
    /// [`PathStatus::Complete`] if it reaches the goal, else partial (to where Detour's
    /// partial corridor ends).
    pub status: PathStatus,
    /// Its 3D length along its points (which follow the detail surface).
    pub length: f32,
    /// Its length on the xz-plane: the quantity the search minimises, and the yardstick.
    pub length_xz: f32,
    /// Its points (start, corners, side crossings, end).
    pub points: usize,
    /// Search nodes expanded.
    pub expanded: usize,
    /// True if it is the least-cost path under the filter too (every area it may visit costs
    /// the same; see [`crate::query::OptimalPath::exact`]).
    pub exact: bool,
    /// Time of an optimal-only path query, microseconds: the two ends' nearest polygons and
    /// the optimal search with its points (no Detour search), as [`timed_optimal_path`].
    pub time_us: f64,
    /// The path (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub path: Vec<Vec3>,
}

/// Each kind's length on the xz-plane over the optimal path's (1.0: as short as the
/// optimum; 1.05: 5% longer). `None` where that kind is missing or does not reach the goal.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct OverOptimal {
    /// Detour's straight path.
    pub straight: Option<f32>,
    /// The smooth path.
    pub smooth: Option<f32>,
    /// The spline through the straight path's corners.
    pub spline: Option<f32>,
    /// The grid A* path through the cell centres (may be below 1.0: the grid is not the
    /// navmesh, and its cells may reach where the polygons do not).
    pub grid: Option<f32>,
    /// The follower's distance travelled along the straight path.
    pub follower_straight: Option<f32>,
    /// The follower's distance travelled along the grid path.
    pub follower_grid: Option<f32>,
}

/// The length of the polyline through `points` on the xz-plane.
pub fn length_xz(points: &[Vec3]) -> f32 {
    points
        .windows(2)
        .map(|w| glam::Vec2::new(w[1].x - w[0].x, w[1].z - w[0].z).length())
        .sum()
}

/// The path from `from` to `to` with the optimal path as `optimal` asks (and `options`' other
/// parts), and the time of an optimal-only query in microseconds: the same query asked for the
/// optimal path alone, which runs no Detour search (the two ends' nearest polygons, the
/// optimal search, its points), timed once.
pub fn timed_optimal_path(
    query: &mut NavMeshQuery<'_>,
    from: Vec3,
    to: Vec3,
    filter: &QueryFilter,
    options: &PathOptions,
    optimal: OptimalOptions,
) -> Result<(NavPath, f64)> {
    let path = query.path(
        from,
        to,
        filter,
        &PathOptions {
            optimal: Some(optimal),
            ..*options
        },
    )?;
    let alone = PathOptions {
        straight: None,
        smooth: None,
        optimal: Some(optimal),
        ..*options
    };
    let t0 = Instant::now();
    query.path(from, to, filter, &alone)?;
    Ok((path, t0.elapsed().as_secs_f64() * 1e6))
}

impl OptimalSide {
    /// The optimal side of the path from `from` to `to`.
    pub(super) fn new(
        query: &mut NavMeshQuery<'_>,
        from: Vec3,
        to: Vec3,
        filter: &QueryFilter,
        optimal: OptimalOptions,
    ) -> Result<OptimalSide> {
        let options = PathOptions::corridor_only();
        let (p, time_us) = timed_optimal_path(query, from, to, filter, &options, optimal)?;
        let o = p.optimal.expect("asked for the optimal path");
        Ok(OptimalSide {
            status: o.status,
            length: o.length,
            length_xz: o.length_xz,
            points: o.points.len(),
            expanded: o.expanded,
            exact: o.exact,
            time_us,
            path: o.points.iter().map(|p| p.pos).collect(),
        })
    }
}

impl OverOptimal {
    /// Each kind of `c` over its optimal path; `None` unless the optimal path is complete.
    pub fn of(c: &Comparison) -> Option<OverOptimal> {
        let o = c.optimal.as_ref().filter(|o| o.status.is_complete())?;
        let base = o.length_xz.max(1e-6);
        let ratio = |len: f32| Some(len / base);
        let nav = c.navmesh.as_ref().filter(|n| n.status.is_complete());
        let grid = c.grid.as_ref().filter(|g| g.status.is_complete());
        let arrived = |f: Option<&super::FollowerRun>| {
            f.filter(|f| f.arrived).and_then(|f| ratio(f.travelled))
        };
        Some(OverOptimal {
            straight: nav.and_then(|n| ratio(length_xz(&n.straight))),
            smooth: nav.and_then(|n| ratio(length_xz(&n.smooth))),
            spline: nav
                .filter(|n| !n.spline.is_empty())
                .and_then(|n| ratio(length_xz(&n.spline))),
            grid: grid.and_then(|g: &GridSide| ratio(length_xz(&g.points))),
            follower_straight: nav.and_then(|n: &NavMeshSide| arrived(n.follower.as_ref())),
            follower_grid: grid.and_then(|g| arrived(g.follower.as_ref())),
        })
    }
}
