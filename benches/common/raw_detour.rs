//! RecastDemo's query loops written against raw Detour (`recastnavigation_sys` FFI), and the
//! check that navkit's queries give the same results, shared by the navmesh benchmark
//! (`benches/navmesh.rs`, which then times both sides) and the test that runs the check in CI
//! (`tests/reference_parity.rs`), on the benchmark's pairs (`pairs.rs`, included here); both
//! include this file with `#[path]`.
//!
//! The raw side owns its own `dtNavMesh`, made from the same tile data (`SoloBuild::tile_data`)
//! with `dtNavMesh::init(data, size, DT_TILE_FREE_DATA)`, so polygons and refs are the same, and
//! a `dtNavMeshQuery` with RecastDemo's tester filter. Its smooth path is a Rust transcription of
//! RecastDemo's `NavMeshTesterTool` "Pathfind Follow" loop (`getSteerTarget`,
//! `fixupShortcuts`, the `TOOLMODE_PATHFIND_FOLLOW` block of `recalc()`), with fixed-size stack
//! arrays as the C++ has.
//!
//! This raw baseline (with `raw_crowd.rs` and `raw_navmesh.rs`) is the one place outside
//! `src/ffi` with `unsafe` code; every `unsafe` block carries a `// SAFETY:` comment.

use glam::Vec3;
use recastnavigation_sys as sys;

use navkit::query::{
    Corridor, DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter, SmoothPath,
    SmoothPathOptions, StraightPath, StraightPathOptions,
};
use navkit::{area, flags};

#[path = "pairs.rs"]
pub mod pairs;
// The includer includes `raw_navmesh.rs` too, as `raw_navmesh`.
use crate::raw_navmesh::raw_navmesh;

/// RecastDemo's node pool (`m_navQuery->init(m_navMesh, 2048)`).
pub const MAX_NODES: i32 = 2048;
/// RecastDemo's `MAX_POLYS`.
pub const MAX_POLYS: usize = 256;
/// RecastDemo's `MAX_SMOOTH`.
pub const MAX_SMOOTH: usize = 2048;

// ---------------------------------------------------------------------------------------------
// Raw baseline: a dtNavMesh and dtNavMeshQuery owned directly, RecastDemo's filter.
// ---------------------------------------------------------------------------------------------

/// A raw `dtNavMesh` (owning its tile data) and a `dtNavMeshQuery` over it.
pub struct RawNav {
    nav: *mut sys::dtNavMesh,
    query: *mut sys::dtNavMeshQuery,
    filter: sys::dtQueryFilter,
}

