//! Owners of Detour's navmesh and query objects, and the Detour calls over them.
//!
//! Functions here take and return plain Rust data (arrays, slices, `Vec`s) and Detour's status
//! word; the `navmesh` and `query` modules give them meaning and map statuses to `Result`s.

use std::cell::Cell;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

use recastnavigation_sys as sys;

use super::buffers::{DetourCopy, OutBuf, take_detour_alloc};
use super::owner::owner;
use super::recast::{PolyMesh, PolyMeshDetail};
use super::validate::ValidTileData;
use super::{PolyRef, RawPolyRef, status_result};

/// Inputs of `dtCreateNavMeshData` that do not come from the poly meshes.
pub(crate) struct OffMeshInput<'a> {
    /// Start and end points, 6 floats per connection.
    pub verts: &'a [f32],
    pub radii: &'a [f32],
    pub flags: &'a [u16],
    pub areas: &'a [u8],
    pub dirs: &'a [u8],
    pub user_ids: &'a [u32],
}

impl OffMeshInput<'_> {
    /// The number of connections, if every array holds that many (6 floats each for `verts`).
    pub(crate) fn count(&self) -> Option<usize> {
        let n = self.radii.len();
        (self.verts.len() == n * 6
            && self.flags.len() == n
            && self.areas.len() == n
            && self.dirs.len() == n
            && self.user_ids.len() == n)
            .then_some(n)
    }
}

/// The detail mesh `dtCreateNavMeshData` packs with a poly mesh: Recast's own
/// ([`DetailInput::of`]), or its sub-mesh table and triangles replaced by a repaired copy (the
/// build's `detail_repair`). `meshes` holds 4 entries per polygon (vertex base and count,
/// triangle base and count), `verts` 3 floats per vertex, `tris` 4 bytes per triangle.
#[derive(Clone, Copy)]
pub(crate) struct DetailInput<'a> {
    pub meshes: &'a [u32],
    pub verts: &'a [f32],
    pub tris: &'a [u8],
}

impl<'a> DetailInput<'a> {
    /// `dmesh`'s arrays; `None` when it has no sub-meshes (built without sampling).
    pub(crate) fn of(dmesh: &'a PolyMeshDetail) -> Option<Self> {
        (dmesh.nmeshes() != 0).then(|| DetailInput {
            meshes: dmesh.meshes(),
            verts: dmesh.verts(),
            tris: dmesh.tris(),
        })
    }
}

/// Agent dimensions stored in the tile header.
pub(crate) struct AgentDims {
    pub height: f32,
    pub radius: f32,
    pub climb: f32,
}

/// `dtCreateNavMeshData` for the tile at grid position `tile` (x, y; `[0, 0]` for a solo mesh),
/// with `detail` (none: Detour triangulates every polygon from its own vertices); `None` if
/// Detour refuses (e.g. no polygons or more than 0xffff vertices).
pub(crate) fn create_nav_mesh_data(
    pmesh: &PolyMesh,
    detail: Option<DetailInput<'_>>,
    flags: &[u16],
    off: &OffMeshInput<'_>,
    agent: &AgentDims,
    tile: [i32; 2],
) -> Option<Vec<u8>> {
    let n = off.count()?;
    if flags.len() != pmesh.npolys()
        || pmesh.nvp() > sys::DT_VERTS_PER_POLYGON as usize
        || detail.is_some_and(|d| !detail_fits(pmesh, &d))
    {
        return None;
    }
    let (bmin, bmax) = pmesh.bounds();
    let (cs, ch) = pmesh.cell();
    // SAFETY: dtNavMeshCreateParams is plain data; all-zero is its documented initial state.
    let mut params: sys::dtNavMeshCreateParams = unsafe { std::mem::zeroed() };
    params.verts = pmesh.verts().as_ptr();
    params.vertCount = pmesh.nverts() as i32;
    params.polys = pmesh.polys().as_ptr();
    params.polyAreas = pmesh.areas().as_ptr();
    params.polyFlags = flags.as_ptr();
    params.polyCount = pmesh.npolys() as i32;
    params.nvp = pmesh.nvp() as i32;
    // No detail mesh (built without sampling): the pointers stay null and Detour triangulates
    // every polygon itself.
    if let Some(d) = detail {
        params.detailMeshes = d.meshes.as_ptr();
        params.detailVerts = d.verts.as_ptr();
        params.detailVertsCount = (d.verts.len() / 3) as i32; // fits: checked by detail_fits
        params.detailTris = d.tris.as_ptr();
        params.detailTriCount = (d.tris.len() / 4) as i32;
    }
    params.offMeshConVerts = off.verts.as_ptr();
    params.offMeshConRad = off.radii.as_ptr();
    params.offMeshConDir = off.dirs.as_ptr();
    params.offMeshConAreas = off.areas.as_ptr();
    params.offMeshConFlags = off.flags.as_ptr();
    params.offMeshConUserID = off.user_ids.as_ptr();
    params.offMeshConCount = n as i32;
    params.walkableHeight = agent.height;
    params.walkableRadius = agent.radius;
    params.walkableClimb = agent.climb;
    params.bmin = bmin;
    params.bmax = bmax;
    params.cs = cs;
    params.ch = ch;
    params.tileX = tile[0];
    params.tileY = tile[1];
    params.tileLayer = 0;
    params.buildBvTree = true;
    let mut data: *mut u8 = std::ptr::null_mut();
    let mut size: i32 = 0;
    // SAFETY: every pointer in `params` refers to a live array of the stated length, and each
    // polygon's detail vertices lie inside the detail array (checked above). Detour leaves `data` null, or sets it to `size` bytes it allocated with dtAlloc
    // for us, which `take_detour_alloc` copies out and frees.
    let (ok, out) = unsafe {
        let ok = sys::dtCreateNavMeshData(&mut params, &mut data, &mut size);
        (ok, take_detour_alloc(data, size))
    };
    out.filter(|_| ok)
}

