//! Stage `compact_heightfield`: `rcBuildCompactHeightfield`, with the checks of the compact
//! heightfield's limits Recast does not make.

use super::fail;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{CompactHeightfield, Heightfield};
use crate::settings::VoxelConfig;
use crate::stage::Stage;
use crate::{Error, Result};

/// The most walkable spans a compact heightfield can index: `rcCompactCell::index` has 24 bits.
pub const MAX_COMPACT_SPANS: i32 = (1 << 24) - 1;
/// The most walkable spans one column of a compact heightfield can hold:
/// `rcCompactCell::count` has 8 bits.
pub const MAX_SPANS_PER_COLUMN: usize = 255;

/// Keeps only the open space above the walkable spans of `solid`, with neighbour links.
pub(crate) fn build_compact_heightfield(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    solid: &Heightfield,
) -> Result<CompactHeightfield> {
    guard.check(Stage::CompactHeightfield)?;
    let mut chf = CompactHeightfield::new();
    if !chf.build(ctx, cfg.walkable_height, cfg.walkable_climb, solid) {
        return Err(fail(
            ctx,
            Stage::CompactHeightfield,
            "could not build the compact heightfield",
        ));
    }
    Ok(chf)
}

/// Refuses a heightfield whose walkable spans (`spans` of them) would not fit the compact
/// heightfield's cells (Recast truncates both fields silently, and later stages then read the
/// wrong spans).
pub(crate) fn check_compact_limits(
    solid: &Heightfield,
    spans: i32,
    cfg: &VoxelConfig,
) -> Result<()> {
    if spans > MAX_COMPACT_SPANS {
        return Err(Error::Build {
            stage: Stage::CompactHeightfield,
            message: format!(
                "{spans} walkable spans; a compact heightfield indexes at most {MAX_COMPACT_SPANS} \
                 (24-bit cell index): build tiled, or use a bigger cell size"
            ),
        });
    }
    let (most, (x, z)) = solid.max_walkable_column();
    if most > MAX_SPANS_PER_COLUMN {
        return Err(Error::Build {
            stage: Stage::CompactHeightfield,
            message: format!(
                "{most} walkable spans stacked in the column at cell ({x}, {z}) (world x {:.2}, \
                 z {:.2}); a compact heightfield holds at most {MAX_SPANS_PER_COLUMN} per column \
                 (8-bit count): the level stacks more walkable floors over this spot than Recast \
                 can hold; remove floors there or build the level in parts",
                cfg.bmin[0] + (x as f32 + 0.5) * cfg.cs,
                cfg.bmin[2] + (z as f32 + 0.5) * cfg.cs,
            ),
        });
    }
    Ok(())
}
