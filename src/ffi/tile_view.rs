//! Borrowed, bounds-checked views of a loaded navmesh's tiles: the one place where Detour's
//! tile pointers become Rust slices, for `crate::navmesh::view`.
//!
//! Every tile of a [`RawNavMesh`] got there through [`RawNavMesh::add_tile`] (tile data that
//! passed `validate_tile_data`) or through Detour's own tile-cache rebuild
//! (`dtCreateNavMeshData` output, valid by construction). `dtNavMesh::addTile` points the
//! tile's section pointers into that data at the offsets the header counts give, the very
//! offsets the validator checked add up to the data's length. So each section is an array of
//! exactly the header's count, inside the tile's allocation, alive and unchanged for as long as
//! the navmesh is borrowed shared (every change to a navmesh takes `&mut`). The slices are
//! built once here; everything above indexes them with checked Rust indexing.

use std::marker::PhantomData;

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::buffers::c_slice;
use super::detour::RawNavMesh;

/// A tile of a navmesh, its sections as slices borrowed from the navmesh.
#[derive(Clone, Copy)]
pub(crate) struct RawTile<'a> {
    /// Index of the tile in the navmesh's tile array.
    pub index: usize,
    /// The tile's salt.
    pub salt: u32,
    /// The tile's ref (`getTileRef`), widened.
    pub tile_ref: u64,
    /// The ref of the tile's poly 0 (`getPolyRefBase`).
    pub poly_ref_base: RawPolyRef,
    /// The tile header.
    pub header: &'a sys::dtMeshHeader,
    /// The whole tile data (`dataSize` bytes), header included.
    pub data: &'a [u8],
    /// `vertCount` vertices.
    pub verts: &'a [[f32; 3]],
    /// `polyCount` polys.
    pub polys: &'a [sys::dtPoly],
    /// `maxLinkCount` link slots.
    pub links: RawLinks<'a>,
    /// `detailMeshCount` detail meshes.
    pub detail_meshes: &'a [sys::dtPolyDetail],
    /// `detailVertCount` detail vertices.
    pub detail_verts: &'a [[f32; 3]],
    /// `detailTriCount` detail triangles (three vertex indices and the edge flags).
    pub detail_tris: &'a [[u8; 4]],
    /// `bvNodeCount` BV tree nodes.
    pub bv_tree: &'a [sys::dtBVNode],
    /// `offMeshConCount` off-mesh connections.
    pub off_mesh_cons: &'a [sys::dtOffMeshConnection],
}

/// A tile's link array, read one link at a time.
///
/// Not a slice: Detour packs the links at a 4-byte aligned offset of the tile data, while
/// `dtLink` holds a `dtPolyRef`, which is 8-byte aligned when Detour is built with 64-bit refs,
/// so a `&[dtLink]` could be misaligned. Each link is copied out with an unaligned read.
#[derive(Clone, Copy)]
pub(crate) struct RawLinks<'a> {
    ptr: *const sys::dtLink,
    len: usize,
    _tile: PhantomData<&'a sys::dtLink>,
}

impl RawLinks<'_> {
    /// Number of link slots (`maxLinkCount`).
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Link slot `i`, if `i < len`.
    pub(crate) fn get(&self, i: usize) -> Option<sys::dtLink> {
        if i >= self.len {
            return None;
        }
        // SAFETY: `i < len` and the tile's link array holds `len` (`maxLinkCount`) initialized
        // links (`addTile` writes every slot into the free list) inside the tile's data, alive
        // for `'a`; `read_unaligned` needs no alignment; `dtLink` is plain data.
        Some(unsafe { self.ptr.add(i).read_unaligned() })
    }
}

/// A poly or tile ref as a `u64`, whatever the ref width of this build (generic, so that neither
/// width makes it a same-type conversion).
pub(crate) fn widen<T: Into<u64>>(r: T) -> u64 {
    r.into()
}

/// A `u64` as a poly or tile ref, if it fits this build's ref width (generic for the same
/// reason as [`widen`]).
pub(crate) fn narrow<T: TryFrom<u64>>(r: u64) -> Option<T> {
    T::try_from(r).ok()
}

/// `len` elements at `ptr` as a slice, empty for a null pointer or a non-positive count.
///
/// # Safety
/// As [`c_slice`]'s, for a positive `len`.
unsafe fn section<'a, T>(ptr: *const T, len: i32) -> &'a [T] {
    // SAFETY: guaranteed by the caller.
    unsafe { c_slice(ptr, usize::try_from(len).unwrap_or(0)) }
}

impl RawNavMesh {
    /// The navmesh's own ref layout: (salt bits, tile bits, poly bits), as `init` computed them
    /// (with 64-bit refs Detour has no such fields: its bits are the constants 16, 28, 20).
    #[inline]
    pub(crate) fn ref_bits(&self) -> (u32, u32, u32) {
        #[cfg(not(feature = "large-refs"))]
        {
            // SAFETY: live navmesh; plain fields set by `init` and never changed after.
            let nav = unsafe { &*self.as_ptr() };
            (nav.m_saltBits, nav.m_tileBits, nav.m_polyBits)
        }
        #[cfg(feature = "large-refs")]
        {
            let l = crate::poly_ref::RefLayout::LARGE;
            (l.salt_bits, l.tile_bits, l.poly_bits)
        }
    }

    /// Length of the tile array (`getMaxTiles`).
    pub(crate) fn max_tiles(&self) -> usize {
        // SAFETY: live navmesh; a plain getter.
        unsafe { sys::dtNavMesh_getMaxTiles(self.as_ptr()) }.max(0) as usize
    }

