//! The stages of [`super::stages`] strung together: the walkable area (rasterize to convex
//! volumes) and the rest of a tile (partition to Detour data), as solo builds, tiled builds, the
//! tile cache and the mesh-derived grid run them, and the stage timings read from Recast's
//! timers.

use std::time::Instant;

use recastnavigation_sys as sys;

use super::budget::Guard;
use super::stages::*;
use super::{SoloStages, StageCounts};
use crate::Result;
use crate::ffi::context::RecastContext;
use crate::ffi::recast::CompactHeightfield;
use crate::geometry::InputGeometry;
use crate::geometry::mesh::XzRect;
use crate::geometry::spatial::ChunkyTriMesh;
use crate::settings::{BuildSettings, VoxelConfig};
use crate::stage::Stage;

// Recast timer labels (`rcTimerLabel`).
const T_RASTERIZE: u32 = sys::rcTimerLabel_RC_TIMER_RASTERIZE_TRIANGLES;
const T_COMPACT: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_COMPACTHEIGHTFIELD;
const T_CONTOURS: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_CONTOURS;
const T_FILTER_BORDER: u32 = sys::rcTimerLabel_RC_TIMER_FILTER_BORDER;
const T_FILTER_WALKABLE: u32 = sys::rcTimerLabel_RC_TIMER_FILTER_WALKABLE;
const T_FILTER_LOW: u32 = sys::rcTimerLabel_RC_TIMER_FILTER_LOW_OBSTACLES;
const T_POLYMESH: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_POLYMESH;
const T_ERODE: u32 = sys::rcTimerLabel_RC_TIMER_ERODE_AREA;
const T_MARK_CONVEX: u32 = sys::rcTimerLabel_RC_TIMER_MARK_CONVEXPOLY_AREA;
const T_DISTANCEFIELD: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_DISTANCEFIELD;
const T_REGIONS: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_REGIONS;
const T_DETAIL: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_POLYMESHDETAIL;

/// The stages shared by every build: [`rasterize_triangles`] of the triangles `chunks` yields
/// (each a slice of vertex index triples into the geometry's mesh), the span filters the
/// settings ask for, [`build_compact_heightfield`], [`erode_walkable_area`] and
/// [`mark_convex_volumes`], over the grid `cfg`; the filtered heightfield is copied into
/// `capture` when given. The triangles are rasterized in up to `strips` row strips side by side
/// (the same spans). Returns the eroded compact heightfield, the heightfield's span count and
/// the number of triangles rasterized.
#[allow(clippy::too_many_arguments)]
pub(crate) fn walkable_area<'a>(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    settings: &BuildSettings,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = TriChunk<'a>>,
    strips: usize,
    capture: Option<&mut SoloStages>,
) -> Result<(CompactHeightfield, i32, usize)> {
    let (mut solid, rasterized) = rasterize_triangles(ctx, guard, geom, cfg, chunks, strips)?;
    if settings.filter_low_hanging_obstacles {
        filter_low_hanging_obstacles(ctx, guard, cfg, &mut solid)?;
    }
    if settings.filter_ledge_spans {
        filter_ledge_spans(ctx, guard, cfg, &mut solid)?;
    }
    if settings.filter_walkable_low_height_spans {
        filter_walkable_low_height_spans(ctx, guard, cfg, &mut solid)?;
    }
    let spans = solid.span_count(ctx);
    check_compact_limits(&solid, spans, cfg)?;
    if let Some(c) = capture {
        c.take_heightfield(&solid);
    }
    let mut chf = build_compact_heightfield(ctx, guard, cfg, &solid)?;
    drop(solid);
    erode_walkable_area(ctx, guard, cfg, &mut chf)?;
    mark_convex_volumes(ctx, guard, &geom.convex_volumes, &mut chf)?;
    Ok((chf, spans, rasterized))
}

