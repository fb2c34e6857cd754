//! Stage `detail_mesh`: `rcBuildPolyMeshDetail`, in parts side by side where threads are free.

use super::fail;
use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{CompactHeightfield, PolyMesh, PolyMeshDetail};
use crate::settings::VoxelConfig;
use crate::stage::Stage;

/// The fewest polygons a part of a detail mesh built in parts holds: below this a part's own
/// context, arrays and hand-off between threads cost about what its share of the work saves.
const MIN_POLYS_PER_PART: usize = 16;

/// Parts per thread: polygons differ widely in work (their areas and sample counts), so more
/// parts than threads let a thread that finished early take another.
const PARTS_PER_THREAD: usize = 4;

/// How many parts the detail mesh of `npolys` polygons is built in on `threads` threads: one
/// on a single thread; otherwise up to [`PARTS_PER_THREAD`] per thread, with at least
/// [`MIN_POLYS_PER_PART`] polygons each. The parts give the same detail mesh as one call.
fn parts(npolys: usize, threads: usize) -> usize {
    if threads <= 1 {
        return 1;
    }
    (threads * PARTS_PER_THREAD)
        .min(npolys / MIN_POLYS_PER_PART)
        .max(1)
}

/// Adds height detail to every polygon of `pmesh`, sampled from `chf`, in parts side by side on
/// up to `threads` of [`crate::par`]'s threads (1: on the calling thread, in one piece).
pub(crate) fn build_poly_mesh_detail(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    pmesh: &PolyMesh,
    chf: &CompactHeightfield,
    threads: usize,
) -> Result<PolyMeshDetail> {
    guard.check(Stage::DetailMesh)?;
    let mut dmesh = PolyMeshDetail::new();
    if !dmesh.build_in_parts(
        ctx,
        pmesh,
        chf,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error,
        parts(pmesh.npolys(), threads),
    ) {
        return Err(fail(
            ctx,
            Stage::DetailMesh,
            "could not build the detail mesh",
        ));
    }
    Ok(dmesh)
}
