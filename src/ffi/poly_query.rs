//! Detour calls about single polygons and boxes of them: `queryPolygons` (into a buffer, or
//! batch by batch into a Rust closure through `glue/navkit_poly_query.cpp`), `getPolyWallSegments`,
//! `closestPointOnPolyBoundary` and `isValidPolyRef` with a filter.

use std::os::raw::{c_int, c_void};

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::buffers::OutBuf;
use super::detour::{RawFilter, RawQuery};

/// A boundary segment: start, end, neighbour ref (0: wall).
pub(crate) type Segment = ([f32; 3], [f32; 3], RawPolyRef);

type BatchFn = unsafe extern "C" fn(*mut c_void, *const RawPolyRef, c_int) -> c_int;

unsafe extern "C" {
    fn navkit_query_polygons(
        query: *const sys::dtNavMeshQuery,
        center: *const f32,
        half_extents: *const f32,
        filter: *const sys::dtQueryFilter,
        batch: Option<BatchFn>,
        user: *mut c_void,
    ) -> u32;
}

/// The Rust side of a collector: `user` is a `&mut &mut dyn FnMut(&[RawPolyRef])`.
unsafe extern "C" fn batch_trampoline(
    user: *mut c_void,
    refs: *const RawPolyRef,
    count: c_int,
) -> c_int {
    // A panic here is raised again once queryPolygons returns (see `super::panic`); 0 makes
    // the glue skip the remaining batches.
    super::panic::wrap(|| {
        super::panic::test_hook();
        if user.is_null() || refs.is_null() || count <= 0 {
            return;
        }
        // SAFETY: `user` is the `&mut &mut dyn FnMut` that `RawQuery::query_polygons_with` passed
        // for this call, alive and not otherwise used while the call runs.
        let f = unsafe { &mut *(user as *mut &mut dyn FnMut(&[RawPolyRef])) };
        // SAFETY: Detour passes `count` refs of its batch buffer, valid for this call.
        let batch = unsafe { std::slice::from_raw_parts(refs, count as usize) };
        f(batch);
    })
    .map_or(0, |()| 1)
}

impl RawQuery<'_> {
    /// `queryPolygons` into a buffer of `max` refs (at least 1): (status, refs).
    pub(crate) fn query_polygons(
        &mut self,
        center: [f32; 3],
        half: [f32; 3],
        f: &RawFilter,
        out: &mut Vec<RawPolyRef>,
        max: usize,
    ) -> u32 {
        let max = max.clamp(1, i32::MAX as usize);
        let mut out = OutBuf::new(out, max);
        let mut n: c_int = 0;
        // SAFETY: live query; `out` has room for `max` refs, which Detour may write, and it
        // initialises the first `n` of them; 3-float inputs.
        unsafe {
            let st = sys::dtNavMeshQuery_queryPolygons(
                self.q(),
                center.as_ptr(),
                half.as_ptr(),
                &f.0,
                out.ptr(),
                &mut n,
                max as c_int,
            );
            out.set_written(n);
            st
        }
    }

    /// `queryPolygons` with a collector: `each` gets every batch of refs. A panic in `each` is
    /// raised again here once Detour has returned (the remaining batches are skipped).
    pub(crate) fn query_polygons_with(
        &mut self,
        center: [f32; 3],
        half: [f32; 3],
        f: &RawFilter,
        each: &mut dyn FnMut(&[RawPolyRef]),
    ) -> u32 {
        let mut each = each;
        let user = &mut each as *mut &mut dyn FnMut(&[RawPolyRef]) as *mut c_void;
        // SAFETY: live query; `user` points to `each`, which outlives the call and is used only
        // by `batch_trampoline` during it, on this thread.
        super::panic::call(|| unsafe {
            navkit_query_polygons(
                self.q(),
                center.as_ptr(),
                half.as_ptr(),
                &f.0,
                Some(batch_trampoline),
                user,
            )
        })
    }

    /// `getPolyWallSegments` with portals: (status, segments as (a, b), neighbour ref per
    /// segment, 0 for a wall), at most `max` (at least 1).
    pub(crate) fn poly_wall_segments(
        &mut self,
        r: RawPolyRef,
        f: &RawFilter,
        max: usize,
    ) -> (u32, Vec<Segment>) {
        let max = max.clamp(1, i32::MAX as usize / 6);
        let mut verts = vec![0f32; 6 * max];
        let mut refs: Vec<RawPolyRef> = vec![0; max];
        let mut n: c_int = 0;
        // SAFETY: live query; `verts` holds 6 floats and `refs` one ref for each of `max`
        // segments; Detour validates the ref.
        let st = unsafe {
            sys::dtNavMeshQuery_getPolyWallSegments(
                self.q(),
                r,
                &f.0,
                verts.as_mut_ptr(),
                refs.as_mut_ptr(),
                &mut n,
                max as c_int,
            )
        };
        let n = (n.max(0) as usize).min(max);
        let segs = (0..n)
            .map(|i| {
                let v = &verts[6 * i..6 * i + 6];
                ([v[0], v[1], v[2]], [v[3], v[4], v[5]], refs[i])
            })
            .collect();
        (st, segs)
    }

    /// `closestPointOnPolyBoundary`: (status, point).
    pub(crate) fn closest_point_on_poly_boundary(
        &mut self,
        r: RawPolyRef,
        pos: [f32; 3],
    ) -> (u32, [f32; 3]) {
        let mut c = [0f32; 3];
        // SAFETY: live query; Detour validates the ref; 3-float input and output.
        let st = unsafe {
            sys::dtNavMeshQuery_closestPointOnPolyBoundary(
                self.q(),
                r,
                pos.as_ptr(),
                c.as_mut_ptr(),
            )
        };
        (st, c)
    }

    /// `dtNavMeshQuery::isValidPolyRef`: a polygon of the navmesh that passes the filter.
    pub(crate) fn is_valid_poly_ref(&mut self, r: RawPolyRef, f: &RawFilter) -> bool {
        // SAFETY: live query; Detour validates the ref before reading the polygon.
        unsafe { sys::dtNavMeshQuery_isValidPolyRef(self.q(), r, &f.0) }
    }
}