/// The triangles one tile rasterizes: those whose xz bounds overlap (or touch) the tile's
/// border-expanded grid, in the mesh's order.
///
/// Recast skips a triangle whose bounds miss the heightfield's, so the others change nothing;
/// taking them in the mesh's order (RecastDemo takes them chunk by chunk of its spatial index,
/// which gave the same bytes on every RecastDemo mesh and generated world tried) makes a
/// tile's bytes depend on the triangles near it alone, not on how the whole level was indexed:
/// what a tile store's key ([`crate::build::tiled`]) and a shard that reads only its part of a
/// level rely on.
#[derive(Clone, Debug, Default)]
pub(crate) struct TileTris {
    /// Three vertex indices per triangle.
    pub tris: Vec<i32>,
    /// The mesh's index of each triangle, ascending.
    pub ids: Vec<u32>,
}

impl TileTris {
    /// The triangles of `geom` (indexed by `index`) near the grid `cfg`.
    pub(crate) fn gather(geom: &InputGeometry, index: &ChunkyTriMesh, cfg: &VoxelConfig) -> Self {
        let mut chunks = Vec::new();
        index.chunks_overlapping(
            [cfg.bmin[0], cfg.bmin[2]],
            [cfg.bmax[0], cfg.bmax[2]],
            &mut chunks,
        );
        let (v, t) = (&geom.mesh.verts, &geom.mesh.tris);
        let grid = XzRect::of_grid(cfg);
        let near = |id: u32| {
            let i = id as usize * 3;
            XzRect::of_triangle(v, [t[i], t[i + 1], t[i + 2]]).touches(&grid)
        };
        let mut ids: Vec<u32> = chunks
            .iter()
            .flat_map(|&c| index.chunk_ids(c).iter().copied())
            .filter(|&id| near(id))
            .collect();
        ids.sort_unstable();
        let tris = ids
            .iter()
            .flat_map(|&id| t[id as usize * 3..id as usize * 3 + 3].iter().copied())
            .collect();
        TileTris { tris, ids }
    }
}

/// The walkable area of one tile: the stages of [`walkable_area`] over `tris` (see
/// [`TileTris`]) on the tile's border-expanded grid `cfg`, with the heightfield's span count
/// and the number of triangles rasterized; the filtered heightfield is copied into `capture`
/// when given. `None` if no triangle is near the tile.
pub(crate) fn tile_walkable_area(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    tris: &TileTris,
    cfg: &VoxelConfig,
    settings: &BuildSettings,
    capture: Option<&mut SoloStages>,
) -> Result<Option<(CompactHeightfield, i32, usize)>> {
    if tris.ids.is_empty() {
        return Ok(None);
    }
    let chunk = TriChunk {
        tris: &tris.tris,
        ids: TriIds::Listed(&tris.ids),
    };
    walkable_area(
        ctx,
        guard,
        geom,
        settings,
        cfg,
        std::iter::once(chunk),
        1,
        capture,
    )
    .map(Some)
}

/// What the stages after the walkable area made of one tile.
pub(crate) struct TileProducts {
    /// The Detour tile data; `None` if the tile has no polygons.
    pub data: Option<Vec<u8>>,
    pub contours: i32,
    pub compact_spans: i32,
    pub max_distance: u16,
    pub max_regions: u16,
    pub polymesh_verts: usize,
    pub polymesh_polys: usize,
    pub detail_meshes: usize,
    pub detail_verts: usize,
    pub detail_tris: usize,
    pub detour_ms: f64,
}

impl TileProducts {
    /// These products' counts (the caller adds the spans and triangles rasterized).
    pub(crate) fn counts(&self) -> StageCounts {
        StageCounts {
            compact_spans: self.compact_spans.max(0) as usize,
            max_distance: self.max_distance,
            max_regions: self.max_regions,
            contours: self.contours.max(0) as usize,
            polymesh_verts: self.polymesh_verts,
            polymesh_polys: self.polymesh_polys,
            detail_meshes: self.detail_meshes,
            detail_verts: self.detail_verts,
            detail_tris: self.detail_tris,
            navmesh_bytes: self.data.as_ref().map_or(0, Vec::len),
            ..Default::default()
        }
    }
}