/// True if `detail` has one sub-mesh per polygon of `pmesh`, its vertex and triangle counts fit
/// Detour's `int`, and each polygon's sub-mesh lies inside the detail vertices and starts with
/// (at least) the polygon's own vertices, as `rcBuildPolyMeshDetail` builds it from this poly
/// mesh: `dtCreateNavMeshData` reads each polygon's detail vertices (at least the first)
/// unchecked. (The triangles are copied whole; their ranges are checked with the tile data.)
fn detail_fits(pmesh: &PolyMesh, detail: &DetailInput<'_>) -> bool {
    let nvp = pmesh.nvp().max(1);
    let nverts = detail.verts.len() / 3;
    if detail.meshes.len() != pmesh.npolys() * 4
        || i32::try_from(nverts).is_err()
        || i32::try_from(detail.tris.len() / 4).is_err()
    {
        return false;
    }
    let polys = pmesh.polys().chunks_exact(2 * nvp);
    polys.zip(detail.meshes.chunks_exact(4)).all(|(p, m)| {
        let nv = p[..nvp].iter().take_while(|&&v| v != 0xffff).count();
        let (vert_base, vert_count) = (m[0] as usize, m[1] as usize);
        vert_count >= nv.max(1)
            && vert_base
                .checked_add(vert_count)
                .is_some_and(|end| end <= nverts)
    })
}

owner!(
    /// The `dtNavMesh` allocation itself, freed when the last handle to it goes: when the owner
    /// and every keep-alive handle (crowds over it) are gone; queries borrowing it are gone too.
    NavBox(sys::dtNavMesh),
    free: sys::dtFreeNavMesh
);

// SAFETY: Detour's `const` methods only read the navmesh; writes go through `&mut RawNavMesh`
// (its unique owner) and, for a crowd that owns the navmesh's owner, only while that crowd is
// exclusively borrowed (see `RawCrowd::owning`). Shared handles give read-only access only.
unsafe impl Sync for NavBox {}

/// Owner of a `dtNavMesh`. `Send` and `Sync`: Detour's `const` methods only read it, and every
/// mutating call here takes `&mut self`.
pub(crate) struct RawNavMesh(Arc<NavBox>);

/// A handle that keeps a `dtNavMesh` allocated (not usable to reach it): held by a crowd that
/// owns the navmesh's owner, so that replacing the navmesh inside that owner cannot free the
/// `dtNavMesh` the crowd points to.
pub(crate) struct NavKeepAlive(#[allow(dead_code)] Arc<NavBox>);

/// Navmesh parameters (`dtNavMeshParams`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RawParams {
    pub orig: [f32; 3],
    pub tile_width: f32,
    pub tile_height: f32,
    pub max_tiles: i32,
    pub max_polys: i32,
}

/// A polygon as Detour stores it, for inspection and drawing.
#[derive(Clone, Debug)]
pub(crate) struct RawPoly {
    pub verts: Vec<[f32; 3]>,
    pub area: u8,
    pub flags: u16,
    pub off_mesh: bool,
}

/// The most tiles a navmesh may have here (`navmesh::params::MAX_TILES_LIMIT`).
const MAX_TILES: i32 = 1 << 20;

