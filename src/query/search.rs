//! Graph searches around a point or a shape, and what they leave behind in the query:
//! [`NavMeshQuery::find_polys_around_shape`], [`NavMeshQuery::find_local_neighbourhood`],
//! [`NavMeshQuery::find_random_point_around_circle`],
//! [`NavMeshQuery::path_from_dijkstra_search`] and [`NavMeshQuery::is_in_closed_list`].

use glam::Vec3;

use super::{
    CirclePoly, Limited, MAX_BUFFER, NavMeshQuery, PolyRef, QueryFilter, check_point, check_status,
};
use crate::status::Status;
use crate::{Error, Result};

/// The most vertices [`NavMeshQuery::find_polys_around_shape`] accepts (Detour has no limit of
/// its own; every edge crossed in the search is tested against every side of the shape).
pub const MAX_SHAPE_VERTS: usize = 256;

/// One polygon found by [`NavMeshQuery::find_local_neighbourhood`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct NeighbourhoodPoly {
    /// The polygon.
    pub poly: PolyRef,
    /// The polygon it was reached from (`PolyRef(0)` for the start).
    pub parent: PolyRef,
}

fn check_radius(radius: f32) -> Result<()> {
    if radius.is_finite() && radius >= 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "radius {radius} is not a finite number >= 0"
        )))
    }
}

fn check_max(what: &str, n: usize) -> Result<()> {
    if n == 0 || n > MAX_BUFFER {
        Err(Error::InvalidArgument(format!(
            "{what} {n} is not in 1..={MAX_BUFFER}"
        )))
    } else {
        Ok(())
    }
}

/// `dtTriArea2D`: twice the signed xz area of triangle (a, b, c); positive for Detour's winding.
fn tri_area_2d(a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let (abx, abz) = (b.x - a.x, b.z - a.z);
    let (acx, acz) = (c.x - a.x, c.z - a.z);
    acx * abz - abx * acz
}

/// Checks a search shape: 3..=[`MAX_SHAPE_VERTS`] finite vertices forming a convex polygon in
/// xz, wound as Detour's polygons (every corner turns the same way, `dtTriArea2D >= 0`), with
/// some area.
pub(crate) fn check_shape(verts: &[Vec3]) -> Result<Vec<[f32; 3]>> {
    let n = verts.len();
    if !(3..=MAX_SHAPE_VERTS).contains(&n) {
        return Err(Error::InvalidArgument(format!(
            "the shape has {n} vertices, not 3..={MAX_SHAPE_VERTS}"
        )));
    }
    let pts = verts
        .iter()
        .map(|&v| check_point("verts", v))
        .collect::<Result<Vec<_>>>()?;
    let mut area = 0.0f64;
    for i in 0..n {
        let (a, b, c) = (verts[i], verts[(i + 1) % n], verts[(i + 2) % n]);
        let turn = tri_area_2d(a, b, c);
        if turn < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "the shape is not convex in Detour's winding at vertex {} ({b}): list its \
                 vertices the other way round if it is convex",
                (i + 1) % n
            )));
        }
        area += f64::from(tri_area_2d(verts[0], b, c));
    }
    if area <= 0.0 {
        return Err(Error::InvalidArgument("the shape has no area in xz".into()));
    }
    Ok(pts)
}

