//! How a tile cache is cut and sized ([`TileCacheSettings`]) and its Detour parameters
//! ([`TileCacheParams`]).

use recastnavigation_sys as sys;

use super::*;
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

/// How a tile cache's layers are compressed (its `dtTileCacheCompressor`).
///
/// A cache holds layers of one format: Detour decompresses a stored layer with the cache's
/// compressor whenever it rebuilds the tile. A built cache uses
/// [`TileCacheSettings::layer_compression`], a loaded one the format of its file; a cache can
/// be saved in the other format ([`TileCache::to_tset_bytes_as`], which recompresses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum LayerCompression {
    /// FastLZ (RecastDemo's `FastLZCompressor`, fastlz.c's `fastlz_compress`): `TSET` files
    /// of version 1, exactly as RecastDemo reads and writes them.
    #[default]
    FastLz,
    /// LZ4 block format (`lz4_flex`): `TSET` files of version [`TSET_VERSION_LZ4`], which
    /// RecastDemo refuses (it checks the version). navkit's files before FastLZ support were
    /// version 1 with LZ4 layers; they still load (see [`read_tset`]).
    Lz4,
}

impl LayerCompression {
    /// Both formats.
    pub const ALL: [LayerCompression; 2] = [LayerCompression::FastLz, LayerCompression::Lz4];

    /// The lower-case name: `fastlz` or `lz4` (as the CLI and serde spell it).
    pub fn name(self) -> &'static str {
        match self {
            LayerCompression::FastLz => "fastlz",
            LayerCompression::Lz4 => "lz4",
        }
    }

    /// The format's name for messages: `FastLZ` or `LZ4 block`.
    pub fn describe(self) -> &'static str {
        match self {
            LayerCompression::FastLz => "FastLZ",
            LayerCompression::Lz4 => "LZ4 block",
        }
    }

    /// The `TSET` header version navkit writes for layers of this format.
    pub fn tset_version(self) -> i32 {
        match self {
            LayerCompression::FastLz => TSET_VERSION,
            LayerCompression::Lz4 => TSET_VERSION_LZ4,
        }
    }
}

impl std::fmt::Display for LayerCompression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for LayerCompression {
    type Err = Error;

    /// `fastlz` or `lz4` (any case).
    fn from_str(s: &str) -> Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "fastlz" => Ok(LayerCompression::FastLz),
            "lz4" => Ok(LayerCompression::Lz4),
            _ => Err(Error::InvalidArgument(format!(
                "layer compression `{s}`: expected `fastlz` or `lz4`"
            ))),
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
