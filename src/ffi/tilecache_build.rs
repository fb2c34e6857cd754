//! navkit's own tile build for the tile cache: what Detour's `dtTileCache::buildNavMeshTile`
//! does (decompress the layer, carve the obstacles touching it, regions, contours, polygon
//! mesh, mesh process, `dtCreateNavMeshData`, swap the navmesh tile), with navkit's polygon
//! mesh builder ([`super::tile_poly_mesh`]) in place of `dtBuildTileCachePolyMesh`, which reads
//! uninitialised memory and writes past its stack arrays on some layers. Detour's own steps
//! run with the cache's allocator (and its region-neighbour guard), compressor and mesh
//! process, so the tiles are the bytes Detour's build gives wherever Detour's is defined.

use std::os::raw::c_int;

use recastnavigation_sys as sys;

use super::buffers::take_detour_alloc;
use super::detour::RawNavMesh;
use super::tile_poly_mesh::{NVP, TileContour, TilePolyMesh, build_tile_poly_mesh};
use super::tilecache::{OBSTACLE_EMPTY, OBSTACLE_REMOVING, RawTileCache};
use super::validate::ValidTileData;

unsafe extern "C" {
    fn navkit_tc_alloc_reset(a: *mut sys::dtTileCacheAlloc);
    fn navkit_tc_meshproc_process(
        p: *mut sys::dtTileCacheMeshProcess,
        params: *mut sys::dtNavMeshCreateParams,
        areas: *mut u8,
        flags: *mut u16,
    );
}

const FAILURE: u32 = sys::DT_FAILURE;
const SUCCESS: u32 = sys::DT_SUCCESS;

/// The decompressed layer and the contour set of one build, freed through the cache's
/// allocator on drop (as Detour's `NavMeshTileBuildContext`).
struct Scratch {
    alloc: *mut sys::dtTileCacheAlloc,
    layer: *mut sys::dtTileCacheLayer,
    lcset: *mut sys::dtTileCacheContourSet,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // SAFETY: both are null or what this build allocated with `alloc` (the cache's, alive
        // while the cache is), freed once here.
        unsafe {
            if !self.layer.is_null() {
                sys::dtFreeTileCacheLayer(self.alloc, self.layer);
            }
            if !self.lcset.is_null() {
                sys::dtFreeTileCacheContourSet(self.alloc, self.lcset);
            }
        }
    }
}

/// Copies a contour set Detour built into navkit's contours.
///
/// # Safety
/// `lcset` is a contour set `dtBuildTileCacheContours` filled (`nconts` contours, each with
/// `nverts` vertices of 4 bytes).
unsafe fn read_contours(lcset: &sys::dtTileCacheContourSet) -> Vec<TileContour> {
    let n = usize::try_from(lcset.nconts).unwrap_or(0);
    if n == 0 || lcset.conts.is_null() {
        return Vec::new();
    }
    // SAFETY: the caller's contract: `nconts` contours at `conts`.
    let conts = unsafe { super::buffers::c_slice(lcset.conts, n) };
    conts
        .iter()
        .map(|c| {
            let len = usize::try_from(c.nverts).unwrap_or(0) * 4;
            let verts = if len == 0 || c.verts.is_null() {
                Vec::new()
            } else {
                // SAFETY: the caller's contract: `nverts` vertices of 4 bytes at `verts`.
                unsafe { super::buffers::c_slice(c.verts, len) }.to_vec()
            };
            TileContour {
                verts,
                reg: c.reg,
                area: c.area,
            }
        })
        .collect()
}

impl RawTileCache {
    /// (Re)builds every layer of tile (`tx`, `ty`) into `nav` in `getTilesAt`'s order, as Detour's
    /// `buildNavMeshTilesAt` does but for all of them: it builds 32 and drops the rest silently.
    pub(crate) fn build_tiles_at(&mut self, tx: i32, ty: i32, nav: &mut RawNavMesh) -> u32 {
        const MOST: usize = super::validate::layer::MAX_LAYERS_PER_TILE + 1;
        let mut refs = [0; MOST];
        // SAFETY: live tile cache; `refs` holds `MOST` refs and Detour writes at most that many.
        let n = unsafe {
            sys::dtTileCache_getTilesAt(self.as_mut_ptr(), tx, ty, refs.as_mut_ptr(), MOST as i32)
        };
        for &r in &refs[..(n.max(0) as usize).min(MOST)] {
            let st = self.build_tile(r, nav);
            if st & FAILURE != 0 {
                return st;
            }
        }
        SUCCESS
    }

