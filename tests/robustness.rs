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

/// The parts of a saved single-tile `MSET` file, in order: name and length in bytes. Detour's
/// tile data is `dtMeshHeader` (100 bytes) then its arrays, each 4-aligned: vertices (12 bytes
/// each), `dtPoly` (32), `dtLink` (12 with 32-bit refs, 16 with 64-bit ones), `dtPolyDetail`
/// (12), detail vertices (12), detail triangles (4), `dtBVNode` (16), `dtOffMeshConnection` (36).
fn mset_parts(nav: &NavMesh) -> Vec<(&'static str, usize)> {
    use navkit::navmesh::mset::tile_record_size;
    use navkit::navmesh::params::RefWidth;
    let tile = nav.tiles().next().unwrap();
    let h = tile.header();
    let link = if RefWidth::NATIVE == RefWidth::Bits64 {
        16
    } else {
        12
    };
    let parts = vec![
        ("set header", 12),
        ("params", 28),
        ("tile record", tile_record_size(RefWidth::NATIVE)),
        ("mesh header", 100),
        ("verts", 12 * h.vert_count),
        ("polys", 32 * h.poly_count),
        ("links", link * h.max_link_count),
        ("detail meshes", 12 * h.detail_mesh_count),
        ("detail verts", 12 * h.detail_vert_count),
        ("detail tris", 4 * h.detail_tri_count),
        ("bv nodes", 16 * h.bv_node_count),
        ("off-mesh", 36 * h.off_mesh_con_count),
    ];
    let data: usize = parts[3..].iter().map(|p| p.1).sum();
    assert_eq!(
        data,
        tile.data_size(),
        "the layout adds up to the tile's data"
    );
    parts
}

/// `n` pairs of points on `nav`, from the library's seeded random-point query (seed 19).
fn on_mesh_pairs(nav: &NavMesh, n: usize) -> Vec<(Vec3, Vec3)> {
    use rand::SeedableRng;
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(19);
    let f = QueryFilter::default();
    let mut point = || q.find_random_point(&f, &mut rng).unwrap().1;
    (0..n).map(|_| (point(), point())).collect()
}

/// What became of a file with one bit flipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Flip {
    /// Refused: `NavMeshData`, or `VersionMismatch` for the file's version field.
    Rejected,
    /// Loaded, and every probe path equals the original's.
    Same,
    /// Loaded, every probe query answered, some path differs.
    Differs,
    /// Loaded, and some probe point is no longer near a polygon (`PointOffMesh`).
    PointsOffMesh,
}

/// Paths between `pairs` on a corrupted navmesh: each an answer or `PointOffMesh`, never
/// another error (or a crash).
fn probe(nav: &NavMesh, pairs: &[(Vec3, Vec3)]) -> Vec<Option<navkit::NavPath>> {
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let f = QueryFilter::default();
    pairs
        .iter()
        .map(|&(a, z)| match q.path(a, z, &f, &PathOptions::default()) {
            Ok(p) => Some(p),
            Err(Error::PointOffMesh { .. }) => None,
            Err(e) => panic!("{a} -> {z}: {e:?}"),
        })
        .collect()
}

