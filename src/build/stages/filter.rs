//! Stages `filter_low_hanging_obstacles`, `filter_ledge_spans` and
//! `filter_walkable_low_height_spans`: Recast's span filters (`RecastFilter.cpp`), run in
//! RecastDemo's order, each only if the settings ask for it.

use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::Heightfield;
use crate::settings::VoxelConfig;
use crate::stage::Stage;

/// `rcFilterLowHangingWalkableObstacles`: lets agents step over curbs and stairs (a span within
/// climb of a walkable span below becomes walkable).
pub(crate) fn filter_low_hanging_obstacles(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    solid: &mut Heightfield,
) -> Result<()> {
    guard.check(Stage::FilterLowHangingObstacles)?;
    solid.filter_low_hanging_obstacles(ctx, cfg.walkable_climb);
    Ok(())
}

/// `rcFilterLedgeSpans`: removes walkable spans at ledges, where a neighbour drops more than
/// the climb.
pub(crate) fn filter_ledge_spans(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    solid: &mut Heightfield,
) -> Result<()> {
    guard.check(Stage::FilterLedgeSpans)?;
    solid.filter_ledge_spans(ctx, cfg.walkable_height, cfg.walkable_climb);
    Ok(())
}

/// `rcFilterWalkableLowHeightSpans`: removes walkable spans with less headroom than the agent's
/// height.
pub(crate) fn filter_walkable_low_height_spans(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    solid: &mut Heightfield,
) -> Result<()> {
    guard.check(Stage::FilterWalkableLowHeightSpans)?;
    solid.filter_walkable_low_height_spans(ctx, cfg.walkable_height);
    Ok(())
}
