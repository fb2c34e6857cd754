//! Benchmark: navkit's safe API against the same calls made directly over raw
//! `recastnavigation_sys` FFI, on RecastDemo's three meshes (`dungeon`, `nav_test`,
//! `undulating` from `../shared/meshes/recastdemo`).
//!
//! What it measures, in one run:
//! 1. build time of each mesh (`NavMeshBuilder::solo` with default settings);
//! 2. per mesh, 500 seeded random start/end pairs (`find_random_point` with
//!    `Pcg32::seed_from_u64`), and for these, per query, `findPath` (from the nearest polys),
//!    `findStraightPath` (from the corridor, 256 points) and the smooth path (navkit's
//!    `smooth_path` with default options), each through navkit and through raw FFI. The raw
//!    smooth path is a Rust transcription of RecastDemo's `NavMeshTesterTool` "Pathfind Follow"
//!    loop (`getSteerTarget`, `fixupShortcuts`, the `TOOLMODE_PATHFIND_FOLLOW` block of
//!    `recalc()`), with fixed-size stack arrays as the C++ has;
//! 3. a correctness check (asserted): for every pair the navkit corridor equals the raw one,
//!    the straight paths are equal, and the smooth paths are bit-identical (or, where navkit
//!    reports `stuck`, navkit's points are a prefix of the raw loop's);
//! 4. a table of navkit/raw time ratios per operation and mesh, from interleaved rounds
//!    (navkit and raw alternate, medians per side), since shared machines are noisy.
//!
//! The raw side uses its own `dtNavMesh`, made from the same tile data (`SoloBuild::tile_data`)
//! with `dtNavMesh::init(data, size, DT_TILE_FREE_DATA)`, so polygons and refs are the same.
//!
//! This raw baseline is the one place outside `src/ffi` with `unsafe` code; every `unsafe`
//! block carries a `// SAFETY:` comment.
//!
//! Run: `cargo bench --bench navmesh` (criterion groups, then the ratio table), or
//! `cargo bench --bench navmesh -- --quick` / `NAVKIT_BENCH_QUICK=1 cargo bench --bench navmesh`
//! for the correctness check and the ratio table only (no criterion). `NAVKIT_BENCH_ROUNDS`
//! sets the number of interleaved rounds (default 15).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, Throughput};
use glam::Vec3;
use recastnavigation_sys as sys;

use navkit::NavMeshBuilder;
use navkit::build::SoloBuild;
use navkit::query::{
    Corridor, DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter, SmoothPath,
    SmoothPathOptions, StraightPath, StraightPathOptions,
};
use navkit::{BuildSettings, InputGeometry, area, flags};

#[path = "common/pairs.rs"]
mod pairs;
use pairs::{MESHES, PAIRS, bench_pairs, stuck_pairs};

const MAX_NODES: i32 = 2048;
/// RecastDemo's `MAX_POLYS`.
const MAX_POLYS: usize = 256;
/// RecastDemo's `MAX_SMOOTH`.
const MAX_SMOOTH: usize = 2048;
const DEFAULT_ROUNDS: usize = 15;

