//! Save/load round trips, corrupt navmesh files, malformed inputs, NaN and absurd settings:
//! always a clear error, never a panic or a crash.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::navmesh::NavMesh;
use navkit::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PathOptions, QueryFilter};
use navkit::{BuildSettings, Error, InputGeometry, TriMesh};

#[test]
fn save_load_gives_the_same_paths() {
    let b = common::build("nav_test.obj");
    let path = common::temp("nav_test.navmesh");
    b.navmesh().save(&path).unwrap();
    let loaded = NavMesh::load(&path).unwrap();
    assert_eq!(loaded.to_mset_bytes(), b.navmesh().to_mset_bytes());
    assert_eq!(loaded.params(), b.navmesh().params());
    assert_eq!(loaded.polys(), b.navmesh().polys());

    let f = QueryFilter::default();
    let opts = PathOptions::default();
    let case = navkit::tools::testcase::TestCase::load(
        common::shared().join("meshes/recastdemo/nav_mesh_test.txt"),
    )
    .unwrap();
    let mut q0 = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let mut q1 = NavMeshQuery::new(&loaded, 2048).unwrap();
    for t in &case.queries {
        let p0 = q0.path(t.start, t.end, &f, &opts).unwrap();
        let p1 = q1.path(t.start, t.end, &f, &opts).unwrap();
        assert_eq!(p0, p1, "line {}", t.line);
    }
    // The file starts with RecastDemo's header: 'MSET', version 1, one tile.
    let bytes = std::fs::read(&path).unwrap();
    assert_eq!(
        i32::from_le_bytes(bytes[0..4].try_into().unwrap()),
        navkit::navmesh::mset::MSET_MAGIC
    );
    assert_eq!(i32::from_le_bytes(bytes[4..8].try_into().unwrap()), 1);
    assert_eq!(i32::from_le_bytes(bytes[8..12].try_into().unwrap()), 1);
}

#[test]
fn truncated_and_wrong_magic_files_are_errors() {
    let bytes = common::build("dungeon.obj").into_navmesh().to_mset_bytes();
    for len in (0..bytes.len()).step_by(7).chain([bytes.len() - 1]) {
        match NavMesh::from_mset_bytes(&bytes[..len]) {
            Err(Error::NavMeshData { .. }) => {}
            other => panic!("truncated to {len}: {other:?}"),
        }
    }
    let mut wrong = bytes.clone();
    wrong[0] ^= 0xff;
    let e = NavMesh::from_mset_bytes(&wrong).unwrap_err();
    assert!(e.to_string().contains("magic"), "{e}");
    let mut extra = bytes.clone();
    extra.push(0);
    assert!(NavMesh::from_mset_bytes(&extra).is_err());
    // A file of another version: its version, the one navkit reads, and the file.
    let mut version_7 = bytes.clone();
    version_7[4..8].copy_from_slice(&7i32.to_le_bytes());
    let path = common::temp("version-7.navmesh");
    std::fs::write(&path, &version_7).unwrap();
    match NavMesh::load(&path) {
        Err(Error::VersionMismatch {
            path: Some(p),
            what: "MSET file",
            found: 7,
            supported: [1],
        }) => assert_eq!(p, path),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        NavMesh::load(common::temp("does-not-exist.navmesh")),
        Err(Error::Io { .. })
    ));
}

/// Flips bits across a whole saved file: every load either fails with an error or gives a navmesh
/// that answers queries without crashing.
#[test]
fn bit_flips_across_a_saved_file_never_crash() {
    use rand::{Rng, SeedableRng};
    let bytes = common::build("dungeon.obj").into_navmesh().to_mset_bytes();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(2026);
    let f = QueryFilter::default();
    let (mut rejected, mut loaded) = (0, 0);
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 1 << rng.gen_range(0..8);
        match NavMesh::from_mset_bytes(&b) {
            Err(_) => rejected += 1,
            Ok(nav) => {
                loaded += 1;
                // Only a handful of loads are queried in full, to keep the test quick.
                if loaded % 64 == 0 {
                    let mut q = NavMeshQuery::new(&nav, 512).unwrap();
                    let a = Vec3::new(-1.0, 9.998, 12.0);
                    let z = Vec3::new(40.0, 9.998, -20.0);
                    let _ = q.path(a, z, &f, &PathOptions::default());
                    let _ = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f);
                }
            }
        }
    }
    assert_eq!(rejected + loaded, bytes.len());
    // Most flips land in vertex and detail data, which stay valid; headers and indices are caught.
    assert!(
        rejected > bytes.len() / 20,
        "{rejected} rejected of {}",
        bytes.len()
    );
    // Multi-byte garbage: random overwrites of 16 bytes.
    for _ in 0..500 {
        let mut b = bytes.clone();
        let at = rng.gen_range(0..b.len() - 16);
        for x in &mut b[at..at + 16] {
            *x = rng.r#gen();
        }
        if let Ok(nav) = NavMesh::from_mset_bytes(&b) {
            let mut q = NavMeshQuery::new(&nav, 512).unwrap();
            let _ = q.path(
                Vec3::new(-1.0, 9.998, 12.0),
                Vec3::new(40.0, 9.998, -20.0),
                &f,
                &PathOptions::corridor_only(),
            );
        }
    }
}

