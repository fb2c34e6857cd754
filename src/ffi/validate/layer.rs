//! Exhaustive validation of compressed tile cache layers against the cache's parameters, so
//! that `dtTileCache::addTile` and the tile rebuilds that decompress them can trust them.
//!
//! Offsets in errors are relative to the start of the layer data.

use std::mem::offset_of;

use recastnavigation_sys as sys;

use super::ValidLayer;
use crate::ffi::bytes::{coord, expect_i32_at, f32_at, i32_at, u8_at, u16_at};
use crate::ffi::layer_compression::LayerCompression;
use crate::ffi::tile_layer::check_cells;
use crate::ffi::tilecache::{Compressor, LAYER_HEADER_SIZE};
use crate::{Error, Result};

/// The most layers one tile may have (a layer index is a byte).
pub const MAX_LAYERS_PER_TILE: usize = 255;

/// Offsets of `dtTileCacheLayerHeader` fields.
pub(crate) mod lh {
    use super::*;
    pub const MAGIC: usize = offset_of!(sys::dtTileCacheLayerHeader, magic);
    pub const VERSION: usize = offset_of!(sys::dtTileCacheLayerHeader, version);
    pub const TX: usize = offset_of!(sys::dtTileCacheLayerHeader, tx);
    pub const TY: usize = offset_of!(sys::dtTileCacheLayerHeader, ty);
    pub const TLAYER: usize = offset_of!(sys::dtTileCacheLayerHeader, tlayer);
    pub const BMIN: usize = offset_of!(sys::dtTileCacheLayerHeader, bmin);
    pub const BMAX: usize = offset_of!(sys::dtTileCacheLayerHeader, bmax);
    pub const HMIN: usize = offset_of!(sys::dtTileCacheLayerHeader, hmin);
    pub const HMAX: usize = offset_of!(sys::dtTileCacheLayerHeader, hmax);
    pub const WIDTH: usize = offset_of!(sys::dtTileCacheLayerHeader, width);
    pub const HEIGHT: usize = offset_of!(sys::dtTileCacheLayerHeader, height);
    pub const MINX: usize = offset_of!(sys::dtTileCacheLayerHeader, minx);
    pub const MAXX: usize = offset_of!(sys::dtTileCacheLayerHeader, maxx);
    pub const MINY: usize = offset_of!(sys::dtTileCacheLayerHeader, miny);
    pub const MAXY: usize = offset_of!(sys::dtTileCacheLayerHeader, maxy);
}

/// The layer header fields, read from (or written to) bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LayerHeader {
    pub(crate) tx: i32,
    pub(crate) ty: i32,
    pub(crate) tlayer: i32,
    pub(crate) bmin: [f32; 3],
    pub(crate) bmax: [f32; 3],
    pub(crate) hmin: u16,
    pub(crate) hmax: u16,
    pub(crate) width: u8,
    pub(crate) height: u8,
    pub(crate) minx: u8,
    pub(crate) maxx: u8,
    pub(crate) miny: u8,
    pub(crate) maxy: u8,
}

pub(crate) fn read_layer_header(data: &[u8], base: usize) -> Result<LayerHeader> {
    let f = |o: usize| f32_at(data, base + o);
    Ok(LayerHeader {
        tx: i32_at(data, base + lh::TX)?,
        ty: i32_at(data, base + lh::TY)?,
        tlayer: i32_at(data, base + lh::TLAYER)?,
        bmin: [f(lh::BMIN)?, f(lh::BMIN + 4)?, f(lh::BMIN + 8)?],
        bmax: [f(lh::BMAX)?, f(lh::BMAX + 4)?, f(lh::BMAX + 8)?],
        hmin: u16_at(data, base + lh::HMIN)?,
        hmax: u16_at(data, base + lh::HMAX)?,
        width: u8_at(data, base + lh::WIDTH)?,
        height: u8_at(data, base + lh::HEIGHT)?,
        minx: u8_at(data, base + lh::MINX)?,
        maxx: u8_at(data, base + lh::MAXX)?,
        miny: u8_at(data, base + lh::MINY)?,
        maxy: u8_at(data, base + lh::MAXY)?,
    })
}

