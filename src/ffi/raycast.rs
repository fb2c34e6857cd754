//! navkit's guarded raycast (`glue/navkit_raycast.cpp`): Detour's `dtNavMeshQuery::raycast`
//! walk, which ends on any data (Detour 1.0.3's walks on forever when its links form a cycle
//! and its path buffer is full, upstream issue #436). Every raycast in navkit goes through it.

use std::os::raw::c_int;

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::buffers::OutBuf;
use super::detour::{RawFilter, RawQuery};

unsafe extern "C" {
    fn navkit_raycast(
        query: *const sys::dtNavMeshQuery,
        start_ref: RawPolyRef,
        start_pos: *const f32,
        end_pos: *const f32,
        filter: *const sys::dtQueryFilter,
        options: u32,
        hit: *mut sys::dtRaycastHit,
        prev_ref: RawPolyRef,
        max_steps: c_int,
    ) -> u32;
}

/// `sizeof(dtPolyRef)` as the C++ glue was compiled (must equal `RawPolyRef`'s size).
#[cfg(test)]
pub(crate) fn glue_poly_ref_size() -> usize {
    unsafe extern "C" {
        fn navkit_poly_ref_size() -> c_int;
    }
    // SAFETY: a pure function of the glue's compile-time types.
    unsafe { navkit_poly_ref_size() as usize }
}

/// `DT_RAYCAST_USE_COSTS`.
pub(crate) const USE_COSTS: u32 = sys::dtRaycastOptions_DT_RAYCAST_USE_COSTS;

/// Everything a raycast reports (`dtRaycastHit`), its path in the caller's vector.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct RawRayHit {
    pub status: u32,
    pub t: f32,
    pub normal: [f32; 3],
    /// Index of the crossed edge of the last polygon (-1: the ray ended inside it, or no polygon
    /// was crossed).
    pub edge: i32,
    pub cost: f32,
}

impl RawQuery<'_> {
    /// The guarded raycast with every output: the visited polygons in `path` (at most `max`;
    /// with `max` 0 none are recorded and the walk goes on, as Detour's, to the end of the ray or
    /// `max_steps`), the rest in the returned hit.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn raycast_hit(
        &mut self,
        start: RawPolyRef,
        spos: [f32; 3],
        epos: [f32; 3],
        f: &RawFilter,
        options: u32,
        prev: RawPolyRef,
        path: &mut Vec<RawPolyRef>,
        max: usize,
        max_steps: usize,
    ) -> RawRayHit {
        let q = self.q();
        let max_steps = max_steps.clamp(1, i32::MAX as usize) as c_int;
        // SAFETY: live query (its navmesh borrowed for the query's lifetime); the glue's walk
        // writes at most `maxPath` refs at `hit.path` and counts them in `pathCount`, as
        // Detour's; points are 3 floats; the filter is plain data.
        unsafe {
            raycast_into(path, max.min(i32::MAX as usize), |hit| {
                navkit_raycast(
                    q,
                    start,
                    spos.as_ptr(),
                    epos.as_ptr(),
                    &f.0,
                    options,
                    hit,
                    prev,
                    max_steps,
                )
            })
        }
    }

    /// Detour's own `dtNavMeshQuery::raycast` (with `dtRaycastHit`), unguarded: only for tests
    /// that compare the guarded walk with it, on data where it ends.
    #[cfg(test)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn detour_raycast_hit(
        &mut self,
        start: RawPolyRef,
        spos: [f32; 3],
        epos: [f32; 3],
        f: &RawFilter,
        options: u32,
        prev: RawPolyRef,
        path: &mut Vec<RawPolyRef>,
        max: usize,
    ) -> RawRayHit {
        let q = self.q();
        // SAFETY: as in `raycast_hit` (Detour's walk keeps to `maxPath` refs the same way); the
        // caller's data must not make Detour's walk cycle.
        unsafe {
            raycast_into(path, max, |hit| {
                sys::dtNavMeshQuery_raycast1(
                    q,
                    start,
                    spos.as_ptr(),
                    epos.as_ptr(),
                    &f.0,
                    options,
                    hit,
                    prev,
                )
            })
        }
    }
}

