//! Detour's graph searches around a point or shape and what they leave behind:
//! `findPolysAroundShape`, `findLocalNeighbourhood`, `findRandomPointAroundCircle`,
//! `getPathFromDijkstraSearch` and `isInClosedList`.

use std::os::raw::c_int;

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::buffers::OutBuf;
use super::detour::{RawFilter, RawQuery, with_random};

/// (ref, parent, cost) of each polygon a Dijkstra search reached.
pub(crate) type Reached = Vec<(RawPolyRef, RawPolyRef, f32)>;

impl RawQuery<'_> {
    /// `findPolysAroundShape` over the convex polygon `verts` (at least 3): status and (ref,
    /// parent, cost) triples, at most `max` (at least 1).
    pub(crate) fn find_polys_around_shape(
        &mut self,
        start: RawPolyRef,
        verts: &[[f32; 3]],
        f: &RawFilter,
        max: usize,
    ) -> (u32, Reached) {
        let max = max.clamp(1, i32::MAX as usize);
        let mut refs: Vec<RawPolyRef> = vec![0; max];
        let mut parents: Vec<RawPolyRef> = vec![0; max];
        let mut costs = vec![0f32; max];
        let mut n: c_int = 0;
        let nverts = verts.len().min(i32::MAX as usize) as c_int;
        // SAFETY: live query; `verts` holds `nverts` points of 3 floats (`[f32; 3]` is laid out
        // as 3 floats); each output array holds `max` entries.
        let st = unsafe {
            sys::dtNavMeshQuery_findPolysAroundShape(
                self.q(),
                start,
                verts.as_ptr() as *const f32,
                nverts,
                &f.0,
                refs.as_mut_ptr(),
                parents.as_mut_ptr(),
                costs.as_mut_ptr(),
                &mut n,
                max as c_int,
            )
        };
        let n = (n.max(0) as usize).min(max);
        (
            st,
            (0..n).map(|i| (refs[i], parents[i], costs[i])).collect(),
        )
    }

    /// `findLocalNeighbourhood`: status and (ref, parent) pairs, at most `max` (at least 1).
    pub(crate) fn find_local_neighbourhood(
        &mut self,
        start: RawPolyRef,
        center: [f32; 3],
        radius: f32,
        f: &RawFilter,
        max: usize,
    ) -> (u32, Vec<(RawPolyRef, RawPolyRef)>) {
        let max = max.clamp(1, i32::MAX as usize);
        let mut refs: Vec<RawPolyRef> = vec![0; max];
        let mut parents: Vec<RawPolyRef> = vec![0; max];
        let mut n: c_int = 0;
        // SAFETY: live query; both output arrays hold `max` entries; 3-float center.
        let st = unsafe {
            sys::dtNavMeshQuery_findLocalNeighbourhood(
                self.q(),
                start,
                center.as_ptr(),
                radius,
                &f.0,
                refs.as_mut_ptr(),
                parents.as_mut_ptr(),
                &mut n,
                max as c_int,
            )
        };
        let n = (n.max(0) as usize).min(max);
        (st, (0..n).map(|i| (refs[i], parents[i])).collect())
    }

    /// `getPathFromDijkstraSearch`: the path from the last search's start to `end` into `out`
    /// (at most `max`, at least 1).
    pub(crate) fn path_from_dijkstra_search(
        &mut self,
        end: RawPolyRef,
        out: &mut Vec<RawPolyRef>,
        max: usize,
    ) -> u32 {
        let max = max.clamp(1, i32::MAX as usize);
        let mut out = OutBuf::new(out, max);
        let mut n: c_int = 0;
        // SAFETY: live query; `out` has room for `max` refs, which Detour may write, and it
        // initialises the first `n` of them.
        unsafe {
            let st = sys::dtNavMeshQuery_getPathFromDijkstraSearch(
                self.q(),
                end,
                out.ptr(),
                &mut n,
                max as c_int,
            );
            out.set_written(n);
            st
        }
    }

    /// `isInClosedList`: whether the last search fully expanded `r`.
    pub(crate) fn is_in_closed_list(&mut self, r: RawPolyRef) -> bool {
        // SAFETY: live query; the lookup only hashes the ref into the node pool.
        unsafe { sys::dtNavMeshQuery_isInClosedList(self.q(), r) }
    }

    /// `findRandomPointAroundCircle` drawing its numbers from `random` (values outside [0, 1)
    /// are replaced by 0.5): (status, ref, point).
    pub(crate) fn find_random_point_around_circle(
        &mut self,
        start: RawPolyRef,
        center: [f32; 3],
        radius: f32,
        f: &RawFilter,
        random: &mut dyn FnMut() -> f32,
    ) -> (u32, RawPolyRef, [f32; 3]) {
        let mut r: RawPolyRef = 0;
        let mut pt = [0f32; 3];
        let q = self.q();
        let st = with_random(random, |frand| {
            // SAFETY: live query; `frand` reads this thread's random source, lent for this call;
            // 3-float input and output.
            unsafe {
                sys::dtNavMeshQuery_findRandomPointAroundCircle(
                    q,
                    start,
                    center.as_ptr(),
                    radius,
                    &f.0,
                    frand,
                    &mut r,
                    pt.as_mut_ptr(),
                )
            }
        });
        (st, r, pt)
    }
}