fn mesh_path(name: &str) -> String {
    format!(
        "{}/../shared/meshes/recastdemo/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    )
}

// ---------------------------------------------------------------------------------------------
// Raw baseline: a dtNavMesh and dtNavMeshQuery owned directly, RecastDemo's filter.
// ---------------------------------------------------------------------------------------------

/// A raw `dtNavMesh` (owning its tile data) and a `dtNavMeshQuery` over it.
struct RawNav {
    nav: *mut sys::dtNavMesh,
    query: *mut sys::dtNavMeshQuery,
    filter: sys::dtQueryFilter,
}

impl RawNav {
    fn new(tile_data: &[u8]) -> RawNav {
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
        // SAFETY: dtAllocNavMeshQuery returns null or a constructed query.
        let query = unsafe { sys::dtAllocNavMeshQuery() };
        assert!(!query.is_null(), "dtAllocNavMeshQuery failed");
        // SAFETY: `query` and `nav` are live; `nav` outlives `query` (both freed in Drop, query
        // first).
        let st = unsafe { sys::dtNavMeshQuery_init(query, nav, MAX_NODES) };
        assert!(
            st & sys::DT_FAILURE == 0,
            "dtNavMeshQuery::init failed: {st:#x}"
        );

        // RecastDemo's tester filter, as navkit's QueryFilter::default().
        let mut area_cost = [1.0f32; 64];
        area_cost[area::GROUND as usize] = 1.0;
        area_cost[area::WATER as usize] = 10.0;
        area_cost[area::ROAD as usize] = 1.0;
        area_cost[area::DOOR as usize] = 1.0;
        area_cost[area::GRASS as usize] = 2.0;
        area_cost[area::JUMP as usize] = 1.5;
        let filter = sys::dtQueryFilter {
            m_areaCost: area_cost,
            m_includeFlags: flags::ALL ^ flags::DISABLED,
            m_excludeFlags: 0,
        };
        RawNav { nav, query, filter }
    }

    fn q(&self) -> *const sys::dtNavMeshQuery {
        self.query
    }
}

impl Drop for RawNav {
    fn drop(&mut self) {
        // SAFETY: both were allocated by Detour in `new` and are freed once, the query (which
        // points at the navmesh) first.
        unsafe {
            sys::dtFreeNavMeshQuery(self.query);
            sys::dtFreeNavMesh(self.nav);
        }
    }
}

fn failed(st: sys::dtStatus) -> bool {
    st & sys::DT_FAILURE != 0
}

/// `findNearestPoly` (untimed; checks that the raw navmesh agrees with navkit's).
fn raw_nearest(r: &RawNav, pos: &[f32; 3]) -> sys::dtPolyRef {
    let ext = DEFAULT_HALF_EXTENTS.to_array();
    let mut out = 0;
    let mut pt = [0f32; 3];
    // SAFETY: live query; every pointer refers to a local of the right size.
    unsafe {
        sys::dtNavMeshQuery_findNearestPoly(
            r.q(),
            pos.as_ptr(),
            ext.as_ptr(),
            &r.filter,
            &mut out,
            pt.as_mut_ptr(),
        )
    };
    out
}

/// `findPath` into a `MAX_POLYS` array; returns the count.
fn raw_find_path(r: &RawNav, p: &Pair, path: &mut [sys::dtPolyRef; MAX_POLYS]) -> usize {
    let mut n = 0;
    // SAFETY: live query; `path` holds MAX_POLYS refs; positions hold 3 floats each.
    unsafe {
        sys::dtNavMeshQuery_findPath(
            r.q(),
            p.start_ref.0,
            p.end_ref.0,
            p.start_a.as_ptr(),
            p.end_a.as_ptr(),
            &r.filter,
            path.as_mut_ptr(),
            &mut n,
            MAX_POLYS as i32,
        )
    };
    n as usize
}

/// Output arrays of `findStraightPath`, as RecastDemo's members.
struct RawStraight {
    pts: [f32; MAX_POLYS * 3],
    flags: [u8; MAX_POLYS],
    refs: [sys::dtPolyRef; MAX_POLYS],
}

impl RawStraight {
    fn new() -> Self {
        RawStraight {
            pts: [0.0; MAX_POLYS * 3],
            flags: [0; MAX_POLYS],
            refs: [0; MAX_POLYS],
        }
    }
}

/// `findStraightPath` along the pair's corridor (256 points, no options); returns the count.
fn raw_straight_path(r: &RawNav, p: &Pair, out: &mut RawStraight) -> usize {
    let mut n = 0;
    // SAFETY: live query; the corridor holds `len` refs; the outputs hold MAX_POLYS entries.
    unsafe {
        sys::dtNavMeshQuery_findStraightPath(
            r.q(),
            p.start_a.as_ptr(),
            p.straight_end_a.as_ptr(),
            p.corridor_raw.as_ptr(),
            p.corridor_raw.len() as i32,
            out.pts.as_mut_ptr(),
            out.flags.as_mut_ptr(),
            out.refs.as_mut_ptr(),
            &mut n,
            MAX_POLYS as i32,
            0,
        )
    };
    n as usize
}

fn in_range(v1: &[f32; 3], v2: &[f32; 3], r: f32, h: f32) -> bool {
    let dx = v2[0] - v1[0];
    let dy = v2[1] - v1[1];
    let dz = v2[2] - v1[2];
    (dx * dx + dz * dz) < r * r && dy.abs() < h
}

/// RecastDemo's `fixupShortcuts`: cut a small U-turn at the start of the corridor.
fn raw_fixup_shortcuts(r: &RawNav, path: &mut [sys::dtPolyRef; MAX_POLYS], npath: usize) -> usize {
    if npath < 3 {
        return npath;
    }
    const MAX_NEIS: usize = 16;
    let mut neis = [0 as sys::dtPolyRef; MAX_NEIS];
    let mut nneis = 0;
    let mut tile: *const sys::dtMeshTile = std::ptr::null();
    let mut poly: *const sys::dtPoly = std::ptr::null();
    // SAFETY: live navmesh; the outputs are local pointers.
    let st = unsafe { sys::dtNavMesh_getTileAndPolyByRef(r.nav, path[0], &mut tile, &mut poly) };
    if failed(st) {
        return npath;
    }
    // SAFETY: the ref was valid, so `tile` and `poly` point into the live navmesh; link indices
    // come from Detour's link lists and end at DT_NULL_LINK, as the C++ loop relies on.
    unsafe {
        let mut k = (*poly).firstLink;
        while k != sys::DT_NULL_LINK {
            let link = &*(*tile).links.add(k as usize);
            if link.ref_ != 0 && nneis < MAX_NEIS {
                neis[nneis] = link.ref_;
                nneis += 1;
            }
            k = link.next;
        }
    }
    const MAX_LOOK_AHEAD: usize = 6;
    let mut cut = 0;
    let mut i = MAX_LOOK_AHEAD.min(npath) - 1;
    while i > 1 && cut == 0 {
        if neis[..nneis].contains(&path[i]) {
            cut = i;
        }
        i -= 1;
    }
    let mut npath = npath;
    if cut > 1 {
        let offset = cut - 1;
        npath -= offset;
        for i in 1..npath {
            path[i] = path[i + offset];
        }
    }
    npath
}

/// RecastDemo's `getSteerTarget`: (steer position, flag, ref), or None.
fn raw_steer_target(
    r: &RawNav,
    start: &[f32; 3],
    end: &[f32; 3],
    min_dist: f32,
    path: &[sys::dtPolyRef],
) -> Option<([f32; 3], u8, sys::dtPolyRef)> {
    const MAX_STEER_POINTS: usize = 3;
    let mut steer_path = [0f32; MAX_STEER_POINTS * 3];
    let mut steer_flags = [0u8; MAX_STEER_POINTS];
    let mut steer_polys = [0 as sys::dtPolyRef; MAX_STEER_POINTS];
    let mut n = 0;
    // SAFETY: live query; `path` holds path.len() refs; the outputs hold MAX_STEER_POINTS each.
    unsafe {
        sys::dtNavMeshQuery_findStraightPath(
            r.q(),
            start.as_ptr(),
            end.as_ptr(),
            path.as_ptr(),
            path.len() as i32,
            steer_path.as_mut_ptr(),
            steer_flags.as_mut_ptr(),
            steer_polys.as_mut_ptr(),
            &mut n,
            MAX_STEER_POINTS as i32,
            0,
        )
    };
    let n = n as usize;
    if n == 0 {
        return None;
    }
    let mut ns = 0;
    while ns < n {
        let p = [
            steer_path[ns * 3],
            steer_path[ns * 3 + 1],
            steer_path[ns * 3 + 2],
        ];
        if steer_flags[ns] & sys::dtStraightPathFlags_DT_STRAIGHTPATH_OFFMESH_CONNECTION as u8 != 0
            || !in_range(&p, start, min_dist, 1000.0)
        {
            break;
        }
        ns += 1;
    }
    if ns >= n {
        return None;
    }
    let pos = [steer_path[ns * 3], start[1], steer_path[ns * 3 + 2]];
    Some((pos, steer_flags[ns], steer_polys[ns]))
}

/// RecastDemo's "Pathfind Follow" loop from a corridor; writes the points to `out` and returns
/// their count.
fn raw_smooth_path(r: &RawNav, p: &Pair, out: &mut [[f32; 3]; MAX_SMOOTH]) -> usize {
    const STEP_SIZE: f32 = 0.5;
    const SLOP: f32 = 0.01;
    let off_mesh_flag = sys::dtStraightPathFlags_DT_STRAIGHTPATH_OFFMESH_CONNECTION as u8;
    let end_flag = sys::dtStraightPathFlags_DT_STRAIGHTPATH_END as u8;

    let mut polys = [0 as sys::dtPolyRef; MAX_POLYS];
    let mut npolys = p.corridor_raw.len().min(MAX_POLYS);
    polys[..npolys].copy_from_slice(&p.corridor_raw[..npolys]);
    let mut nsmooth = 0;
    if npolys == 0 {
        return 0;
    }
    let mut iter_pos = [0f32; 3];
    let mut target_pos = [0f32; 3];
    // SAFETY: live query; positions hold 3 floats; the over-poly output is optional (null).
    unsafe {
        sys::dtNavMeshQuery_closestPointOnPoly(
            r.q(),
            p.start_ref.0,
            p.start_a.as_ptr(),
            iter_pos.as_mut_ptr(),
            std::ptr::null_mut(),
        );
        sys::dtNavMeshQuery_closestPointOnPoly(
            r.q(),
            polys[npolys - 1],
            p.end_a.as_ptr(),
            target_pos.as_mut_ptr(),
            std::ptr::null_mut(),
        );
    }
    out[nsmooth] = iter_pos;
    nsmooth += 1;

    while npolys > 0 && nsmooth < MAX_SMOOTH {
        let Some((steer_pos, steer_flag, steer_ref)) =
            raw_steer_target(r, &iter_pos, &target_pos, SLOP, &polys[..npolys])
        else {
            break;
        };
        let end_of_path = steer_flag & end_flag != 0;
        let off_mesh_connection = steer_flag & off_mesh_flag != 0;

        let delta = [
            steer_pos[0] - iter_pos[0],
            steer_pos[1] - iter_pos[1],
            steer_pos[2] - iter_pos[2],
        ];
        let mut len = (delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]).sqrt();
        if (end_of_path || off_mesh_connection) && len < STEP_SIZE {
            len = 1.0;
        } else {
            len = STEP_SIZE / len;
        }
        let move_tgt = [
            iter_pos[0] + delta[0] * len,
            iter_pos[1] + delta[1] * len,
            iter_pos[2] + delta[2] * len,
        ];

        let mut result = [0f32; 3];
        let mut visited = [0 as sys::dtPolyRef; 16];
        let mut nvisited = 0;
        // SAFETY: live query; `visited` holds 16 refs; positions hold 3 floats.
        unsafe {
            sys::dtNavMeshQuery_moveAlongSurface(
                r.q(),
                polys[0],
                iter_pos.as_ptr(),
                move_tgt.as_ptr(),
                &r.filter,
                result.as_mut_ptr(),
                visited.as_mut_ptr(),
                &mut nvisited,
                16,
            )
        };
        // SAFETY: `polys` holds MAX_POLYS refs, `npolys` in use; `visited` holds `nvisited`.
        npolys = unsafe {
            sys::dtMergeCorridorStartMoved(
                polys.as_mut_ptr(),
                npolys as i32,
                MAX_POLYS as i32,
                visited.as_ptr(),
                nvisited,
            )
        } as usize;
        npolys = raw_fixup_shortcuts(r, &mut polys, npolys);

        let mut h = 0f32;
        // SAFETY: live query; Detour validates the ref.
        unsafe { sys::dtNavMeshQuery_getPolyHeight(r.q(), polys[0], result.as_ptr(), &mut h) };
        result[1] = h;
        iter_pos = result;

        if end_of_path && in_range(&iter_pos, &steer_pos, SLOP, 1.0) {
            // Reached the end of the path.
            iter_pos = target_pos;
            if nsmooth < MAX_SMOOTH {
                out[nsmooth] = iter_pos;
                nsmooth += 1;
            }
            break;
        } else if off_mesh_connection && in_range(&iter_pos, &steer_pos, SLOP, 1.0) {
            // Advance the path up to and over the off-mesh connection.
            let mut prev_ref = 0;
            let mut poly_ref = polys[0];
            let mut npos = 0;
            while npos < npolys && poly_ref != steer_ref {
                prev_ref = poly_ref;
                poly_ref = polys[npos];
                npos += 1;
            }
            polys.copy_within(npos..npolys, 0);
            npolys -= npos;
            let mut start_pos = [0f32; 3];
            let mut end_pos = [0f32; 3];
            // SAFETY: live navmesh; Detour validates both refs and writes 3 floats to each.
            let st = unsafe {
                sys::dtNavMesh_getOffMeshConnectionPolyEndPoints(
                    r.nav,
                    prev_ref,
                    poly_ref,
                    start_pos.as_mut_ptr(),
                    end_pos.as_mut_ptr(),
                )
            };
            if st & sys::DT_SUCCESS != 0 {
                if nsmooth < MAX_SMOOTH {
                    out[nsmooth] = start_pos;
                    nsmooth += 1;
                    // RecastDemo's hack to hide the dotted line over the connection.
                    if nsmooth & 1 != 0 {
                        out[nsmooth] = start_pos;
                        nsmooth += 1;
                    }
                }
                iter_pos = end_pos;
                let mut eh = 0f32;
                // SAFETY: live query; Detour validates the ref (polys[0] may be stale, as in
                // the C++; it is still an initialized slot of the array).
                unsafe {
                    sys::dtNavMeshQuery_getPolyHeight(r.q(), polys[0], iter_pos.as_ptr(), &mut eh)
                };
                iter_pos[1] = eh;
            }
        }

        if nsmooth < MAX_SMOOTH {
            out[nsmooth] = iter_pos;
            nsmooth += 1;
        }
    }
    nsmooth
}

