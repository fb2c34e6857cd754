//! Building a tile's heightfield layers and compressing them (RecastDemo's
//! `rasterizeTileLayers`), and the layer header as bytes.

use super::*;
use crate::build::budget::Guard;
use crate::build::tiled::{TileGrid, tile_config};
use crate::build::{StageCounts, TileTris, tile_walkable_area};
use crate::ffi::context::{LogCategory, RecastContext};
use crate::ffi::recast::HeightfieldLayerSet;
use crate::ffi::tilecache::{Compressor, build_layer};
use crate::ffi::validate::ValidLayer;
use crate::ffi::validate::layer::LayerHeader;
use crate::geometry::InputGeometry;
use crate::geometry::spatial::ChunkyTriMesh;
use crate::settings::{BuildSettings, VoxelConfig};
use crate::{Error, Result};

/// Compresses layer grids (heights, areas and connections, one byte per cell each) through
/// navkit's tile cache compressor for `compression`, exactly as Detour does when it stores a
/// layer.
pub fn compress_layer_grids(grids: &[u8], compression: LayerCompression) -> Result<Vec<u8>> {
    if !grids.len().is_multiple_of(3) {
        return Err(Error::InvalidArgument(format!(
            "layer grids are 3 bytes per cell; got {} bytes",
            grids.len()
        )));
    }
    Compressor::new(compression)
        .compress(grids)
        .map_err(|s| detour_err("dtTileCacheCompressor::compress", s))
}

/// Decompresses the grids of a `cells`-cell layer through navkit's tile cache compressor for
/// `compression`, exactly as Detour does before rebuilding a tile: corrupt data, or data that
/// does not come out at exactly `3 * cells` bytes, is an error.
pub fn decompress_layer_grids(
    compressed: &[u8],
    cells: usize,
    compression: LayerCompression,
) -> Result<Vec<u8>> {
    Compressor::new(compression)
        .decompress_grids(compressed, cells)
        .map_err(|s| detour_err("dtTileCacheCompressor::decompress", s))
}

/// A tile's compressed layers (in layer order), Recast's warnings and the counts of its
/// rasterization (triangles, spans, compact spans).
pub(super) type TileLayers = (Vec<ValidLayer>, Vec<String>, StageCounts);

/// Rasterizes tile (x, z) into heightfield layers and compresses each: the layers' data, in
/// layer order, and Recast's warnings.
#[allow(clippy::too_many_arguments)]
pub(super) fn tile_layers(
    ctx: &mut RecastContext,
    guard: &Guard,
    comp: &mut Compressor,
    geom: &InputGeometry,
    index: &ChunkyTriMesh,
    settings: &BuildSettings,
    base: &VoxelConfig,
    grid: &TileGrid,
    crate::navmesh::TileCoord { x, z, .. }: crate::navmesh::TileCoord,
) -> Result<TileLayers> {
    ctx.take_logs();
    let cfg = tile_config(base, grid, crate::navmesh::TileCoord::new(x, z));
    let mut out = Vec::new();
    let mut counts = StageCounts::default();
    let near = TileTris::gather(geom, index, &cfg);
    if let Some((chf, spans, tris)) =
        tile_walkable_area(ctx, guard, geom, &near, &cfg, settings, None)?
    {
        counts.rasterized_tris = tris;
        counts.spans = spans.max(0) as usize;
        counts.compact_spans = chf.dims().2.max(0) as usize;
        guard.check(crate::build::Stage::HeightfieldLayers)?;
        let mut lset = HeightfieldLayerSet::new();
        if !lset.build(ctx, &chf, cfg.border_size, cfg.walkable_height) {
            let logs: Vec<String> = ctx
                .take_logs()
                .into_iter()
                .filter(|l| l.category != LogCategory::Progress)
                .map(|l| l.text)
                .collect();
            return Err(Error::Build {
                stage: crate::build::Stage::HeightfieldLayers,
                message: format!(
                    "tile ({x}, {z}): rcBuildHeightfieldLayers failed; {}",
                    logs.join("; ")
                ),
            });
        }
        let layers = lset.layers();
        if layers.len() > MAX_LAYERS_PER_TILE {
            return Err(Error::Build {
                stage: crate::build::Stage::HeightfieldLayers,
                message: format!(
                    "tile ({x}, {z}) has {} layers; at most {MAX_LAYERS_PER_TILE} fit",
                    layers.len()
                ),
            });
        }
        for (i, l) in layers.iter().enumerate() {
            let dims_ok = l.width == grid.tile_size
                && l.height == grid.tile_size
                && (0..=l.maxx).contains(&l.minx)
                && l.maxx < l.width
                && (0..=l.maxy).contains(&l.miny)
                && l.maxy < l.height
                && (0..=l.hmax).contains(&l.hmin)
                && l.hmax <= i32::from(u16::MAX);
            if !dims_ok {
                return Err(Error::Build {
                    stage: crate::build::Stage::HeightfieldLayers,
                    message: format!(
                        "tile ({x}, {z}) layer {i} is {} x {} cells (x {}..={}, z {}..={}, h \
                         {}..={}); expected {} x {}",
                        l.width,
                        l.height,
                        l.minx,
                        l.maxx,
                        l.miny,
                        l.maxy,
                        l.hmin,
                        l.hmax,
                        grid.tile_size,
                        grid.tile_size
                    ),
                });
            }
            let header = LayerHeader {
                tx: x,
                ty: z,
                tlayer: i as i32,
                bmin: l.bmin,
                bmax: l.bmax,
                hmin: l.hmin as u16,
                hmax: l.hmax as u16,
                width: l.width as u8,
                height: l.height as u8,
                minx: l.minx as u8,
                maxx: l.maxx as u8,
                miny: l.miny as u8,
                maxy: l.maxy as u8,
            };
            let data = build_layer(comp, &header, l.heights, l.areas, l.cons)
                .map_err(|s| detour_err("dtBuildTileCacheLayer", s))?;
            out.push(data);
        }
    }
    let warnings = ctx
        .take_logs()
        .into_iter()
        .filter(|l| l.category != LogCategory::Progress)
        .map(|l| format!("tile ({x}, {z}): {}", l.text))
        .collect();
    Ok((out, warnings, counts))
}