impl NavMeshQuery<'_> {
    /// Checks the arguments of a random point search around a circle, in this order: `start` a
    /// polygon of the navmesh, `center` finite and in range, the radius (`radius_checked`),
    /// `start` passing the filter.
    pub(super) fn circle_start(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius_checked: Result<()>,
        filter: &QueryFilter,
    ) -> Result<(super::PolyRefBits, [f32; 3])> {
        let s = self.check_ref("start", start)?;
        let c = check_point("center", center)?;
        radius_checked?;
        if !self.raw.is_valid_poly_ref(s, &filter.raw) {
            return Err(Error::InvalidArgument(format!(
                "start poly {start} does not pass the filter"
            )));
        }
        Ok((s, c))
    }

    /// The polygons reachable from `start` whose edges the convex polygon `shape` touches
    /// (`findPolysAroundShape`: a Dijkstra search from the shape's centroid, cheapest first), at
    /// most `max_result` (1..=[`MAX_BUFFER`]).
    ///
    /// `shape` is 3..=[`MAX_SHAPE_VERTS`] points, convex in xz and wound as Detour's polygons
    /// (with x to the right and z up on the page, clockwise; RecastDemo's query box is so), else
    /// [`Error::InvalidArgument`]. Afterwards [`Self::path_from_dijkstra_search`] and
    /// [`Self::is_in_closed_list`] read this search.
    pub fn find_polys_around_shape(
        &mut self,
        start: PolyRef,
        shape: &[Vec3],
        filter: &QueryFilter,
        max_result: usize,
    ) -> Result<Limited<CirclePoly>> {
        let s = self.check_ref("start", start)?;
        let verts = check_shape(shape)?;
        check_max("max_result", max_result)?;
        let (st, v) = self
            .raw
            .find_polys_around_shape(s, &verts, &filter.raw, max_result);
        let st = check_status("findPolysAroundShape", st)?;
        Ok(Limited {
            items: v
                .into_iter()
                .map(|(r, p, cost)| CirclePoly {
                    poly: PolyRef(r),
                    parent: PolyRef(p),
                    cost,
                })
                .collect(),
            truncated: st.has(Status::BUFFER_TOO_SMALL),
        })
    }

    /// The polygons around `start` within `radius` of `center` (in xz) that do not overlap
    /// each other (`findLocalNeighbourhood`, as a crowd agent's local boundary uses), at most
    /// `max_result` (1..=[`MAX_BUFFER`]): a breadth-first walk over portals the circle
    /// touches, which skips a polygon overlapping one already found unless linked to the
    /// polygon it is reached from. Detour keeps at most 48 polygons waiting to be expanded.
    pub fn find_local_neighbourhood(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        max_result: usize,
    ) -> Result<Limited<NeighbourhoodPoly>> {
        let s = self.check_ref("start", start)?;
        let c = check_point("center", center)?;
        check_radius(radius)?;
        check_max("max_result", max_result)?;
        let (st, v) = self
            .raw
            .find_local_neighbourhood(s, c, radius, &filter.raw, max_result);
        let st = check_status("findLocalNeighbourhood", st)?;
        Ok(Limited {
            items: v
                .into_iter()
                .map(|(r, p)| NeighbourhoodPoly {
                    poly: PolyRef(r),
                    parent: PolyRef(p),
                })
                .collect(),
            truncated: st.has(Status::BUFFER_TOO_SMALL),
        })
    }

    /// The polygon path from the start of this query's last search to `end`
    /// (`getPathFromDijkstraSearch`), at most `max_path` polygons (1..=[`MAX_BUFFER`]; a longer
    /// path is cut at its end and reported [`Limited::truncated`]).
    ///
    /// Meant right after [`Self::find_polys_around_circle`] or
    /// [`Self::find_polys_around_shape`]: the answer comes from the search nodes this query
    /// kept, and any other search (a path, a random point ...) replaces them. `end` must have
    /// been reached and expanded by that search ([`Self::is_in_closed_list`]), else
    /// [`Error::InvalidArgument`].
    pub fn path_from_dijkstra_search(
        &mut self,
        end: PolyRef,
        max_path: usize,
    ) -> Result<Limited<PolyRef>> {
        let e = self.check_ref("end", end)?;
        check_max("max_path", max_path)?;
        if !self.raw.is_in_closed_list(e) {
            return Err(Error::InvalidArgument(format!(
                "end poly {end} was not reached by the last search on this query"
            )));
        }
        let mut path = Vec::new();
        let st = self.raw.path_from_dijkstra_search(e, &mut path, max_path);
        let st = check_status("getPathFromDijkstraSearch", st)?;
        Ok(Limited {
            items: path.into_iter().map(PolyRef).collect(),
            truncated: st.has(Status::BUFFER_TOO_SMALL),
        })
    }

    /// True if this query's last search (a path, or a search around a circle or shape) fully
    /// expanded `poly` (`isInClosedList`). Any ref may be asked about.
    pub fn is_in_closed_list(&mut self, poly: PolyRef) -> bool {
        self.raw.is_in_closed_list(poly.0)
    }

    /// A random point on a polygon reachable from `start` (containing `center`) through
    /// polygons within `radius` of `center` (`findRandomPointAroundCircle`), polygons weighted
    /// by area, drawn from any [`rand::Rng`] (the same seed gives the same points). The point is
    /// not itself constrained to the circle: the circle limits the polygons visited. For a point
    /// inside the circle, uniform over its walkable area, see
    /// [`Self::find_random_point_within_circle`].
    pub fn find_random_point_around_circle<R: rand::Rng + ?Sized>(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        rng: &mut R,
    ) -> Result<(PolyRef, Vec3)> {
        self.find_random_point_around_circle_with(start, center, radius, filter, || {
            rng.r#gen::<f32>()
        })
    }

    /// [`Self::find_random_point_around_circle`] with any random source returning numbers in
    /// [0, 1) (others are taken as 0.5). `start` must pass the filter.
    pub fn find_random_point_around_circle_with(
        &mut self,
        start: PolyRef,
        center: Vec3,
        radius: f32,
        filter: &QueryFilter,
        mut random: impl FnMut() -> f32,
    ) -> Result<(PolyRef, Vec3)> {
        let (s, c) = self.circle_start(start, center, check_radius(radius), filter)?;
        let (st, r, p) =
            self.raw
                .find_random_point_around_circle(s, c, radius, &filter.raw, &mut random);
        check_status("findRandomPointAroundCircle", st)?;
        if r == 0 {
            return Err(Error::InvalidArgument(
                "no polygon around the circle passes the filter".into(),
            ));
        }
        Ok((PolyRef(r), Vec3::from_array(p)))
    }
}
