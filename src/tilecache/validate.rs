//! Checks of tile cache parameters ([`validate_cache_params`]): `dtTileCache::init` and the tile
//! builds trust them. (Layers are checked in the unsafe layer, which hands them to Detour.)

use super::*;
use crate::ffi::bytes::coord;
use crate::navmesh::params::MAX_TILES_LIMIT;
use crate::{Error, Result};

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
