//! Stage `rasterize`: `rcCreateHeightfield`, `rcMarkWalkableTriangles` and
//! `rcRasterizeTriangles`.

use super::fail;
use crate::area;
use crate::build::budget::Guard;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::{Heightfield, Rasterized, mark_walkable_triangles};
use crate::geometry::InputGeometry;
use crate::settings::VoxelConfig;
use crate::stage::Stage;
use crate::{Error, Result};

/// A run of triangles to rasterize: vertex index triples into the geometry's mesh, and which of
/// the mesh's triangles they are (for [`InputGeometry::triangle_areas`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TriChunk<'a> {
    /// Three vertex indices per triangle.
    pub tris: &'a [i32],
    /// The mesh's index of each triangle.
    pub ids: TriIds<'a>,
}

/// Which of the mesh's triangles a [`TriChunk`] holds.
#[derive(Clone, Copy, Debug)]
pub(crate) enum TriIds<'a> {
    /// Consecutive triangles from this one (a slice of the mesh's own triangles).
    From(usize),
    /// These triangles (a spatial index's chunk).
    Listed(&'a [u32]),
}

impl TriIds<'_> {
    /// The mesh's index of the chunk's `k`th triangle.
    fn get(&self, k: usize) -> usize {
        match self {
            TriIds::From(first) => first + k,
            TriIds::Listed(ids) => ids[k] as usize,
        }
    }
}

/// The area of each triangle of `chunk`: walkable ([`area::WALKABLE`]) where it is no steeper
/// than the grid's max slope (`rcMarkWalkableTriangles`), else null; walkable triangles take
/// the geometry's own area when it gives one (ground, 0, stays Recast's walkable area).
fn chunk_areas(
    ctx: &mut RecastContext,
    cfg: &VoxelConfig,
    geom: &InputGeometry,
    chunk: TriChunk<'_>,
) -> Result<Vec<u8>> {
    let mut areas =
        mark_walkable_triangles(ctx, cfg.walkable_slope_angle, &geom.mesh.verts, chunk.tris)
            .ok_or_else(|| Error::Geometry("triangle indices out of range".into()))?;
    if let Some(given) = &geom.triangle_areas {
        for (k, a) in areas.iter_mut().enumerate() {
            if *a != area::NULL {
                let mine = given.get(chunk.ids.get(k)).copied().unwrap_or(area::GROUND);
                *a = if mine == area::GROUND {
                    area::WALKABLE
                } else {
                    mine
                };
            }
        }
    }
    Ok(areas)
}

/// Creates the heightfield of the grid `cfg`, marks the triangles `chunks` yields walkable
/// where they are no steeper than the max slope (with their own areas, if the geometry gives
/// them: [`chunk_areas`]), and voxelizes them into it. Checks the budget before the stage and before every chunk.
/// With `strips` over 1, the chunks are rasterized together in up to that many row strips side
/// by side (the same spans, see `ffi/recast/raster_strips.rs`), each checking the budget every
/// [`STRIP_BATCH`] triangles. Returns the heightfield and the number of triangles rasterized.
pub(crate) fn rasterize_triangles<'a>(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = TriChunk<'a>>,
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
        return rasterize_in_strips(ctx, guard, geom, cfg, chunks, strips, solid);
    }
    let mut rasterized = 0usize;
    for chunk in chunks {
        guard.check(Stage::Rasterize)?;
        rasterized += chunk.tris.len() / 3;
        let areas = chunk_areas(ctx, cfg, geom, chunk)?;
        if !solid.rasterize(
            ctx,
            &geom.mesh.verts,
            chunk.tris,
            &areas,
            cfg.walkable_climb,
        ) {
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
    geom: &InputGeometry,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = TriChunk<'a>>,
    strips: usize,
    mut solid: Heightfield,
) -> Result<(Heightfield, usize)> {
    let mut chunks = chunks.peekable();
    let first = chunks.next().unwrap_or(TriChunk {
        tris: &[],
        ids: TriIds::From(0),
    });
    let (tris, areas): (std::borrow::Cow<[i32]>, Vec<u8>) = if chunks.peek().is_none() {
        (first.tris.into(), chunk_areas(ctx, cfg, geom, first)?)
    } else {
        let (mut tris, mut areas) = (first.tris.to_vec(), chunk_areas(ctx, cfg, geom, first)?);
        for c in chunks {
            tris.extend_from_slice(c.tris);
            areas.extend(chunk_areas(ctx, cfg, geom, c)?);
        }
        (tris.into(), areas)
    };
    guard.check(Stage::Rasterize)?;
    let keep_going = || guard.check(Stage::Rasterize).is_ok();
    match solid.rasterize_in_strips(
        ctx,
        &geom.mesh.verts,
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
