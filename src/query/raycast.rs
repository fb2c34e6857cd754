//! [`NavMeshQuery::raycast`]: Detour's raycast with everything `dtRaycastHit` reports (hit
//! normal, hit edge, visited polygons, path cost with `DT_RAYCAST_USE_COSTS`, a previous
//! polygon for costs), through navkit's guarded walk, which ends on any data.
//!
//! Detour 1.0.3's own walk keeps going when its path buffer is full, so on a navmesh whose links
//! make the walk go round in a cycle it never returns (upstream issue #436). navkit's walk
//! (`glue/navkit_raycast.cpp`) follows the same algorithm with the same float operations (its
//! results are bit-identical to Detour's when the walk ends on its own), but stops when the path
//! buffer is full (as upstream later did), and in any case after as many polygons as the
//! navmesh can hold.

use glam::Vec3;

use super::{DEFAULT_MAX_PATH, MAX_BUFFER, NavMeshQuery, PolyRef, QueryFilter, check_point};
use crate::ffi::raycast::USE_COSTS;
use crate::status::Status;
use crate::{Error, Result};

/// Options of [`NavMeshQuery::raycast`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaycastOptions {
    /// Sum the cost of the stretch crossed in each polygon (`DT_RAYCAST_USE_COSTS`), as the
    /// filter's area costs times the distance, into [`RaycastHit::path_cost`].
    pub use_costs: bool,
    /// The polygon the ray's start polygon was entered from, passed to the filter's cost
    /// function (Detour's `prevRef`; the default filter's costs do not depend on it).
    pub prev_poly: Option<PolyRef>,
    /// The most visited polygons to record (0..=[`MAX_BUFFER`]). The walk stops, with
    /// [`RaycastHit::truncated`], when one more polygon would not fit. With 0 no polygon is
    /// recorded and the walk goes on to a wall or the end of the ray.
    pub max_path: usize,
}

impl Default for RaycastOptions {
    /// No costs, no previous polygon, [`DEFAULT_MAX_PATH`] polygons.
    fn default() -> Self {
        RaycastOptions {
            use_costs: false,
            prev_poly: None,
            max_path: DEFAULT_MAX_PATH,
        }
    }
}

/// The result of [`NavMeshQuery::raycast`] (Detour's `dtRaycastHit`).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct RaycastHit {
    /// The fraction of the segment travelled before the wall: `f32::MAX` if the ray reached its
    /// end (in xz), 0 if the start is on the wall. When [`Self::truncated`], how far the
    /// recorded polygons reach.
    pub t: f32,
    /// The wall's normal in xz (zero if no wall was hit).
    pub normal: Vec3,
    /// The edge of the last polygon the ray left by (the wall's edge after a hit); `None` if
    /// the ray ended inside it.
    pub hit_edge: Option<usize>,
    /// The polygons crossed, start first.
    pub polys: Vec<PolyRef>,
    /// With [`RaycastOptions::use_costs`]: the cost of the way to the hit (or the end).
    pub path_cost: f32,
    /// True if the walk stopped early: the path buffer was full (or, with
    /// [`RaycastOptions::max_path`] 0, polygons were not recorded), or it crossed as many
    /// polygons as the navmesh can hold (only a cyclic walk does).
    pub truncated: bool,
    /// Detour's status word.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub detour_status: Status,
}

impl RaycastHit {
    /// True if the ray hit a wall before its end.
    pub fn hit(&self) -> bool {
        self.t <= 1.0 && !self.truncated
    }

    /// Where the ray stopped, on the segment `start`..`end` (the end if nothing was hit; the
    /// height is interpolated, not the surface's).
    pub fn point(&self, start: Vec3, end: Vec3) -> Vec3 {
        start + (end - start) * self.t.min(1.0)
    }
}

impl NavMeshQuery<'_> {
    /// The most polygons any walk over this navmesh can cross without repeating itself: every
    /// polygon its tiles can hold (at least 1).
    pub(crate) fn walk_step_cap(&self) -> usize {
        let p = self.nav.params();
        (p.max_tiles.max(1) as usize).saturating_mul(p.max_polys.max(1) as usize)
    }

    /// Casts a ray along the surface from `start_pos` (in polygon `start`) toward `end_pos`
    /// (Detour's `raycast` with `dtRaycastHit`), reporting the hit normal, the edge hit, the
    /// polygons crossed and, with [`RaycastOptions::use_costs`], the cost of the way.
    ///
    /// The walk is 2D (xz): the end's height is ignored. It is navkit's own (C++ glue), with
    /// Detour's algorithm and float operations (bit-identical results), but it ends on any
    /// navmesh data: Detour 1.0.3's walk goes on when its path buffer is full, and never returns
    /// on a navmesh whose links make it go round in a cycle (upstream issue #436). navkit's
    /// stops when the buffer is full (as upstream later did) and in any case after as many
    /// polygons as the navmesh can hold, and reports [`RaycastHit::truncated`].
    ///
    /// ```no_run
    /// # fn f(q: &mut navkit::query::NavMeshQuery) -> navkit::Result<()> {
    /// use glam::Vec3;
    /// use navkit::query::{QueryFilter, RaycastOptions, DEFAULT_HALF_EXTENTS};
    /// let f = QueryFilter::default();
    /// let start = q.find_nearest_poly(Vec3::new(-10.0, 0.0, -10.0), DEFAULT_HALF_EXTENTS, &f)?;
    /// let opts = RaycastOptions { use_costs: true, ..RaycastOptions::default() };
    /// let r = q.raycast(start.poly, start.point, start.point + Vec3::X * 3.0, &f, &opts)?;
    /// assert_eq!(r.polys[0], start.poly);
    /// # Ok(()) }
    /// ```
    pub fn raycast(
        &mut self,
        start: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        options: &RaycastOptions,
    ) -> Result<RaycastHit> {
        let s = self.check_ref("start", start)?;
        let prev = match options.prev_poly {
            Some(p) => self.check_ref("prev_poly", p)?,
            None => PolyRef::default().0,
        };
        let sp = check_point("start_pos", start_pos)?;
        let ep = check_point("end_pos", end_pos)?;
        if options.max_path > MAX_BUFFER {
            return Err(Error::InvalidArgument(format!(
                "max_path {} is not in 0..={MAX_BUFFER}",
                options.max_path
            )));
        }
        let opts = if options.use_costs { USE_COSTS } else { 0 };
        // The buffer, when there is one, ends the walk first.
        let cap = self.walk_step_cap().max(options.max_path + 1);
        let mut path = Vec::new();
        let h = self.raw.raycast_hit(
            s,
            sp,
            ep,
            &filter.raw,
            opts,
            prev,
            &mut path,
            options.max_path,
            cap,
        );
        let st = Status(h.status).check("raycast")?;
        Ok(RaycastHit {
            t: h.t,
            normal: Vec3::from_array(h.normal),
            hit_edge: usize::try_from(h.edge).ok(),
            polys: path.into_iter().map(PolyRef).collect(),
            path_cost: h.cost,
            truncated: st.has(Status::BUFFER_TOO_SMALL),
            detour_status: st,
        })
    }
}
