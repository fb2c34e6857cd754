//! Sliced pathfinding (`NavMeshQuery::begin_sliced_path`): run to its end in slices of any
//! size it gives `find_path`'s corridor and status bit for bit, on the navmesh benchmark's
//! 1,500 pairs; its iteration counts add up; finalize-partial and an interrupted search on a
//! strip of tiles whose answer is known; invalid inputs are typed errors.

mod common;
#[path = "../benches/common/pairs.rs"]
mod pairs;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::navmesh::NavMesh;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter, SliceState, SlicedOptions,
};
use navkit::{BuildSettings, Error, InputGeometry, PathStatus, TriMesh};

/// The benchmark's node pool and path buffer (RecastDemo's).
const MAX_NODES: usize = 2048;
const MAX_POLYS: usize = 256;

#[test]
fn sliced_search_equals_find_path_on_the_benchmark_pairs() {
    let filter = QueryFilter::default();
    let mut total_pairs = 0;
    for mesh in pairs::MESHES {
        let build = common::build(&format!("{mesh}.obj"));
        let mut q = NavMeshQuery::new(build.navmesh(), MAX_NODES).unwrap();
        let ps = pairs::bench_pairs(mesh, &mut q, &filter, pairs::PAIRS);
        let (mut partial, mut multi_slice) = (0, 0);
        for (i, p) in ps.iter().enumerate() {
            let want = q
                .find_path(p.start_ref, p.end_ref, p.start, p.end, &filter, MAX_POLYS)
                .unwrap();
            partial += usize::from(want.status == PathStatus::Partial);
            let mut iterations = None;
            for slice in [1, 7, 64, usize::MAX] {
                let mut s = q
                    .begin_sliced_path(
                        p.start_ref,
                        p.end_ref,
                        p.start,
                        p.end,
                        &filter,
                        SlicedOptions::default(),
                    )
                    .unwrap();
                let mut calls = 0;
                let mut sum = 0;
                while s.state() == SliceState::InProgress {
                    let pr = s.update(slice).unwrap();
                    calls += 1;
                    sum += pr.iterations;
                    assert_eq!(pr.total_iterations, sum);
                    assert!(pr.iterations <= slice);
                    // Every call but the last runs its whole slice.
                    if pr.state == SliceState::InProgress {
                        assert_eq!(pr.iterations, slice, "{mesh} pair {i}");
                    }
                }
                assert_eq!(s.iterations(), sum);
                if slice == 1 {
                    assert_eq!(calls, sum.max(usize::from(p.start_ref != p.end_ref)));
                }
                // Every slice size runs the same search.
                assert_eq!(*iterations.get_or_insert(sum), sum, "{mesh} pair {i}");
                if let SliceState::Finished { reached_goal } = s.state() {
                    assert_eq!(reached_goal, want.polys.last() == Some(&p.end_ref));
                }
                multi_slice += usize::from(slice == 7 && calls > 1);
                let got = s.finalize(MAX_POLYS).unwrap();
                assert_eq!(got.polys, want.polys, "{mesh} pair {i}, slices of {slice}");
                assert_eq!(
                    got.status, want.status,
                    "{mesh} pair {i}, slices of {slice}"
                );
                assert_eq!(
                    got.detour_status, want.detour_status,
                    "{mesh} pair {i}, slices of {slice}"
                );
            }
        }
        total_pairs += ps.len();
        // The pairs exercise what they should: searches over several slices, and some partial
        // paths (nav_test and undulating have islands).
        assert!(multi_slice > ps.len() / 2, "{mesh}: {multi_slice}");
        eprintln!(
            "{mesh}: {} pairs, {partial} partial, {multi_slice} over several 7-slices",
            ps.len()
        );
    }
    assert_eq!(total_pairs, 1500);
}

/// A navmesh of `tiles` square tiles in a row along +x, each 4.8 m (16 cells of 0.3 m), over a
/// 2 m wide strip floor: one polygon per tile, each linked to the next.
fn strip(tiles: usize) -> NavMesh {
    let len = 4.8 * tiles as f32;
    let verts = vec![0.0, 0.0, 0.0, 0.0, 0.0, 2.0, len, 0.0, 2.0, len, 0.0, 0.0];
    let geom = InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 1, 2, 0, 2, 3]).unwrap());
    let settings = BuildSettings {
        tile_size: 16,
        ..BuildSettings::default()
    };
    NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap()
        .into_navmesh()
}