/// Fails unless `data`, a compressed tile layer, is longer than its header (the compressed
/// grids follow it). The error's offset is the data's length.
pub(crate) fn check_layer_len(data: &[u8]) -> Result<()> {
    if data.len() <= LAYER_HEADER_SIZE {
        return Err(Error::data(
            data.len(),
            format!(
                "tile layer is {} bytes, not more than its {LAYER_HEADER_SIZE}-byte header",
                data.len()
            ),
        ));
    }
    Ok(())
}

/// World width and depth of a tile of the cache.
fn tile_world_size(p: &sys::dtTileCacheParams) -> (f32, f32) {
    (p.width as f32 * p.cs, p.height as f32 * p.cs)
}

/// Agent climb in cell heights, as `dtTileCache` computes it.
fn climb_voxels(p: &sys::dtTileCacheParams) -> i32 {
    (p.walkableClimb / p.ch) as i32
}

impl ValidLayer {
    /// Validates a copy of `data` against the cache's parameters ([`validate_layer`]): the
    /// checked layer and its header.
    pub(crate) fn new(
        data: &[u8],
        p: &sys::dtTileCacheParams,
        comp: &mut Compressor,
    ) -> Result<(ValidLayer, LayerHeader)> {
        let header = validate_layer(data, p, comp)?;
        Ok((
            ValidLayer {
                data: data.to_vec(),
                compression: comp.compression(),
            },
            header,
        ))
    }
}

/// Checks one compressed tile layer against the cache parameters: header magic, version,
/// position and bounds consistent with the tile grid, dimensions equal to the tile size, usable
/// sub-region inside the layer, grids that decompress to exactly `3 * width * height` bytes,
/// area ids `<= 63`, connections only towards cells inside the layer, and a region partition
/// that fits Detour's neighbour lists. Offsets in errors are relative to the start of `data`.
pub(crate) fn validate_layer(
    data: &[u8],
    p: &sys::dtTileCacheParams,
    comp: &mut Compressor,
) -> Result<LayerHeader> {
    check_layer_len(data)?;
    check_identity(data)?;
    let h = read_layer_header(data, 0)?;
    check_position(&h)?;
    check_bounds(&h, p)?;
    check_cell_ranges(&h, p)?;
    check_grids(data, &h, p, comp)?;
    Ok(h)
}

/// Magic and version.
fn check_identity(data: &[u8]) -> Result<()> {
    expect_i32_at(data, lh::MAGIC, sys::DT_TILECACHE_MAGIC, |magic| {
        format!(
            "layer magic is 0x{magic:08x}, expected 0x{:08x} ('DTLR')",
            sys::DT_TILECACHE_MAGIC
        )
    })?;
    expect_i32_at(data, lh::VERSION, sys::DT_TILECACHE_VERSION, |version| {
        format!(
            "layer version is {version}, expected {}",
            sys::DT_TILECACHE_VERSION
        )
    })
}

/// Tile position within +-2^20 tiles, layer index within a byte.
fn check_position(h: &LayerHeader) -> Result<()> {
    const TILE_LIMIT: i32 = 1 << 20;
    for (name, v, off) in [("tx", h.tx, lh::TX), ("ty", h.ty, lh::TY)] {
        if !(-TILE_LIMIT..=TILE_LIMIT).contains(&v) {
            return Err(Error::data(
                off,
                format!("layer {name} is {v}, beyond +-{TILE_LIMIT}"),
            ));
        }
    }
    if !(0..MAX_LAYERS_PER_TILE as i32).contains(&h.tlayer) {
        return Err(Error::data(
            lh::TLAYER,
            format!(
                "layer index is {}, must be in 0..{MAX_LAYERS_PER_TILE}",
                h.tlayer
            ),
        ));
    }
    Ok(())
}

