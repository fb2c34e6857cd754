//! The detail mesh in parts: `rcBuildPolyMeshDetail` over consecutive ranges of a poly mesh's
//! polygons, side by side on the calling thread and helper threads, joined in order by
//! `rcMergePolyMeshDetails`.
//!
//! Recast makes each polygon's detail mesh on its own: from the polygon's vertices, its region
//! and the compact heightfield (both only read), in scratch buffers it resets for every polygon
//! (the height patch is cleared over the polygon's bounds before it is filled, the sample,
//! edge and triangle arrays are emptied); the result is the polygons' sub-meshes one after the
//! other, each indexing its own vertices and triangles from where the previous one ended. The
//! merge appends the parts' sub-meshes, vertices and triangles in order, moving each part's
//! offsets past the parts before it. So the parts give the same bytes as one call over every
//! polygon (`tests/parallel_parity.rs` compares them on RecastDemo's meshes).

use std::ops::Range;

use recastnavigation_sys as sys;

use super::{CompactHeightfield, PolyMesh, PolyMeshDetail, Source};
use crate::ffi::context::RecastContext;

/// What every part reads: the poly mesh and the compact heightfield, as Recast's pointers.
struct Inputs {
    pmesh: *const sys::rcPolyMesh,
    chf: *const sys::rcCompactHeightfield,
    sample_dist: f32,
    sample_max_error: f32,
}

// SAFETY: the parts only read through these pointers (rcBuildPolyMeshDetail takes both objects
// by const reference), and `build_in_parts` keeps both objects borrowed, unchanged, until every
// part has finished.
unsafe impl Sync for Inputs {}

/// One part's outcome: Recast's flag, its detail mesh and its context (its log).
type Part = (bool, PolyMeshDetail, RecastContext);

impl Inputs {
    /// `rcBuildPolyMeshDetail` of the polygons `range` alone, with its own context.
    fn part(&self, range: Range<usize>) -> Part {
        let mut ctx = RecastContext::new();
        let dmesh = PolyMeshDetail::new();
        // SAFETY: `pmesh` is live and unchanged while the parts run (see `Inputs`). The copy
        // shares its arrays and is never freed (bindgen gives `rcPolyMesh` no `Drop`), and
        // `range` lies within its `npolys` polygons (`ranges` splits `0..npolys`), so the
        // offset pointers stay inside the same arrays.
        let view = unsafe {
            let mut view: sys::rcPolyMesh = std::ptr::read(self.pmesh);
            let nvp = view.nvp.max(0) as usize;
            view.polys = view.polys.add(range.start * nvp * 2);
            view.regs = view.regs.add(range.start);
            view.flags = view.flags.add(range.start);
            view.areas = view.areas.add(range.start);
            view.npolys = range.len() as i32;
            view.maxpolys = view.npolys;
            std::mem::ManuallyDrop::new(view)
        };
        // SAFETY: live objects; the view holds polygons of the poly mesh built from the
        // contours of `chf` as it is now (`build_in_parts` checked their stamps), so they index
        // `chf` as Recast expects; `dmesh` is this part's own.
        let ok = ctx.call(|c| unsafe {
            sys::rcBuildPolyMeshDetail(
                c,
                &*view,
                self.chf,
                self.sample_dist,
                self.sample_max_error,
                dmesh.as_ptr(),
            )
        });
        (ok, dmesh, ctx)
    }
}

/// `n` consecutive ranges splitting `0..len` as evenly as whole polygons allow.
fn ranges(len: usize, n: usize) -> Vec<Range<usize>> {
    let n = n.clamp(1, len.max(1));
    (0..n).map(|i| len * i / n..len * (i + 1) / n).collect()
}

impl PolyMeshDetail {
    /// [`PolyMeshDetail::build`] in `parts` parts (at most one per polygon) built side by side
    /// by the calling thread and up to `threads - 1` helpers ([`crate::par::claim_each`]: each
    /// takes the next part not yet taken) and merged in order: the same detail mesh, and the parts'
    /// log messages in order after `ctx`'s. Recast's detail-mesh timer of `ctx` times the whole.
    /// With one part, or nothing to sample, it is [`PolyMeshDetail::build`] itself.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn build_in_parts(
        &mut self,
        ctx: &mut RecastContext,
        pmesh: &PolyMesh,
        chf: &CompactHeightfield,
        sample_dist: f32,
        sample_max_error: f32,
        parts: usize,
        threads: usize,
    ) -> bool {
        let npolys = pmesh.npolys();
        let valid = pmesh.1 != Source::default() && pmesh.1 == chf.1;
        let samples = !sample_dist.is_nan() && sample_dist > 0.0;
        if parts <= 1 || npolys <= 1 || !valid || !samples || pmesh.nverts() == 0 {
            return self.build(ctx, pmesh, chf, sample_dist, sample_max_error);
        }
        const T_DETAIL: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_POLYMESHDETAIL;
        ctx.start_timer(T_DETAIL);
        let inputs = Inputs {
            pmesh: pmesh.as_ptr(),
            chf: chf.as_ptr(),
            sample_dist,
            sample_max_error,
        };
        let ranges = ranges(npolys, parts);
        let built: Vec<Part> =
            crate::par::claim_each(ranges.len(), threads, |i| inputs.part(ranges[i].clone()));
        // As one call over every polygon would have: the messages up to the first failure.
        let mut meshes = Vec::with_capacity(built.len());
        let mut ok = true;
        for (part_ok, dmesh, mut part_ctx) in built {
            ctx.append_logs(part_ctx.take_logs());
            meshes.push(dmesh);
            if !part_ok {
                ok = false;
                break;
            }
        }
        let ok = ok && self.merge(ctx, &meshes);
        ctx.stop_timer(T_DETAIL);
        ok
    }

    /// `rcMergePolyMeshDetails` of `parts`, in order, into this (new, empty) detail mesh.
    fn merge(&mut self, ctx: &mut RecastContext, parts: &[PolyMeshDetail]) -> bool {
        let mut ptrs: Vec<*mut sys::rcPolyMeshDetail> = parts.iter().map(|p| p.as_ptr()).collect();
        let n = ptrs.len() as i32;
        // SAFETY: live objects: `ptrs` holds the `n` detail meshes of `parts`, which the merge
        // only reads; `self` is the output, which it fills with new arrays.
        ctx.call(|c| unsafe { sys::rcMergePolyMeshDetails(c, ptrs.as_mut_ptr(), n, self.as_ptr()) })
    }
}