/// True if `dtNavMesh::init` may be given `p`: finite origin, finite positive tile size, at
/// least one tile (at most [`MAX_TILES`]) and poly, and at least 10 salt bits left in a 32-bit
/// ref (64-bit refs always have 16). (`init` computes the salt bits in unsigned arithmetic and would accept tile and poly
/// bits beyond 32, whose shifts are undefined.) The safe layer checks the same with errors that
/// name the field (`navmesh::params::validate_params`).
fn params_ok(p: &RawParams) -> bool {
    let bits = |n: i32| (n as u32).next_power_of_two().trailing_zeros();
    p.orig.iter().all(|v| v.is_finite())
        && p.tile_width.is_finite()
        && p.tile_width > 0.0
        && p.tile_height.is_finite()
        && p.tile_height > 0.0
        && (1..=MAX_TILES).contains(&p.max_tiles)
        && p.max_polys >= 1
        // 64-bit refs have fixed bits: 28 for tiles (MAX_TILES is below that), 20 for polys
        // (`add_tile` callers check each tile's poly count).
        && (cfg!(feature = "large-refs") || bits(p.max_tiles) + bits(p.max_polys) <= 22)
}

impl RawNavMesh {
    /// `dtAllocNavMesh` + `init`; fails with `DT_INVALID_PARAM` for parameters `init` must not be
    /// given (see `params_ok`).
    pub(crate) fn new(p: &RawParams) -> Result<Self, u32> {
        if !params_ok(p) {
            return Err(sys::DT_FAILURE | sys::DT_INVALID_PARAM);
        }
        // SAFETY: dtAllocNavMesh returns a constructed object (freed by dtFreeNavMesh) or null.
        let nav = unsafe { NavBox::from_raw(sys::dtAllocNavMesh()) }
            .ok_or(sys::DT_FAILURE | sys::DT_OUT_OF_MEMORY)?;
        let nav = RawNavMesh(Arc::new(nav));
        let params = sys::dtNavMeshParams {
            orig: p.orig,
            tileWidth: p.tile_width,
            tileHeight: p.tile_height,
            maxTiles: p.max_tiles,
            maxPolys: p.max_polys,
        };
        // SAFETY: live navmesh; Detour copies the params, which `params_ok` checked.
        let status = unsafe { sys::dtNavMesh_init(nav.as_ptr() as *mut sys::dtNavMesh, &params) };
        if status & sys::DT_FAILURE != 0 {
            return Err(status);
        }
        Ok(nav)
    }

    pub(crate) fn params(&self) -> RawParams {
        // SAFETY: live navmesh; getParams returns a pointer into it.
        let p = unsafe { &*sys::dtNavMesh_getParams(self.ptr()) };
        RawParams {
            orig: p.orig,
            tile_width: p.tileWidth,
            tile_height: p.tileHeight,
            max_tiles: p.maxTiles,
            max_polys: p.maxPolys,
        }
    }

    /// Adds a tile (a copy of its data, which Detour then owns), restoring `tile_ref` if it is
    /// not 0. Detour trusts tile data completely, so only validated data is accepted.
    pub(crate) fn add_tile(
        &mut self,
        data: ValidTileData<'_>,
        tile_ref: sys::dtTileRef,
    ) -> Result<sys::dtTileRef, u32> {
        let data = data.bytes();
        if data.is_empty() || data.len() > i32::MAX as usize {
            return Err(sys::DT_FAILURE | sys::DT_INVALID_PARAM);
        }
        // Detour takes the copy over with DT_TILE_FREE_DATA on success; it is freed on failure.
        let copy = DetourCopy::of(data).ok_or(sys::DT_FAILURE | sys::DT_OUT_OF_MEMORY)?;
        let mut result: sys::dtTileRef = 0;
        // SAFETY: live navmesh; `copy` holds a copy of tile data that passed
        // `validate_tile_data` (the only way to make a `ValidTileData`).
        let status = unsafe {
            sys::dtNavMesh_addTile(
                self.ptr(),
                copy.ptr(),
                copy.len() as i32,
                sys::dtTileFlags_DT_TILE_FREE_DATA as i32,
                tile_ref,
                &mut result,
            )
        };
        if status & sys::DT_FAILURE != 0 {
            return Err(status);
        }
        copy.handed_over();
        Ok(result)
    }

    /// The ref of the tile at grid position (x, y, layer); 0 if there is none.
    pub(crate) fn tile_ref_at(&self, x: i32, y: i32, layer: i32) -> sys::dtTileRef {
        // SAFETY: live navmesh; a pure lookup.
        unsafe { sys::dtNavMesh_getTileRefAt(self.ptr(), x, y, layer) }
    }

