//! Detour queries: [`NavMeshQuery`] (a `dtNavMeshQuery` borrowing its [`NavMesh`]) and
//! [`QueryFilter`].
//!
//! Every Detour status becomes a `Result`; a path that does not reach its goal is returned with
//! [`crate::PathStatus::Partial`], never as complete. Coordinates must be finite
//! ([`Error::NonFinite`] names the argument otherwise), and poly refs must name polygons of the
//! navmesh ([`Error::InvalidPolyRef`]).
//!
//! For a path between two points, [`NavMeshQuery::path`] is the one call (its docs say which
//! lower-level query fits other cases).

mod corridor;
mod filter;
pub mod hierarchy;
mod nodes;
mod optimal;
mod path;
mod poly_query;
mod raycast;
mod search;
mod smooth;
// Sliced pathfinding (issue 12, part 2).
mod sliced;
mod straight;
mod within_circle;
pub(crate) use sliced::{SliceCore, check_max_path};
pub use sliced::{SliceProgress, SliceState, SlicedOptions, SlicedSearch};

pub use corridor::Corridor;
pub use filter::QueryFilter;
pub use nodes::SearchNode;
pub use optimal::{OptimalOptions, OptimalPath};
pub use path::{DEFAULT_MAX_NODES, NavPath, PathOptions};
pub use poly_query::WallSegment;
pub use raycast::{RaycastHit, RaycastOptions};
pub use search::{MAX_SHAPE_VERTS, NeighbourhoodPoly};
pub use smooth::{SmoothPath, SmoothPathOptions};
pub use straight::{StraightPath, StraightPathOptions, StraightPoint, straight_flags};

use glam::Vec3;

use crate::ffi::detour::{RawFilter, RawQuery, StraightOut};
use crate::navmesh::NavMesh;
use crate::status::Status;
use crate::{Error, Result};

pub use crate::poly_ref::{PolyRef, PolyRefBits};

/// RecastDemo's default search box half extents for finding the nearest polygon: (2, 4, 2).
pub const DEFAULT_HALF_EXTENTS: Vec3 = Vec3::new(2.0, 4.0, 2.0);

/// The largest output buffer a query accepts (path polys, straight-path corners ...).
pub const MAX_BUFFER: usize = 1 << 20;

/// RecastDemo's path buffer size (`MAX_POLYS`).
pub const DEFAULT_MAX_PATH: usize = 256;

/// The nearest polygon to a point.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NearestPoly {
    /// The polygon.
    pub poly: PolyRef,
    /// The nearest point on it.
    pub point: Vec3,
    /// True if the query point is over the polygon (in xz).
    pub over_poly: bool,
}

/// The result of [`NavMeshQuery::move_along_surface`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SurfaceMove {
    /// Where the move ended (its height is not adjusted to the surface).
    pub position: Vec3,
    /// The polygons visited, start first.
    pub visited: Vec<PolyRef>,
}

/// The result of [`NavMeshQuery::find_distance_to_wall`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WallHit {
    /// Distance to the nearest wall (the search radius if none is closer).
    pub distance: f32,
    /// The nearest wall point.
    pub position: Vec3,
    /// The wall's normal.
    pub normal: Vec3,
}

/// One polygon found by [`NavMeshQuery::find_polys_around_circle`] or
/// [`NavMeshQuery::find_polys_around_shape`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct CirclePoly {
    /// The polygon.
    pub poly: PolyRef,
    /// Its parent in the search (0 for the start).
    pub parent: PolyRef,
    /// Search cost to reach it.
    pub cost: f32,
}

/// Results of a query with a result limit: what fitted, and whether more was found.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Limited<T> {
    /// The results, in Detour's order.
    pub items: Vec<T>,
    /// True if Detour found more than the limit (`DT_BUFFER_TOO_SMALL`).
    pub truncated: bool,
}

impl<T> std::ops::Deref for Limited<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.items
    }
}

/// Checks a query coordinate, the caller's argument `argument`: finite
/// ([`Error::NonFinite`]) and within [`crate::navmesh::params::MAX_COORDINATE`]
/// ([`Error::PointOutOfRange`]: beyond it Detour's float-to-int tile arithmetic is undefined).
#[inline]
pub(crate) fn check_point(argument: &'static str, p: Vec3) -> Result<[f32; 3]> {
    let limit = crate::navmesh::params::MAX_COORDINATE;
    // The common case in one test: `<=` is false for NaN and for anything beyond the limit
    // (infinities included); the errors are then told apart below.
    let a = p.abs();
    if a.x <= limit && a.y <= limit && a.z <= limit {
        return Ok(p.to_array());
    }
    if !p.is_finite() {
        Err(Error::NonFinite { argument, value: p })
    } else if p.abs().max_element() > limit {
        Err(Error::PointOutOfRange {
            argument,
            value: p,
            limit,
        })
    } else {
        Ok(p.to_array())
    }
}