/// The strip's polygons in order along x (one per tile, found at each tile's middle).
fn strip_polys(q: &mut NavMeshQuery<'_>, tiles: usize) -> Vec<(PolyRef, Vec3)> {
    let f = QueryFilter::default();
    (0..tiles)
        .map(|i| {
            let p = Vec3::new(4.8 * i as f32 + 2.4, 0.0, 1.0);
            let n = q.find_nearest_poly(p, DEFAULT_HALF_EXTENTS, &f).unwrap();
            assert!(n.over_poly);
            (n.poly, p)
        })
        .collect()
}

#[test]
fn the_strip_is_a_chain_of_one_polygon_per_tile() {
    let nav = strip(8);
    assert_eq!(nav.polys().len(), 8);
    let mut q = nav.query().unwrap();
    let polys = strip_polys(&mut q, 8);
    for (i, &(p, _)) in polys.iter().enumerate() {
        let mut want: Vec<PolyRef> = [i.checked_sub(1), (i + 1 < 8).then_some(i + 1)]
            .into_iter()
            .flatten()
            .map(|j| polys[j].0)
            .collect();
        let mut got = nav.neighbours(p);
        want.sort();
        got.sort();
        assert_eq!(got, want, "tile {i}");
    }
}

#[test]
fn an_interrupted_search_reports_in_progress_and_its_iterations_add_up() {
    // Along a chain A* closes one polygon per iteration: the search from the first to the
    // last of 8 polygons takes exactly 8 iterations, and closes the goal in the 8th.
    let nav = strip(8);
    let mut q = nav.query().unwrap();
    let polys = strip_polys(&mut q, 8);
    let f = QueryFilter::default();
    let ((s, sp), (e, ep)) = (polys[0], polys[7]);
    let mut search = q
        .begin_sliced_path(s, e, sp, ep, &f, SlicedOptions::default())
        .unwrap();
    assert_eq!(search.state(), SliceState::InProgress);
    assert_eq!(search.iterations(), 0);
    assert_eq!(search.raycast_limit(), None);
    let mut done = 0;
    for (step, want_state) in [
        (3, SliceState::InProgress),
        (4, SliceState::InProgress),
        (5, SliceState::Finished { reached_goal: true }),
    ] {
        let pr = search.update(step).unwrap();
        let ran = if want_state == SliceState::InProgress {
            step
        } else {
            8 - done
        };
        done += ran;
        assert_eq!(pr.iterations, ran);
        assert_eq!(pr.total_iterations, done);
        assert_eq!(pr.state, want_state);
    }
    assert_eq!(done, 8);
    // Ended: further updates run nothing.
    let pr = search.update(10).unwrap();
    assert_eq!((pr.iterations, pr.total_iterations), (0, 8));
    let path = search.finalize(256).unwrap();
    assert_eq!(path.polys, polys.iter().map(|p| p.0).collect::<Vec<_>>());
    assert!(path.is_complete());

    // Finalized early: the corridor to the polygon nearest the goal so far. After k
    // iterations the search has closed polygons 0..k and opened polygon k. After 7 that is
    // the goal: the corridor reaches it (complete), although the search has not closed it.
    for k in 1..8 {
        let mut search = q
            .begin_sliced_path(s, e, sp, ep, &f, SlicedOptions::default())
            .unwrap();
        assert_eq!(search.update(k).unwrap().state, SliceState::InProgress);
        let path = search.finalize(256).unwrap();
        assert_eq!(
            path.polys,
            polys[..=k].iter().map(|p| p.0).collect::<Vec<_>>()
        );
        let want = if k == 7 {
            PathStatus::Complete
        } else {
            PathStatus::Partial
        };
        assert_eq!(path.status, want, "k = {k}");
    }

    // A path buffer of exactly the corridor's length holds it complete; one shorter truncates
    // it (partial, buffer too small), as find_path does.
    for max in [8, 7, 1] {
        let mut search = q
            .begin_sliced_path(s, e, sp, ep, &f, SlicedOptions::default())
            .unwrap();
        search.run().unwrap();
        let got = search.finalize(max).unwrap();
        let want = q.find_path(s, e, sp, ep, &f, max).unwrap();
        assert_eq!(got, want, "max_path {max}");
        assert_eq!(got.polys.len(), max);
        assert_eq!(got.is_complete(), max == 8);
    }
}