    /// The data of the tile at grid position (x, y, layer), if there is one.
    pub(crate) fn tile_data_at(&self, x: i32, y: i32, layer: i32) -> Option<&[u8]> {
        // SAFETY: live navmesh; getTileAt returns null or a tile of this navmesh.
        let t = unsafe { sys::dtNavMesh_getTileAt(self.ptr(), x, y, layer).as_ref()? };
        if t.header.is_null() || t.data.is_null() || t.dataSize <= 0 {
            return None;
        }
        // SAFETY: a tile in use owns `dataSize` bytes at `data`, alive while `self` is borrowed.
        Some(unsafe { std::slice::from_raw_parts(t.data, t.dataSize as usize) })
    }

    /// Removes the tile `tile_ref` and frees its data (added with `DT_TILE_FREE_DATA`).
    pub(crate) fn remove_tile(&mut self, tile_ref: sys::dtTileRef) -> u32 {
        // SAFETY: live navmesh; every tile we add owns its data (DT_TILE_FREE_DATA), so Detour
        // frees it and writes nothing through the null out-pointers.
        unsafe {
            sys::dtNavMesh_removeTile(
                self.ptr(),
                tile_ref,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        }
    }

    fn tile(&self, i: i32) -> Option<&sys::dtMeshTile> {
        // SAFETY: getTile returns null or a pointer into the navmesh's tile array for 0 <= i < max.
        let t = unsafe { sys::dtNavMesh_getTile(self.ptr(), i) };
        // SAFETY: non-null tile pointers stay valid while `self` is borrowed.
        let t = unsafe { t.as_ref()? };
        if t.header.is_null() || t.data.is_null() || t.dataSize <= 0 {
            None
        } else {
            Some(t)
        }
    }

    fn tiles(&self) -> impl Iterator<Item = &sys::dtMeshTile> {
        // SAFETY: live navmesh.
        let max = unsafe { sys::dtNavMesh_getMaxTiles(self.ptr()) };
        (0..max).filter_map(move |i| self.tile(i))
    }

    /// Every tile in use: its ref and its data, in tile-array order (as RecastDemo saves them).
    pub(crate) fn tile_data(&self) -> Vec<(sys::dtTileRef, &[u8])> {
        self.tiles()
            .map(|t| {
                // SAFETY: live tile of this navmesh.
                let r = unsafe { sys::dtNavMesh_getTileRef(self.ptr(), t) };
                // SAFETY: a tile in use owns `dataSize` bytes at `data`.
                (r, unsafe {
                    std::slice::from_raw_parts(t.data, t.dataSize as usize)
                })
            })
            .collect()
    }

    /// Every polygon of every tile, with its ref.
    pub(crate) fn polys(&self) -> Vec<(RawPolyRef, RawPoly)> {
        let mut out = Vec::new();
        for t in self.tiles() {
            // SAFETY: live tile; header, polys and verts are arrays sized by the header counts.
            unsafe {
                let h = &*t.header;
                let base = sys::dtNavMesh_getPolyRefBase(self.ptr(), t);
                let verts = std::slice::from_raw_parts(t.verts, h.vertCount.max(0) as usize * 3);
                let polys = std::slice::from_raw_parts(t.polys, h.polyCount.max(0) as usize);
                for (i, p) in polys.iter().enumerate() {
                    let vs = (0..p.vertCount as usize)
                        .map(|j| {
                            let v = p.verts[j] as usize * 3;
                            [verts[v], verts[v + 1], verts[v + 2]]
                        })
                        .collect();
                    out.push((
                        base | i as RawPolyRef,
                        RawPoly {
                            verts: vs,
                            area: p.areaAndtype & 0x3f,
                            flags: p.flags,
                            off_mesh: (p.areaAndtype >> 6) == 1,
                        },
                    ));
                }
            }
        }
        out
    }

    /// The polygons linked to `r` (its neighbours, in link order, as `fixupShortcuts` reads them).
    pub(crate) fn neighbours(&self, r: RawPolyRef, out: &mut Vec<PolyRef>) -> bool {
        out.clear();
        let mut tile: *const sys::dtMeshTile = std::ptr::null();
        let mut poly: *const sys::dtPoly = std::ptr::null();
        // SAFETY: live navmesh; the call validates `r` before writing the pointers.
        let st = unsafe { sys::dtNavMesh_getTileAndPolyByRef(self.ptr(), r, &mut tile, &mut poly) };
        if st & sys::DT_FAILURE != 0 || tile.is_null() || poly.is_null() {
            return false;
        }
        // SAFETY: `r` is valid, so tile and poly point into this navmesh; link indices come from
        // Detour's own free list, bounded by the tile's link count (we stop at that many steps).
        unsafe {
            let tile = &*tile;
            let max_links = (*tile.header).maxLinkCount.max(0) as u32;
            let mut k = (*poly).firstLink;
            let mut steps = 0;
            while k != sys::DT_NULL_LINK && k < max_links && steps <= max_links {
                let link = &*tile.links.add(k as usize);
                if link.ref_ != 0 {
                    out.push(PolyRef(link.ref_));
                }
                k = link.next;
                steps += 1;
            }
        }
        true
    }

    pub(crate) fn is_valid_ref(&self, r: RawPolyRef) -> bool {
        // SAFETY: live navmesh; the call only decodes and bounds-checks the ref.
        unsafe { sys::dtNavMesh_isValidPolyRef(self.ptr(), r) }
    }

    pub(crate) fn off_mesh_endpoints(
        &self,
        prev: RawPolyRef,
        r: RawPolyRef,
    ) -> Result<([f32; 3], [f32; 3]), u32> {
        let mut a = [0f32; 3];
        let mut b = [0f32; 3];
        // SAFETY: live navmesh; Detour validates both refs and writes 3 floats to each output.
        let st = unsafe {
            sys::dtNavMesh_getOffMeshConnectionPolyEndPoints(
                self.ptr(),
                prev,
                r,
                a.as_mut_ptr(),
                b.as_mut_ptr(),
            )
        };
        status_result(st, (a, b))
    }

    pub(crate) fn poly_flags(&self, r: RawPolyRef) -> Result<u16, u32> {
        let mut f = 0u16;
        // SAFETY: live navmesh; Detour validates the ref.
        let st = unsafe { sys::dtNavMesh_getPolyFlags(self.ptr(), r, &mut f) };
        status_result(st, f)
    }

    pub(crate) fn set_poly_flags(&mut self, r: RawPolyRef, flags: u16) -> u32 {
        // SAFETY: live navmesh, exclusively borrowed; Detour validates the ref.
        unsafe { sys::dtNavMesh_setPolyFlags(self.ptr(), r, flags) }
    }

    pub(crate) fn poly_area(&self, r: RawPolyRef) -> Result<u8, u32> {
        let mut a = 0u8;
        // SAFETY: live navmesh; Detour validates the ref.
        let st = unsafe { sys::dtNavMesh_getPolyArea(self.ptr(), r, &mut a) };
        status_result(st, a)
    }

    pub(crate) fn set_poly_area(&mut self, r: RawPolyRef, area: u8) -> u32 {
        // SAFETY: live navmesh, exclusively borrowed; Detour validates the ref.
        unsafe { sys::dtNavMesh_setPolyArea(self.ptr(), r, area) }
    }

    pub(crate) fn as_ptr(&self) -> *const sys::dtNavMesh {
        self.0.0.as_ptr()
    }

    /// The navmesh pointer for Detour calls (mutable in the C API, even for reads).
    fn ptr(&self) -> *mut sys::dtNavMesh {
        self.0.0.as_ptr()
    }

    /// A handle that keeps this `dtNavMesh` allocated.
    pub(crate) fn keep_alive(&self) -> NavKeepAlive {
        NavKeepAlive(Arc::clone(&self.0))
    }
}

/// `dtQueryFilter` (the default, non-virtual implementation: plain data).
#[derive(Clone)]
pub(crate) struct RawFilter(pub(crate) sys::dtQueryFilter);

impl RawFilter {
    pub(crate) fn new(include: u16, exclude: u16, costs: &[f32; 64]) -> Self {
        RawFilter(sys::dtQueryFilter {
            m_areaCost: *costs,
            m_includeFlags: include,
            m_excludeFlags: exclude,
        })
    }
}

/// A random source lent to `findRandomPoint` for one call, its lifetime erased: see
/// [`RandomLoan`].
type RandomSource = NonNull<dyn FnMut() -> f32 + 'static>;

thread_local! {
    /// The random source `findRandomPoint` draws from on this thread, lent for one call.
    static RANDOM: Cell<Option<RandomSource>> = const { Cell::new(None) };
}

/// Lends a random source to this thread's [`RANDOM`] for as long as it lives, and puts back
/// what was there before (also when unwinding).
struct RandomLoan {
    previous: Option<RandomSource>,
}

impl RandomLoan {
    /// Lends `source` (its lifetime erased) until the loan drops.
    ///
    /// # Safety
    /// The loan must be dropped, on this thread, before the borrow of `source` ends (not leaked
    /// or kept past it): `frand_trampoline` calls `source` whenever Detour draws a number while
    /// the loan lives.
    unsafe fn new(source: &mut dyn FnMut() -> f32) -> Self {
        let ptr: NonNull<dyn FnMut() -> f32 + '_> = NonNull::from(source);
        // SAFETY: only the lifetime bound is erased (same fat pointer layout). The pointer is
        // used only by `frand_trampoline` on this thread while the loan lives, which ends
        // before the borrow of `source` does (the caller's contract); drop puts the previous
        // value back.
        let ptr: RandomSource = unsafe { std::mem::transmute(ptr) };
        RandomLoan {
            previous: RANDOM.with(|r| r.replace(Some(ptr))),
        }
    }
}

/// Runs `call`, a Detour call given the random callback it passes on to Detour
/// (`findRandomPoint`, `findRandomPointAroundCircle`), with `random` as the source of that
/// callback's numbers (values outside [0, 1) are replaced by 0.5); then raises again any panic of
/// `random` during the call (see [`super::panic`]).
pub(super) fn with_random<T>(
    random: &mut dyn FnMut() -> f32,
    call: impl FnOnce(Option<unsafe extern "C" fn() -> f32>) -> T,
) -> T {
    // SAFETY: the loan is dropped at the end of this function (or while unwinding out of it),
    // on this thread, while `random` is still borrowed.
    let loan = unsafe { RandomLoan::new(random) };
    let result = call(Some(frand_trampoline));
    drop(loan);
    super::panic::raise_pending();
    result
}

impl Drop for RandomLoan {
    fn drop(&mut self) {
        RANDOM.with(|r| r.set(self.previous));
    }
}

unsafe extern "C" fn frand_trampoline() -> f32 {
    // A panic here is raised again once `findRandomPoint` returns (see `super::panic`).
    super::panic::wrap(|| {
        // Taken out for the call, so that a source that (absurdly) asks for a random point
        // itself cannot reach this one twice.
        let Some(mut source) = RANDOM.with(|r| r.take()) else {
            return 0.5;
        };
        // SAFETY: a live `RandomLoan` put it there (see `RandomLoan::new`), and it was taken
        // out of the slot, so this is the only use of the `&mut` it came from.
        let v = unsafe { source.as_mut()() };
        RANDOM.with(|r| r.set(Some(source)));
        // Detour expects [0, 1): keep a misbehaving source in range.
        if (0.0..1.0).contains(&v) { v } else { 0.5 }
    })
    .unwrap_or(0.5)
}

owner!(
    /// A `dtNavMeshQuery`, freed on drop.
    QueryObj(sys::dtNavMeshQuery),
    free: sys::dtFreeNavMeshQuery
);

/// Owner of a `dtNavMeshQuery` over a `RawNavMesh` it borrows for `'nav`: the navmesh cannot be
/// dropped or changed (its `&mut` methods cannot be called) while the query lives. `Send` (the
/// query object has no thread affinity, and the navmesh it reads is `Sync` and borrowed shared),
/// not `Sync`.
pub(crate) struct RawQuery<'nav>(QueryObj, PhantomData<&'nav RawNavMesh>);

