//! Worlds past one search and one machine (issue 25), in one test binary (each integration test
//! binary costs CI a link, three times over: 64-bit, 32-bit and AddressSanitizer runs):
//! hierarchical long paths, and the tile store, shards and their merge.

mod common;

#[path = "large_worlds/hierarchy.rs"]
mod hierarchy;
#[cfg(feature = "tile-store")]
#[path = "large_worlds/tile_store.rs"]
mod tile_store;
