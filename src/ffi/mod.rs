//! The one layer with `unsafe` in navkit: thin, safe owners and calls over the raw
//! `recastnavigation-sys` bindings and navkit's own C++ glue (`glue/navkit_context.cpp`).
//!
//! Every `unsafe` block carries a `// SAFETY:` comment. Everything above this module is safe
//! Rust (`#![deny(unsafe_code)]` at the crate root, allowed only here).
#![allow(unsafe_code)]

mod buffers;
pub(crate) mod bytes;
pub(crate) mod context;
pub(crate) mod crowd;
pub(crate) mod crowd_update;
pub(crate) mod detour;
pub(crate) mod fastlz;
pub(crate) mod layer_compression;
pub(crate) mod nodes;
mod owner;
pub(crate) mod panic;
pub(crate) mod poly_query;
pub(crate) mod raycast;
pub(crate) mod recast;
pub(crate) mod search;
pub(crate) mod smooth_step;
pub(crate) mod sweep_room;
pub(crate) mod tile_layer;
pub(crate) mod tile_poly_mesh;
pub(crate) mod tile_view;
pub(crate) mod tilecache;
pub(crate) mod tilecache_build;
mod tilecache_tiles;
mod tilecache_update;
pub(crate) mod validate;

pub(crate) use crate::poly_ref::{PolyRef, PolyRefBits};

/// Detour's polygon reference type: `u32`, or `u64` with the `large-refs` feature.
pub(crate) type RawPolyRef = recastnavigation_sys::dtPolyRef;

#[cfg(not(feature = "large-refs"))]
const _: () = assert!(
    std::mem::size_of::<RawPolyRef>() == 4
        && std::mem::size_of::<recastnavigation_sys::dtTileRef>() == 4,
    "without the large-refs feature Detour must use 32-bit refs"
);
#[cfg(feature = "large-refs")]
const _: () = assert!(
    std::mem::size_of::<RawPolyRef>() == 8
        && std::mem::size_of::<recastnavigation_sys::dtTileRef>() == 8,
    "with the large-refs feature Detour must use 64-bit refs (DT_POLYREF64)"
);

const _: () = assert!(
    std::mem::size_of::<PolyRef>() == std::mem::size_of::<RawPolyRef>()
        && std::mem::align_of::<PolyRef>() == std::mem::align_of::<RawPolyRef>()
);

/// `Ok(value)`, or `Err(status)` if Detour's `status` has the failure bit.
pub(crate) fn status_result<T>(status: u32, value: T) -> Result<T, u32> {
    if status & recastnavigation_sys::DT_FAILURE != 0 {
        Err(status)
    } else {
        Ok(value)
    }
}

/// A `PolyRef` slice as Detour's `dtPolyRef` array, without copying.
pub(crate) fn poly_refs(refs: &[PolyRef]) -> &[RawPolyRef] {
    // SAFETY: `PolyRef` is `#[repr(transparent)]` over `PolyRefBits`, which is `dtPolyRef`, so the
    // slice has the same layout, length and lifetime.
    unsafe { std::slice::from_raw_parts(refs.as_ptr() as *const RawPolyRef, refs.len()) }
}