/// The outputs of findStraightPath.
#[derive(Default, Clone)]
pub(crate) struct StraightOut {
    pub points: Vec<[f32; 3]>,
    pub flags: Vec<u8>,
    pub refs: Vec<RawPolyRef>,
}

macro_rules! failed {
    ($st:expr) => {
        $st & sys::DT_FAILURE != 0
    };
}

impl<'nav> RawQuery<'nav> {
    /// `dtAllocNavMeshQuery` + `init` over `nav`, which stays borrowed (shared, so unchanged and
    /// alive) for as long as the query.
    pub(crate) fn new(nav: &'nav RawNavMesh, max_nodes: i32) -> Result<Self, u32> {
        // SAFETY: dtAllocNavMeshQuery returns a constructed object (freed by
        // dtFreeNavMeshQuery) or null.
        let q = unsafe { QueryObj::from_raw(sys::dtAllocNavMeshQuery()) }
            .ok_or(sys::DT_FAILURE | sys::DT_OUT_OF_MEMORY)?;
        let q = RawQuery(q, PhantomData);
        // SAFETY: live query and navmesh; the navmesh outlives the query and is not mutated
        // while it lives (borrowed for `'nav`).
        let st = unsafe { sys::dtNavMeshQuery_init(q.0.as_ptr(), nav.as_ptr(), max_nodes) };
        if failed!(st) {
            return Err(st);
        }
        Ok(q)
    }