/// Runs a raycast that records the polygons it visits in `path` (at most `max`; none, with a
/// null buffer, for `max` 0) and reports the rest in a `dtRaycastHit`: `call` gets that hit and
/// returns the raycast's status.
///
/// # Safety
/// `call` must run a raycast that writes at most `hit.maxPath` refs at `hit.path` and sets
/// `hit.pathCount` to the number of refs it initialised there (Detour's contract).
unsafe fn raycast_into(
    path: &mut Vec<RawPolyRef>,
    max: usize,
    call: impl FnOnce(&mut sys::dtRaycastHit) -> u32,
) -> RawRayHit {
    let mut out = OutBuf::new(path, max);
    let mut hit = sys::dtRaycastHit {
        t: 0.0,
        hitNormal: [0.0; 3],
        hitEdgeIndex: -1,
        path: if max > 0 {
            out.ptr()
        } else {
            std::ptr::null_mut()
        },
        pathCount: 0,
        maxPath: max as c_int,
        pathCost: 0.0,
    };
    let status = call(&mut hit);
    // SAFETY: the raycast initialised the first `pathCount` refs at `hit.path`, the buffer of
    // `out` (the caller's contract).
    unsafe { out.set_written(hit.pathCount) };
    RawRayHit {
        status,
        t: hit.t,
        normal: hit.hitNormal,
        edge: hit.hitEdgeIndex,
        cost: hit.pathCost,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::navmesh::NavMesh;
    use crate::query::QueryFilter;
    use rand::{Rng, SeedableRng};

    #[test]
    fn glue_and_bindings_agree_on_the_poly_ref_width() {
        assert_eq!(glue_poly_ref_size(), std::mem::size_of::<RawPolyRef>());
    }

    fn recastdemo(name: &str) -> crate::geometry::InputGeometry {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/meshes/recastdemo")
            .join(name);
        crate::geometry::InputGeometry::load(&path)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Counts of (rays, hits, rays reaching their end, rays with a truncated Detour path).
    type Tally = [usize; 4];

    /// `n` random rays on `nav`: the guarded walk gives exactly Detour's outputs (bits of t,
    /// normal and cost, hit edge, path, status) whenever Detour's path buffer does not fill;
    /// when it fills, the guarded walk returns a prefix of Detour's path, flagged.
    fn compare(nav: &NavMesh, n: usize, seed: u64) -> Tally {
        let mut q = RawQuery::new(nav.raw(), 2048).unwrap();
        let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
        let default = QueryFilter::default();
        let mut costly = QueryFilter::default();
        for a in 0..64u8 {
            costly.set_area_cost(a, 0.5 + a as f32 * 0.75);
        }
        let mut tally = [0; 4];
        let (mut ours, mut theirs) = (Vec::new(), Vec::new());
        for i in 0..n {
            let f = if i % 2 == 0 { &default } else { &costly };
            let raw_f = crate::query::NavMeshQuery::raw_filter(f);
            let mut draw = || rng.r#gen::<f32>();
            let (st, start, spos) = q.find_random_point(raw_f, &mut draw);
            assert!(st & sys::DT_SUCCESS != 0 && start != 0);
            // Rays of any direction, from very short to across the level, and the occasional
            // ray to another random point (its height too).
            let epos = if i % 5 == 0 {
                q.find_random_point(raw_f, &mut draw).2
            } else {
                let a = rng.r#gen::<f32>() * std::f32::consts::TAU;
                let len = rng.r#gen::<f32>().powi(2) * 60.0;
                [spos[0] + a.cos() * len, spos[1], spos[2] + a.sin() * len]
            };
            let options = if i % 3 == 0 { 0 } else { USE_COSTS };
            let prev = if i % 7 == 0 {
                nav.neighbours(crate::query::PolyRef(start))
                    .first()
                    .map_or(0, |p| p.0)
            } else {
                0
            };
            let max = [256, 8, 3, 1][i % 4];
            let a = q.raycast_hit(
                start,
                spos,
                epos,
                raw_f,
                options,
                prev,
                &mut ours,
                max,
                1 << 20,
            );
            let b = q.detour_raycast_hit(start, spos, epos, raw_f, options, prev, &mut theirs, max);
            tally[0] += 1;
            if b.status & sys::DT_BUFFER_TOO_SMALL == 0 {
                let bits = |h: &RawRayHit| {
                    (
                        h.status,
                        h.t.to_bits(),
                        h.normal.map(f32::to_bits),
                        h.edge,
                        h.cost.to_bits(),
                    )
                };
                assert_eq!(bits(&a), bits(&b), "ray {i}: {spos:?} -> {epos:?}");
                assert_eq!(ours, theirs, "ray {i}");
                tally[if b.t <= 1.0 { 1 } else { 2 }] += 1;
            } else {
                // Detour walked on past its full buffer; ours stopped there.
                tally[3] += 1;
                assert_eq!(
                    ours, theirs,
                    "ray {i}: the same polygons up to the full buffer"
                );
                assert_eq!(ours.len(), max);
                assert!(a.status & sys::DT_BUFFER_TOO_SMALL != 0);
                assert!(a.t <= b.t || b.t == f32::MAX, "ray {i}");
            }
        }
        tally
    }

    #[test]
    fn guarded_raycast_is_detours_raycast_bit_for_bit() {
        for (name, tiled) in [
            ("dungeon.obj", false),
            ("nav_test.obj", false),
            ("dungeon.obj", true),
        ] {
            let geom = recastdemo(name);
            let settings = crate::BuildSettings {
                tile_size: 32,
                ..crate::BuildSettings::default()
            };
            let tiled_mesh;
            let solo;
            let nav = if tiled {
                tiled_mesh = crate::NavMeshBuilder::new(&geom)
                    .settings(settings)
                    .tiled()
                    .unwrap();
                tiled_mesh.navmesh()
            } else {
                solo = crate::NavMeshBuilder::new(&geom)
                    .settings(settings)
                    .solo()
                    .unwrap();
                solo.navmesh()
            };
            let t = compare(nav, 3000, 7);
            eprintln!("{name} tiled {tiled}: rays, hits, ends, detour buffer full: {t:?}");
            // The rays exercise every outcome: walls, ends, and full buffers.
            assert!(t[1] > 300 && t[2] > 300 && t[3] > 100, "{name}: {t:?}");
        }
    }
}