/// [`build_regions`], [`build_contours`], [`build_poly_mesh`], [`build_poly_mesh_detail`] (in
/// parts on up to `detail_threads` threads) and [`create_detour_data`] for the tile at `tile`
/// whose walkable area is `chf` (grid `cfg`, with `cfg.border_size` cells of border), copying
/// the compact heightfield, contours, poly mesh and detail mesh into `capture` when given. The products' `data` is `None` if the tile has no
/// polygons (the counts of the stages that ran are kept).
#[allow(clippy::too_many_arguments)]
pub(crate) fn detour_tile(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    settings: &BuildSettings,
    cfg: &VoxelConfig,
    mut chf: CompactHeightfield,
    tile: [i32; 2],
    detail_threads: usize,
    mut capture: Option<&mut SoloStages>,
) -> Result<TileProducts> {
    let (_, _, compact_spans) = chf.dims();
    build_regions(ctx, guard, cfg, settings.partition, &mut chf)?;
    let cset = build_contours(ctx, guard, cfg, &chf)?;
    let contours = cset.count();
    if let Some(c) = capture.as_deref_mut() {
        c.take_compact(&chf);
        c.take_contours(&cset);
    }
    let (max_distance, max_regions) = chf.distance_and_regions();
    let mut products = TileProducts {
        data: None,
        contours,
        compact_spans,
        max_distance,
        max_regions,
        polymesh_verts: 0,
        polymesh_polys: 0,
        detail_meshes: 0,
        detail_verts: 0,
        detail_tris: 0,
        detour_ms: 0.0,
    };
    if contours == 0 {
        return Ok(products);
    }
    let mut pmesh = build_poly_mesh(ctx, guard, cfg, &cset)?;
    let dmesh = build_poly_mesh_detail(ctx, guard, cfg, &pmesh, &chf, detail_threads)?;
    drop(chf);
    drop(cset);
    products.polymesh_verts = pmesh.nverts();
    products.polymesh_polys = pmesh.npolys();
    products.detail_meshes = dmesh.nmeshes();
    products.detail_verts = dmesh.nverts();
    products.detail_tris = dmesh.ntris();
    if pmesh.npolys() == 0 {
        if let Some(c) = capture {
            c.take_meshes(&pmesh, &dmesh);
        }
        return Ok(products);
    }
    let detour_started = Instant::now();
    let cons = &geom.off_mesh_connections;
    let data = create_detour_data(
        ctx, guard, &mut pmesh, &dmesh, cons, settings, tile, capture,
    )?;
    products.data = Some(data);
    products.detour_ms = detour_started.elapsed().as_secs_f64() * 1e3;
    Ok(products)
}

/// Milliseconds per stage from a context's Recast timers (plus the Detour stage's own time).
pub(crate) fn stage_timings(ctx: &RecastContext, detour_ms: f64) -> Vec<(Stage, f64)> {
    let ms = |labels: &[u32]| {
        labels
            .iter()
            .map(|&l| ctx.timer(l).as_secs_f64() * 1e3)
            .sum::<f64>()
    };
    vec![
        (Stage::Rasterize, ms(&[T_RASTERIZE])),
        (Stage::FilterLowHangingObstacles, ms(&[T_FILTER_LOW])),
        (Stage::FilterLedgeSpans, ms(&[T_FILTER_BORDER])),
        (
            Stage::FilterWalkableLowHeightSpans,
            ms(&[T_FILTER_WALKABLE]),
        ),
        (Stage::CompactHeightfield, ms(&[T_COMPACT])),
        (Stage::Erode, ms(&[T_ERODE])),
        (Stage::MarkConvexVolumes, ms(&[T_MARK_CONVEX])),
        (Stage::Partition, ms(&[T_DISTANCEFIELD, T_REGIONS])),
        (Stage::Contours, ms(&[T_CONTOURS])),
        (Stage::PolyMesh, ms(&[T_POLYMESH])),
        (Stage::DetailMesh, ms(&[T_DETAIL])),
        (Stage::DetourData, detour_ms),
    ]
}