#[test]
fn finalize_partial_ends_at_the_furthest_polygon_of_the_old_corridor_reached() {
    let nav = strip(8);
    let mut q = nav.query().unwrap();
    let polys = strip_polys(&mut q, 8);
    let refs: Vec<PolyRef> = polys.iter().map(|p| p.0).collect();
    let f = QueryFilter::default();
    let ((s, sp), (e, ep)) = (polys[0], polys[7]);
    // An agent's old corridor: polygons 2..=6 of the strip (say it was planned from tile 2,
    // to tile 6). A search from tile 0 toward tile 7 stopped after k iterations has reached
    // (opened) polygons 0..=k: it joins the old corridor at polygon min(k, 6), if k >= 2.
    let existing = &refs[2..=6];
    for k in 1..=8 {
        let mut search = q
            .begin_sliced_path(s, e, sp, ep, &f, SlicedOptions::default())
            .unwrap();
        search.update(k).unwrap();
        let path = search.finalize_partial(existing, 256).unwrap();
        if k < 2 {
            // None of the old corridor reached: the corridor to the best polygon so far.
            assert_eq!(path.polys, refs[..=k]);
            assert!(path.detour_status.partial());
        } else {
            assert_eq!(path.polys, refs[..=k.min(6)], "k = {k}");
            assert!(!path.detour_status.partial(), "k = {k}");
        }
        assert_eq!(
            path.status,
            PathStatus::Partial,
            "it does not end at the goal"
        );
    }
    // An old corridor through the goal, search complete: the whole new corridor, complete.
    let mut search = q
        .begin_sliced_path(s, e, sp, ep, &f, SlicedOptions::default())
        .unwrap();
    search.run().unwrap();
    let path = search.finalize_partial(&refs[5..], 256).unwrap();
    assert_eq!(path.polys, refs);
    assert!(path.is_complete());
}

#[test]
fn any_angle_search_on_the_strip_keeps_its_chain_and_raycast_limit() {
    let nav = strip(8);
    let mut q = nav.query().unwrap();
    let polys = strip_polys(&mut q, 8);
    let f = QueryFilter::default();
    let ((s, sp), (e, ep)) = (polys[0], polys[7]);
    let mut search = q
        .begin_sliced_path(s, e, sp, ep, &f, SlicedOptions { any_angle: true })
        .unwrap();
    // 50 agent radii (RecastDemo's default radius 0.6).
    let limit = search.raycast_limit().unwrap();
    assert!(
        (limit - 50.0 * BuildSettings::default().agent_radius).abs() < 1e-4,
        "{limit}"
    );
    search.run().unwrap();
    let path = search.finalize(256).unwrap();
    // A straight strip: the raycast shortcuts pass through the same polygons.
    assert_eq!(path.polys, polys.iter().map(|p| p.0).collect::<Vec<_>>());
    assert!(path.is_complete());
}

#[test]
fn start_in_the_goal_is_finished_at_once() {
    let nav = strip(2);
    let mut q = nav.query().unwrap();
    let polys = strip_polys(&mut q, 2);
    let f = QueryFilter::default();
    let (s, sp) = polys[1];
    let mut search = q
        .begin_sliced_path(s, s, sp, sp + Vec3::X, &f, SlicedOptions::default())
        .unwrap();
    assert_eq!(search.state(), SliceState::Finished { reached_goal: true });
    assert_eq!(search.update(5).unwrap().iterations, 0);
    let path = search.finalize(4).unwrap();
    assert_eq!(path.polys, vec![s]);
    assert!(path.is_complete());
}

