//! The one point-to-point path query, [`NavMeshQuery::path`]: from two points to the polygon
//! corridor, its straight path and its smooth path, as RecastDemo's tester tool computes them;
//! and a query with a sensible node pool, [`NavMesh::query`].

use glam::Vec3;

use super::{
    Corridor, DEFAULT_HALF_EXTENTS, DEFAULT_MAX_PATH, NavMeshQuery, NearestPoly, OptimalOptions,
    OptimalPath, PolyRef, QueryFilter, SmoothPath, SmoothPathOptions, StraightPath,
    StraightPathOptions,
};
use crate::Result;
use crate::navmesh::NavMesh;
use crate::status::PathStatus;

/// The search node pool of [`NavMesh::query`]: RecastDemo's 2048.
pub const DEFAULT_MAX_NODES: usize = 2048;

impl NavMesh {
    /// A query over this navmesh with RecastDemo's node pool ([`DEFAULT_MAX_NODES`]); use
    /// [`NavMeshQuery::new`] for another size (long paths over big tiled worlds may want up to
    /// 65,535 nodes).
    pub fn query(&self) -> Result<NavMeshQuery<'_>> {
        NavMeshQuery::new(self, DEFAULT_MAX_NODES)
    }
}

/// What [`NavMeshQuery::path`] computes; the default is everything RecastDemo's tester tool
/// computes, with its settings.
///
/// ```
/// use navkit::query::{PathOptions, SmoothPathOptions};
/// let everything = PathOptions::default();                 // corridor, straight, smooth
/// let corners = PathOptions { smooth: None, ..PathOptions::default() };
/// let corridor = PathOptions::corridor_only();
/// let fine = PathOptions {
///     smooth: Some(SmoothPathOptions { step_size: 0.1, ..Default::default() }),
///     ..PathOptions::default()
/// };
/// # let _ = (everything, corners, corridor, fine);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct PathOptions {
    /// The box searched for the polygons nearest the start and the goal: `point ±
    /// half_extents` ([`DEFAULT_HALF_EXTENTS`], RecastDemo's (2, 4, 2)).
    pub half_extents: Vec3,
    /// The most polygons in the corridor (1..=[`super::MAX_BUFFER`]; RecastDemo's 256): a
    /// longer one is cut, and partial.
    pub max_polys: usize,
    /// The straight path (the corridor's corners), with these options; `None` skips it.
    pub straight: Option<StraightPathOptions>,
    /// The smooth path (RecastDemo's "Pathfind Follow" loop along the corridor), with these
    /// options; `None` skips it.
    pub smooth: Option<SmoothPathOptions>,
    /// The optimal (shortest) path, searched with these options ([`super::OptimalPath`]);
    /// `None` (the default) skips it. Asked for without the straight and smooth paths, the
    /// corridor is the polygons the optimal path crosses, and Detour's own search is not
    /// run (unless the goal cannot be reached, to find where a partial path ends).
    pub optimal: Option<OptimalOptions>,
}

impl Default for PathOptions {
    /// RecastDemo's tester tool: half extents (2, 4, 2), 256 polygons, the straight path and the
    /// smooth path with their defaults.
    fn default() -> Self {
        PathOptions {
            half_extents: DEFAULT_HALF_EXTENTS,
            max_polys: DEFAULT_MAX_PATH,
            straight: Some(StraightPathOptions::default()),
            smooth: Some(SmoothPathOptions::default()),
            optimal: None,
        }
    }
}

impl PathOptions {
    /// Only the corridor: the cheapest query, for a game that steers along polygons itself (or
    /// hands the corridor to a crowd or a follower).
    pub fn corridor_only() -> Self {
        PathOptions {
            straight: None,
            smooth: None,
            ..PathOptions::default()
        }
    }
}

/// The corridor of an optimal path: the polygons it crosses, cut (and partial) at `max`.
fn optimal_corridor(path: &OptimalPath, mut polys: Vec<PolyRef>, max: usize) -> Corridor {
    let complete = path.status.is_complete() && polys.len() <= max;
    polys.truncate(max);
    Corridor::found(polys, complete)
}

/// What [`NavMeshQuery::path`] found between two points.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NavPath {
    /// The polygon nearest the start point, and the point on it.
    pub start: NearestPoly,
    /// The polygon nearest the goal point, and the point on it.
    pub goal: NearestPoly,
    /// The polygon corridor (Detour's `findPath`; see [`PathOptions::optimal`] for the
    /// exception); its status says whether the path arrives.
    pub corridor: Corridor,
    /// The straight path: the corners to the goal (for a partial corridor, to the point of its
    /// last polygon nearest the goal, as RecastDemo's "Pathfind Straight" tool). Empty if
    /// [`PathOptions::straight`] was `None`.
    pub straight: StraightPath,
    /// The smooth path along the corridor's surface. Empty if [`PathOptions::smooth`] was
    /// `None`.
    pub smooth: SmoothPath,
    /// The optimal path, if [`PathOptions::optimal`] asked for it.
    pub optimal: Option<OptimalPath>,
}