// ---------------------------------------------------------------------------------------------
// navkit side.
// ---------------------------------------------------------------------------------------------

/// One start/end pair and its inputs for each timed operation.
struct Pair {
    start: Vec3,
    end: Vec3,
    start_a: [f32; 3],
    end_a: [f32; 3],
    start_ref: PolyRef,
    end_ref: PolyRef,
    /// The corridor (from navkit's findPath; the check asserts the raw one is equal).
    corridor: Vec<PolyRef>,
    corridor_raw: Vec<sys::dtPolyRef>,
    /// End of the straight path: the end point, or for a partial corridor the closest point of
    /// its last polygon (as RecastDemo's "Pathfind Straight").
    straight_end: Vec3,
    straight_end_a: [f32; 3],
}

fn navkit_find_path(q: &mut NavMeshQuery<'_>, f: &QueryFilter, p: &Pair) -> Corridor {
    q.find_path(p.start_ref, p.end_ref, p.start, p.end, f, MAX_POLYS)
        .expect("findPath")
}

/// `findStraightPath`'s options: `MAX_POLYS` points, no crossings.
fn straight_options() -> StraightPathOptions {
    StraightPathOptions {
        max_points: MAX_POLYS,
        ..StraightPathOptions::default()
    }
}

fn navkit_straight_path(q: &mut NavMeshQuery<'_>, p: &Pair) -> StraightPath {
    q.find_straight_path(p.start, p.straight_end, &p.corridor, &straight_options())
        .expect("findStraightPath")
}

