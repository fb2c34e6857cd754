//! Stage `poly_mesh`: `rcBuildPolyMesh`.

use super::fail;
use crate::Result;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{ContourSet, PolyMesh};
use crate::settings::VoxelConfig;
use crate::stage::Stage;

/// Triangulates the contours of `cset` and merges the triangles into convex polygons of at
/// most `cfg.max_verts_per_poly` vertices.
pub(crate) fn build_poly_mesh(
    ctx: &mut RecastContext,
    guard: &Guard,
    cfg: &VoxelConfig,
    cset: &ContourSet,
) -> Result<PolyMesh> {
    guard.check(Stage::PolyMesh)?;
    let mut pmesh = PolyMesh::new();
    if !pmesh.build(ctx, cset, cfg.max_verts_per_poly) {
        return Err(fail(ctx, Stage::PolyMesh, "could not triangulate contours"));
    }
    Ok(pmesh)
}
