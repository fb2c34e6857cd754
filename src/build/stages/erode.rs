//! Stage `erode`: `rcErodeWalkableArea`.

use super::fail;
use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::CompactHeightfield;
use crate::settings::VoxelConfig;
use crate::stage::Stage;

/// Shrinks the walkable area of `chf` by the agent radius.
pub(crate) fn erode_walkable_area(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    chf: &mut CompactHeightfield,
) -> Result<()> {
    guard.check(Stage::Erode)?;
    if !chf.erode(ctx, cfg.walkable_radius) {
        return Err(fail(ctx, Stage::Erode, "could not erode the walkable area"));
    }
    Ok(())
}
