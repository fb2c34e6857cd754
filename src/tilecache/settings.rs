//! How a tile cache is cut and sized ([`TileCacheSettings`]) and its Detour parameters
//! ([`TileCacheParams`]).

use recastnavigation_sys as sys;

use super::*;
pub use crate::ffi::layer_compression::LayerCompression;
use crate::{Error, Result};

/// How a tile cache is cut and sized (RecastDemo's Temp Obstacles values by default).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct TileCacheSettings {
    /// Tile size in cells ([`MIN_TILE_SIZE`]..=[`MAX_TILE_SIZE`]); 48 by default.
    pub tile_size: u32,
    /// Layers (floors) expected per tile, for sizing the cache; 4 by default. More layers than
    /// this are accepted: the cache grows to hold them.
    pub expected_layers_per_tile: u32,
    /// Most obstacles at once (1..=[`MAX_OBSTACLES_LIMIT`]); 128 by default.
    pub max_obstacles: u32,
    /// How the cache compresses its layers, in memory and in its `TSET` files: FastLZ by
    /// default (RecastDemo's, so saved files load in RecastDemo), or LZ4.
    pub layer_compression: LayerCompression,
}

impl Default for TileCacheSettings {
    fn default() -> Self {
        TileCacheSettings {
            tile_size: 48,
            expected_layers_per_tile: 4,
            max_obstacles: 128,
            layer_compression: LayerCompression::FastLz,
        }
    }
}

impl TileCacheSettings {
    /// Checks the values; errors name the setting.
    pub fn validate(&self) -> Result<()> {
        let bad = |name: &'static str, value: u32, reason: String| Error::Setting {
            name,
            value: value.to_string(),
            reason,
        };
        if !(MIN_TILE_SIZE as u32..=MAX_TILE_SIZE as u32).contains(&self.tile_size) {
            return Err(bad(
                "tile_size",
                self.tile_size,
                format!("must be in {MIN_TILE_SIZE}..={MAX_TILE_SIZE} cells for a tile cache"),
            ));
        }
        if !(1..=64).contains(&self.expected_layers_per_tile) {
            return Err(bad(
                "expected_layers_per_tile",
                self.expected_layers_per_tile,
                "must be in 1..=64".into(),
            ));
        }
        if !(1..=MAX_OBSTACLES_LIMIT as u32).contains(&self.max_obstacles) {
            return Err(bad(
                "max_obstacles",
                self.max_obstacles,
                format!("must be in 1..={MAX_OBSTACLES_LIMIT}"),
            ));
        }
        Ok(())
    }
}

impl LayerCompression {
    /// The `TSET` header version navkit writes for layers of this format.
    pub fn tset_version(self) -> i32 {
        match self {
            LayerCompression::FastLz => TSET_VERSION,
            LayerCompression::Lz4 => TSET_VERSION_LZ4,
        }
    }
}

/// The tile cache's parameters (`dtTileCacheParams`), as stored in a `TSET` file.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TileCacheParams {
    /// World-space origin of the tile grid (the navmesh origin).
    pub origin: [f32; 3],
    /// Cell size.
    pub cell_size: f32,
    /// Cell height.
    pub cell_height: f32,
    /// Layer width in cells (the tile size).
    pub width: i32,
    /// Layer height (along z) in cells (the tile size).
    pub height: i32,
    /// Agent height (world units).
    pub walkable_height: f32,
    /// Agent radius (world units).
    pub walkable_radius: f32,
    /// Agent climb (world units).
    pub walkable_climb: f32,
    /// Contour simplification error.
    pub max_simplification_error: f32,
    /// Most compressed tile layers.
    pub max_tiles: i32,
    /// Most obstacles.
    pub max_obstacles: i32,
}

impl TileCacheParams {
    pub(super) fn to_dt(self) -> sys::dtTileCacheParams {
        sys::dtTileCacheParams {
            orig: self.origin,
            cs: self.cell_size,
            ch: self.cell_height,
            width: self.width,
            height: self.height,
            walkableHeight: self.walkable_height,
            walkableRadius: self.walkable_radius,
            walkableClimb: self.walkable_climb,
            maxSimplificationError: self.max_simplification_error,
            maxTiles: self.max_tiles,
            maxObstacles: self.max_obstacles,
        }
    }

    pub(super) fn from_dt(p: &sys::dtTileCacheParams) -> Self {
        TileCacheParams {
            origin: p.orig,
            cell_size: p.cs,
            cell_height: p.ch,
            width: p.width,
            height: p.height,
            walkable_height: p.walkableHeight,
            walkable_radius: p.walkableRadius,
            walkable_climb: p.walkableClimb,
            max_simplification_error: p.maxSimplificationError,
            max_tiles: p.maxTiles,
            max_obstacles: p.maxObstacles,
        }
    }

    /// World width of a tile.
    pub(super) fn tile_world_size(&self) -> (f32, f32) {
        (
            self.width as f32 * self.cell_size,
            self.height as f32 * self.cell_size,
        )
    }
}