    /// Builds one layer into `nav` (RecastDemo's `loadAll` after each `addTile`), as Detour's
    /// `buildNavMeshTile` but with navkit's polygon mesh builder. A ref naming no layer in use
    /// fails (`DT_INVALID_PARAM`): Detour lets index `maxTiles` and free slots by.
    pub(crate) fn build_tile(&mut self, tile_ref: u32, nav: &mut RawNavMesh) -> u32 {
        #[cfg(test)]
        if upstream::enabled() {
            return self.build_tile_upstream(tile_ref, nav);
        }
        let Some(header) = self.layer_header(tile_ref) else {
            return FAILURE | sys::DT_INVALID_PARAM;
        };
        let mesh = self
            .tile_contours(tile_ref, &header)
            .and_then(|conts| build_tile_poly_mesh(&conts));
        match mesh {
            Ok(mesh) => {
                self.fixes.add(&mesh);
                self.publish(&header, mesh, nav)
            }
            Err(st) => st | FAILURE,
        }
    }

    /// A copy of the header of the layer `tile_ref` names, if it is in use.
    fn layer_header(&mut self, tile_ref: u32) -> Option<sys::dtTileCacheLayerHeader> {
        // SAFETY: live tile cache; getTileByRef bounds-checks the index and compares the salt.
        let tile = unsafe { sys::dtTileCache_getTileByRef(self.as_mut_ptr(), tile_ref) };
        // SAFETY: a non-null result points into the cache's tile array, alive with the cache;
        // a tile in use points to its header inside its data.
        unsafe {
            let tile = tile.as_ref()?;
            (!tile.data.is_null() && tile.dataSize > 0)
                .then(|| tile.header.as_ref().copied())
                .flatten()
        }
    }

    /// The contours of layer `tile_ref` (in use, with `header`) with every obstacle touching it
    /// carved out: Detour's steps of `buildNavMeshTile` up to `dtBuildTileCacheContours`.
    fn tile_contours(
        &mut self,
        tile_ref: u32,
        header: &sys::dtTileCacheLayerHeader,
    ) -> Result<Vec<TileContour>, u32> {
        let tc = self.as_mut_ptr();
        let p = self.params();
        // SAFETY: live tile cache: init set its allocator and compressor (navkit's, alive as
        // long as the cache); the ref names a tile in use (checked by the caller), whose
        // `dataSize` bytes of data Detour decompresses into a new layer.
        let (alloc, comp, tile) = unsafe {
            let t = &*tc;
            let tile = sys::dtTileCache_getTileByRef(tc, tile_ref);
            (t.m_talloc, t.m_tcomp, *tile)
        };
        let climb = (p.walkableClimb / p.ch) as c_int;
        // SAFETY: the cache's allocator (navkit's); reset starts its per-build guard.
        unsafe { navkit_tc_alloc_reset(alloc) };
        let mut s = Scratch {
            alloc,
            layer: std::ptr::null_mut(),
            lcset: std::ptr::null_mut(),
        };
        // SAFETY: see above; Detour allocates the layer with `alloc` (freed by `s`).
        let st = super::panic::call(|| unsafe {
            sys::dtDecompressTileCacheLayer(alloc, comp, tile.data, tile.dataSize, &mut s.layer)
        });
        if st & FAILURE != 0 || s.layer.is_null() {
            return Err(st | FAILURE);
        }
        self.carve_obstacles(tile_ref, s.layer, &header.bmin);
        // SAFETY: a decompressed layer (its grids of the header's size, and Detour's region
        // grid); the guard refuses layers whose regions overflow Detour's neighbour lists.
        let st = unsafe { sys::dtBuildTileCacheRegions(alloc, s.layer, climb) };
        if st & FAILURE != 0 {
            return Err(st);
        }
        // SAFETY: the cache's allocator; the set is freed by `s`.
        s.lcset = unsafe { sys::dtAllocTileCacheContourSet(alloc) };
        if s.lcset.is_null() {
            return Err(FAILURE | sys::DT_OUT_OF_MEMORY);
        }
        let err = p.maxSimplificationError;
        // SAFETY: the layer with its regions built; an empty contour set of the same allocator.
        let st = unsafe { sys::dtBuildTileCacheContours(alloc, s.layer, climb, err, s.lcset) };
        if st & FAILURE != 0 {
            return Err(st);
        }
        // SAFETY: the set dtBuildTileCacheContours just filled.
        Ok(unsafe { read_contours(&*s.lcset) })
    }

