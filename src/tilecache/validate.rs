//! Checks of tile cache parameters ([`validate_cache_params`]) and of compressed tile layers
//! (`validate_layer`): Detour trusts both.

use recastnavigation_sys as sys;

use super::*;
use crate::ffi::tilecache::{Compressor, LAYER_HEADER_SIZE, layer_regions_fit};
use crate::navmesh::params::{MAX_COORDINATE, MAX_TILES_LIMIT};
use crate::{Error, Result};

/// A finite float within [`MAX_COORDINATE`], or an error naming it and its offset.
pub(super) fn coord(v: f32, off: usize, what: &str) -> Result<f32> {
    if !v.is_finite() || v.abs() > MAX_COORDINATE {
        return Err(Error::data(
            off,
            format!("{what} is {v}, must be finite and within +-{MAX_COORDINATE:e}"),
        ));
    }
    Ok(v)
}

/// Checks tile cache parameters: everything `dtTileCache::init` and the tile builds rely on.
/// Error offsets are relative to the start of `dtTileCacheParams`.
pub fn validate_cache_params(p: &TileCacheParams) -> Result<()> {
    for (a, &v) in p.origin.iter().enumerate() {
        coord(
            v,
            pp::C_ORIG + 4 * a,
            &format!("tile cache params orig[{a}]"),
        )?;
    }
    for (name, v, off, min, max) in [
        ("cs", p.cell_size, pp::C_CS, 1e-3, 1e4),
        ("ch", p.cell_height, pp::C_CH, 1e-3, 1e4),
        (
            "walkableHeight",
            p.walkable_height,
            pp::C_WALKABLE_HEIGHT,
            1e-6,
            1e6,
        ),
        (
            "walkableRadius",
            p.walkable_radius,
            pp::C_WALKABLE_RADIUS,
            0.0,
            1e6,
        ),
        (
            "walkableClimb",
            p.walkable_climb,
            pp::C_WALKABLE_CLIMB,
            0.0,
            1e6,
        ),
        (
            "maxSimplificationError",
            p.max_simplification_error,
            pp::C_MAX_ERROR,
            0.0,
            1e4,
        ),
    ] {
        if !(v.is_finite() && v >= min && v <= max) {
            return Err(Error::data(
                off,
                format!("tile cache params {name} is {v}, must be in {min}..={max}"),
            ));
        }
    }
    if p.walkable_climb / p.cell_height > 255.0 {
        return Err(Error::data(
            pp::C_WALKABLE_CLIMB,
            format!(
                "tile cache params walkableClimb {} is more than 255 cell heights",
                p.walkable_climb
            ),
        ));
    }
    for (name, v, off) in [
        ("width", p.width, pp::C_WIDTH),
        ("height", p.height, pp::C_HEIGHT),
    ] {
        if !(1..=MAX_TILE_SIZE).contains(&v) {
            return Err(Error::data(
                off,
                format!("tile cache params {name} is {v}, must be in 1..={MAX_TILE_SIZE}"),
            ));
        }
    }
    if !(1..=MAX_TILES_LIMIT).contains(&p.max_tiles) {
        return Err(Error::data(
            pp::C_MAX_TILES,
            format!(
                "tile cache params maxTiles is {}, must be in 1..={MAX_TILES_LIMIT}",
                p.max_tiles
            ),
        ));
    }
    if !(1..=MAX_OBSTACLES_LIMIT).contains(&p.max_obstacles) {
        return Err(Error::data(
            pp::C_MAX_OBSTACLES,
            format!(
                "tile cache params maxObstacles is {}, must be in 1..={MAX_OBSTACLES_LIMIT}",
                p.max_obstacles
            ),
        ));
    }
    Ok(())
}

/// Checks one compressed tile layer against the cache parameters: header magic, version,
/// position and bounds consistent with the tile grid, dimensions equal to the tile size, usable
/// sub-region inside the layer, grids that decompress to exactly `3 * width * height` bytes,
/// area ids `<= 63`, connections only towards cells inside the layer, and a region partition
/// that fits Detour's neighbour lists. Offsets in errors are relative to the start of `data`.
pub(super) fn validate_layer(
    data: &[u8],
    p: &TileCacheParams,
    comp: &mut Compressor,
) -> Result<LayerHeader> {
    if data.len() <= LAYER_HEADER_SIZE {
        return Err(Error::data(
            data.len(),
            format!(
                "tile layer is {} bytes, not more than its {LAYER_HEADER_SIZE}-byte header",
                data.len()
            ),
        ));
    }
    let magic = i32_at(data, lh::MAGIC)?;
    if magic != sys::DT_TILECACHE_MAGIC {
        return Err(Error::data(
            lh::MAGIC,
            format!(
                "layer magic is 0x{magic:08x}, expected 0x{:08x} ('DTLR')",
                sys::DT_TILECACHE_MAGIC
            ),
        ));
    }
    let version = i32_at(data, lh::VERSION)?;
    if version != sys::DT_TILECACHE_VERSION {
        return Err(Error::data(
            lh::VERSION,
            format!(
                "layer version is {version}, expected {}",
                sys::DT_TILECACHE_VERSION
            ),
        ));
    }
    let h = read_layer_header(data, 0)?;
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
    // Where the tile grid puts this tile, and how big the layer is in world units.
    let (tw, th) = p.tile_world_size();
    let expect = [
        (
            lh::BMIN,
            h.bmin[0],
            p.origin[0] + h.tx as f32 * tw,
            "bmin.x",
        ),
        (
            lh::BMIN + 8,
            h.bmin[2],
            p.origin[2] + h.ty as f32 * th,
            "bmin.z",
        ),
        (lh::BMAX, h.bmax[0], h.bmin[0] + tw, "bmax.x"),
        (lh::BMAX + 8, h.bmax[2], h.bmin[2] + th, "bmax.z"),
    ];
    for (off, got, want, name) in expect {
        let tol = 0.05 * p.cell_size + 1e-5 * want.abs();
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
    let (w, hh) = (h.width as usize, h.height as usize);
    let cells = w * hh;
    let grids = comp
        .decompress_grids(&data[LAYER_HEADER_SIZE..], cells)
        .map_err(|_| {
            Error::data(
                LAYER_HEADER_SIZE,
                format!(
                    "layer grids do not decompress (LZ4 block) to exactly {} bytes ({w} x {hh} \
                     cells x heights, areas, connections)",
                    cells * 3
                ),
            )
        })?;
    let (heights, rest) = grids.split_at(cells);
    let (areas, cons) = rest.split_at(cells);
    if let Some(i) = areas.iter().position(|&a| a > 63) {
        return Err(Error::data(
            LAYER_HEADER_SIZE,
            format!("layer cell {i} has area {} > 63", areas[i]),
        ));
    }
    for (i, &c) in cons.iter().enumerate() {
        let (x, z) = (i % w, i / w);
        // Connection bits 0..4: -x, +z, +x, -z (Detour's direction order).
        let outside = [x == 0, z + 1 == hh, x + 1 == w, z == 0];
        if let Some(dir) = (0..4).find(|&d| c & (1 << d) != 0 && outside[d]) {
            return Err(Error::data(
                LAYER_HEADER_SIZE,
                format!("layer cell ({x}, {z}) connects in direction {dir}, outside the layer"),
            ));
        }
    }
    if !layer_regions_fit(w, hh, heights, areas, p.climb_voxels()) {
        return Err(Error::data(
            LAYER_HEADER_SIZE,
            "layer regions would overflow Detour's 16 neighbours per region (upstream issue \
             #452)",
        ));
    }
    Ok(h)
}
