//! [`LayerCompression`]: how a tile cache's layers are compressed, beside the layer data it
//! describes (`validate::layer`, the compressors of `tilecache`).

use crate::{Error, Result};

/// How a tile cache's layers are compressed (its `dtTileCacheCompressor`).
///
/// A cache holds layers of one format: Detour decompresses a stored layer with the cache's
/// compressor whenever it rebuilds the tile. A built cache uses
/// [`TileCacheSettings::layer_compression`](crate::tilecache::TileCacheSettings::layer_compression), a loaded one the format of its file; a cache can
/// be saved in the other format ([`TileCache::to_tset_bytes_with`](crate::tilecache::TileCache::to_tset_bytes_with), which recompresses).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum LayerCompression {
    /// FastLZ (RecastDemo's `FastLZCompressor`, fastlz.c's `fastlz_compress`): `TSET` files
    /// of version 1, exactly as RecastDemo reads and writes them.
    #[default]
    FastLz,
    /// LZ4 block format (`lz4_flex`): `TSET` files of version [`TSET_VERSION_LZ4`](crate::tilecache::TSET_VERSION_LZ4), which
    /// RecastDemo refuses (it checks the version). navkit's files before FastLZ support were
    /// version 1 with LZ4 layers; they still load (see [`read_tset`](crate::tilecache::read_tset)).
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