#[test]
fn bad_inputs_are_typed_errors() {
    let nav = strip(2);
    let mut q = nav.query().unwrap();
    let polys = strip_polys(&mut q, 2);
    let f = QueryFilter::default();
    let ((s, sp), (e, ep)) = (polys[0], polys[1]);
    let o = SlicedOptions::default();
    let invalid = |r: navkit::Result<_>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(matches!(
        q.begin_sliced_path(PolyRef(0), e, sp, ep, &f, o)
            .map(|_| ()),
        Err(Error::InvalidPolyRef {
            argument: "start",
            poly: PolyRef(0)
        })
    ));
    assert!(matches!(
        q.begin_sliced_path(s, PolyRef(0x7fff_ffff), sp, ep, &f, o)
            .map(|_| ()),
        Err(Error::InvalidPolyRef {
            argument: "end",
            poly: PolyRef(0x7fff_ffff)
        })
    ));
    let nan = Vec3::new(f32::NAN, 0.0, 0.0);
    assert!(matches!(
        q.begin_sliced_path(s, e, nan, ep, &f, o).map(|_| ()),
        Err(Error::NonFinite {
            argument: "start_pos",
            ..
        })
    ));
    assert!(matches!(
        q.begin_sliced_path(s, e, sp, Vec3::splat(f32::INFINITY), &f, o)
            .map(|_| ()),
        Err(Error::NonFinite {
            argument: "end_pos",
            ..
        })
    ));
    assert!(matches!(
        q.begin_sliced_path(s, e, sp, Vec3::splat(1e30), &f, o)
            .map(|_| ()),
        Err(Error::PointOutOfRange {
            argument: "end_pos",
            ..
        })
    ));

    let mut search = q.begin_sliced_path(s, e, sp, ep, &f, o).unwrap();
    assert!(invalid(search.update(0).map(|_| ())));
    assert_eq!(search.iterations(), 0);
    search.update(1).unwrap();
    assert!(invalid(search.finalize(0).map(|_| ())));
    let search = q.begin_sliced_path(s, e, sp, ep, &f, o).unwrap();
    assert!(invalid(
        search.finalize(navkit::query::MAX_BUFFER + 1).map(|_| ())
    ));
    let search = q.begin_sliced_path(s, e, sp, ep, &f, o).unwrap();
    assert!(invalid(search.finalize_partial(&[], 16).map(|_| ())));

    // A dropped search leaves the query free and clean: the next search is the same.
    let mut search = q.begin_sliced_path(s, e, sp, ep, &f, o).unwrap();
    search.update(1).unwrap();
    drop(search);
    let want = q.find_path(s, e, sp, ep, &f, 16).unwrap();
    let mut search = q.begin_sliced_path(s, e, sp, ep, &f, o).unwrap();
    search.run().unwrap();
    assert_eq!(search.finalize(16).unwrap(), want);
}

/// Any-angle searches, finalized into small buffers, from start points that may lie off their
/// start polygon (Detour takes any point with the ref): the bundled Detour's finalize reads one
/// slot before its buffer and writes one past it in such cases (found by the `sliced` fuzz
/// target under ASan; navkit guards both). Every result stays within its `max_path`, a cut
/// corridor says so, and a corridor that is not cut and reached the goal ends there.
#[test]
fn any_angle_finalize_stays_inside_small_buffers() {
    let filter = QueryFilter::default();
    let build = common::build("dungeon.obj");
    let mut q = NavMeshQuery::new(build.navmesh(), MAX_NODES).unwrap();
    let ps = pairs::bench_pairs("dungeon", &mut q, &filter, 120);
    let (mut cut, mut finished) = (0, 0);
    for (i, p) in ps.iter().enumerate() {
        // Every third search starts from another pair's point.
        let start = if i % 3 == 0 {
            ps[(i * 7 + 1) % ps.len()].start
        } else {
            p.start
        };
        for max_path in [1, 2, 3, 5, 8, 256] {
            let mut s = q
                .begin_sliced_path(
                    p.start_ref,
                    p.end_ref,
                    start,
                    p.end,
                    &filter,
                    SlicedOptions { any_angle: true },
                )
                .unwrap();
            s.run().unwrap();
            let reached = s.state() == SliceState::Finished { reached_goal: true };
            let got = s.finalize(max_path).unwrap();
            assert!(got.polys.len() <= max_path, "pair {i}, max {max_path}");
            assert!(!got.polys.is_empty(), "pair {i}, max {max_path}");
            let too_small = got
                .detour_status
                .has(navkit::status::Status::BUFFER_TOO_SMALL);
            if too_small {
                cut += 1;
                assert_eq!(got.status, PathStatus::Partial, "pair {i}, max {max_path}");
            } else if reached && !got.detour_status.partial() {
                finished += 1;
                assert_eq!(
                    got.polys.last(),
                    Some(&p.end_ref),
                    "pair {i}, max {max_path}"
                );
            }
        }
    }
    eprintln!("any-angle finalize: {cut} cut, {finished} complete");
    assert!(cut > 0 && finished > 0);
}