#[test]
fn nan_and_far_coordinates_are_invalid_arguments() {
    let b = common::build("dungeon.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    for bad in [
        Vec3::NAN,
        Vec3::new(0.0, f32::INFINITY, 0.0),
        Vec3::splat(1e20),
    ] {
        // The error names the caller's argument and carries its value.
        let names = |r: navkit::Result<_>, name: &str| match r {
            Err(
                Error::NonFinite { argument, value }
                | Error::PointOutOfRange {
                    argument, value, ..
                },
            ) => {
                argument == name
                    && value.to_array().map(f32::to_bits) == bad.to_array().map(f32::to_bits)
            }
            _ => false,
        };
        assert!(names(
            q.find_nearest_poly(bad, DEFAULT_HALF_EXTENTS, &f).map(drop),
            "center"
        ));
        assert!(names(
            q.path(bad, Vec3::ZERO, &f, &PathOptions::corridor_only())
                .map(drop),
            "start"
        ));
        assert!(names(
            q.path(Vec3::ZERO, bad, &f, &PathOptions::default())
                .map(drop),
            "goal"
        ));
    }
    assert!(
        q.find_nearest_poly(Vec3::ZERO, Vec3::new(-1.0, 1.0, 1.0), &f)
            .is_err()
    );
    assert!(
        q.find_nearest_poly(Vec3::ZERO, Vec3::splat(1e8), &f)
            .is_err()
    );
    // Far from the mesh but finite: no polygon.
    match q.find_nearest_poly(Vec3::new(1000.0, 0.0, 1000.0), DEFAULT_HALF_EXTENTS, &f) {
        Err(Error::PointOffMesh { .. }) => {}
        other => panic!("{other:?}"),
    }
    // Refs from nowhere.
    let bogus = navkit::query::PolyRef(0xdead_beef);
    assert!(q.poly_height(bogus, Vec3::ZERO).is_err());
    assert!(
        q.find_path(bogus, bogus, Vec3::ZERO, Vec3::ZERO, &f, 16)
            .is_err()
    );
    assert!(NavMeshQuery::new(b.navmesh(), 0).is_err());
    assert!(NavMeshQuery::new(b.navmesh(), 70_000).is_err());
}

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let p = common::temp(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn malformed_inputs_are_errors_naming_file_and_line() {
    let cases = [
        ("bad1.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 9\n", 4),
        ("bad2.obj", "v 0 0 0\nv 1 zero 0\nv 0 0 1\nf 1 2 3\n", 2),
        ("bad3.obj", "v 0 0 0\nv nan 0 0\nv 0 0 1\nf 1 2 3\n", 2),
        ("bad1.gset", "c 0 0 0 1 1 1 0.5 1 5 8\n", 0),
        ("bad2.gset", "f nowhere.obj\n", 1),
        ("bad3.gset", "x what\n", 1),
    ];
    for (name, text, line) in cases {
        let p = write(name, text);
        let e = InputGeometry::load(&p).expect_err(name);
        let msg = e.to_string();
        assert!(msg.contains(name), "{name}: {msg}");
        if line > 0 {
            assert!(
                matches!(e, Error::Parse { line: l, .. } if l == line),
                "{name}: {msg}"
            );
        }
    }
    // A .gset whose `s` line is short, and whose volume is cut off.
    let mesh = common::mesh("nav_test.obj");
    let p = write(
        "short-s.gset",
        &format!("f {}\ns 0.3 0.2\n", mesh.display()),
    );
    assert!(matches!(
        InputGeometry::load(&p),
        Err(Error::Parse { line: 2, .. })
    ));
    let p = write(
        "short-v.gset",
        &format!("f {}\nv 4 1 -5 5\n0 0 0\n", mesh.display()),
    );
    assert!(InputGeometry::load(&p).is_err());
    // Unknown extension.
    assert!(InputGeometry::load(write("mesh.stl", "solid")).is_err());
}

#[test]
fn empty_and_degenerate_meshes_are_errors() {
    assert!(InputGeometry::load(write("empty.obj", "")).is_err());
    assert!(InputGeometry::load(write("noface.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\n")).is_err());
    assert!(TriMesh::new(vec![], vec![]).is_err());
    // A single tiny triangle builds nothing walkable: a build error, not a crash.
    let tiny = TriMesh::new(
        vec![0.0, 0.0, 0.0, 0.1, 0.0, 0.0, 0.0, 0.0, 0.1],
        vec![0, 1, 2],
    )
    .unwrap();
    let e = NavMeshBuilder::new(&InputGeometry::from_mesh(tiny))
        .settings(BuildSettings::default())
        .solo()
        .unwrap_err();
    assert!(matches!(e, Error::Build { .. } | Error::Geometry(_)), "{e}");
    // A vertical wall only: nothing walkable.
    let wall = TriMesh::new(
        vec![
            0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 10.0, 10.0, 0.0, 0.0, 10.0, 0.0,
        ],
        vec![0, 1, 2, 0, 2, 3],
    )
    .unwrap();
    assert!(
        NavMeshBuilder::new(&InputGeometry::from_mesh(wall))
            .settings(BuildSettings::default())
            .solo()
            .is_err()
    );
}

#[test]
fn absurd_settings_are_errors() {
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let base = BuildSettings::default();
    let bad = [
        BuildSettings {
            cell_size: 0.0,
            ..base.clone()
        },
        BuildSettings {
            cell_size: f32::NAN,
            ..base.clone()
        },
        BuildSettings {
            cell_size: 1e-5,
            ..base.clone()
        },
        BuildSettings {
            cell_height: -1.0,
            ..base.clone()
        },
        BuildSettings {
            agent_height: f32::INFINITY,
            ..base.clone()
        },
        BuildSettings {
            agent_radius: -0.5,
            ..base.clone()
        },
        BuildSettings {
            agent_max_slope: 120.0,
            ..base.clone()
        },
        BuildSettings {
            verts_per_poly: 7,
            ..base.clone()
        },
        BuildSettings {
            verts_per_poly: 2,
            ..base.clone()
        },
        BuildSettings {
            agent_max_climb: 1000.0,
            ..base.clone()
        },
        BuildSettings {
            region_min_size: 1e9,
            ..base.clone()
        },
        BuildSettings {
            bounds: Some(navkit::Aabb::new(Vec3::ONE, Vec3::ZERO)),
            ..base.clone()
        },
        BuildSettings {
            bounds: Some(navkit::Aabb::new(Vec3::splat(-1e7), Vec3::splat(1e7))),
            ..base.clone()
        },
    ];
    for s in bad {
        match NavMeshBuilder::new(&geom).settings(s.clone()).solo() {
            Err(Error::Setting { .. }) => {}
            other => panic!("{s:?}: {:?}", other.map(|b| b.report().polymesh_polys)),
        }
    }
}

#[test]
fn thread_safety_is_as_documented() {
    use rand::SeedableRng;
    fn send<T: Send>() {}
    fn sync<T: Sync>() {}
    send::<NavMesh>();
    sync::<NavMesh>();
    send::<NavMeshQuery<'static>>();
    send::<QueryFilter>();
    sync::<QueryFilter>();
    // A navmesh shared by queries on several threads, each with its own query: the same paths
    // (corridor, straight and smooth) as one query on one thread gives for the same pairs.
    let b = common::build("dungeon.obj");
    let nav = b.navmesh();
    let f = QueryFilter::default();
    // Pairs of points on dungeon's navmesh, from the library's seeded random-point query.
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(19);
    let pairs: Vec<(Vec3, Vec3)> = (0..64)
        .map(|_| {
            let (_, a) = q.find_random_point(&f, &mut rng).unwrap();
            let (_, z) = q.find_random_point(&f, &mut rng).unwrap();
            (a, z)
        })
        .collect();
    let run = |q: &mut NavMeshQuery<'_>, pairs: &[(Vec3, Vec3)]| -> Vec<_> {
        pairs
            .iter()
            .map(|&(a, z)| q.path(a, z, &f, &PathOptions::default()).unwrap())
            .collect()
    };
    let single = run(&mut q, &pairs);
    // Real searches, most of them long: measured 51 of the 64 paths complete (the others start
    // or end on one of dungeon's unconnected islands) and 31 corridors of 10 polys or more.
    let complete = single.iter().filter(|p| p.is_complete()).count();
    let long = single
        .iter()
        .filter(|p| p.corridor.polys.len() >= 10)
        .count();
    assert!(
        complete >= 45 && long >= 25,
        "{complete} complete, {long} long"
    );
    // Four threads started together, each running every pair 16 times over (each thread in its
    // own order, so that different searches overlap in time: a thread's 64 paths alone take less
    // than a time slice), against the single-threaded run.
    const ROUNDS: usize = 16;
    let start = std::sync::Barrier::new(4);
    let threaded: Vec<Vec<_>> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..4)
            .map(|t| {
                let (pairs, run, start) = (&pairs, &run, &start);
                s.spawn(move || {
                    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
                    let mut order: Vec<_> = pairs.clone();
                    order.rotate_left(t * pairs.len() / 4);
                    start.wait();
                    let mut got: Vec<_> = (0..ROUNDS).flat_map(|_| run(&mut q, &order)).collect();
                    for round in got.chunks_mut(pairs.len()) {
                        round.rotate_right(t * pairs.len() / 4);
                    }
                    got
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (t, paths) in threaded.iter().enumerate() {
        assert_eq!(paths.len(), ROUNDS * single.len());
        for (i, (p, s)) in paths.iter().zip(single.iter().cycle()).enumerate() {
            let i = i % single.len();
            assert_eq!(p.corridor, s.corridor, "thread {t}, pair {i}");
            assert_eq!(p.straight, s.straight, "thread {t}, pair {i}");
            assert_eq!(p, s, "thread {t}, pair {i}");
        }
    }
}
