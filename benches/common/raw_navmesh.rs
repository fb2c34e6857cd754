//! A raw `dtNavMesh` over a copy of one tile's data, for the raw baselines (`raw_detour.rs`,
//! `raw_crowd.rs`); whatever includes them with `#[path]` includes this file too, as
//! `raw_navmesh`.

use recastnavigation_sys as sys;

/// A `dtNavMesh` made with `dtNavMesh::init(data, size, DT_TILE_FREE_DATA)` from a copy of
/// `tile_data` (made by `dtCreateNavMeshData`, as `SoloBuild::tile_data`), so that its polygons
/// and refs are those of navkit's navmesh of the same data. The caller frees it with
/// `dtFreeNavMesh`.
pub fn raw_navmesh(tile_data: &[u8]) -> *mut sys::dtNavMesh {
    let size = tile_data.len();
    assert!(size > 0 && size <= i32::MAX as usize);
    // SAFETY: dtAlloc returns null or a block of `size` bytes.
    let buf = unsafe { sys::dtAlloc(size, sys::dtAllocHint_DT_ALLOC_PERM) } as *mut u8;
    assert!(!buf.is_null(), "dtAlloc failed");
    // SAFETY: `buf` holds `size` bytes and does not overlap `tile_data`.
    unsafe { std::ptr::copy_nonoverlapping(tile_data.as_ptr(), buf, size) };
    // SAFETY: dtAllocNavMesh returns null or a constructed navmesh.
    let nav = unsafe { sys::dtAllocNavMesh() };
    assert!(!nav.is_null(), "dtAllocNavMesh failed");
    // SAFETY: `nav` is live; `buf` is a dtAlloc block of `size` bytes of tile data made by
    // dtCreateNavMeshData; with DT_TILE_FREE_DATA the navmesh takes ownership of it.
    let st = unsafe {
        sys::dtNavMesh_init1(
            nav,
            buf,
            size as i32,
            sys::dtTileFlags_DT_TILE_FREE_DATA as i32,
        )
    };
    assert!(st & sys::DT_FAILURE == 0, "dtNavMesh::init failed: {st:#x}");
    nav
}
