//! The `parallel` feature changes how fast, never what: the tiled build, the tile cache's layers and
//! the triangle index give the same bytes with rayon on any number of threads and on one thread
//! without the feature. The expected hashes below are checked in both builds (scripts/test.sh runs
//! this test with the default features too), so each build is compared with the other. The
//! navmeshes are hashed as 32-bit-ref MSET bytes, which a `large-refs` build (64-bit refs) writes
//! too, so the hashes also check that both ref widths build the same navmesh.

mod common;

use navkit::NavMeshBuilder;
use navkit::build::tiled::data_hash;
use navkit::geometry::spatial::ChunkyTriMesh;
use navkit::navmesh::mset::RefWidth;
use navkit::tilecache::TileCacheSettings;
use navkit::{BuildSettings, InputGeometry, TriMesh};

/// `data_hash` over the 32-bit-ref MSET bytes of the tiled build of [`terrain`] (32-cell tiles).
const TILED_HASH: &str = "bc349b456d3f52c8";
/// `data_hash` over the 32-bit-ref MSET bytes of the tile cache's navmesh of [`terrain`] (not the
/// TSET bytes: Detour leaves the 2 padding bytes of each compressed layer's header uninitialized).
const TILECACHE_HASH: &str = "b1e0a15554256747";
/// `data_hash` over the triangle index's chunks of [`terrain`].
const INDEX_HASH: &str = "f2245f2924d65507";

/// `data_hash` over the 32-bit-ref MSET bytes of the solo builds of RecastDemo's meshes with
/// RecastDemo's default settings, as navkit built them with one `rcBuildPolyMeshDetail` call over
/// every polygon (before the detail mesh was built in parts; the default-features build still
/// makes it in one piece, and checks the same hashes).
const SOLO_HASHES: [(&str, &str); 3] = [
    ("dungeon.obj", "448e694b3f1e7f4d"),
    ("nav_test.obj", "5300ad76b82b9339"),
    ("undulating.obj", "1de0318a6356f8d9"),
];

