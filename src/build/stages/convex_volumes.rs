//! Stage `mark_convex_volumes`: `rcMarkConvexPolyArea` for each of the input's convex volumes.

use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::CompactHeightfield;
use crate::geometry::ConvexVolume;
use crate::stage::Stage;

/// Stamps the area id of each volume on the spans of `chf` inside it, checking the budget
/// before each volume.
pub(crate) fn mark_convex_volumes(
    ctx: &mut RecastContext,
    guard: &Guard,
    volumes: &[ConvexVolume],
    chf: &mut CompactHeightfield,
) -> Result<()> {
    for v in volumes {
        guard.check(Stage::MarkConvexVolumes)?;
        let verts: Vec<f32> = v.verts.iter().flat_map(|p| p.to_array()).collect();
        chf.mark_convex_poly_area(ctx, &verts, v.hmin, v.hmax, v.area);
    }
    Ok(())
}