fn check_status(op: &'static str, st: u32) -> Result<Status> {
    Status(st).check(op)
}

/// The smallest node pool [`NavMeshQuery::new`] accepts. Detour sizes the pool's hash table as
/// the power of two at or above `max_nodes / 4`, which is none for fewer than 4 nodes: every
/// search then reads outside the table (found by fuzzing).
pub const MIN_MAX_NODES: usize = 4;

/// Queries over one [`NavMesh`] (`dtNavMeshQuery`). Borrows the navmesh for `'a`.
///
/// A query holds its own search nodes, so it is `Send` but not `Sync`: give each thread its own.
///
/// A query cannot be shared between threads (it is not `Sync`):
///
/// ```compile_fail
/// fn sync<T: Sync>() {}
/// sync::<navkit::query::NavMeshQuery<'static>>();
/// ```
///
/// and it cannot outlive its navmesh:
///
/// ```compile_fail
/// # use navkit::{navmesh::NavMesh, query::NavMeshQuery};
/// # fn f(mesh: NavMesh) {
/// let q = NavMeshQuery::new(&mesh, 2048).unwrap();
/// drop(mesh); // error: the query still borrows the navmesh
/// drop(q);
/// # }
/// ```
pub struct NavMeshQuery<'a> {
    raw: RawQuery<'a>,
    nav: &'a NavMesh,
    /// The size of the search node pool.
    max_nodes: usize,
    straight: StraightOut,
    refs: Vec<PolyRefBits>,
    smooth_scratch: smooth::SmoothScratch,
    /// The optimal search's memory, and the areas its filter passes on this navmesh.
    optimal: optimal::Search,
    optimal_areas: Option<((u16, u16), u64, bool)>,
}

impl<'a> NavMeshQuery<'a> {
    /// A query with a search node pool of `max_nodes` ([`MIN_MAX_NODES`]..=65535; RecastDemo
    /// uses 2048).
    pub fn new(nav: &'a NavMesh, max_nodes: usize) -> Result<Self> {
        if !(MIN_MAX_NODES..=65535).contains(&max_nodes) {
            return Err(Error::InvalidArgument(format!(
                "max_nodes {max_nodes} is not in {MIN_MAX_NODES}..=65535 (Detour's node pool \
                 hashes into max_nodes / 4 buckets, rounded up to a power of two: fewer than 4 \
                 nodes leave it none)"
            )));
        }
        let raw = RawQuery::new(nav.raw(), max_nodes as i32)
            .map_err(|s| Status(s).error("dtNavMeshQuery::init"))?;
        Ok(NavMeshQuery {
            raw,
            nav,
            max_nodes,
            straight: StraightOut::default(),
            refs: Vec::new(),
            smooth_scratch: smooth::SmoothScratch::default(),
            optimal: optimal::Search::default(),
            optimal_areas: None,
        })
    }

