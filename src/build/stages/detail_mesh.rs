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

/// The least estimated work (the sum over polygons of the square of their sample counts, taking
/// each polygon's bounding box) for which the detail mesh is built in parts. The calling thread
/// starts on the first part at once and takes parts as long as any are left, so a helper thread
/// that a busy machine does not run soon costs little more than its start (some tens of
/// microseconds); below this the whole detail mesh is about that. RecastDemo's meshes with its
/// settings: dungeon 2.1e4 (0.5 ms of detail mesh here), nav_test 6.9e4 (1.3 ms), undulating
/// 5.1e5 (65 ms).
const MIN_WORK_FOR_PARTS: f64 = 1.0e4;

/// The estimated work of `pmesh`'s detail mesh at sample distance `sample_dist` (world units):
/// the sum over its polygons of (bounding-box area / sample distance squared) squared, as the
/// sampling loop checks every remaining sample after each one it adds.
fn detail_work(pmesh: &PolyMesh, sample_dist: f32) -> f64 {
    let (cs, _) = pmesh.cell();
    if sample_dist.is_nan() || sample_dist <= 0.0 {
        return 0.0;
    }
    let per_cell =
        f64::from(cs) * f64::from(cs) / (f64::from(sample_dist) * f64::from(sample_dist));
    let (verts, nvp) = (pmesh.verts(), pmesh.nvp());
    pmesh
        .polys()
        .chunks_exact(nvp * 2)
        .map(|p| {
            let (mut lo, mut hi) = ([u16::MAX; 2], [0u16; 2]);
            for &v in p[..nvp].iter().take_while(|&&v| v != u16::MAX) {
                let (x, z) = (verts[v as usize * 3], verts[v as usize * 3 + 2]);
                lo = [lo[0].min(x), lo[1].min(z)];
                hi = [hi[0].max(x), hi[1].max(z)];
            }
            let area =
                f64::from(hi[0].saturating_sub(lo[0])) * f64::from(hi[1].saturating_sub(lo[1]));
            (area * per_cell).powi(2)
        })
        .sum()
}

/// How many parts the detail mesh of `pmesh` is built in on `threads` threads: one on a single
/// thread or below [`MIN_WORK_FOR_PARTS`]; otherwise up to [`PARTS_PER_THREAD`] per thread,
/// with at least [`MIN_POLYS_PER_PART`] polygons each. The parts give the same detail mesh as
/// one call.
fn parts(pmesh: &PolyMesh, sample_dist: f32, threads: usize) -> usize {
    if threads <= 1 || detail_work(pmesh, sample_dist) < MIN_WORK_FOR_PARTS {
        return 1;
    }
    (threads * PARTS_PER_THREAD)
        .min(pmesh.npolys() / MIN_POLYS_PER_PART)
        .max(1)
}

/// Adds height detail to every polygon of `pmesh`, sampled from `chf`, in parts side by side on
/// the calling thread and up to `threads - 1` helpers (1: on the calling thread, in one piece).
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
        parts(pmesh, cfg.detail_sample_dist, threads),
        threads,
    ) {
        return Err(fail(
            ctx,
            Stage::DetailMesh,
            "could not build the detail mesh",
        ));
    }
    Ok(dmesh)
}
