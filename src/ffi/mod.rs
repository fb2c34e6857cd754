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
pub(crate) mod fastlz;
pub(crate) mod nodes;
pub(crate) mod panic;
pub(crate) mod poly_query;
pub(crate) mod raycast;
pub(crate) mod recast;
pub(crate) mod search;
pub(crate) mod tile_layer;
pub(crate) mod tile_view;
pub(crate) mod tilecache;
pub(crate) mod validate;

/// Detour's polygon reference type: `u32`, or `u64` with the `large-refs` feature.
pub(crate) type RawPolyRef = recastnavigation_sys::dtPolyRef;

/// The integer a [`PolyRef`] holds: Detour's `dtPolyRef`, `u32` by default and `u64` with the
/// `large-refs` feature (Detour built with `DT_POLYREF64`).
///
/// Re-exported as [`crate::query::PolyRefBits`].
pub type PolyRefBits = RawPolyRef;

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

/// A polygon reference (`dtPolyRef`): tile salt, tile index and poly index packed in 32 bits
/// (by default: the split depends on the navmesh's `max_tiles` and `max_polys`) or in 64 bits
/// (with the `large-refs` feature: 16 salt, 28 tile and 20 poly bits).
///
/// Defined here, beside the raw type it wraps, and re-exported as [`crate::query::PolyRef`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[repr(transparent)]
pub struct PolyRef(pub PolyRefBits);

impl PolyRef {
    /// Bits in a ref in this build: 32, or 64 with the `large-refs` feature.
    pub const BITS: u32 = PolyRefBits::BITS;

    /// The ref as a `u64`, whatever the width of this build.
    #[allow(clippy::unnecessary_cast)] // u32 or u64, by feature
    pub const fn to_u64(self) -> u64 {
        self.0 as u64
    }

    /// The ref from a `u64`; `None` if it does not fit this build's width.
    pub fn from_u64(v: u64) -> Option<PolyRef> {
        PolyRefBits::try_from(v).ok().map(PolyRef)
    }
}

const _: () = assert!(
    std::mem::size_of::<PolyRef>() == std::mem::size_of::<RawPolyRef>()
        && std::mem::align_of::<PolyRef>() == std::mem::align_of::<RawPolyRef>()
);

/// A `PolyRef` slice as Detour's `dtPolyRef` array, without copying.
pub(crate) fn poly_refs(refs: &[PolyRef]) -> &[RawPolyRef] {
    // SAFETY: `PolyRef` is `#[repr(transparent)]` over `PolyRefBits`, which is `dtPolyRef`, so the
    // slice has the same layout, length and lifetime.
    unsafe { std::slice::from_raw_parts(refs.as_ptr() as *const RawPolyRef, refs.len()) }
}