    pub(super) fn q(&self) -> *const sys::dtNavMeshQuery {
        self.0.as_ptr()
    }

    pub(crate) fn find_nearest_poly(
        &mut self,
        center: [f32; 3],
        half: [f32; 3],
        f: &RawFilter,
    ) -> (u32, RawPolyRef, [f32; 3], bool) {
        let mut r = 0;
        let mut pt = [0f32; 3];
        let mut over = false;
        // SAFETY: live query; 3-float inputs and outputs.
        let st = unsafe {
            sys::dtNavMeshQuery_findNearestPoly1(
                self.q(),
                center.as_ptr(),
                half.as_ptr(),
                &f.0,
                &mut r,
                pt.as_mut_ptr(),
                &mut over,
            )
        };
        (st, r, pt, over)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn find_path(
        &mut self,
        start: RawPolyRef,
        end: RawPolyRef,
        spos: [f32; 3],
        epos: [f32; 3],
        f: &RawFilter,
        out: &mut Vec<RawPolyRef>,
        max: usize,
    ) -> u32 {
        let max = max.max(1);
        let mut out = OutBuf::new(out, max);
        let mut n = 0;
        // SAFETY: live query; `out` has room for `max` refs, which Detour may write, and it
        // initialises the first `n` of them.
        unsafe {
            let st = sys::dtNavMeshQuery_findPath(
                self.q(),
                start,
                end,
                spos.as_ptr(),
                epos.as_ptr(),
                &f.0,
                out.ptr(),
                &mut n,
                max as i32,
            );
            out.set_written(n);
            st
        }
    }

    #[inline(always)]
    pub(crate) fn find_straight_path(
        &mut self,
        spos: [f32; 3],
        epos: [f32; 3],
        path: &[RawPolyRef],
        max: usize,
        options: i32,
        out: &mut StraightOut,
    ) -> u32 {
        let max = max.max(1);
        let mut points = OutBuf::new(&mut out.points, max);
        let mut flags = OutBuf::new(&mut out.flags, max);
        let mut refs = OutBuf::new(&mut out.refs, max);
        let mut n = 0;
        // SAFETY: live query; the output arrays have room for `max` entries each (a point is 3
        // floats), which Detour may write, and it initialises the first `n` of each; `path`
        // holds path.len() refs.
        unsafe {
            let st = sys::dtNavMeshQuery_findStraightPath(
                self.q(),
                spos.as_ptr(),
                epos.as_ptr(),
                path.as_ptr(),
                path.len() as i32,
                points.ptr() as *mut f32,
                flags.ptr(),
                refs.ptr(),
                &mut n,
                max as i32,
                options,
            );
            points.set_written(n);
            flags.set_written(n);
            refs.set_written(n);
            st
        }
    }

    #[inline(always)]
    pub(crate) fn move_along_surface(
        &mut self,
        start: RawPolyRef,
        spos: [f32; 3],
        epos: [f32; 3],
        f: &RawFilter,
        visited: &mut [RawPolyRef],
    ) -> (u32, [f32; 3], usize) {
        let mut res = [0f32; 3];
        let mut n = 0;
        // SAFETY: live query; `visited` holds visited.len() refs.
        let st = unsafe {
            sys::dtNavMeshQuery_moveAlongSurface(
                self.q(),
                start,
                spos.as_ptr(),
                epos.as_ptr(),
                &f.0,
                res.as_mut_ptr(),
                visited.as_mut_ptr(),
                &mut n,
                visited.len() as i32,
            )
        };
        (st, res, n.clamp(0, visited.len() as i32) as usize)
    }

    #[inline(always)]
    pub(crate) fn get_poly_height(&mut self, r: RawPolyRef, pos: [f32; 3]) -> (u32, f32) {
        let mut h = 0f32;
        // SAFETY: live query; Detour validates the ref.
        let st = unsafe { sys::dtNavMeshQuery_getPolyHeight(self.q(), r, pos.as_ptr(), &mut h) };
        (st, h)
    }

    pub(crate) fn closest_point_on_poly(
        &mut self,
        r: RawPolyRef,
        pos: [f32; 3],
    ) -> (u32, [f32; 3], bool) {
        let mut c = [0f32; 3];
        let mut over = false;
        // SAFETY: live query; Detour validates the ref.
        let st = unsafe {
            sys::dtNavMeshQuery_closestPointOnPoly(
                self.q(),
                r,
                pos.as_ptr(),
                c.as_mut_ptr(),
                &mut over,
            )
        };
        (st, c, over)
    }

    /// Returns (status, distance, hit position, hit normal).
    pub(crate) fn find_distance_to_wall(
        &mut self,
        start: RawPolyRef,
        center: [f32; 3],
        max_radius: f32,
        f: &RawFilter,
    ) -> (u32, f32, [f32; 3], [f32; 3]) {
        let mut d = 0f32;
        let mut pos = [0f32; 3];
        let mut normal = [0f32; 3];
        // SAFETY: live query; 3-float outputs.
        let st = unsafe {
            sys::dtNavMeshQuery_findDistanceToWall(
                self.q(),
                start,
                center.as_ptr(),
                max_radius,
                &f.0,
                &mut d,
                pos.as_mut_ptr(),
                normal.as_mut_ptr(),
            )
        };
        (st, d, pos, normal)
    }

    /// Returns status and (ref, parent, cost) triples.
    pub(crate) fn find_polys_around_circle(
        &mut self,
        start: RawPolyRef,
        center: [f32; 3],
        radius: f32,
        f: &RawFilter,
        max: usize,
    ) -> (u32, Vec<(RawPolyRef, RawPolyRef, f32)>) {
        let max = max.max(1);
        let mut refs = vec![0; max];
        let mut parents = vec![0; max];
        let mut costs = vec![0f32; max];
        let mut n = 0;
        // SAFETY: live query; each output array holds `max` entries.
        let st = unsafe {
            sys::dtNavMeshQuery_findPolysAroundCircle(
                self.q(),
                start,
                center.as_ptr(),
                radius,
                &f.0,
                refs.as_mut_ptr(),
                parents.as_mut_ptr(),
                costs.as_mut_ptr(),
                &mut n,
                max as i32,
            )
        };
        let n = n.clamp(0, max as i32) as usize;
        let out = (0..n).map(|i| (refs[i], parents[i], costs[i])).collect();
        (st, out)
    }

    /// `findRandomPoint` drawing its numbers from `random` (values outside [0, 1) are
    /// replaced by 0.5).
    pub(crate) fn find_random_point(
        &mut self,
        f: &RawFilter,
        random: &mut dyn FnMut() -> f32,
    ) -> (u32, RawPolyRef, [f32; 3]) {
        let mut r = 0;
        let mut pt = [0f32; 3];
        let q = self.q();
        let st = with_random(random, |frand| {
            // SAFETY: live query; `frand` reads this thread's random source, lent for this call.
            unsafe { sys::dtNavMeshQuery_findRandomPoint(q, &f.0, frand, &mut r, pt.as_mut_ptr()) }
        });
        (st, r, pt)
    }
}

/// `dtMergeCorridorStartMoved` over a Rust vector (the corridor), keeping at most `max` polys
/// (or as many as it has, if more).
///
/// Detour stores the visited polygons it adds before it looks at its capacity, and for a
/// capacity below their count it also `memmove`s a negative length: so it is given room for
/// `visited.len()` at least, and the result is cut to the `max` kept. Where `max` was enough
/// (Detour's only sound case) that is what Detour gives with `max`: the added polygons first,
/// then as much of the rest as fits. No allocation once `path` has room for both.
#[inline(always)]
pub(crate) fn merge_corridor_start_moved(
    path: &mut Vec<PolyRef>,
    max: usize,
    visited: &[RawPolyRef],
) {
    let n = path.len();
    // Detour takes counts and capacities as `int`s.
    let keep = max.max(n).min(i32::MAX as usize);
    let room = keep.max(visited.len());
    if keep < n || room > i32::MAX as usize {
        return;
    }
    if path.capacity() < room {
        path.reserve(room - n);
    }
    // SAFETY: the buffer has room for `room` refs (the capacity), the first `n` initialized
    // (`PolyRef` is `dtPolyRef`, transparently); Detour reads those and `visited`, writes at
    // most `room` (it adds at most `visited.len()` polygons, which `room` covers, so its move
    // of the rest has a length >= 0) and returns how many it initialized (at most `room`).
    unsafe {
        let m = sys::dtMergeCorridorStartMoved(
            path.as_mut_ptr() as *mut RawPolyRef,
            n as i32,
            room as i32,
            visited.as_ptr(),
            visited.len() as i32,
        );
        path.set_len((m.max(0) as usize).min(keep));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(max_tiles: i32, max_polys: i32, tile_width: f32) -> RawParams {
        RawParams {
            orig: [0.0; 3],
            tile_width,
            tile_height: 1.0,
            max_tiles,
            max_polys,
        }
    }

    #[test]
    fn init_gets_only_parameters_it_handles() {
        assert!(RawNavMesh::new(&params(1 << 10, 1 << 12, 1.0)).is_ok());
        // 16 + 16 bits leave no salt: init would accept them (unsigned wrap) and shift past 32.
        #[cfg(not(feature = "large-refs"))]
        assert!(RawNavMesh::new(&params(1 << 16, 1 << 16, 1.0)).is_err());
        // 64-bit refs have 28 tile bits and 20 poly bits whatever the params.
        #[cfg(feature = "large-refs")]
        assert!(RawNavMesh::new(&params(1 << 16, 1 << 16, 1.0)).is_ok());
        assert!(RawNavMesh::new(&params(0, 1, 1.0)).is_err());
        assert!(RawNavMesh::new(&params(1, 0, 1.0)).is_err());
        assert!(RawNavMesh::new(&params(1, 1, f32::NAN)).is_err());
        assert!(RawNavMesh::new(&params(1, 1, -1.0)).is_err());
    }
}

// Sliced pathfinding: its own file, a child module so that it reaches the query's pointer.
mod sliced;
pub(crate) use sliced::RawSliced;
