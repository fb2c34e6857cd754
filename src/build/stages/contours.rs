//! Stage `contours`: `rcBuildContours`.

use super::fail;
use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::{Guarded, RecastContext};
use crate::ffi::recast::{CompactHeightfield, ContourSet};
use crate::settings::VoxelConfig;
use crate::stage::Stage;

/// Traces and simplifies the outlines of the regions of `chf`, checking the budget at every
/// region (inside Recast).
pub(crate) fn build_contours(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    chf: &CompactHeightfield,
) -> Result<ContourSet> {
    guard.check(Stage::Contours)?;
    let mut cset = ContourSet::new();
    match cset.build(
        ctx,
        chf,
        cfg.max_simplification_error,
        cfg.max_edge_len,
        &guard.interrupt(),
    ) {
        Guarded::Done => Ok(cset),
        Guarded::Failed => Err(fail(ctx, Stage::Contours, "could not build contours")),
        Guarded::Interrupted => Err(guard.stopped(Stage::Contours)),
    }
}
