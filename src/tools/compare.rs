//! Grid paths against navmesh paths on the same geometry, in numbers (and, through
//! `navkit::render::comparison_scene`, feature `render`, in pictures).
//!
//! For one start/goal pair, a [`Comparer`] runs:
//!
//! - A* on the mesh-derived grid ([`MeshGrid`]): path length, waypoints after simplification,
//!   nodes expanded, time;
//! - Detour: nearest polys, `findPath` and `findStraightPath` (timed together), then the smooth
//!   path (timed apart): straight-path length and corners, smooth-path length;
//! - the turn-boundary [`Follower`] on the grid waypoints and on the straight path, kept on the
//!   navmesh surface, with a fixed time step: distance travelled and time to arrive;
//! - the optimal (shortest) path on the navmesh ([`OptimalSide`], with
//!   [`CompareSettings::optimal`]): the yardstick, each kind's length over it in
//!   [`Comparison::over_optimal`].
//!
//! ```
//! use navkit::tools::compare::{Comparer, CompareSettings};
//! use navkit::{InputGeometry, NavMeshBuilder};
//! use glam::Vec3;
//!
//! let geom = InputGeometry::load("meshes/demo_level.gset")?;
//! let builder = NavMeshBuilder::new(&geom);     // one set of settings for both
//! let built = builder.solo()?;
//! let grid = builder.grid()?;
//! let mut cmp = Comparer::new(built.navmesh(), Some(&grid), CompareSettings::default())?;
//! let c = cmp.compare(Vec3::new(2.0, 0.0, 2.0), Vec3::new(33.0, 2.5, 6.0))?;
//! if let (Some(g), Some(n)) = (&c.grid, &c.navmesh) {
//!     println!("grid {:.2} vs straight {:.2}", g.length, n.straight_length);
//! }
//! # Ok::<(), navkit::Error>(())
//! ```

use std::time::Instant;

use glam::Vec3;
use rand::SeedableRng;

use crate::agents::follower::{FollowPath, Follower, FollowerSettings, navmesh_ground};
use crate::grid::mesh::MeshGrid;
use crate::grid::{SearchContext, SearchGraph, SearchOptions};
use crate::navmesh::NavMesh;
use crate::query::{NavMeshQuery, OptimalOptions, PathOptions, QueryFilter, SmoothPathOptions};
use crate::status::PathStatus;
use crate::{Error, Result};

mod optimal;
pub use optimal::{OptimalSide, OverOptimal, length_xz, timed_optimal_path};

/// How a comparison runs.
#[derive(Clone, Debug)]
pub struct CompareSettings {
    /// The follower's settings (both paths).
    pub follower: FollowerSettings,
    /// The follower's fixed time step, seconds.
    pub dt: f32,
    /// The follower gives up after this many seconds of simulated time.
    pub max_follow_time: f32,
    /// Grid search options.
    pub search: SearchOptions,
    /// Detour's filter.
    pub filter: QueryFilter,
    /// Smooth-path options.
    pub smooth: SmoothPathOptions,
    /// Detour's node pool size.
    pub max_nodes: usize,
    /// The optimal path's search options; `None` skips it (and [`Comparison::over_optimal`]).
    pub optimal: Option<OptimalOptions>,
}

impl Default for CompareSettings {
    fn default() -> Self {
        CompareSettings {
            follower: FollowerSettings::default(),
            dt: 1.0 / 60.0,
            max_follow_time: 600.0,
            search: SearchOptions::default(),
            filter: QueryFilter::default(),
            smooth: SmoothPathOptions::default(),
            max_nodes: 2048,
            optimal: Some(OptimalOptions::default()),
        }
    }
}