/// Bounds: finite and bounded coordinates, `bmin.y <= bmax.y`, and x and z where the tile grid
/// puts this tile, one tile wide and deep (within a twentieth of a cell).
fn check_bounds(h: &LayerHeader, p: &sys::dtTileCacheParams) -> Result<()> {
    for a in 0..3 {
        coord(h.bmin[a], lh::BMIN + 4 * a, &format!("layer bmin[{a}]"))?;
        coord(h.bmax[a], lh::BMAX + 4 * a, &format!("layer bmax[{a}]"))?;
    }
    if h.bmin[1] > h.bmax[1] {
        return Err(Error::data(
            lh::BMIN + 4,
            format!("layer bmin.y {} > bmax.y {}", h.bmin[1], h.bmax[1]),
        ));
    }
    let (tw, th) = tile_world_size(p);
    let expect = [
        (lh::BMIN, h.bmin[0], p.orig[0] + h.tx as f32 * tw, "bmin.x"),
        (
            lh::BMIN + 8,
            h.bmin[2],
            p.orig[2] + h.ty as f32 * th,
            "bmin.z",
        ),
        (lh::BMAX, h.bmax[0], h.bmin[0] + tw, "bmax.x"),
        (lh::BMAX + 8, h.bmax[2], h.bmin[2] + th, "bmax.z"),
    ];
    for (off, got, want, name) in expect {
        let tol = 0.05 * p.cs + 1e-5 * want.abs();
        if (got - want).abs() > tol {
            return Err(Error::data(
                off,
                format!(
                    "layer {name} is {got}, but tile ({}, {}) of the grid puts it at {want}",
                    h.tx, h.ty
                ),
            ));
        }
    }
    Ok(())
}

/// Height range ordered, size equal to the cache's tiles, used sub-region inside the layer.
fn check_cell_ranges(h: &LayerHeader, p: &sys::dtTileCacheParams) -> Result<()> {
    if h.hmin > h.hmax {
        return Err(Error::data(
            lh::HMIN,
            format!("layer hmin {} > hmax {}", h.hmin, h.hmax),
        ));
    }
    if i32::from(h.width) != p.width || i32::from(h.height) != p.height {
        return Err(Error::data(
            lh::WIDTH,
            format!(
                "layer is {} x {} cells, the cache's tiles are {} x {}",
                h.width, h.height, p.width, p.height
            ),
        ));
    }
    if h.minx > h.maxx || h.maxx >= h.width {
        return Err(Error::data(
            lh::MINX,
            format!(
                "layer x range {}..={} is not inside its width {}",
                h.minx, h.maxx, h.width
            ),
        ));
    }
    if h.miny > h.maxy || h.maxy >= h.height {
        return Err(Error::data(
            lh::MINY,
            format!(
                "layer z range {}..={} is not inside its height {}",
                h.miny, h.maxy, h.height
            ),
        ));
    }
    Ok(())
}

/// The compressed grids: exactly 3 bytes per cell with `comp`, and cells Detour's tile build
/// can take ([`check_cells`]).
fn check_grids(
    data: &[u8],
    h: &LayerHeader,
    p: &sys::dtTileCacheParams,
    comp: &mut Compressor,
) -> Result<()> {
    let (w, hh) = (h.width as usize, h.height as usize);
    let cells = w * hh;
    let stream = &data[LAYER_HEADER_SIZE..];
    let grids = comp
        .decompress_grids(stream, cells)
        .map_err(|_| grids_error(stream, comp.compression(), w, hh))?;
    let (heights, rest) = grids.split_at(cells);
    let (areas, cons) = rest.split_at(cells);
    check_cells(w, hh, heights, areas, cons, climb_voxels(p))
        .map_err(|problem| Error::data(LAYER_HEADER_SIZE, format!("layer {problem}")))
}

/// Why compressed layer grids (`stream`, at `LAYER_HEADER_SIZE` in the layer) did not
/// decompress to exactly `3 * w * h` bytes with `compression`.
fn grids_error(stream: &[u8], compression: LayerCompression, w: usize, h: usize) -> Error {
    let want = 3 * w * h;
    let what = format!("{want} bytes ({w} x {h} cells x heights, areas, connections)");
    if compression == LayerCompression::FastLz {
        // The decoder Detour's decompress calls, run again for its reason.
        match crate::ffi::fastlz::codec::decompress(stream, 4 * w * h) {
            Err(Error::NavMeshData {
                offset, message, ..
            }) => {
                return Error::data(
                    LAYER_HEADER_SIZE + offset,
                    format!("layer grids do not decompress (FastLZ) to {what}: {message}"),
                );
            }
            Ok(out) => {
                return Error::data(
                    LAYER_HEADER_SIZE,
                    format!(
                        "layer grids decompress (FastLZ) to {} bytes, not exactly {what}",
                        out.len()
                    ),
                );
            }
            Err(_) => {}
        }
    }
    Error::data(
        LAYER_HEADER_SIZE,
        format!(
            "layer grids do not decompress ({}) to exactly {what}",
            compression.describe()
        ),
    )
}