impl RawNav {
    pub fn new(tile_data: &[u8]) -> RawNav {
        let nav = raw_navmesh(tile_data);
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
pub fn raw_nearest(r: &RawNav, pos: &[f32; 3]) -> sys::dtPolyRef {
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
pub fn raw_find_path(r: &RawNav, p: &Pair, path: &mut [sys::dtPolyRef; MAX_POLYS]) -> usize {
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
pub struct RawStraight {
    pts: [f32; MAX_POLYS * 3],
    flags: [u8; MAX_POLYS],
    refs: [sys::dtPolyRef; MAX_POLYS],
}

impl RawStraight {
    pub fn new() -> Self {
        RawStraight {
            pts: [0.0; MAX_POLYS * 3],
            flags: [0; MAX_POLYS],
            refs: [0; MAX_POLYS],
        }
    }
}

/// `findStraightPath` along the pair's corridor (256 points, no options); returns the count.
pub fn raw_straight_path(r: &RawNav, p: &Pair, out: &mut RawStraight) -> usize {
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
pub fn raw_smooth_path(r: &RawNav, p: &Pair, out: &mut [[f32; 3]; MAX_SMOOTH]) -> usize {
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
pub struct Pair {
    pub start: Vec3,
    pub end: Vec3,
    pub start_a: [f32; 3],
    pub end_a: [f32; 3],
    pub start_ref: PolyRef,
    pub end_ref: PolyRef,
    /// The corridor (from navkit's findPath; the check asserts the raw one is equal).
    pub corridor: Vec<PolyRef>,
    pub corridor_raw: Vec<sys::dtPolyRef>,
    /// End of the straight path: the end point, or for a partial corridor the closest point of
    /// its last polygon (as RecastDemo's "Pathfind Straight").
    pub straight_end: Vec3,
    pub straight_end_a: [f32; 3],
}

fn navkit_find_path(q: &mut NavMeshQuery<'_>, f: &QueryFilter, p: &Pair) -> Corridor {
    q.find_path(p.start_ref, p.end_ref, p.start, p.end, f, MAX_POLYS)
        .expect("findPath")
}

/// `findStraightPath`'s options: `MAX_POLYS` points, no crossings.
pub fn straight_options() -> StraightPathOptions {
    StraightPathOptions {
        max_points: MAX_POLYS,
        ..StraightPathOptions::default()
    }
}

fn navkit_straight_path(q: &mut NavMeshQuery<'_>, p: &Pair) -> StraightPath {
    q.find_straight_path(p.start, p.straight_end, &p.corridor, &straight_options())
        .expect("findStraightPath")
}

fn navkit_smooth_path(q: &mut NavMeshQuery<'_>, f: &QueryFilter, p: &Pair) -> SmoothPath {
    q.smooth_path(
        &p.corridor,
        p.start,
        p.end,
        f,
        &SmoothPathOptions::default(),
    )
    .expect("smooth_path")
}

/// The first `count` of the benchmark's pairs on `mesh` (`pairs::bench_pairs`), each with
/// navkit's corridor between them and where its straight path ends.
pub fn make_pairs(
    mesh: &str,
    q: &mut NavMeshQuery<'_>,
    filter: &QueryFilter,
    count: usize,
) -> Vec<Pair> {
    let mut out = Vec::with_capacity(count);
    for bp in pairs::bench_pairs(mesh, q, filter, count) {
        let (start, end) = (bp.start, bp.end);
        let path = q
            .find_path(bp.start_ref, bp.end_ref, start, end, filter, MAX_POLYS)
            .expect("findPath");
        let straight_end = match path.polys.last() {
            Some(&last) if last != bp.end_ref => q.closest_point_on_poly(last, end).unwrap().0,
            _ => end,
        };
        out.push(Pair {
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
    out
}

// ---------------------------------------------------------------------------------------------
// The check.
// ---------------------------------------------------------------------------------------------

/// What [`check`] found on one mesh (corridors and straight paths are asserted equal; these
/// are counts, and the pairs whose smooth paths differ).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checked {
    /// Pairs checked: nearest polys, corridor and straight path equal for each.
    pub pairs: usize,
    /// Of them, pairs whose corridor is partial (the end not reached).
    pub partial: usize,
    /// Pairs whose smooth path is bit-identical to RecastDemo's loop.
    pub smooth_exact: usize,
    /// Pairs where navkit reports `stuck` and its points are a prefix of RecastDemo's loop,
    /// which runs to its `MAX_SMOOTH` cap.
    pub smooth_prefix: usize,
    /// Smooth path points compared, over all pairs.
    pub smooth_points: usize,
    /// Pairs (indices) whose smooth paths differ: neither bit-identical nor a stuck prefix.
    pub smooth_differ: Vec<usize>,
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let n = self.pairs;
        write!(
            f,
            "pairs {n}: nearest polys, corridors ({} partial) and straight paths equal {n}/{n}, \
             smooth paths bit-identical {}/{n} + stuck-prefix {}/{n} ({} points), differing {}",
            self.partial,
            self.smooth_exact,
            self.smooth_prefix,
            self.smooth_points,
            self.smooth_differ.len()
        )
    }
}

/// Asserts that navkit and raw Detour agree on every pair of `mesh`: the nearest polys of the
/// raw navmesh are the pairs' refs, `findPath` gives the same corridor, `findStraightPath` the
/// same points (to the bit), flags and refs, and navkit's smooth path (default options) is
/// RecastDemo's "Pathfind Follow" loop to the bit (or, where navkit reports `stuck`, a prefix
/// of the loop, which then runs to its cap). Panics naming the mesh and pair at the first
/// difference in corridors or straight paths; the pairs whose smooth paths differ are listed in
/// what it returns ([`Checked::smooth_differ`]), for the caller to assert on.
pub fn check(
    mesh: &str,
    q: &mut NavMeshQuery<'_>,
    filter: &QueryFilter,
    raw: &RawNav,
    pairs: &[Pair],
) -> Checked {
    let mut raw_path = [0; MAX_POLYS];
    let mut raw_straight = Box::new(RawStraight::new());
    let mut raw_smooth = Box::new([[0.0; 3]; MAX_SMOOTH]);
    let mut c = Checked::default();
    let mut smooth_differ = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        // Nearest polys on the raw navmesh are the same refs.
        assert_eq!(raw_nearest(raw, &p.start_a), p.start_ref.0);
        assert_eq!(raw_nearest(raw, &p.end_a), p.end_ref.0);

        // findPath.
        let path = navkit_find_path(q, filter, p);
        let rn = raw_find_path(raw, p, &mut raw_path);
        let nk: Vec<sys::dtPolyRef> = path.polys.iter().map(|r| r.0).collect();
        assert_eq!(nk, &raw_path[..rn], "{mesh} pair {i}: corridors differ");
        assert_eq!(nk, p.corridor_raw);
        if !path.is_complete() {
            c.partial += 1;
        }

        // findStraightPath.
        let sp = navkit_straight_path(q, p);
        let rn = raw_straight_path(raw, p, &mut raw_straight);
        assert_eq!(
            sp.points.len(),
            rn,
            "{mesh} pair {i}: straight path lengths"
        );
        for (k, pt) in sp.points.iter().enumerate() {
            let rp = &raw_straight.pts[k * 3..k * 3 + 3];
            assert!(
                pt.pos.to_array().map(f32::to_bits) == [rp[0], rp[1], rp[2]].map(f32::to_bits)
                    && pt.flags == raw_straight.flags[k]
                    && pt.poly.0 == raw_straight.refs[k],
                "{mesh} pair {i}: straight path point {k} differs"
            );
        }

        // Smooth path.
        let sm = navkit_smooth_path(q, filter, p);
        let rn = raw_smooth_path(raw, p, &mut raw_smooth);
        let nk: Vec<[u32; 3]> = sm
            .points
            .iter()
            .map(|v| v.to_array().map(f32::to_bits))
            .collect();
        let rw: Vec<[u32; 3]> = raw_smooth[..rn]
            .iter()
            .map(|v| v.map(f32::to_bits))
            .collect();
        if sm.stuck {
            // RecastDemo's loop really is stuck: it runs to its cap, repeating itself.
            if nk.len() <= rw.len() && nk[..] == rw[..nk.len()] && rn == MAX_SMOOTH {
                c.smooth_prefix += 1;
            } else {
                smooth_differ.push(i);
            }
        } else if nk == rw {
            c.smooth_exact += 1;
        } else {
            smooth_differ.push(i);
        }
        c.smooth_points += nk.len();
        c.pairs += 1;
    }
    c.smooth_differ = smooth_differ;
    c
}