/// One run of the follower along a path.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct FollowerRun {
    /// True if it crossed the finish line (or slowed to a stop) within 1 unit (xz) of the goal.
    pub arrived: bool,
    /// Distance travelled (xz).
    pub travelled: f32,
    /// Simulated seconds until it stopped.
    pub time: f32,
    /// Where it ended.
    pub end: Vec3,
    /// Every position, one per step (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub trajectory: Vec<Vec3>,
    /// The prepared path: look points and turn boundaries (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub path: FollowPath,
}

/// The grid side of a comparison.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct GridSide {
    /// Whether the path reaches the goal's cell (a partial one leads as near as it can).
    pub status: PathStatus,
    /// Length of the path (3D polyline through the cell centres).
    pub length: f32,
    /// Cells on the path.
    pub cells: usize,
    /// Waypoints after simplification (start and goal included).
    pub waypoints: usize,
    /// Nodes expanded by A*.
    pub expanded: u32,
    /// Time of the search (snapping both ends, A*, retrace), microseconds.
    pub time_us: f64,
    /// The follower on the simplified waypoints.
    pub follower: Option<FollowerRun>,
    /// The cell path (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub points: Vec<Vec3>,
    /// The simplified path (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub waypoint_points: Vec<Vec3>,
}

/// The navmesh side of a comparison.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NavMeshSide {
    /// Whether the corridor reaches the goal's polygon.
    pub status: PathStatus,
    /// Polygons in the corridor.
    pub polys: usize,
    /// Straight-path length.
    pub straight_length: f32,
    /// Straight-path corners (start and end included).
    pub corners: usize,
    /// Smooth-path length.
    pub smooth_length: f32,
    /// Smooth-path points.
    pub smooth_points: usize,
    /// Time of nearest polys + findPath + findStraightPath, microseconds.
    pub time_us: f64,
    /// Time of the smooth path alone, microseconds.
    pub smooth_time_us: f64,
    /// Length of the third smoothing: a centripetal Catmull-Rom spline through the straight
    /// path's corners, sampled every 0.25 and projected onto the navmesh, off-mesh jumps kept
    /// straight ([`crate::agents::spline::spline_straight_path`]); 0 if it could not be made.
    pub spline_length: f32,
    /// The follower on the straight path.
    pub follower: Option<FollowerRun>,
    /// The spline path (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub spline: Vec<Vec3>,
    /// The straight path (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub straight: Vec<Vec3>,
    /// The smooth path (left out of JSON).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub smooth: Vec<Vec3>,
}

/// One start/goal pair compared.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Comparison {
    /// Start point as given.
    pub from: Vec3,
    /// Goal point as given.
    pub to: Vec3,
    /// The grid side (`None` without a grid, or with [`Comparison::grid_error`]).
    pub grid: Option<GridSide>,
    /// Why the grid side is missing (typically [`Error::PointOffMesh`]: no walkable cell near
    /// an end); `None` if it is there or the comparer has no grid. In JSON, the message.
    #[cfg_attr(
        feature = "serde",
        serde(
            skip_serializing_if = "Option::is_none",
            serialize_with = "error_message"
        )
    )]
    pub grid_error: Option<Error>,
    /// The navmesh side (`None` with [`Comparison::navmesh_error`]).
    pub navmesh: Option<NavMeshSide>,
    /// Why the navmesh side is missing (typically [`Error::PointOffMesh`]). In JSON, the
    /// message.
    #[cfg_attr(
        feature = "serde",
        serde(
            skip_serializing_if = "Option::is_none",
            serialize_with = "error_message"
        )
    )]
    pub navmesh_error: Option<Error>,
    /// The optimal path (`None` without [`CompareSettings::optimal`], or with
    /// [`Comparison::optimal_error`]).
    pub optimal: Option<OptimalSide>,
    /// Why the optimal path is missing. In JSON, the message.
    #[cfg_attr(
        feature = "serde",
        serde(
            skip_serializing_if = "Option::is_none",
            serialize_with = "error_message"
        )
    )]
    pub optimal_error: Option<Error>,
    /// Each kind's length over the optimal path's, on the xz-plane (`None` unless the optimal
    /// path is complete).
    pub over_optimal: Option<OverOptimal>,
}

