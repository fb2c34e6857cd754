//! Stage `detail_mesh`: `rcBuildPolyMeshDetail`.

use super::fail;
use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{CompactHeightfield, PolyMesh, PolyMeshDetail};
use crate::settings::VoxelConfig;
use crate::stage::Stage;

/// Adds height detail to every polygon of `pmesh`, sampled from `chf`.
pub(crate) fn build_poly_mesh_detail(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    pmesh: &PolyMesh,
    chf: &CompactHeightfield,
) -> Result<PolyMeshDetail> {
    guard.check(Stage::DetailMesh)?;
    let mut dmesh = PolyMeshDetail::new();
    if !dmesh.build(
        ctx,
        pmesh,
        chf,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error,
    ) {
        return Err(fail(
            ctx,
            Stage::DetailMesh,
            "could not build the detail mesh",
        ));
    }
    Ok(dmesh)
}
