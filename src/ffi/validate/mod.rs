//! The validators Detour's safety rests on, and the types only they make.
//!
//! Detour trusts tile data and tile cache layers completely: `dtNavMesh::addTile`,
//! `dtTileCache::addTile` and every later query or rebuild follow the indices stored in them
//! without bounds checks. So the calls here that hand data to Detour
//! ([`super::detour::RawNavMesh::add_tile`], [`super::tilecache::RawTileCache::add_tile`]) take
//! only [`ValidTileData`] and [`ValidLayer`], which only the validators in this module
//! ([`tile::validate_tile_data`], [`layer::validate_layer`]) construct (their fields are
//! private), plus, for layers Detour itself just built from our own grids, `build_layer`.

pub(crate) mod layer;
pub(crate) mod tile;

pub use tile::{TileInfo, convert_tile_data, validate_tile_data, validate_tile_data_for};

/// Largest accepted magnitude of any coordinate, extent or radius in navmesh data.
///
/// Detour squares coordinate differences (e.g. in `dtDistancePtSegSqr2D`) and relies on
/// the results being finite and below `FLT_MAX`; with every stored coordinate (and every
/// query coordinate) bounded by this value that holds with a wide margin.
pub const MAX_COORDINATE: f32 = 1.0e9;

/// Detour tile data that passed [`tile::validate_tile_data`]: only the validator makes one, so
/// `dtNavMesh::addTile` may trust it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ValidTileData<'a> {
    data: &'a [u8],
}

impl<'a> ValidTileData<'a> {
    /// Validates `data` ([`validate_tile_data`]): the checked data and its summary.
    pub(crate) fn new(data: &'a [u8]) -> crate::Result<(Self, TileInfo)> {
        let info = validate_tile_data(data)?;
        Ok((ValidTileData { data }, info))
    }

    /// The tile data.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.data
    }
}

/// A compressed tile cache layer (a `dtTileCacheLayerHeader` and its compressed grids, in the
/// format it records) that passed [`layer::validate_layer`] against the cache's parameters, or
/// that Detour built from our own grids (`build_layer`): `dtTileCache::addTile` and the tile
/// rebuilds of a cache with a compressor of the same format may trust it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ValidLayer {
    data: Vec<u8>,
    compression: crate::ffi::layer_compression::LayerCompression,
}

impl ValidLayer {
    /// A layer `dtBuildTileCacheLayer` just built from grids of the header's size (in
    /// `super::tilecache::build_layer`) with a compressor of `compression`: valid by
    /// construction, as Detour's own output.
    ///
    /// # Safety
    /// `data` must be exactly what `dtBuildTileCacheLayer` returned for a header with Detour's
    /// magic and version and grids of the header's size whose cells pass
    /// [`check_cells`](crate::ffi::tile_layer::check_cells), compressed by a compressor of
    /// `compression`: Detour's tile cache trusts the layer without checking it.
    pub(in crate::ffi) unsafe fn built_by_detour(
        data: Vec<u8>,
        compression: crate::ffi::layer_compression::LayerCompression,
    ) -> Self {
        ValidLayer { data, compression }
    }

    /// The format of the layer's compressed grids.
    pub(crate) fn compression(&self) -> crate::ffi::layer_compression::LayerCompression {
        self.compression
    }

    /// The layer's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// The layer's bytes, owned.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.data
    }
}