    /// Marks every obstacle (not being removed) that touches layer `tile_ref` as unwalkable in
    /// `layer`, whose grid starts at `orig`, as `buildNavMeshTile` does.
    fn carve_obstacles(&self, tile_ref: u32, layer: *mut sys::dtTileCacheLayer, orig: &[f32; 3]) {
        let p = self.params();
        for ob in self.obstacle_slots() {
            let touched = &ob.touched[..usize::from(ob.ntouched).min(ob.touched.len())];
            if ob.state == OBSTACLE_EMPTY || ob.state == OBSTACLE_REMOVING {
                continue;
            }
            if !touched.contains(&tile_ref) {
                continue;
            }
            // SAFETY: `layer` is the decompressed layer of this build; the union member read is
            // the one `type_` names; Detour clamps the marked cells to the layer.
            unsafe {
                let shape = &ob.__bindgen_anon_1;
                match u32::from(ob.type_) {
                    sys::ObstacleType_DT_OBSTACLE_CYLINDER => {
                        let c = shape.cylinder;
                        let (pos, r, h) = (c.pos.as_ptr(), c.radius, c.height);
                        sys::dtMarkCylinderArea(layer, orig.as_ptr(), p.cs, p.ch, pos, r, h, 0)
                    }
                    sys::ObstacleType_DT_OBSTACLE_BOX => {
                        let b = shape.box_;
                        let (lo, hi) = (b.bmin.as_ptr(), b.bmax.as_ptr());
                        sys::dtMarkBoxArea(layer, orig.as_ptr(), p.cs, p.ch, lo, hi, 0)
                    }
                    sys::ObstacleType_DT_OBSTACLE_ORIENTED_BOX => {
                        let o = shape.orientedBox;
                        let (c, h, r) =
                            (o.center.as_ptr(), o.halfExtents.as_ptr(), o.rotAux.as_ptr());
                        sys::dtMarkBoxArea1(layer, orig.as_ptr(), p.cs, p.ch, c, h, r, 0)
                    }
                    _ => sys::DT_SUCCESS,
                }
            };
        }
    }