    /// The tile at `index` of the tile array, if it is in use.
    pub(crate) fn raw_tile(&self, index: usize) -> Option<RawTile<'_>> {
        if index >= self.max_tiles() {
            return None;
        }
        // SAFETY: live navmesh; `index < getMaxTiles()`, so getTile returns a pointer into the
        // tile array, valid while `self` is borrowed: a tile of this navmesh.
        unsafe { self.view_of(sys::dtNavMesh_getTile(self.as_ptr(), index as i32).as_ref()?) }
    }

    /// The index in the tile array of the tile at grid position (x, y, layer), if there is one.
    pub(crate) fn tile_index_at(&self, x: i32, y: i32, layer: i32) -> Option<usize> {
        // SAFETY: live navmesh; a lookup returning null or a tile of this navmesh, valid while
        // `self` is borrowed.
        unsafe { self.view_of(sys::dtNavMesh_getTileAt(self.as_ptr(), x, y, layer).as_ref()?) }
            .map(|v| v.index)
    }

    /// The indices of every tile at grid position (x, y), all layers, in Detour's order.
    pub(crate) fn tile_indices_at(&self, x: i32, y: i32) -> Vec<usize> {
        let mut cap = 8usize;
        loop {
            let mut buf: Vec<*const sys::dtMeshTile> = vec![std::ptr::null(); cap];
            // SAFETY: live navmesh; `buf` holds `cap` pointers, of which Detour writes at most
            // `cap` (it stops at maxTiles).
            let n = unsafe {
                sys::dtNavMesh_getTilesAt(
                    self.as_ptr(),
                    x,
                    y,
                    buf.as_mut_ptr(),
                    cap.min(i32::MAX as usize) as i32,
                )
            }
            .max(0) as usize;
            if n < cap || cap >= self.max_tiles() {
                return buf[..n.min(cap)]
                    .iter()
                    // SAFETY: Detour wrote the first `n` entries: null or tiles of this navmesh,
                    // valid while `self` is borrowed.
                    .filter_map(|&t| unsafe { self.view_of(t.as_ref()?) })
                    .map(|v| v.index)
                    .collect();
            }
            cap *= 2;
        }
    }

    /// The tile a tile ref names, if the ref is current (`getTileByRef`).
    pub(crate) fn tile_index_by_ref(&self, tile_ref: u64) -> Option<usize> {
        let r: sys::dtTileRef = narrow(tile_ref)?;
        if r == 0 {
            return None;
        }
        // SAFETY: live navmesh; getTileByRef checks the ref's tile index and salt and returns
        // null or a tile of this navmesh, valid while `self` is borrowed.
        unsafe { self.view_of(sys::dtNavMesh_getTileByRef(self.as_ptr(), r).as_ref()?) }
            .map(|v| v.index)
    }

    /// Slices over a tile of this navmesh, or `None` if the tile slot is free.
    ///
    /// # Safety
    /// `t` must be a slot of this navmesh's tile array (as Detour's tile lookups return them):
    /// a tile in use then points into tile data that `addTile` laid out from its header (see
    /// the module's docs), alive and unchanged while `self` is borrowed.
    unsafe fn view_of<'a>(&'a self, t: &'a sys::dtMeshTile) -> Option<RawTile<'a>> {
        if t.header.is_null() || t.data.is_null() || t.dataSize <= 0 {
            return None;
        }
        let (_, tile_bits, poly_bits) = self.ref_bits();
        // SAFETY: live navmesh and a tile of it in use.
        let tile_ref = widen(unsafe { sys::dtNavMesh_getTileRef(self.as_ptr(), t) });
        // SAFETY: as above.
        let poly_ref_base = unsafe { sys::dtNavMesh_getPolyRefBase(self.as_ptr(), t) };
        let index = ((tile_ref >> poly_bits) & ((1u64 << tile_bits) - 1)) as usize;
        // SAFETY: a tile in use has a header at the start of its data (validated on load, or
        // written by dtCreateNavMeshData), alive while the navmesh is borrowed.
        let h = unsafe { &*t.header };
        // SAFETY: for each section, `addTile` set the pointer to the section's start in the
        // tile data, the section holding exactly the header's count of elements, all inside
        // the data (`validate_tile_data` checked the section sizes add up to its length;
        // dtCreateNavMeshData lays them out so). Sections start at 4-byte aligned offsets of a
        // dtAlloc'd buffer, enough for every type here (links, whose alignment can be 8, are
        // read unaligned through `RawLinks`). The navmesh is borrowed shared for `'a`, so no
        // tile is added, removed or changed meanwhile.
        unsafe {
            Some(RawTile {
                index,
                salt: t.salt,
                tile_ref,
                poly_ref_base,
                header: h,
                // The tile's own allocation: `dataSize` bytes (checked > 0 above).
                data: section(t.data, t.dataSize),
                verts: section(t.verts as *const [f32; 3], h.vertCount),
                polys: section(t.polys, h.polyCount),
                links: RawLinks {
                    ptr: if h.maxLinkCount > 0 {
                        t.links
                    } else {
                        std::ptr::null()
                    },
                    len: if t.links.is_null() {
                        0
                    } else {
                        h.maxLinkCount.max(0) as usize
                    },
                    _tile: PhantomData,
                },
                detail_meshes: section(t.detailMeshes, h.detailMeshCount),
                detail_verts: section(t.detailVerts as *const [f32; 3], h.detailVertCount),
                detail_tris: section(t.detailTris as *const [u8; 4], h.detailTriCount),
                bv_tree: section(t.bvTree, h.bvNodeCount),
                off_mesh_cons: section(t.offMeshCons, h.offMeshConCount),
            })
        }
    }
}
