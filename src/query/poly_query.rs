//! Queries about boxes of polygons and single polygons: [`NavMeshQuery::query_polygons`] and
//! [`NavMeshQuery::query_polygons_with`] (`queryPolygons`), [`NavMeshQuery::poly_wall_segments`]
//! (`getPolyWallSegments` with portals), [`NavMeshQuery::closest_point_on_poly_boundary`] and
//! [`NavMeshQuery::is_valid_poly_ref`].

use glam::Vec3;

use super::{Limited, MAX_BUFFER, NavMeshQuery, PolyRef, QueryFilter, check_point, check_status};
use crate::status::Status;
use crate::{Error, Result};

/// One segment of a polygon's boundary, from [`NavMeshQuery::poly_wall_segments`].
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WallSegment {
    /// Start of the segment (in the polygon's winding).
    pub start: Vec3,
    /// End of the segment.
    pub end: Vec3,
    /// The polygon across the segment, passing the filter; `PolyRef(0)` for a wall.
    pub neighbour: PolyRef,
}

impl WallSegment {
    /// True if nothing the filter lets through lies across the segment.
    pub fn is_wall(&self) -> bool {
        self.neighbour == PolyRef::default()
    }
}

/// Segments a polygon's boundary can split into: per edge, up to 16 portal intervals with the
/// walls between them (Detour keeps 16 intervals, 2 of them sentinels, so at most 14 portals
/// and 15 walls), for at most `DT_VERTS_PER_POLYGON` edges.
const MAX_WALL_SEGMENTS: usize = 30 * recastnavigation_sys::DT_VERTS_PER_POLYGON as usize;

impl NavMeshQuery<'_> {
    /// Checks a query box: finite center, finite non-negative half extents covering at most a
    /// million tile slots (Detour visits each).
    fn check_box(&self, center: Vec3, half_extents: Vec3) -> Result<([f32; 3], [f32; 3])> {
        let c = check_point("center", center)?;
        let h = check_point("half_extents", half_extents)?;
        if half_extents.min_element() < 0.0 {
            return Err(Error::InvalidArgument(format!(
                "half extents {half_extents} are negative"
            )));
        }
        let p = self.nav.params();
        let span = |e: f32, w: f32| (2.0 * e / w).ceil() as f64 + 1.0;
        if span(half_extents.x, p.tile_width) * span(half_extents.z, p.tile_height) > 1.0e6 {
            return Err(Error::InvalidArgument(format!(
                "half extents {half_extents} cover more than a million tiles"
            )));
        }
        Ok((c, h))
    }

    /// The ground polygons passing `filter` whose bounds overlap the box `center ±
    /// half_extents` (`queryPolygons`), at most `max_polys` (1..=[`MAX_BUFFER`]); more are
    /// reported with [`Limited::truncated`].
    ///
    /// The bounds are the tile's BV-tree boxes where it has one (quantized outward, so a polygon
    /// whose box is just outside the query box may be included), else the polygon's vertices'
    /// box. Off-mesh connections are never included.
    pub fn query_polygons(
        &mut self,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
        max_polys: usize,
    ) -> Result<Limited<PolyRef>> {
        let (c, h) = self.check_box(center, half_extents)?;
        if max_polys == 0 || max_polys > MAX_BUFFER {
            return Err(Error::InvalidArgument(format!(
                "max_polys {max_polys} is not in 1..={MAX_BUFFER}"
            )));
        }
        let mut refs = Vec::new();
        let st = self
            .raw
            .query_polygons(c, h, &filter.raw, &mut refs, max_polys);
        let st = check_status("queryPolygons", st)?;
        Ok(Limited {
            items: refs.into_iter().map(PolyRef).collect(),
            truncated: st.has(Status::BUFFER_TOO_SMALL),
        })
    }

    /// [`Self::query_polygons`] without a limit: `each` is called with every batch of polygons
    /// Detour finds (through a `dtPolyQuery` collector: up to 32 polygons at a time, tile by
    /// tile), so nothing is copied or capped. A panic in `each` stops the query and is raised
    /// again here once Detour has returned.
    ///
    /// ```no_run
    /// # fn f(q: &mut navkit::query::NavMeshQuery) -> navkit::Result<()> {
    /// use glam::Vec3;
    /// let mut count = 0;
    /// q.query_polygons_with(Vec3::ZERO, Vec3::splat(5.0), &Default::default(), |polys| {
    ///     count += polys.len()
    /// })?;
    /// # Ok(()) }
    /// ```
    pub fn query_polygons_with(
        &mut self,
        center: Vec3,
        half_extents: Vec3,
        filter: &QueryFilter,
        mut each: impl FnMut(&[PolyRef]),
    ) -> Result<()> {
        let (c, h) = self.check_box(center, half_extents)?;
        let mut batch: Vec<PolyRef> = Vec::new();
        let st = self
            .raw
            .query_polygons_with(c, h, &filter.raw, &mut |refs| {
                batch.clear();
                batch.extend(refs.iter().map(|&r| PolyRef(r)));
                each(&batch);
            });
        check_status("queryPolygons", st)?;
        Ok(())
    }

    /// The boundary of polygon `poly` as segments (`getPolyWallSegments` with portals), in the
    /// polygon's winding: each edge whole when it is a wall or leads to one polygon inside the
    /// tile, and split at the portals where it borders other tiles. A neighbour the filter
    /// refuses makes its segment a wall.
    pub fn poly_wall_segments(
        &mut self,
        poly: PolyRef,
        filter: &QueryFilter,
    ) -> Result<Vec<WallSegment>> {
        let r = self.check_ref("poly", poly)?;
        let (st, segs) = self
            .raw
            .poly_wall_segments(r, &filter.raw, MAX_WALL_SEGMENTS);
        check_status("getPolyWallSegments", st)?;
        Ok(segs
            .into_iter()
            .map(|(a, b, n)| WallSegment {
                start: Vec3::from_array(a),
                end: Vec3::from_array(b),
                neighbour: PolyRef(n),
            })
            .collect())
    }

    /// The point of polygon `poly` nearest `pos` in xz (`closestPointOnPolyBoundary`): `pos`
    /// itself when it is over the polygon, else the nearest point of its boundary (heights
    /// interpolated along the boundary, not the detail surface).
    pub fn closest_point_on_poly_boundary(&mut self, poly: PolyRef, pos: Vec3) -> Result<Vec3> {
        let r = self.check_ref("poly", poly)?;
        let p = check_point("pos", pos)?;
        let (st, c) = self.raw.closest_point_on_poly_boundary(r, p);
        check_status("closestPointOnPolyBoundary", st)?;
        Ok(Vec3::from_array(c))
    }

    /// True if `poly` is a polygon of this navmesh that `filter` lets through
    /// (`dtNavMeshQuery::isValidPolyRef`). Any ref may be asked about.
    pub fn is_valid_poly_ref(&mut self, poly: PolyRef, filter: &QueryFilter) -> bool {
        self.raw.is_valid_poly_ref(poly.0, &filter.raw)
    }
}