fn navkit_smooth_path(
    q: &mut NavMeshQuery<'_>,
    f: &QueryFilter,
    p: &Pair,
    opts: &SmoothPathOptions,
) -> SmoothPath {
    q.smooth_path(&p.corridor, p.start, p.end, f, opts)
        .expect("smooth_path")
}

/// One mesh: both sides and the pairs.
struct MeshBench<'a> {
    name: &'static str,
    q: NavMeshQuery<'a>,
    filter: QueryFilter,
    raw: RawNav,
    pairs: Vec<Pair>,
    smooth_opts: SmoothPathOptions,
    nk_path: Corridor,
    nk_straight: StraightPath,
    nk_smooth: SmoothPath,
    // Raw output buffers (RecastDemo keeps these as tool members).
    raw_path: [sys::dtPolyRef; MAX_POLYS],
    raw_straight: Box<RawStraight>,
    raw_smooth: Box<[[f32; 3]; MAX_SMOOTH]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Path,
    Straight,
    Smooth,
}

impl Op {
    const ALL: [Op; 3] = [Op::Path, Op::Straight, Op::Smooth];
    fn name(self) -> &'static str {
        match self {
            Op::Path => "findPath",
            Op::Straight => "findStraightPath",
            Op::Smooth => "smoothPath",
        }
    }
}