/// An error as its message, for JSON.
#[cfg(feature = "serde")]
fn error_message<S: serde::Serializer>(
    e: &Option<Error>,
    s: S,
) -> std::result::Result<S::Ok, S::Error> {
    match e {
        Some(e) => s.collect_str(e),
        None => s.serialize_none(),
    }
}

/// Runs comparisons on one navmesh and (optionally) one grid, reusing its query and search
/// context.
#[derive(Debug)]
pub struct Comparer<'a> {
    query: NavMeshQuery<'a>,
    grid: Option<&'a MeshGrid>,
    ctx: SearchContext,
    settings: CompareSettings,
}

impl<'a> Comparer<'a> {
    /// A comparer over `navmesh` and, if given, `grid` (built from the same geometry and
    /// settings).
    pub fn new(
        navmesh: &'a NavMesh,
        grid: Option<&'a MeshGrid>,
        settings: CompareSettings,
    ) -> Result<Self> {
        if !(settings.dt.is_finite() && settings.dt > 0.0) {
            return Err(Error::InvalidArgument(format!(
                "follower time step {}: must be finite and positive",
                settings.dt
            )));
        }
        Ok(Comparer {
            query: NavMeshQuery::new(navmesh, settings.max_nodes)?,
            grid,
            // Sized up front, so the first query's time is not the allocation's.
            ctx: SearchContext::with_capacity(grid.map_or(0, |g| g.node_count())),
            settings,
        })
    }

    /// `n` random start/goal pairs on the navmesh, reproducible from `seed` (Detour's
    /// `findRandomPoint` with a seeded PCG generator), each pair connected on the navmesh (its
    /// corridor is complete), so that every pair compares two real paths. Pairs on different
    /// islands are drawn again, up to 50 draws per pair; fewer than `n` pairs come back if the
    /// navmesh has no connected pairs to speak of.
    pub fn random_pairs(&mut self, n: usize, seed: u64) -> Result<Vec<(Vec3, Vec3)>> {
        let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
        let filter = self.settings.filter.clone();
        let mut pairs = Vec::with_capacity(n);
        for _ in 0..n.saturating_mul(50) {
            if pairs.len() == n {
                break;
            }
            let a = self.query.find_random_point(&filter, &mut rng)?.1;
            let b = self.query.find_random_point(&filter, &mut rng)?.1;
            let corridor = self
                .query
                .path(a, b, &filter, &PathOptions::corridor_only());
            if corridor.is_ok_and(|c| c.is_complete()) {
                pairs.push((a, b));
            }
        }
        Ok(pairs)
    }

    /// Compares the grid and navmesh paths between `from` and `to`. Errors only for
    /// points that are not finite ([`Error::NonFinite`]); a side that cannot be computed (no
    /// polygon or cell near an end) is `None` with its error.
    pub fn compare(&mut self, from: Vec3, to: Vec3) -> Result<Comparison> {
        for (argument, value) in [("from", from), ("to", to)] {
            if !value.is_finite() {
                return Err(Error::NonFinite { argument, value });
            }
        }
        let (navmesh, navmesh_error) = match self.navmesh_side(from, to) {
            Ok(n) => (Some(n), None),
            Err(e) => (None, Some(e)),
        };
        let (grid, grid_error) = match self.grid {
            None => (None, None),
            Some(g) => match self.grid_side(g, from, to) {
                Ok(s) => (Some(s), None),
                Err(e) => (None, Some(e)),
            },
        };
        let (optimal, optimal_error) = match self.settings.optimal {
            None => (None, None),
            Some(o) => {
                let filter = &self.settings.filter;
                match OptimalSide::new(&mut self.query, from, to, filter, o) {
                    Ok(s) => (Some(s), None),
                    Err(e) => (None, Some(e)),
                }
            }
        };
        let mut c = Comparison {
            from,
            to,
            grid,
            grid_error,
            navmesh,
            navmesh_error,
            optimal,
            optimal_error,
            over_optimal: None,
        };
        c.over_optimal = OverOptimal::of(&c);
        Ok(c)
    }