impl NavPath {
    /// Whether the path arrives: [`PathStatus::Complete`] if the corridor ends in the goal's
    /// polygon, else [`PathStatus::Partial`] (the path leads to the polygon nearest the goal
    /// that can be reached).
    pub fn status(&self) -> PathStatus {
        self.corridor.status
    }

    /// True if the path arrives ([`NavPath::status`]).
    pub fn is_complete(&self) -> bool {
        self.corridor.is_complete()
    }
}

impl NavMeshQuery<'_> {
    /// A path from `start` to `goal`: the one point-to-point query. It snaps both points to
    /// their nearest polygons (within [`PathOptions::half_extents`]), finds the polygon
    /// corridor (`findPath`) and, as [`PathOptions`] asks, the straight path
    /// (`findStraightPath`) and the smooth path, exactly as RecastDemo's tester tool does.
    ///
    /// A goal that cannot be reached is not an error: the path is [`PathStatus::Partial`] and
    /// leads as near the goal as it can ([`NavPath::status`]). No polygon near `start` or `goal`
    /// is [`crate::Error::PointOffMesh`] naming which; a point that is not finite is
    /// [`crate::Error::NonFinite`].
    ///
    /// Which query for what:
    ///
    /// | you have | you want | call |
    /// |---|---|---|
    /// | two points | a path (corridor, corners, smooth) | `path` |
    /// | two polygons and points on them | Detour's corridor alone, no allocation | [`find_path_into`](Self::find_path_into) |
    /// | a corridor you keep (an agent's) | its corners / its smooth path | [`find_straight_path`](Self::find_straight_path) / [`smooth_path`](Self::smooth_path) |
    /// | a search spread over frames | the corridor, a slice at a time | [`begin_sliced_path`](Self::begin_sliced_path) |
    /// | a start and many goals | costs to every reachable polygon | [`find_polys_around_circle`](Self::find_polys_around_circle) (Dijkstra) |
    /// | two points far apart in a large tiled world | a complete path, search memory bounded | [`Hierarchy::path`](super::hierarchy::Hierarchy::path) (HPA*; the same [`NavPath`]) |
    ///
    /// ```
    /// # fn f(navmesh: &navkit::NavMesh) -> navkit::Result<()> {
    /// use glam::Vec3;
    /// use navkit::query::{PathOptions, QueryFilter};
    /// let mut query = navmesh.query()?;
    /// let (start, goal) = (Vec3::new(-18.0, -2.4, 24.0), Vec3::new(20.0, -2.3, -18.0));
    /// let path = query.path(start, goal, &QueryFilter::default(), &PathOptions::default())?;
    /// println!("{:?}: {} polys, {} corners, {:.1} m", path.status(), path.corridor.polys.len(),
    ///          path.straight.points.len(), path.straight.length());
    /// # Ok(()) }
    /// ```
    pub fn path(
        &mut self,
        start: Vec3,
        goal: Vec3,
        filter: &QueryFilter,
        options: &PathOptions,
    ) -> Result<NavPath> {
        let s = self.nearest_poly("start", start, options.half_extents, filter)?;
        let g = self.nearest_poly("goal", goal, options.half_extents, filter)?;
        let optimal = match &options.optimal {
            Some(o) => Some(self.optimal_path(s, g, filter, options.max_polys, o)?),
            None => None,
        };
        let (optimal, corridor) = match optimal {
            Some((path, polys)) if options.straight.is_none() && options.smooth.is_none() => {
                let corridor = optimal_corridor(&path, polys, options.max_polys);
                (Some(path), corridor)
            }
            optimal => {
                let corridor =
                    self.find_path(s.poly, g.poly, start, goal, filter, options.max_polys)?;
                (optimal.map(|(path, _)| path), corridor)
            }
        };
        let straight = match &options.straight {
            Some(o) => self.straight_to(&corridor, start, goal, g, o)?,
            None => StraightPath::default(),
        };
        let smooth = match &options.smooth {
            Some(o) => self.smooth_path(&corridor.polys, start, goal, filter, o)?,
            None => SmoothPath::default(),
        };
        Ok(NavPath {
            start: s,
            goal: g,
            corridor,
            straight,
            smooth,
            optimal,
        })
    }

    /// The straight path of `corridor` from `start` toward `goal` (snapped to `g`): to the goal,
    /// or for a partial corridor to the point of its last polygon nearest the goal; partial
    /// whenever the corridor is.
    pub(crate) fn straight_to(
        &mut self,
        corridor: &Corridor,
        start: Vec3,
        goal: Vec3,
        g: NearestPoly,
        options: &StraightPathOptions,
    ) -> Result<StraightPath> {
        let Some(&last) = corridor.polys.last() else {
            return Ok(StraightPath::default());
        };
        let end = if last == g.poly {
            goal
        } else {
            self.closest_point_on_poly(last, goal)?.0
        };
        let mut straight = self.find_straight_path(start, end, &corridor.polys, options)?;
        if !corridor.is_complete() {
            straight.status = PathStatus::Partial;
        }
        Ok(straight)
    }
}