impl<'a> MeshBench<'a> {
    fn new(name: &'static str, build: &'a SoloBuild) -> MeshBench<'a> {
        let mut q = NavMeshQuery::new(build.navmesh(), MAX_NODES as usize).expect("query");
        let filter = QueryFilter::default();
        let raw = RawNav::new(build.tile_data());
        let mut pairs = Vec::with_capacity(PAIRS);
        for bp in bench_pairs(name, &mut q, &filter, PAIRS) {
            let (start, end) = (bp.start, bp.end);
            let path = q
                .find_path(bp.start_ref, bp.end_ref, start, end, &filter, MAX_POLYS)
                .expect("findPath");
            let straight_end = match path.polys.last() {
                Some(&last) if last != bp.end_ref => q.closest_point_on_poly(last, end).unwrap().0,
                _ => end,
            };
            pairs.push(Pair {
                start,
                end,
                start_a: start.to_array(),
                end_a: end.to_array(),
                start_ref: bp.start_ref,
                end_ref: bp.end_ref,
                corridor_raw: path.polys.iter().map(|r| r.0).collect(),
                corridor: path.polys,
                straight_end,
                straight_end_a: straight_end.to_array(),
            });
        }
        MeshBench {
            name,
            q,
            filter,
            raw,
            pairs,
            smooth_opts: SmoothPathOptions::default(),
            nk_path: Corridor::default(),
            nk_straight: StraightPath::default(),
            nk_smooth: SmoothPath::default(),
            raw_path: [0; MAX_POLYS],
            raw_straight: Box::new(RawStraight::new()),
            raw_smooth: Box::new([[0.0; 3]; MAX_SMOOTH]),
        }
    }

    /// Runs `op` for every pair through navkit, with the `_into` variants that reuse output
    /// buffers (as the raw side reuses its fixed arrays).
    fn run_navkit(&mut self, op: Op) {
        let (q, f) = (&mut self.q, &self.filter);
        match op {
            Op::Path => {
                for p in &self.pairs {
                    let p = black_box(p);
                    q.find_path_into(
                        p.start_ref,
                        p.end_ref,
                        p.start,
                        p.end,
                        f,
                        MAX_POLYS,
                        &mut self.nk_path,
                    )
                    .expect("findPath");
                    black_box(&self.nk_path);
                }
            }
            Op::Straight => {
                let options = straight_options();
                for p in &self.pairs {
                    let p = black_box(p);
                    q.find_straight_path_into(
                        p.start,
                        p.straight_end,
                        &p.corridor,
                        &options,
                        &mut self.nk_straight,
                    )
                    .expect("findStraightPath");
                    black_box(&self.nk_straight);
                }
            }
            Op::Smooth => {
                for p in &self.pairs {
                    let p = black_box(p);
                    q.smooth_path_into(
                        &p.corridor,
                        p.start,
                        p.end,
                        f,
                        &self.smooth_opts,
                        &mut self.nk_smooth,
                    )
                    .expect("smooth_path");
                    black_box(&self.nk_smooth);
                }
            }
        }
    }

    /// Runs `op` for every pair through raw FFI.
    fn run_raw(&mut self, op: Op) {
        let r = &self.raw;
        match op {
            Op::Path => {
                for p in &self.pairs {
                    let n = raw_find_path(r, black_box(p), &mut self.raw_path);
                    black_box(&self.raw_path[..n]);
                }
            }
            Op::Straight => {
                for p in &self.pairs {
                    let n = raw_straight_path(r, black_box(p), &mut self.raw_straight);
                    black_box((&self.raw_straight, n));
                }
            }
            Op::Smooth => {
                for p in &self.pairs {
                    let n = raw_smooth_path(r, black_box(p), &mut self.raw_smooth);
                    black_box(&self.raw_smooth[..n]);
                }
            }
        }
    }

    /// Asserts navkit and raw agree for every pair; prints the counts.
    fn check(&mut self) {
        let n = self.pairs.len();
        let (mut nearest_ok, mut corridor_ok, mut straight_ok) = (0, 0, 0);
        let (mut smooth_exact, mut smooth_prefix, mut partial, mut smooth_points) = (0, 0, 0, 0);
        for (i, p) in self.pairs.iter().enumerate() {
            let name = self.name;
            // Nearest polys on the raw navmesh are the same refs.
            assert_eq!(raw_nearest(&self.raw, &p.start_a), p.start_ref.0);
            assert_eq!(raw_nearest(&self.raw, &p.end_a), p.end_ref.0);
            nearest_ok += 1;

            // findPath.
            let path = navkit_find_path(&mut self.q, &self.filter, p);
            let rn = raw_find_path(&self.raw, p, &mut self.raw_path);
            let nk: Vec<sys::dtPolyRef> = path.polys.iter().map(|r| r.0).collect();
            assert_eq!(
                nk,
                &self.raw_path[..rn],
                "{name} pair {i}: corridors differ"
            );
            assert_eq!(nk, p.corridor_raw);
            corridor_ok += 1;
            if !path.is_complete() {
                partial += 1;
            }

            // findStraightPath.
            let sp = navkit_straight_path(&mut self.q, p);
            let rn = raw_straight_path(&self.raw, p, &mut self.raw_straight);
            assert_eq!(
                sp.points.len(),
                rn,
                "{name} pair {i}: straight path lengths"
            );
            for (k, pt) in sp.points.iter().enumerate() {
                let rp = &self.raw_straight.pts[k * 3..k * 3 + 3];
                assert!(
                    pt.pos.to_array().map(f32::to_bits) == [rp[0], rp[1], rp[2]].map(f32::to_bits)
                        && pt.flags == self.raw_straight.flags[k]
                        && pt.poly.0 == self.raw_straight.refs[k],
                    "{name} pair {i}: straight path point {k} differs"
                );
            }
            straight_ok += 1;

            // Smooth path.
            let sm = navkit_smooth_path(&mut self.q, &self.filter, p, &self.smooth_opts);
            let rn = raw_smooth_path(&self.raw, p, &mut self.raw_smooth);
            let nk: Vec<[u32; 3]> = sm
                .points
                .iter()
                .map(|v| v.to_array().map(f32::to_bits))
                .collect();
            let rw: Vec<[u32; 3]> = self.raw_smooth[..rn]
                .iter()
                .map(|v| v.map(f32::to_bits))
                .collect();
            if sm.stuck {
                assert!(
                    nk.len() <= rw.len() && nk[..] == rw[..nk.len()],
                    "{name} pair {i}: stuck smooth path is not a prefix of RecastDemo's"
                );
                // RecastDemo's loop really is stuck: it runs to its cap, repeating itself.
                assert_eq!(rn, MAX_SMOOTH, "{name} pair {i}: raw loop ended by itself");
                smooth_prefix += 1;
            } else {
                assert_eq!(nk, rw, "{name} pair {i}: smooth paths differ");
                smooth_exact += 1;
            }
            smooth_points += nk.len();
        }
        println!(
            "check {:<10} pairs {n}: nearest polys equal {nearest_ok}/{n}, corridors equal \
             {corridor_ok}/{n} ({partial} partial), straight paths equal {straight_ok}/{n}, \
             smooth paths bit-identical {smooth_exact}/{n} + stuck-prefix {smooth_prefix}/{n} \
             ({smooth_points} points)",
            self.name
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Measurement.
// ---------------------------------------------------------------------------------------------

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn time(f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

/// Interleaved rounds: per round, per mesh and op, navkit and raw alternate (who goes first
/// alternates too). Prints the ratio table.
fn interleaved(benches: &mut [MeshBench<'_>], rounds: usize) {
    // Warm up once per side.
    for b in benches.iter_mut() {
        for op in Op::ALL {
            b.run_navkit(op);
            b.run_raw(op);
        }
    }
    let nops = Op::ALL.len();
    let mut nav_t = vec![Vec::with_capacity(rounds); benches.len() * nops];
    let mut raw_t = vec![Vec::with_capacity(rounds); benches.len() * nops];
    for round in 0..rounds {
        for (bi, b) in benches.iter_mut().enumerate() {
            for (oi, op) in Op::ALL.into_iter().enumerate() {
                let k = bi * nops + oi;
                if round % 2 == 0 {
                    nav_t[k].push(time(|| b.run_navkit(op)));
                    raw_t[k].push(time(|| b.run_raw(op)));
                } else {
                    raw_t[k].push(time(|| b.run_raw(op)));
                    nav_t[k].push(time(|| b.run_navkit(op)));
                }
            }
        }
    }
    println!();
    println!(
        "navkit vs raw FFI: {rounds} interleaved rounds, {PAIRS} queries per mesh and op; \
         medians (min-based ratio alongside)"
    );
    println!();
    println!("| mesh | op | navkit us/query | raw us/query | ratio (median) | ratio (min) |");
    println!("|---|---|---:|---:|---:|---:|");
    let mut worst: f64 = 0.0;
    for (bi, b) in benches.iter().enumerate() {
        let n = b.pairs.len() as f64;
        for (oi, op) in Op::ALL.into_iter().enumerate() {
            let k = bi * nops + oi;
            let nmin = nav_t[k].iter().copied().fold(f64::INFINITY, f64::min);
            let rmin = raw_t[k].iter().copied().fold(f64::INFINITY, f64::min);
            let nmed = median(&mut nav_t[k]);
            let rmed = median(&mut raw_t[k]);
            let ratio = nmed / rmed;
            worst = worst.max(ratio);
            println!(
                "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} |",
                b.name,
                op.name(),
                nmed / n * 1e6,
                rmed / n * 1e6,
                ratio,
                nmin / rmin,
            );
        }
    }
    println!();
    println!(
        "worst median ratio {worst:.3} (target <= 1.030: {})",
        if worst <= 1.03 { "met" } else { "NOT met" }
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick")
        || std::env::var("NAVKIT_BENCH_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    // `cargo bench` passes --bench; without it (e.g. `cargo test --benches`) run a smoke test.
    let bench_mode = args.iter().any(|a| a == "--bench");
    let rounds = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&r| r > 0)
        .unwrap_or(if bench_mode { DEFAULT_ROUNDS } else { 1 });

    let settings = BuildSettings::default();
    let geoms: Vec<InputGeometry> = MESHES
        .iter()
        .map(|m| InputGeometry::load(mesh_path(m)).expect("load mesh"))
        .collect();
    let builds: Vec<SoloBuild> = geoms
        .iter()
        .map(|g| {
            NavMeshBuilder::new(g)
                .settings(settings.clone())
                .solo()
                .expect("build")
        })
        .collect();

    // Build times: median of a few builds per mesh, interleaved across meshes.
    let build_reps = if bench_mode { 5 } else { 1 };
    let mut build_t = vec![Vec::new(); MESHES.len()];
    for _ in 0..build_reps {
        for (i, g) in geoms.iter().enumerate() {
            build_t[i].push(time(|| {
                black_box(
                    NavMeshBuilder::new(g)
                        .settings(settings.clone())
                        .solo()
                        .expect("build"),
                );
            }));
        }
    }
    println!("| mesh | polys | tile bytes | build_solo ms (median of {build_reps}) |");
    println!("|---|---:|---:|---:|");
    for (i, b) in builds.iter().enumerate() {
        println!(
            "| {} | {} | {} | {:.2} |",
            MESHES[i],
            b.report().polymesh_polys,
            b.tile_data().len(),
            median(&mut build_t[i]) * 1e3
        );
    }
    println!();

    let mut benches: Vec<MeshBench<'_>> = MESHES
        .iter()
        .zip(&builds)
        .map(|(&name, b)| MeshBench::new(name, b))
        .collect();
    for b in benches.iter_mut() {
        b.check();
        // Stuck pairs are checked, not timed: RecastDemo's loop runs to its cap on them while
        // navkit stops, which would flatter navkit's times.
        let stuck = stuck_pairs(b.name).len();
        b.pairs.drain(..stuck);
    }

    if bench_mode && !quick {
        let mut c = Criterion::default()
            .sample_size(10)
            .measurement_time(Duration::from_secs(2))
            .warm_up_time(Duration::from_millis(500))
            .configure_from_args();
        {
            let mut g = c.benchmark_group("build");
            g.sampling_mode(SamplingMode::Flat);
            for (i, geom) in geoms.iter().enumerate() {
                g.bench_function(MESHES[i], |bn| {
                    bn.iter(|| {
                        NavMeshBuilder::new(black_box(geom))
                            .settings(settings.clone())
                            .solo()
                            .expect("build")
                    })
                });
            }
            g.finish();
        }
        for b in benches.iter_mut() {
            for op in Op::ALL {
                let mut g = c.benchmark_group(format!("{}/{}", op.name(), b.name));
                g.sampling_mode(SamplingMode::Flat);
                g.throughput(Throughput::Elements(b.pairs.len() as u64));
                g.bench_function("navkit", |bn| bn.iter(|| b.run_navkit(op)));
                g.bench_function("raw", |bn| bn.iter(|| b.run_raw(op)));
                g.finish();
            }
        }
        c.final_summary();
    }

    interleaved(&mut benches, rounds);
}
