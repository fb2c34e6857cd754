//! Stage `partition`: `rcBuildDistanceField` and `rcBuildRegions` (watershed),
//! `rcBuildRegionsMonotone` or `rcBuildLayerRegions`.

use super::fail;
use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::{Guarded, RecastContext};
use crate::ffi::recast::CompactHeightfield;
use crate::settings::{Partition, VoxelConfig};
use crate::stage::Stage;

/// A Recast call that cannot be interrupted, as a [`Guarded`] outcome.
fn guarded(ok: bool) -> Guarded {
    if ok { Guarded::Done } else { Guarded::Failed }
}

/// Splits the walkable area of `chf` into simple regions with `partition`, leaving
/// `cfg.border_size` cells of border unassigned. The watershed partition checks the budget at
/// every level of its flood fill (inside Recast).
pub(crate) fn build_regions(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    partition: Partition,
    chf: &mut CompactHeightfield,
) -> Result<()> {
    guard.check(Stage::Partition)?;
    let border = cfg.border_size;
    let ok = match partition {
        Partition::Watershed => {
            if !chf.build_distance_field(ctx) {
                return Err(fail(
                    ctx,
                    Stage::Partition,
                    "could not build the distance field",
                ));
            }
            chf.build_regions(
                ctx,
                border,
                cfg.min_region_area,
                cfg.merge_region_area,
                &guard.interrupt(),
            )
        }
        Partition::Monotone => guarded(chf.build_regions_monotone(
            ctx,
            border,
            cfg.min_region_area,
            cfg.merge_region_area,
        )),
        Partition::Layers => guarded(chf.build_layer_regions(ctx, border, cfg.min_region_area)),
    };
    match ok {
        Guarded::Done => Ok(()),
        Guarded::Failed => Err(fail(ctx, Stage::Partition, "could not build regions")),
        Guarded::Interrupted => Err(guard.stopped(Stage::Partition)),
    }
}