    /// Packs `mesh` (through the cache's mesh process: areas, flags, off-mesh connections),
    /// validates the tile (`ValidTileData`, as every tile navkit hands to Detour) and puts it
    /// in `nav` in place of the layer's old tile, as `buildNavMeshTile` ends: an empty mesh
    /// only removes the old tile.
    fn publish(
        &mut self,
        header: &sys::dtTileCacheLayerHeader,
        mut mesh: TilePolyMesh,
        nav: &mut RawNavMesh,
    ) -> u32 {
        let (tx, ty, tlayer) = (header.tx, header.ty, header.tlayer);
        if mesh.npolys() == 0 {
            nav.remove_tile(nav.tile_ref_at(tx, ty, tlayer));
            return SUCCESS;
        }
        let p = self.params();
        let (areas, flags) = (mesh.areas.as_mut_ptr(), mesh.flags.as_mut_ptr());
        // SAFETY: dtNavMeshCreateParams is plain data; all-zero is its documented initial state.
        let mut params: sys::dtNavMeshCreateParams = unsafe { std::mem::zeroed() };
        params.verts = mesh.verts.as_ptr();
        params.vertCount = mesh.nverts() as c_int;
        params.polys = mesh.polys.as_ptr();
        params.polyAreas = areas;
        params.polyFlags = flags;
        params.polyCount = mesh.npolys() as c_int;
        params.nvp = NVP as c_int;
        params.walkableHeight = p.walkableHeight;
        params.walkableRadius = p.walkableRadius;
        params.walkableClimb = p.walkableClimb;
        params.tileX = tx;
        params.tileY = ty;
        params.tileLayer = tlayer;
        params.cs = p.cs;
        params.ch = p.ch;
        params.buildBvTree = false;
        params.bmin = header.bmin;
        params.bmax = header.bmax;
        let process = self.raw().m_tmproc;
        if !process.is_null() {
            // SAFETY: navkit's mesh process (alive with the cache); `areas` and `flags` hold
            // one entry per polygon; it points the off-mesh arrays at its own copies.
            unsafe { navkit_tc_meshproc_process(process, &mut params, areas, flags) };
        }
        let mut data: *mut u8 = std::ptr::null_mut();
        let mut size: c_int = 0;
        // SAFETY: every array in `params` is alive for the call with the stated lengths (the
        // mesh's vertices and polygons, 2 * NVP entries each; the off-mesh arrays are the mesh
        // process's). Detour leaves `data` null or sets it to `size` bytes it allocated with
        // dtAlloc, which `take_detour_alloc` copies out and frees.
        let (ok, data) = unsafe {
            let ok = sys::dtCreateNavMeshData(&mut params, &mut data, &mut size);
            (ok, take_detour_alloc(data, size))
        };
        let Some(data) = data.filter(|_| ok) else {
            return FAILURE;
        };
        // Like every tile navkit hands to Detour, validated first; a tile that failed would
        // keep the layer's previous polygons.
        let Ok((valid, _)) = ValidTileData::new(&data) else {
            return FAILURE | sys::DT_INVALID_PARAM;
        };
        nav.remove_tile(nav.tile_ref_at(tx, ty, tlayer));
        match nav.add_tile(valid, 0) {
            Ok(_) => SUCCESS,
            Err(st) => st,
        }
    }
}

/// Detour's own `buildNavMeshTile` and `update`, kept for the differential tests: on a thread
/// that [`upstream::set`]s it, [`RawTileCache::build_tile`] and [`RawTileCache::update`] run
/// Detour's instead of navkit's.
#[cfg(test)]
pub(crate) mod upstream {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        static UPSTREAM: Cell<bool> = const { Cell::new(false) };
    }

    /// Makes this thread's tile builds and updates Detour's (`true`) or navkit's.
    pub(crate) fn set(on: bool) {
        UPSTREAM.with(|u| u.set(on));
    }

    /// True if this thread's builds are Detour's.
    pub(crate) fn enabled() -> bool {
        UPSTREAM.with(Cell::get)
    }

    impl RawTileCache {
        /// Detour's `buildNavMeshTile` (with the same in-use check as navkit's).
        pub(crate) fn build_tile_upstream(&mut self, tile_ref: u32, nav: &mut RawNavMesh) -> u32 {
            if self.layer_header(tile_ref).is_none() {
                return FAILURE | sys::DT_INVALID_PARAM;
            }
            let nav_ptr = nav.as_ptr() as *mut sys::dtNavMesh;
            // SAFETY: live tile cache and navmesh, both exclusively borrowed; the ref names a
            // layer in use.
            super::super::panic::call(|| unsafe {
                sys::dtTileCache_buildNavMeshTile(self.as_mut_ptr(), tile_ref, nav_ptr)
            })
        }

        /// Detour's `update` step: (status, up to date).
        pub(crate) fn update_upstream(&mut self, nav: &mut RawNavMesh) -> (u32, bool) {
            let mut up_to_date = false;
            let nav_ptr = nav.as_ptr() as *mut sys::dtNavMesh;
            // SAFETY: live tile cache and navmesh, both exclusively borrowed.
            let st = super::super::panic::call(|| unsafe {
                sys::dtTileCache_update(self.as_mut_ptr(), 0.0, nav_ptr, &mut up_to_date)
            });
            (st, up_to_date)
        }
    }
}
