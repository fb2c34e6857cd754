//! Stage `rasterize`: `rcCreateHeightfield`, `rcMarkWalkableTriangles` and
//! `rcRasterizeTriangles`.

use super::fail;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{Heightfield, mark_walkable_triangles};
use crate::geometry::TriMesh;
use crate::settings::VoxelConfig;
use crate::stage::Stage;
use crate::{Error, Result};

/// Creates the heightfield of the grid `cfg`, marks the triangles `chunks` yields (each a slice
/// of vertex index triples into `mesh`) walkable where they are no steeper than the max slope,
/// and voxelizes them into it. Checks the budget before the stage and before every chunk.
/// Returns the heightfield and the number of triangles rasterized.
pub(crate) fn rasterize_triangles<'a>(
    ctx: &mut RecastContext,
    guard: &Guard,
    mesh: &TriMesh,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = &'a [i32]>,
) -> Result<(Heightfield, usize)> {
    guard.check(Stage::Rasterize)?;
    let mut solid = Heightfield::new();
    if !solid.create(
        ctx, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch,
    ) {
        return Err(fail(
            ctx,
            Stage::Rasterize,
            "could not create the heightfield",
        ));
    }
    let mut rasterized = 0usize;
    for tris in chunks {
        guard.check(Stage::Rasterize)?;
        rasterized += tris.len() / 3;
        let areas = mark_walkable_triangles(ctx, cfg.walkable_slope_angle, &mesh.verts, tris)
            .ok_or_else(|| Error::Geometry("triangle indices out of range".into()))?;
        if !solid.rasterize(ctx, &mesh.verts, tris, &areas, cfg.walkable_climb) {
            return Err(fail(
                ctx,
                Stage::Rasterize,
                "could not rasterize the triangles",
            ));
        }
    }
    Ok((solid, rasterized))
}