/// Flips one bit (seeded) of each byte of dungeon's saved navmesh in turn. Each load either
/// fails with a typed error or gives a navmesh on which real searches (between points of the
/// original mesh, from its seeded random-point query) answer or say a point is off the mesh;
/// where the flip lands decides which, as derived below, and the counts are those measured.
#[test]
fn bit_flips_across_a_saved_file_never_crash() {
    use rand::{Rng, SeedableRng};
    let nav0 = common::build("dungeon.obj").into_navmesh();
    let bytes = nav0.to_mset_bytes();
    let parts = mset_parts(&nav0);
    let part_of = |i: usize| {
        let mut end = 0;
        for &(name, len) in &parts {
            end += len;
            if i < end {
                return (name, i + len - end);
            }
        }
        unreachable!("byte {i} past the file")
    };
    let pairs = on_mesh_pairs(&nav0, 8);
    let want = probe(&nav0, &pairs);
    // Searches that run: every pair connected, corridors of 1 to 23 polys (measured: 11, 1, 4,
    // 16, 16, 11, 2, 23).
    let lens: Vec<usize> = want
        .iter()
        .map(|p| {
            p.as_ref()
                .filter(|p| p.is_complete())
                .map_or(0, |p| p.corridor.polys.len())
        })
        .collect();
    assert_eq!(lens, [11, 1, 4, 16, 16, 11, 2, 23]);

    let mut rng = rand_pcg::Pcg32::seed_from_u64(2026);
    let mut counts = std::collections::BTreeMap::new();
    for i in 0..bytes.len() {
        let bit = rng.gen_range(0..8u32);
        let mut b = bytes.clone();
        b[i] ^= 1 << bit;
        let (part, at) = part_of(i);
        let outcome = match NavMesh::from_mset_bytes(&b) {
            Err(Error::NavMeshData { .. }) => Flip::Rejected,
            Err(Error::VersionMismatch { found, .. }) => {
                // Only the version field (bytes 4..8) says so, with the flipped version.
                assert_eq!((part, at / 4), ("set header", 1), "byte {i}");
                assert_eq!(found, 1 ^ (1 << (8 * (at % 4) as u32 + bit)), "byte {i}");
                Flip::Rejected
            }
            Err(e) => panic!("byte {i} bit {bit}: {e:?}"),
            Ok(nav) => {
                let got = probe(&nav, &pairs);
                if got == want {
                    Flip::Same
                } else if got.iter().all(Option::is_some) {
                    Flip::Differs
                } else {
                    Flip::PointsOffMesh
                }
            }
        };
        // Derived from the format: the set header (magic, version, tile count), the mesh
        // header's magic and version (0..8) and its counts (24..60, which fix the data's size
        // and layout) are checked before anything is read; the mesh header's layer and user id
        // (16..24) mean nothing to a query; Detour rebuilds every link when it adds a tile, so
        // the saved links are never read; the 64-bit tile record's last 4 bytes are padding.
        let expected = match (part, at) {
            ("set header", _) | ("mesh header", 0..8 | 24..60) => Some(Flip::Rejected),
            ("mesh header", 16..24) | ("links", _) | ("tile record", 12..16) => Some(Flip::Same),
            _ => None,
        };
        if let Some(e) = expected {
            assert_eq!(outcome, e, "byte {i} ({part} byte {at}) bit {bit}");
        }
        *counts.entry(outcome).or_insert(0usize) += 1;
    }
    // Measured, per ref width (the files differ in the tile record and the links).
    let measured = if cfg!(feature = "large-refs") {
        [
            (Flip::Rejected, 5646),
            (Flip::Same, 14583),
            (Flip::Differs, 676),
            (Flip::PointsOffMesh, 27),
        ]
    } else {
        [
            (Flip::Rejected, 5624),
            (Flip::Same, 12784),
            (Flip::Differs, 677),
            (Flip::PointsOffMesh, 27),
        ]
    };
    let counts: Vec<(Flip, usize)> = measured
        .iter()
        .map(|&(o, _)| (o, counts.get(&o).copied().unwrap_or(0)))
        .collect();
    assert_eq!(counts, measured, "of {} bytes", bytes.len());

    // Multi-byte garbage: random overwrites of 16 bytes; loads that succeed answer queries.
    let mut loaded = 0;
    for _ in 0..500 {
        let mut b = bytes.clone();
        let at = rng.gen_range(0..b.len() - 16);
        for x in &mut b[at..at + 16] {
            *x = rng.r#gen();
        }
        match NavMesh::from_mset_bytes(&b) {
            Ok(nav) => {
                loaded += 1;
                probe(&nav, &pairs);
            }
            Err(Error::NavMeshData { .. } | Error::VersionMismatch { .. }) => {}
            Err(e) => panic!("overwrite at {at}: {e:?}"),
        }
    }
    println!("{loaded} of 500 overwritten files loaded");
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
    // A .gset whose `s` line is short, and whose volume is cut off (naming the mesh by its
    // absolute path, outside the `.gset`'s folder: allowed here).
    let mesh = common::mesh("nav_test.obj");
    let anywhere = navkit::geometry::LoadOptions {
        allow_outside_paths: true,
    };
    let p = write(
        "short-s.gset",
        &format!("f {}\ns 0.3 0.2\n", mesh.display()),
    );
    assert!(matches!(
        InputGeometry::load_with(&p, &anywhere),
        Err(Error::Parse { line: 2, .. })
    ));
    let p = write(
        "short-v.gset",
        &format!("f {}\nv 4 1 -5 5\n0 0 0\n", mesh.display()),
    );
    assert!(matches!(
        InputGeometry::load_with(&p, &anywhere),
        Err(Error::Parse { line: 2, .. })
    ));
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
    let mut q = NavMeshQuery::new(nav, 2048).unwrap();
    let pairs = on_mesh_pairs(nav, 64);
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
