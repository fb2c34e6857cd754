//! Budgets: a cancellation token and a time limit stop solo, tiled and tile-cache builds at
//! their next check with a typed error naming the stage; limits on cells and estimated memory
//! refuse a build before it starts; the estimate is an upper bound of the real spans; the CLI's
//! `--timeout` ends a build that has no check of its own to stop at.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use navkit::build::{Budget, CancelToken, Stage, estimate};
use navkit::tools::worldgen::{WorldSpec, generate};
use navkit::{BuildSettings, Error, InputGeometry, NavMeshBuilder};

fn dungeon() -> InputGeometry {
    InputGeometry::load(common::mesh("dungeon.obj")).unwrap()
}

#[test]
fn a_cancelled_token_stops_every_kind_of_build_before_it_starts() {
    let g = dungeon();
    let token = CancelToken::new();
    token.cancel();
    assert!(token.is_cancelled());
    let b = NavMeshBuilder::new(&g).budget(Budget::new().cancel_token(token));
    for r in [
        b.solo().map(|_| ()),
        b.tiled().map(|_| ()),
        b.tile_cache().map(|_| ()),
    ] {
        match r {
            Err(Error::Cancelled {
                stage: Stage::Rasterize,
            }) => {}
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_zero_time_limit_times_out_at_the_first_check() {
    let g = dungeon();
    let b = NavMeshBuilder::new(&g).budget(Budget::new().time_limit(Duration::ZERO));
    let e = b.solo().unwrap_err();
    assert!(
        matches!(
            e,
            Error::TimedOut {
                stage: Stage::Rasterize,
                limit: Duration::ZERO
            }
        ),
        "{e:?}"
    );
    assert_eq!(
        e.to_string(),
        "build timed out after 0ns at stage `rasterize`"
    );
    assert!(matches!(b.tiled(), Err(Error::TimedOut { .. })));
    assert!(matches!(b.tile_cache(), Err(Error::TimedOut { .. })));
}

#[test]
fn cancelling_during_a_tiled_build_stops_it_within_the_tiles_in_flight() {
    let g = dungeon();
    let token = CancelToken::new();
    let seen = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let progress = |done: usize, all: usize| {
        total.store(all, Ordering::Relaxed);
        seen.fetch_max(done, Ordering::Relaxed);
        // Cancel as soon as the first tile is done.
        token.cancel();
    };
    let b = NavMeshBuilder::new(&g)
        .tile_size(16)
        .threads(1)
        .progress(&progress)
        .budget(Budget::new().cancel_token(token.clone()));
    let e = b.tiled().map(|_| ()).unwrap_err();
    assert!(matches!(e, Error::Cancelled { .. }), "{e:?}");
    // On one thread, the tile after the first one stops at its first check, and no other
    // tile is started.
    assert!(total.load(Ordering::Relaxed) > 100);
    assert_eq!(seen.load(Ordering::Relaxed), 2);
    // The same builder without the token cancelled... a new token builds to the end.
    let b = NavMeshBuilder::new(&g)
        .tile_size(16)
        .budget(Budget::new().cancel_token(CancelToken::new()));
    assert!(b.tiled().is_ok());
}

#[test]
fn a_token_cancelled_from_another_thread_stops_a_running_build() {
    // A world of many tiles, cancelled from another thread while its tiled build runs: the
    // first tile to finish wakes the canceller and waits until it has cancelled, so the cancel
    // lands mid-build however the threads are scheduled. The build ends with Cancelled
    // (whatever stage each worker was in), not with a navmesh, a few tiles after the cancel.
    let (geom, _) = generate(&WorldSpec::new(200_000, 7)).unwrap();
    let token = CancelToken::new();
    let handshake = std::sync::Barrier::new(2);
    let canceller = {
        let token = token.clone();
        let handshake = &handshake;
        move || {
            handshake.wait(); // a tile has finished
            token.cancel();
            handshake.wait(); // let the build go on
        }
    };
    let first = std::sync::Once::new();
    let (done, total) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let progress = |d: usize, all: usize| {
        first.call_once(|| {
            handshake.wait();
            handshake.wait();
        });
        done.fetch_max(d, Ordering::Relaxed);
        total.store(all, Ordering::Relaxed);
    };
    let threads = 2;
    let r = std::thread::scope(|scope| {
        scope.spawn(canceller);
        let r = NavMeshBuilder::new(&geom)
            .threads(threads)
            .progress(&progress)
            .budget(Budget::new().cancel_token(token))
            .tiled();
        // Had no tile finished (the build failed first), the canceller would wait for ever.
        first.call_once(|| {
            handshake.wait();
            handshake.wait();
        });
        r
    });
    match r {
        Err(Error::Cancelled { .. }) => {}
        Ok(t) => panic!(
            "built {} tiles after the token was cancelled",
            t.report().tile_count
        ),
        Err(e) => panic!("{e:?}"),
    }
    // Progress counts every tile that ends, built or stopped: after the cancel, each worker
    // ends the tile it is in and at most one more (stopped at its first check) before the
    // build's error stops the tiles: the first tile, then at most 2 per worker.
    let (done, total) = (done.into_inner(), total.into_inner());
    assert!(total > 100, "{total} tiles");
    assert!(done <= 1 + 2 * threads, "{done} of {total} tiles ended");
}

#[test]
fn limits_on_cells_and_memory_refuse_before_building() {
    let g = dungeon();
    let s = BuildSettings::default();
    let e = estimate(&g, &s).unwrap();
    assert_eq!((e.width, e.depth), (248, 330));
    assert_eq!(e.cells, 248 * 330);
    let over = NavMeshBuilder::new(&g)
        .budget(Budget::new().max_cells(e.cells - 1))
        .solo()
        .unwrap_err();
    match over {
        Error::OverBudget {
            what: "grid cells",
            estimate,
            limit,
            hint,
        } => {
            assert_eq!((estimate, limit), (e.cells, e.cells - 1));
            // The error names the setting to change.
            assert!(hint.contains("raise cell_size to at least"), "{hint}");
        }
        other => panic!("{other:?}"),
    }
    let over = NavMeshBuilder::new(&g)
        .budget(Budget::new().max_memory(e.memory_bytes - 1))
        .solo()
        .unwrap_err();
    assert!(
        matches!(over, Error::OverBudget { what, .. } if what.contains("memory")),
        "{over:?}"
    );
    // At the limits, it builds.
    let ok = NavMeshBuilder::new(&g)
        .budget(Budget::new().max_cells(e.cells).max_memory(e.memory_bytes))
        .solo();
    assert!(ok.is_ok());
    // A tiled build needs one tile per thread at a time, plus the input and its navmesh: far
    // less than the solo build (1.1 MB over the process's start measured on 1 thread, against
    // 2.1 MB solo; the estimates 1.2 MB and 9.1 MB).
    let tiled_need = navkit::build::BuildKind::Tiled(1).memory_bytes(&e);
    assert!(
        tiled_need < e.memory_bytes / 4,
        "{tiled_need} {}",
        e.memory_bytes
    );
    let tiled = NavMeshBuilder::new(&g)
        .threads(1)
        .budget(Budget::new().max_memory(tiled_need))
        .tiled();
    assert!(tiled.is_ok(), "{:?}", tiled.err());
    let over = NavMeshBuilder::new(&g)
        .threads(1)
        .budget(Budget::new().max_memory(tiled_need - 1))
        .tiled()
        .map(|_| ())
        .unwrap_err();
    assert!(
        matches!(&over, Error::OverBudget { hint, .. } if hint.contains("1 tile(s) in flight")),
        "{over}"
    );
}

#[test]
fn the_span_estimate_bounds_the_real_spans_from_above() {
    for name in ["dungeon.obj", "nav_test.obj", "undulating.obj"] {
        let g = InputGeometry::load(common::mesh(name)).unwrap();
        let s = BuildSettings::default();
        let e = estimate(&g, &s).unwrap();
        let b = NavMeshBuilder::new(&g).settings(s.clone()).solo().unwrap();
        let real = b.report().spans as u64;
        assert!(
            real <= e.spans && e.spans <= real * 16,
            "{name}: estimated {} spans, built {real}",
            e.spans
        );
        assert_eq!(
            (e.width, e.depth),
            (b.report().grid_width as u64, b.report().grid_height as u64)
        );
        assert!(e.memory_bytes > e.cells * 12);
    }
}

#[test]
fn generated_worlds_have_no_stray_vertices() {
    for seed in 1..4 {
        let (geom, _) = generate(&WorldSpec::new(30_000, seed)).unwrap();
        let e = NavMeshBuilder::new(&geom).estimate().unwrap();
        assert!(
            e.stray.as_ref().is_none_or(|s| !s.refused()),
            "{:?}",
            e.stray
        );
    }
}

#[test]
fn time_limits_falling_anywhere_in_a_build_stop_it_cleanly() {
    // Limits spread over a whole solo build, so that some fall inside the watershed and the
    // contours (interrupted inside Recast): every build either finishes or times out, and the
    // ones that finish are the same navmesh. (Under the ASan run this also checks that
    // stopping inside Recast leaks nothing.)
    // The limits scale with a baseline measured here, the quickest of three full builds, so a
    // slow or loaded machine only stops more of the builds below; the shortest limit, a tenth
    // of the baseline, stops its build unless that build runs ten times faster than the
    // quickest full one did.
    let (geom, _) = generate(&WorldSpec::new(20_000, 3)).unwrap();
    let full = NavMeshBuilder::new(&geom).solo().unwrap();
    let total = (0..2)
        .map(|_| NavMeshBuilder::new(&geom).solo().unwrap().report().total_ms)
        .fold(full.report().total_ms, f64::min);
    let mut stopped = 0;
    for k in 1..=12 {
        let limit = Duration::from_secs_f64(total * 1.2 * k as f64 / 12.0 / 1e3);
        match NavMeshBuilder::new(&geom)
            .budget(Budget::new().time_limit(limit))
            .solo()
        {
            Ok(b) => assert_eq!(b.tile_data(), full.tile_data()),
            Err(Error::TimedOut { limit: l, .. }) => {
                assert_eq!(l, limit);
                stopped += 1;
            }
            Err(e) => panic!("{e:?}"),
        }
    }
    assert!(stopped >= 1);
}

#[test]
fn rebuilds_of_a_tiled_navmesh_keep_its_budget_and_a_stopped_one_changes_nothing() {
    let g = dungeon();
    let token = CancelToken::new();
    let mut tiled = NavMeshBuilder::new(&g)
        .budget(Budget::new().cancel_token(token.clone()))
        .tiled()
        .unwrap();
    let before = tiled.data_hash();
    let everything = navkit::Aabb::new(tiled.grid().bmin, tiled.grid().bmax);
    let options = navkit::build::tiled::TiledOptions::default();
    token.cancel();
    let e = tiled.rebuild_box(everything, &options).unwrap_err();
    assert!(matches!(e, Error::Cancelled { .. }), "{e:?}");
    assert_eq!(tiled.data_hash(), before);
    // A new budget: the rebuild runs, and gives the same tiles.
    tiled.set_budget(Budget::new().time_limit(Duration::from_secs(600)));
    let changes = tiled.rebuild_box(everything, &options).unwrap();
    assert!(!changes.is_empty());
    assert_eq!(tiled.data_hash(), before);
    tiled.set_budget(Budget::new().time_limit(Duration::ZERO));
    assert!(matches!(
        tiled.rebuild_tile(navkit::navmesh::TileCoord::new(0, 0)),
        Err(Error::TimedOut { .. })
    ));
}

#[test]
fn a_long_strip_is_warned_about_before_building() {
    // A 6 m x 1500 m walkway: 20 x 5000 cells.
    let mesh = navkit::TriMesh::new(
        vec![
            0.0, 0.0, 0.0, 6.0, 0.0, 0.0, 6.0, 0.0, 1500.0, 0.0, 0.0, 1500.0,
        ],
        vec![0, 2, 1, 0, 3, 2],
    )
    .unwrap();
    let g = InputGeometry::from_mesh(mesh);
    let e = NavMeshBuilder::new(&g).estimate().unwrap();
    assert_eq!((e.width, e.depth), (20, 5000));
    assert_eq!(e.stray, None);
    assert_eq!(e.warnings.len(), 1);
    assert!(
        e.warnings[0].contains("long strip of 20 x 5000 cells"),
        "{:?}",
        e.warnings
    );
    // A level of ordinary shape has no warning.
    assert!(
        estimate(&dungeon(), &BuildSettings::default())
            .unwrap()
            .warnings
            .is_empty()
    );
}
