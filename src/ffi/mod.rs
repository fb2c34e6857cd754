//! The one layer with `unsafe` in navkit: thin, safe owners and calls over the raw
//! `recastnavigation-sys` bindings and navkit's own C++ glue (`glue/navkit_context.cpp`).
//!
//! Every `unsafe` block carries a `// SAFETY:` comment. Everything above this module is safe
//! Rust (`#![deny(unsafe_code)]` at the crate root, allowed only here).
#![allow(unsafe_code)]

pub(crate) mod bytes;
pub(crate) mod context;
pub(crate) mod crowd;
pub(crate) mod detour;
pub(crate) mod panic;
pub(crate) mod recast;
pub(crate) mod tile_view;
pub(crate) mod tilecache;
pub(crate) mod validate;

/// Detour's polygon reference type (32-bit: this build does not enable 64-bit refs).
pub(crate) type RawPolyRef = recastnavigation_sys::dtPolyRef;

// `PolyRef` wraps a `u32`, every ref split (`RefLayout`) assumes 32 bits, and `poly_refs`
// reinterprets `&[PolyRef]` as `&[dtPolyRef]`: a build of Detour with `DT_POLYREF64` must not
// compile.
const _: () = assert!(
    std::mem::size_of::<RawPolyRef>() == 4 && std::mem::align_of::<RawPolyRef>() == 4,
    "navkit assumes 32-bit dtPolyRef (Detour built without DT_POLYREF64)"
);
const _: () = assert!(std::mem::size_of::<recastnavigation_sys::dtTileRef>() == 4);

/// A polygon reference (`dtPolyRef`): tile salt, tile index and poly index packed in 32 bits.
///
/// Defined here, beside the raw type it wraps, and re-exported as [`crate::query::PolyRef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[repr(transparent)]
pub struct PolyRef(pub u32);

const _: () = assert!(
    std::mem::size_of::<PolyRef>() == std::mem::size_of::<RawPolyRef>()
        && std::mem::align_of::<PolyRef>() == std::mem::align_of::<RawPolyRef>()
);

/// A `PolyRef` slice as Detour's `dtPolyRef` array, without copying.
pub(crate) fn poly_refs(refs: &[PolyRef]) -> &[RawPolyRef] {
    // SAFETY: `PolyRef` is `#[repr(transparent)]` over `u32`, which is `dtPolyRef` here, so the
    // slice has the same layout, length and lifetime.
    unsafe { std::slice::from_raw_parts(refs.as_ptr() as *const RawPolyRef, refs.len()) }
}