    /// The grid search context of the last [`Comparer::compare`]: the nodes its grid A*
    /// reached ([`SearchContext::visited`]; drawn by
    /// [`crate::debug_draw::grid::mesh_search`]). Empty before a comparison on a grid.
    pub fn grid_search(&self) -> &SearchContext {
        &self.ctx
    }

    fn navmesh_side(&mut self, from: Vec3, to: Vec3) -> Result<NavMeshSide> {
        let s = &self.settings;
        let t0 = Instant::now();
        let options = PathOptions {
            smooth: None,
            ..PathOptions::default()
        };
        let c = self.query.path(from, to, &s.filter, &options);
        let time_us = t0.elapsed().as_secs_f64() * 1e6;
        let c = c?;
        let c_straight = &c.straight;
        let t1 = Instant::now();
        let smooth = self
            .query
            .smooth_path(&c.corridor.polys, from, to, &s.filter, &s.smooth)?;
        let smooth_time_us = t1.elapsed().as_secs_f64() * 1e6;
        let straight = c_straight.positions();
        let spline = crate::agents::spline::spline_straight_path(
            &mut self.query,
            &s.filter,
            c_straight,
            0.25,
        )
        .unwrap_or_default();
        let follower = match straight.split_first() {
            Some((&start, rest)) if !rest.is_empty() => Some(self.follow(start, rest)),
            _ => None,
        };
        Ok(NavMeshSide {
            status: c.status(),
            polys: c.corridor.polys.len(),
            straight_length: c_straight.length(),
            corners: straight.len(),
            smooth_length: smooth.length(),
            smooth_points: smooth.points.len(),
            time_us,
            smooth_time_us,
            spline_length: spline.windows(2).fold(0.0, |a, w| a + w[0].distance(w[1])),
            spline,
            follower,
            straight,
            smooth: smooth.points,
        })
    }

    fn grid_side(&mut self, grid: &MeshGrid, from: Vec3, to: Vec3) -> Result<GridSide> {
        let t0 = Instant::now();
        let p = grid.find_path(&mut self.ctx, from, to, &self.settings.search)?;
        let time_us = t0.elapsed().as_secs_f64() * 1e6;
        let follower = match p.waypoints.split_first() {
            Some((&start, rest)) if !rest.is_empty() => Some(self.follow(start, rest)),
            _ => None,
        };
        Ok(GridSide {
            status: p.result.status,
            length: p.length,
            cells: p.points.len(),
            waypoints: p.waypoints.len(),
            expanded: p.result.expanded,
            time_us,
            follower,
            points: p.points,
            waypoint_points: p.waypoints,
        })
    }

    /// Runs the follower from `start` along `waypoints` on the navmesh surface.
    fn follow(&mut self, start: Vec3, waypoints: &[Vec3]) -> FollowerRun {
        let s = &self.settings;
        let goal = *waypoints.last().unwrap_or(&start);
        let mut agent = Follower::new(start, waypoints, s.follower);
        let mut trajectory = vec![start];
        let max_steps = (s.max_follow_time / s.dt).ceil() as usize;
        {
            let mut ground = navmesh_ground(&mut self.query, &s.filter);
            for _ in 0..max_steps {
                if !agent.step(s.dt, &mut ground) {
                    break;
                }
                trajectory.push(agent.position());
            }
        }
        let end = agent.position();
        let gap = glam::Vec2::new(end.x - goal.x, end.z - goal.z).length();
        FollowerRun {
            arrived: agent.finished() && gap < 1.0,
            travelled: agent.travelled(),
            time: agent.time(),
            end,
            trajectory,
            path: agent.path().clone(),
        }
    }
}
