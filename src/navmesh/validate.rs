//! Exhaustive validation of Detour tile data (the output of `dtCreateNavMeshData`), so that it
//! can be handed to `dtNavMesh::addTile`.
//!
//! The validator lives in navkit's unsafe layer, beside the Detour calls whose safety rests on
//! it; this module is its public face.

pub use crate::ffi::validate::{
    TileInfo, convert_tile_data, validate_tile_data, validate_tile_data_for,
};