    /// The navmesh this query reads.
    pub fn navmesh(&self) -> &'a NavMesh {
        self.nav
    }

    /// `r` as Detour's ref, if it names a polygon of this navmesh ([`Error::InvalidPolyRef`]
    /// naming the caller's `argument` if not).
    fn check_ref(&self, argument: &'static str, r: PolyRef) -> Result<PolyRefBits> {
        if self.nav.is_valid(r) {
            Ok(r.0)
        } else {
            Err(Error::InvalidPolyRef { argument, poly: r })
        }
    }

    /// The polygon nearest `center` within the box `center ± half_extents`
    /// (`findNearestPoly`). No polygon in the box is [`Error::PointOffMesh`].
    pub fn find_nearest_poly(
        &mut self,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
    ) -> Result<NearestPoly> {
        self.nearest_poly("center", center, half_extents, filter)
    }

    /// [`Self::find_nearest_poly`] of the caller's argument `argument` (named in its errors).
    pub(crate) fn nearest_poly(
        &mut self,
        argument: &'static str,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
    ) -> Result<NearestPoly> {
        let c = check_point(argument, center)?;
        let h = check_point("half_extents", half_extents)?;
        if half_extents.min_element() < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "half extents {half_extents} are negative"
            )));
        }
        // Detour visits every tile slot the box covers: keep that number sane.
        let p = self.nav.params();
        let span = |e: f32, w: f32| (2.0 * e / w).ceil() as f64 + 1.0;
        if span(half_extents.x, p.tile_width) * span(half_extents.z, p.tile_height) > 1.0e6 {
            return Err(Error::InvalidArgument(format!(
                "half extents {half_extents} cover more than a million tiles"
            )));
        }
        let (st, r, pt, over) = self.raw.find_nearest_poly(c, h, &filter.raw);
        check_status("findNearestPoly", st)?;
        if r == 0 {
            return Err(Error::PointOffMesh {
                argument,
                point: center,
                half_extents,
            });
        }
        Ok(NearestPoly {
            poly: PolyRef(r),
            point: Vec3::from_array(pt),
            over_poly: over,
        })
    }

    /// Moves from `start_pos` toward `end_pos` along the surface, sliding along walls
    /// (`moveAlongSurface`), recording at most `max_visited` polygons.
    pub fn move_along_surface(
        &mut self,
        start: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        max_visited: usize,
    ) -> Result<SurfaceMove> {
        let s = self.check_ref("start", start)?;
        let sp = check_point("start_pos", start_pos)?;
        let ep = check_point("end_pos", end_pos)?;
        let mut visited = vec![0 as PolyRefBits; max_visited.clamp(1, 1 << 16)];
        let (st, pos, n) = self
            .raw
            .move_along_surface(s, sp, ep, &filter.raw, &mut visited);
        check_status("moveAlongSurface", st)?;
        Ok(SurfaceMove {
            position: Vec3::from_array(pos),
            visited: visited[..n].iter().map(|&r| PolyRef(r)).collect(),
        })
    }

    /// The height of polygon `poly`'s detail surface at `pos` (`getPolyHeight`). Fails if `pos` is
    /// outside the polygon in xz.
    pub fn poly_height(&mut self, poly: PolyRef, pos: Vec3) -> Result<f32> {
        let r = self.check_ref("poly", poly)?;
        let p = check_point("pos", pos)?;
        let (st, h) = self.raw.get_poly_height(r, p);
        check_status("getPolyHeight", st)?;
        Ok(h)
    }

    /// The point of `poly` nearest `pos`, and whether `pos` is over the polygon
    /// (`closestPointOnPoly`).
    pub fn closest_point_on_poly(&mut self, poly: PolyRef, pos: Vec3) -> Result<(Vec3, bool)> {
        let r = self.check_ref("poly", poly)?;
        let p = check_point("pos", pos)?;
        let (st, c, over) = self.raw.closest_point_on_poly(r, p);
        check_status("closestPointOnPoly", st)?;
        Ok((Vec3::from_array(c), over))
    }

    /// A random point on the navmesh, areas weighted by size (`findRandomPoint`), drawn from
    /// any [`rand::Rng`] (rand 0.8): the same seed gives the same points.
    ///
    /// ```no_run
    /// # fn f(q: &mut navkit::query::NavMeshQuery) -> navkit::Result<()> {
    /// use rand::SeedableRng;
    /// let mut rng = rand_pcg::Pcg32::seed_from_u64(42);
    /// let (poly, point) = q.find_random_point(&navkit::query::QueryFilter::default(), &mut rng)?;
    /// # Ok(()) }
    /// ```
    pub fn find_random_point<R: rand::Rng + ?Sized>(
        &mut self,
        filter: &QueryFilter,
        rng: &mut R,
    ) -> Result<(PolyRef, Vec3)> {
        self.find_random_point_with(filter, || rng.r#gen::<f32>())
    }

    /// [`find_random_point`](Self::find_random_point) with any random source: `random`
    /// returns numbers in [0, 1) (another version of `rand`, an engine's generator ...;
    /// values outside [0, 1) are taken as 0.5).
    ///
    /// ```no_run
    /// # fn f(q: &mut navkit::query::NavMeshQuery) -> navkit::Result<()> {
    /// let mut state = 12345u32;
    /// let mut lcg = move || {
    ///     state = state.wrapping_mul(1664525).wrapping_add(1013904223);
    ///     (state >> 8) as f32 / (1u32 << 24) as f32
    /// };
    /// let (poly, point) = q.find_random_point_with(&navkit::query::QueryFilter::default(), &mut lcg)?;
    /// # Ok(()) }
    /// ```
    pub fn find_random_point_with(
        &mut self,
        filter: &QueryFilter,
        mut random: impl FnMut() -> f32,
    ) -> Result<(PolyRef, Vec3)> {
        let (st, r, p) = self.raw.find_random_point(&filter.raw, &mut random);
        check_status("findRandomPoint", st)?;
        if r == 0 {
            return Err(Error::InvalidArgument(
                "no polygon passes the filter".into(),
            ));
        }
        Ok((PolyRef(r), Vec3::from_array(p)))
    }

    /// Distance from `center` to the nearest wall within `max_radius` (`findDistanceToWall`).
    pub fn find_distance_to_wall(
        &mut self,
        start: PolyRef,
        center: Vec3,
        max_radius: f32,
        filter: &QueryFilter,
    ) -> Result<WallHit> {
        let s = self.check_ref("start", start)?;
        let c = check_point("center", center)?;
        if !max_radius.is_finite() || max_radius < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "radius {max_radius} is not a finite number >= 0"
            )));
        }
        let (st, d, pos, n) = self
            .raw
            .find_distance_to_wall(s, c, max_radius, &filter.raw);
        check_status("findDistanceToWall", st)?;
        Ok(WallHit {
            distance: d,
            position: Vec3::from_array(pos),
            normal: Vec3::from_array(n),
        })
    }

    /// The polygons reachable from `start` whose edges touch the circle (`findPolysAroundCircle`),
    /// at most `max_result`.
    pub fn find_polys_around_circle(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        max_result: usize,
    ) -> Result<Vec<CirclePoly>> {
        let s = self.check_ref("start", start)?;
        let c = check_point("center", center)?;
        if !radius.is_finite() || radius < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "radius {radius} is not a finite number >= 0"
            )));
        }
        let (st, v) = self.raw.find_polys_around_circle(
            s,
            c,
            radius,
            &filter.raw,
            max_result.clamp(1, 1 << 16),
        );
        check_status("findPolysAroundCircle", st)?;
        Ok(v.into_iter()
            .map(|(r, p, cost)| CirclePoly {
                poly: PolyRef(r),
                parent: PolyRef(p),
                cost,
            })
            .collect())
    }

    /// Moves along the surface from the first polygon of `corridor` at `start_pos` toward
    /// `end_pos` (`moveAlongSurface`, at most 16 polygons visited) and merges the visited
    /// polygons into the front of the corridor (`dtMergeCorridorStartMoved`, keeping at most
    /// `max_polys`), as RecastDemo's follow loop does; the new position. The corridor is
    /// unchanged if the move fails (an empty corridor fails: `None`). No allocation once
    /// `corridor` has room for `max_polys` and a step's visited polygons
    /// (`smooth_step::corridor_room`).
    ///
    /// This and the two below are the smooth-path loop's per-step calls: they run on Detour's
    /// own output (corridor refs, positions computed from Detour's points), so they skip the
    /// public methods' argument checks and typed errors (Detour checks refs itself; a failure
    /// is reported as RecastDemo's loop sees it), which cost the loop about 7%.
    #[inline(always)]
    pub(crate) fn move_corridor_start(
        &mut self,
        corridor: &mut Vec<PolyRef>,
        max_polys: usize,
        start_pos: &[f32; 3],
        end_pos: &[f32; 3],
        filter: &QueryFilter,
    ) -> Option<[f32; 3]> {
        self.raw
            .move_corridor_start(corridor, max_polys, start_pos, end_pos, &filter.raw)
    }

    /// `getPolyHeight` in the smooth-path loop (see [`NavMeshQuery::move_corridor_start`]): the
    /// height, or 0 where the lookup fails (Detour leaves it unwritten; RecastDemo keeps 0).
    #[inline(always)]
    pub(crate) fn poly_height_or_zero(&mut self, poly: PolyRef, pos: &[f32; 3]) -> f32 {
        self.raw.height_or_zero(poly.0, pos)
    }

    /// The buffers the smooth-path loop ([`smooth::smooth_path_into`]) keeps between calls on
    /// this query, so that it does not allocate once warm. They belong to `smooth`; the query
    /// only holds them.
    pub(crate) fn smooth_scratch(&mut self) -> &mut smooth::SmoothScratch {
        &mut self.smooth_scratch
    }

    pub(crate) fn raw_filter(filter: &QueryFilter) -> &RawFilter {
        &filter.raw
    }
}

impl std::fmt::Debug for NavMeshQuery<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavMeshQuery")
            .field("navmesh", &self.nav)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `check_point`'s one-test fast path gives the same answers as the two checks it skips:
    /// each component's NaN and infinities are non-finite, finite values beyond
    /// `MAX_COORDINATE` (1e9, `ffi::validate`) are out of range, the limit itself is in range.
    #[test]
    fn check_point_tells_non_finite_from_out_of_range() {
        let limit = crate::navmesh::params::MAX_COORDINATE;
        for axis in 0..3 {
            let at = |v: f32| {
                let mut p = Vec3::new(1.0, -2.0, 3.0);
                p[axis] = v;
                check_point("p", p)
            };
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                assert!(matches!(
                    at(bad),
                    Err(Error::NonFinite { argument: "p", .. })
                ));
            }
            for far in [limit * 2.0, -limit * 2.0, f32::MAX, f32::MIN] {
                assert!(matches!(
                    at(far),
                    Err(Error::PointOutOfRange { argument: "p", .. })
                ));
            }
            for ok in [limit, -limit, 0.0, -0.0] {
                let mut want = [1.0, -2.0, 3.0];
                want[axis] = ok;
                assert_eq!(at(ok).unwrap(), want);
            }
        }
    }
}
