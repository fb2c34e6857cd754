//! Stage `rasterize`: `rcCreateHeightfield`, `rcMarkWalkableTriangles` and
//! `rcRasterizeTriangles`.

use super::fail;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{Heightfield, Rasterized, mark_walkable_triangles};
use crate::geometry::TriMesh;
use crate::settings::VoxelConfig;
use crate::stage::Stage;
use crate::{Error, Result};

/// Creates the heightfield of the grid `cfg`, marks the triangles `chunks` yields (each a slice
/// of vertex index triples into `mesh`) walkable where they are no steeper than the max slope,
/// and voxelizes them into it. Checks the budget before the stage and before every chunk.
/// With `strips` over 1, the chunks are rasterized together in up to that many row strips side
/// by side (the same spans, see `ffi/recast/raster_strips.rs`), each checking the budget every
/// [`STRIP_BATCH`] triangles. Returns the heightfield and the number of triangles rasterized.
pub(crate) fn rasterize_triangles<'a>(
    ctx: &mut RecastContext,
    guard: &Guard,
    mesh: &TriMesh,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = &'a [i32]>,
    strips: usize,
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
    if strips > 1 {
        return rasterize_in_strips(ctx, guard, mesh, cfg, chunks, strips, solid);
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

/// Triangles a strip rasterizes between two checks of the budget (as a solo build's chunks).
const STRIP_BATCH: usize = 1 << 16;

/// The chunks' triangles marked and rasterized into `solid` (created, empty) in up to `strips`
/// row strips (see [`rasterize_triangles`]).
fn rasterize_in_strips<'a>(
    ctx: &mut RecastContext,
    guard: &Guard,
    mesh: &TriMesh,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = &'a [i32]>,
    strips: usize,
    mut solid: Heightfield,
) -> Result<(Heightfield, usize)> {
    let mut chunks = chunks.peekable();
    let first = chunks.next().unwrap_or(&[]);
    let tris: std::borrow::Cow<[i32]> = if chunks.peek().is_none() {
        first.into()
    } else {
        first.iter().chain(chunks.flatten()).copied().collect()
    };
    guard.check(Stage::Rasterize)?;
    let areas = mark_walkable_triangles(ctx, cfg.walkable_slope_angle, &mesh.verts, &tris)
        .ok_or_else(|| Error::Geometry("triangle indices out of range".into()))?;
    let keep_going = || guard.check(Stage::Rasterize).is_ok();
    match solid.rasterize_in_strips(
        ctx,
        &mesh.verts,
        &tris,
        &areas,
        cfg.walkable_climb,
        strips,
        STRIP_BATCH,
        &keep_going,
    ) {
        Rasterized::Done => Ok((solid, tris.len() / 3)),
        Rasterized::Stopped => {
            guard.check(Stage::Rasterize)?;
            Err(fail(ctx, Stage::Rasterize, "the build was stopped"))
        }
        Rasterized::Failed => Err(fail(
            ctx,
            Stage::Rasterize,
            "could not rasterize the triangles",
        )),
    }
}