/// A 240 x 240-quad terrain (115,200 triangles, more than the triangle index splits on several
/// threads) of gentle integer-made bumps and a few steps, 120 m square.
fn terrain() -> TriMesh {
    const N: usize = 240;
    let mut verts = Vec::with_capacity((N + 1) * (N + 1) * 3);
    for i in 0..=N {
        for j in 0..=N {
            let bump = ((i * 7 + j * 13) % 17) as f32 * 0.02;
            let step = if (i / 40 + j / 60) % 3 == 0 { 0.3 } else { 0.0 };
            verts.extend_from_slice(&[j as f32 * 0.5, bump + step, i as f32 * 0.5]);
        }
    }
    let mut tris = Vec::with_capacity(N * N * 6);
    let at = |i: usize, j: usize| (i * (N + 1) + j) as i32;
    for i in 0..N {
        for j in 0..N {
            tris.extend_from_slice(&[at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
            tris.extend_from_slice(&[at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
        }
    }
    TriMesh::new(verts, tris).unwrap()
}

fn hash(bytes: &[u8]) -> String {
    data_hash([(navkit::TileCoord::new(0, 0), bytes)])
}

#[test]
fn tiled_build_gives_the_same_bytes_with_and_without_parallel() {
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    for threads in [1, 3] {
        let t = NavMeshBuilder::new(&InputGeometry::from_mesh(terrain()))
            .settings(settings.clone())
            .threads(threads)
            .tiled()
            .unwrap();
        assert!(t.report().tile_count > 100);
        assert_eq!(
            hash(&t.navmesh().to_mset_bytes_with(RefWidth::Bits32).unwrap()),
            TILED_HASH,
            "{threads} threads, parallel feature: {}",
            cfg!(feature = "parallel")
        );
    }
}

#[test]
fn tile_cache_gives_the_same_bytes_with_and_without_parallel() {
    let tc = NavMeshBuilder::new(&InputGeometry::from_mesh(terrain()))
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    assert_eq!(
        hash(&tc.navmesh().to_mset_bytes_with(RefWidth::Bits32).unwrap()),
        TILECACHE_HASH,
        "parallel feature: {}",
        cfg!(feature = "parallel")
    );
}

#[test]
fn triangle_index_is_the_same_with_and_without_parallel() {
    let mesh = terrain();
    let index = ChunkyTriMesh::new(&mesh, 256);
    let mut bytes = Vec::new();
    for c in 0..index.chunk_count() {
        let (bmin, bmax) = index.chunk_bounds(c).unwrap();
        for v in bmin.iter().chain(&bmax) {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
        for t in index.chunk_tris(c) {
            bytes.extend_from_slice(&t.to_le_bytes());
        }
    }
    assert!(index.chunk_count() > 256);
    assert_eq!(
        hash(&bytes),
        INDEX_HASH,
        "parallel feature: {}",
        cfg!(feature = "parallel")
    );
}

/// `build()` on a pool of `threads` threads (with `parallel`; on the calling thread without).
fn on_threads<R: Send>(threads: usize, build: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    let r = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(build);
    #[cfg(not(feature = "parallel"))]
    let r = {
        let _ = threads;
        build()
    };
    r
}

/// The 32-bit-ref MSET bytes of the solo build of RecastDemo's `name`, with its default
/// settings, made on a pool of `threads` threads (with `parallel`; on the calling thread
/// without), and its detail mesh's sub-mesh count.
fn solo_bytes(name: &str, threads: usize) -> (Vec<u8>, usize) {
    let geom = InputGeometry::load(common::mesh(name)).unwrap();
    let b = on_threads(threads, || NavMeshBuilder::new(&geom).solo().unwrap());
    let bytes = b.navmesh().to_mset_bytes_with(RefWidth::Bits32).unwrap();
    (bytes, b.report().detail_meshes)
}

#[test]
fn solo_detail_meshes_built_in_parts_give_the_same_bytes() {
    for (name, expected) in SOLO_HASHES {
        // 4 threads: up to 16 parts of at least 16 polygons where the detail mesh is enough
        // work (undulating's 216 polygons in 13, nav_test's 155 in 9; dungeon's too);
        // 1 thread: one piece.
        for threads in [4, 1] {
            let (bytes, polys) = solo_bytes(name, threads);
            assert!(polys > 100, "{name}: {polys} polygons");
            assert_eq!(
                hash(&bytes),
                expected,
                "{name}, {threads} threads, parallel feature: {}",
                cfg!(feature = "parallel")
            );
        }
    }
}

/// The heightfield (after the filters: they change areas, never spans) and the 32-bit-ref MSET
/// bytes of the solo build of `geom` on a pool of `threads` threads (with `parallel`; on the
/// calling thread without).
fn solo_heightfield(
    geom: &InputGeometry,
    threads: usize,
) -> (Vec<navkit::build::HeightfieldSpan>, Vec<u8>) {
    let b = on_threads(threads, || {
        NavMeshBuilder::new(geom)
            .capture_stages(true)
            .solo()
            .unwrap()
    });
    let bytes = b.navmesh().to_mset_bytes_with(RefWidth::Bits32).unwrap();
    (b.stages().unwrap().heightfield.spans.clone(), bytes)
}

#[test]
fn solo_heightfields_rasterized_in_row_strips_are_the_same() {
    // RecastDemo's three meshes (their bytes are also checked against SOLO_HASHES above), and
    // the terrain: 115,200 triangles, more than a solo build's 65,536-triangle chunk, each
    // reaching 1 to 3 of its 400 rows.
    let mut geoms: Vec<(String, InputGeometry)> = SOLO_HASHES
        .iter()
        .map(|(name, _)| {
            let geom = InputGeometry::load(common::mesh(name)).unwrap();
            (name.to_string(), geom)
        })
        .collect();
    geoms.push(("terrain".into(), InputGeometry::from_mesh(terrain())));
    for (name, geom) in &geoms {
        // One thread: one call over every triangle (one strip).
        let (one, one_bytes) = solo_heightfield(geom, 1);
        assert!(one.len() > 10_000, "{name}: {} spans", one.len());
        // 2, 3 and 5 threads: as many row strips, cut at different rows.
        for threads in [2, 3, 5] {
            let (spans, bytes) = solo_heightfield(geom, threads);
            assert_eq!(
                spans.len(),
                one.len(),
                "{name}, {threads} threads: span count"
            );
            if let Some(i) = (0..spans.len()).find(|&i| spans[i] != one[i]) {
                panic!(
                    "{name}, {threads} threads: span {i} is {:?}, one thread made {:?}",
                    spans[i], one[i]
                );
            }
            assert!(
                bytes == one_bytes,
                "{name}, {threads} threads: navmesh bytes"
            );
        }
    }
}
