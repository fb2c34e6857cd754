//! The tile cache on RecastDemo's meshes: builds, obstacles that block a corridor and whose
//! removal restores the path exactly, TSET round trips and corrupt TSET files, obstacle limits,
//! the layer compressors (FastLZ and LZ4), and the guard against Detour's region-neighbour overflow.

mod common;

use std::time::Duration;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter, RaycastOptions, StraightPathOptions,
};
use navkit::tilecache::{
    LayerCompression, ObstacleRef, ObstacleShape, ObstacleState, TileCache, TileCacheSettings,
    compress_layer_grids, decompress_layer_grids, read_tset,
};
use navkit::tools::testcase::TestCase;
use navkit::{
    BuildSettings, ConvexVolume, Error, InputGeometry, OffMeshConnection, TriMesh, area, flags,
};
use rand::{Rng, SeedableRng};

fn geom(name: &str) -> InputGeometry {
    InputGeometry::load(common::mesh(name)).unwrap()
}

fn cache_of(name: &str) -> (InputGeometry, TileCache) {
    let g = geom(name);
    let c = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    (g, c)
}

/// An upright cylinder obstacle.
fn cylinder(pos: Vec3, radius: f32, height: f32) -> ObstacleShape {
    ObstacleShape::Cylinder {
        pos,
        radius,
        height,
    }
}

/// An axis-aligned box obstacle.
fn aabb(bmin: Vec3, bmax: Vec3) -> ObstacleShape {
    ObstacleShape::Box { bmin, bmax }
}

/// A box obstacle turned about the y axis.
fn oriented(center: Vec3, half_extents: Vec3, y_angle: f32) -> ObstacleShape {
    ObstacleShape::OrientedBox {
        center,
        half_extents,
        y_angle,
    }
}

/// A polygon as (tile x, tile z, layer, index in its tile): the same polygon whatever tile index
/// (so whatever poly ref) its navmesh gave its tile.
type PolyKey = (i32, i32, i32, usize);

/// A path as the tests compare it: polys, corners, completeness, length.
#[derive(Clone, Debug, PartialEq)]
struct Route {
    polys: Vec<PolyRef>,
    /// `polys` as [`PolyKey`]s.
    keys: Vec<PolyKey>,
    points: Vec<Vec3>,
    complete: bool,
    length: f32,
}

impl Route {
    /// The route without its poly refs, for comparing a built cache with one loaded from its
    /// file: the build makes its navmesh position by position, the load in file order
    /// (RecastDemo's two orders: tests/tset_load_order.rs), so a position's layers get other
    /// tile indices, hence other refs, in each.
    fn placed(&self) -> (&[PolyKey], &[Vec3], bool, f32) {
        (&self.keys, &self.points, self.complete, self.length)
    }
}

fn route(cache: &TileCache, a: Vec3, b: Vec3) -> Option<Route> {
    let f = QueryFilter::default();
    let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
    let s = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f).ok()?;
    let e = q.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &f).ok()?;
    let path = q
        .find_path(s.poly, e.poly, s.point, e.point, &f, 4096)
        .ok()?;
    let complete = path.is_complete();
    let last = *path.polys.last()?;
    let end = if complete {
        e.point
    } else {
        q.closest_point_on_poly(last, e.point).ok()?.0
    };
    let sp = q
        .find_straight_path(
            s.point,
            end,
            &path.polys,
            &StraightPathOptions {
                max_points: 4096,
                ..StraightPathOptions::default()
            },
        )
        .ok()?;
    let nav = cache.navmesh();
    let keys = path
        .polys
        .iter()
        .map(|&r| {
            let p = nav.poly(r).unwrap();
            let c = p.tile().coord();
            (c.x, c.z, c.layer, p.index())
        })
        .collect();
    Some(Route {
        polys: path.polys,
        keys,
        complete,
        length: sp.length(),
        points: sp.positions(),
    })
}

/// The (tile index, poly index) of each poly: what a rebuilt tile keeps (its salt changes).
fn slots(cache: &TileCache, polys: &[PolyRef]) -> Vec<(u32, u32)> {
    let layout = cache.navmesh().params().ref_layout();
    polys
        .iter()
        .map(|p| {
            let (_, t, i) = layout.decode(p.to_u64());
            (t, i)
        })
        .collect()
}

fn assert_restored(cache: &TileCache, before: &Route, after: &Route, what: &str) {
    assert_eq!(
        after.points, before.points,
        "{what}: corners differ after removal"
    );
    assert_eq!(
        slots(cache, &after.polys),
        slots(cache, &before.polys),
        "{what}: polys differ after removal"
    );
    assert_eq!(after.complete, before.complete, "{what}");
}

/// The obstacle made the route partial, or at least 2 m longer.
fn blocked(before: &Route, with: &Route) -> bool {
    !with.complete || with.length > before.length + 2.0
}

/// Points of a route every `step` metres, away from its ends and from its corners, with the
/// direction of travel there.
fn samples(r: &Route, step: f32, margin: f32) -> Vec<(Vec3, Vec3)> {
    let mut out = Vec::new();
    let mut walked = 0.0;
    for w in r.points.windows(2) {
        let seg = w[1] - w[0];
        let len = seg.length();
        let mut t = 1.0;
        while t < len - 1.0 {
            let d = walked + t;
            if d > margin && d < r.length - margin {
                out.push((w[0] + seg * (t / len), seg / len));
            }
            t += step;
        }
        walked += len;
    }
    out
}

/// A cylinder that blocks the route from `a` to `b`. Across each sample point of the route the
/// corridor is measured with two raycasts (perpendicular to the route, both ways); the narrowest
/// places are tried with a cylinder centred in the corridor and wide enough to close it, until
/// the route becomes partial or at least 2 m longer. Returns the centre, the radius and the
/// route with the obstacle; the cache is left without it.
fn find_blocking_cylinder(cache: &mut TileCache, a: Vec3, b: Vec3) -> Option<(Vec3, f32, Route)> {
    let before = route(cache, a, b)?;
    let mut candidates: Vec<(f32, Vec3)> = {
        let f = QueryFilter::default();
        let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
        samples(&before, 0.5, 3.0)
            .into_iter()
            .filter_map(|(p, dir)| {
                let n = q.find_nearest_poly(p, DEFAULT_HALF_EXTENTS, &f).ok()?;
                let side = Vec3::new(-dir.z, 0.0, dir.x).normalize_or_zero();
                let mut reach = [10.0f32; 2];
                for (k, sgn) in [1.0f32, -1.0].into_iter().enumerate() {
                    let hit = q
                        .raycast(
                            n.poly,
                            n.point,
                            n.point + side * (10.0 * sgn),
                            &f,
                            &RaycastOptions::default(),
                        )
                        .ok()?;
                    if hit.hit() {
                        reach[k] = hit.t * 10.0;
                    }
                }
                let width = reach[0] + reach[1];
                let centre = n.point + side * ((reach[0] - reach[1]) * 0.5);
                (width < 6.0).then_some((width, centre))
            })
            .collect()
    };
    candidates.sort_by(|x, y| x.0.total_cmp(&y.0));
    let ends = [before.points[0], *before.points.last().unwrap()];
    for &(width, p) in candidates.iter().take(16) {
        let radius = width * 0.5 + 0.6;
        if ends.iter().any(|e| e.distance(p) < radius + 1.0) {
            continue;
        }
        let ob = cache
            .add(&cylinder(p - Vec3::Y * 0.5, radius, 3.0))
            .unwrap();
        cache.update_until_done().unwrap();
        let with = route(cache, a, b);
        cache.remove(ob).unwrap();
        cache.update_until_done().unwrap();
        if let Some(with) = with.filter(|w| blocked(&before, w)) {
            return Some((p, radius, with));
        }
    }
    None
}

/// Blocks the route a -> b with a cylinder, a box and an oriented box in turn; each changes the
/// path, and each removal restores it exactly. Returns (length before, lengths with each).
fn block_and_restore(cache: &mut TileCache, a: Vec3, b: Vec3, what: &str) -> (f32, Vec<Route>) {
    let before = route(cache, a, b).unwrap();
    assert!(before.complete, "{what}: base route incomplete");
    let (p, r, with_cylinder) =
        find_blocking_cylinder(cache, a, b).unwrap_or_else(|| panic!("{what}: no corridor found"));
    let after = route(cache, a, b).unwrap();
    assert_restored(cache, &before, &after, &format!("{what} cylinder"));

    let mut withs = vec![with_cylinder];
    for shape in ["box", "oriented box"] {
        let ob = if shape == "box" {
            cache
                .add(&aabb(p - Vec3::new(r, 0.5, r), p + Vec3::new(r, 2.5, r)))
                .unwrap()
        } else {
            cache
                .add(&oriented(p + Vec3::Y, Vec3::new(r, 1.5, r), 0.6))
                .unwrap()
        };
        assert_eq!(
            cache.obstacle(ob).unwrap().state,
            ObstacleState::Processing,
            "{what} {shape}"
        );
        let rep = cache.update_until_done().unwrap();
        assert!(
            rep.up_to_date && rep.tiles_rebuilt >= 1,
            "{what} {shape}: {rep:?}"
        );
        assert_eq!(cache.obstacle(ob).unwrap().state, ObstacleState::Processed);
        let with = route(cache, a, b).unwrap();
        assert!(
            blocked(&before, &with),
            "{what} {shape}: route not blocked ({} -> {}, complete {})",
            before.length,
            with.length,
            with.complete
        );
        cache.remove(ob).unwrap();
        assert_eq!(cache.obstacle(ob).unwrap().state, ObstacleState::Removing);
        cache.update_until_done().unwrap();
        assert!(cache.obstacle(ob).is_none(), "{what} {shape}: still listed");
        let after = route(cache, a, b).unwrap();
        assert_restored(cache, &before, &after, &format!("{what} {shape}"));
        withs.push(with);
    }
    eprintln!(
        "{what}: obstacle at {p} radius {r}; path {:.2} m -> cylinder {} / box {} / oriented box {} \
         -> {:.2} m after removal",
        before.length,
        describe(&withs[0]),
        describe(&withs[1]),
        describe(&withs[2]),
        route(cache, a, b).unwrap().length
    );
    (before.length, withs)
}

fn describe(r: &Route) -> String {
    if r.complete {
        format!("{:.2} m", r.length)
    } else {
        format!("partial ({:.2} m)", r.length)
    }
}

#[test]
fn nav_test_tile_cache_answers_every_test_case_query() {
    let (_, cache) = cache_of("nav_test.obj");
    let rep = cache.report();
    eprintln!(
        "nav_test: {} x {} tiles, {} layers, {} bytes compressed of {} raw, {} navmesh tiles, \
         bits {:?}, {:.0} ms",
        rep.tiles_x,
        rep.tiles_z,
        rep.layers,
        rep.compressed_bytes,
        rep.raw_bytes,
        rep.navmesh_tiles,
        rep.ref_bits,
        rep.total_ms
    );
    assert!(
        rep.layers >= rep.navmesh_tiles && rep.navmesh_tiles > 4,
        "{rep:?}"
    );
    assert!(rep.compressed_bytes * 3 < rep.raw_bytes, "{rep:?}");
    assert!(cache.is_up_to_date());
    let guard = cache.guard_stats();
    assert!(
        guard.checks >= rep.navmesh_tiles as u64 && guard.refused == 0,
        "{guard:?}"
    );
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    for query in &case.queries {
        let r = route(&cache, query.start, query.end).unwrap();
        assert!(r.complete, "line {}: partial", query.line);
        let end = *r.points.last().unwrap();
        assert!(
            end.distance(query.end) < 0.5,
            "line {}: ends at {end}",
            query.line
        );
    }
}

#[test]
fn obstacles_block_a_nav_test_corridor_and_removal_restores_the_path() {
    let (_, mut cache) = cache_of("nav_test.obj");
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    // The first query crosses the level from one corner to the other.
    let q = &case.queries[0];
    let (before, withs) = block_and_restore(&mut cache, q.start, q.end, "nav_test");
    for w in &withs {
        assert!(!w.complete || w.length > before + 2.0);
    }
    assert!(cache.obstacles().is_empty());
}

#[test]
fn obstacles_block_a_dungeon_corridor_and_removal_restores_the_path() {
    let (_, mut cache) = cache_of("dungeon.obj");
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(7);
    // Long routes between random points; the first that some cylinder blocks is used.
    let mut pairs = Vec::new();
    {
        let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
        for _ in 0..40 {
            let (_, a) = q.find_random_point(&f, &mut rng).unwrap();
            let (_, b) = q.find_random_point(&f, &mut rng).unwrap();
            pairs.push((a, b));
        }
    }
    let mut pairs: Vec<(f32, Vec3, Vec3)> = pairs
        .into_iter()
        .filter_map(|(a, b)| {
            let r = route(&cache, a, b)?;
            (r.complete && r.length > 20.0).then_some((r.length, a, b))
        })
        .collect();
    pairs.sort_by(|x, y| y.0.total_cmp(&x.0));
    let (a, b) = pairs
        .iter()
        .map(|&(_, a, b)| (a, b))
        .find(|&(a, b)| find_blocking_cylinder(&mut cache, a, b).is_some())
        .expect("dungeon: no blockable corridor on 40 random routes");
    block_and_restore(&mut cache, a, b, "dungeon");
}

#[test]
fn tset_round_trip_gives_the_same_queries() {
    let (g, cache) = cache_of("nav_test.obj");
    let bytes = cache.to_tset_bytes();
    let set = read_tset(&bytes).unwrap();
    assert_eq!(set.tiles.len(), cache.report().layers);
    let path = common::temp("nav_test.tset");
    cache.save(&path).unwrap();
    let loaded = TileCache::load(&path, &g.off_mesh_connections).unwrap();
    assert_eq!(
        loaded.to_tset_bytes(),
        bytes,
        "save -> load -> save differs"
    );
    assert_eq!(loaded.navmesh().tile_count(), cache.navmesh().tile_count());
    assert_eq!(loaded.params(), cache.params());
    eprintln!(
        "nav_test TSET: {} bytes, {} layers ({} bytes of layers)",
        bytes.len(),
        set.tiles.len(),
        cache.report().compressed_bytes
    );
    let case =
        TestCase::load(common::shared().join("meshes/recastdemo/nav_mesh_test.txt")).unwrap();
    for q in &case.queries {
        let a = route(&cache, q.start, q.end).unwrap();
        let b = route(&loaded, q.start, q.end).unwrap();
        assert_eq!(a.placed(), b.placed(), "line {}", q.line);
    }
    // The loaded cache takes obstacles like the built one.
    let mut loaded = loaded;
    let q = &case.queries[0];
    let ob = loaded
        .add(&cylinder(q.start + Vec3::new(3.0, -0.5, 0.0), 1.0, 2.0))
        .unwrap();
    assert!(loaded.update_until_done().unwrap().tiles_rebuilt >= 1);
    loaded.remove(ob).unwrap();
    loaded.update_until_done().unwrap();
    let before = route(&cache, q.start, q.end).unwrap();
    let after = route(&loaded, q.start, q.end).unwrap();
    assert_eq!(after.points, before.points);
}

#[test]
fn dungeon_tset_round_trip_is_byte_identical() {
    let (g, cache) = cache_of("dungeon.obj");
    let bytes = cache.to_tset_bytes();
    let loaded = TileCache::from_tset_bytes(&bytes, &g.off_mesh_connections).unwrap();
    assert_eq!(loaded.to_tset_bytes(), bytes);
    let polys = |c: &TileCache| c.navmesh().polys().len();
    assert_eq!(polys(&loaded), polys(&cache));
    // Building again gives the same bytes: every byte of a layer is defined, the layer
    // header's padding included (Detour copies the whole header into the layer).
    let (_, again) = cache_of("dungeon.obj");
    assert_eq!(again.to_tset_bytes(), bytes);
    eprintln!(
        "dungeon TSET: {} bytes, {} layers",
        bytes.len(),
        cache.report().layers
    );
}

/// Loads `bytes` if it is a valid TSET file and uses the cache a little, so that whatever
/// passed validation is also safe to build and query.
fn try_load(bytes: &[u8]) -> Result<(), Error> {
    let mut c = TileCache::from_tset_bytes(bytes, &[])?;
    let p = Vec3::from_array(c.params().origin) + Vec3::new(5.0, 0.0, 5.0);
    let _ = route(&c, p, p + Vec3::new(10.0, 0.0, 10.0));
    if let Ok(ob) = c.add(&cylinder(p, 1.0, 2.0)) {
        let _ = c.update_until_done();
        let _ = c.remove(ob);
        let _ = c.update_until_done();
    }
    Ok(())
}

#[test]
fn corrupt_tset_files_are_errors() {
    let (_, cache) = cache_of("nav_test.obj");
    let bytes = cache.to_tset_bytes();
    let set = read_tset(&bytes).unwrap();
    const HEADER: usize = 92;
    let first_data = HEADER + 8;
    let first_len = set.tiles[0].1.len();

    // Truncation: every offset through the first tile's layer header, around every tile
    // boundary, and every 211th byte; all errors.
    let mut cuts: Vec<usize> = (0..first_data + 80).collect();
    let mut at = HEADER;
    for (_, d) in &set.tiles {
        for delta in [0usize, 1, 4, 7, 8, 9, 40, 60] {
            cuts.push(at + delta);
        }
        at += 8 + d.len();
        cuts.push(at - 1);
    }
    cuts.extend((0..bytes.len()).step_by(211));
    cuts.retain(|&c| c < bytes.len());
    cuts.sort_unstable();
    cuts.dedup();
    for &c in &cuts {
        match TileCache::from_tset_bytes(&bytes[..c], &[]) {
            Err(Error::NavMeshData { offset, .. }) => {
                assert!(offset <= c, "cut {c}: offset {offset}")
            }
            other => panic!("truncated at {c}: {other:?}"),
        }
    }
    // One byte too many.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(matches!(
        TileCache::from_tset_bytes(&longer, &[]),
        Err(Error::NavMeshData { .. })
    ));

    // Flipped bytes in the header, the first tile header and the first layer header: never a
    // panic; structural fields always an error; what passes validation builds and answers.
    let must_fail: Vec<usize> = [
        0..12,                                // magic, version, numTiles
        (12 + 28 + 20)..(12 + 28 + 28),       // cache width, height
        (first_data - 4)..first_data,         // dataSize
        first_data..first_data + 20,          // layer magic, version, tx, ty, tlayer
        (first_data + 52)..(first_data + 54), // layer width, height
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut errors = 0;
    let mut passed = 0;
    for i in 0..first_data + 56 {
        for mask in [0xffu8, 0x01, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= mask;
            match try_load(&b) {
                Ok(()) => {
                    passed += 1;
                    assert!(
                        !(must_fail.contains(&i) && mask == 0xff),
                        "flipping byte {i} with {mask:#x} was accepted"
                    );
                }
                Err(Error::NavMeshData { .. }) | Err(Error::Detour { .. }) => errors += 1,
                // The version's bytes: a version navkit does not read.
                Err(Error::VersionMismatch {
                    what: "TSET file",
                    found,
                    ..
                }) if (4..8).contains(&i) => {
                    assert_eq!(found, i32::from_le_bytes(b[4..8].try_into().unwrap()));
                    errors += 1;
                }
                Err(e) => panic!("byte {i}: unexpected error kind {e}"),
            }
        }
    }
    eprintln!("flipped header bytes: {errors} errors, {passed} still valid");
    assert!(errors > passed);

    // Flipped bytes in the first layer's compressed grids: corrupt LZ4, wrong sizes, bad
    // areas or connections are errors; the rest loads and works.
    let (mut grid_errors, mut grid_ok) = (0, 0);
    for i in (first_data + 56)..(first_data + first_len).min(first_data + 56 + 400) {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        match try_load(&b) {
            Ok(()) => grid_ok += 1,
            Err(_) => grid_errors += 1,
        }
    }
    eprintln!("flipped grid bytes: {grid_errors} errors, {grid_ok} still valid");
    assert!(grid_errors > 0);

    // Garbage, with and without a valid magic.
    let mut rng = rand_pcg::Pcg32::seed_from_u64(3);
    for len in [0usize, 1, 4, 91, 92, 93, 100, 1000, 5000] {
        for with_magic in [false, true] {
            let mut g: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
            if with_magic && len >= 8 {
                g[..4].copy_from_slice(&bytes[..4]);
                g[4..8].copy_from_slice(&bytes[4..8]);
            }
            assert!(
                TileCache::from_tset_bytes(&g, &[]).is_err(),
                "garbage of {len}"
            );
        }
    }
    // An MSET file is not a TSET file.
    let mset = cache.navmesh().to_mset_bytes();
    assert!(matches!(
        TileCache::from_tset_bytes(&mset, &[]),
        Err(Error::NavMeshData { offset: 0, .. })
    ));
}

#[test]
fn compressor_round_trips_and_rejects_corrupt_data() {
    for c in LayerCompression::ALL {
        let mut rng = rand_pcg::Pcg32::seed_from_u64(11);
        let cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            vec![0u8; 48 * 48 * 3],
            (0..48 * 48 * 3).map(|_| rng.r#gen()).collect(),
            (0..255 * 255 * 3).map(|i| (i % 7) as u8).collect(),
        ];
        for data in &cases {
            let z = compress_layer_grids(data, c).unwrap();
            let d = decompress_layer_grids(&z, data.len() / 3, c).unwrap();
            assert_eq!(&d, data, "{c}");
            // Wrong cell counts and truncations fail.
            if !data.is_empty() {
                assert!(decompress_layer_grids(&z, data.len() / 3 + 1, c).is_err());
                assert!(decompress_layer_grids(&z, data.len() / 3 - 1, c).is_err());
                for cut in [1, z.len() / 2, z.len() - 1] {
                    assert!(decompress_layer_grids(&z[..cut], data.len() / 3, c).is_err());
                }
            }
        }
        // A real layer: its grids recompress to the same bytes.
        let g = geom("undulating.obj");
        let settings = TileCacheSettings {
            layer_compression: c,
            ..TileCacheSettings::default()
        };
        let cache = NavMeshBuilder::new(&g)
            .settings(BuildSettings::default())
            .cache_settings(settings.clone())
            .tile_cache()
            .unwrap();
        assert_eq!(cache.layer_compression(), c);
        let set = read_tset(&cache.to_tset_bytes()).unwrap();
        assert_eq!(set.compression, c);
        let cells = (set.cache.width * set.cache.height) as usize;
        for (_, layer) in set.tiles.iter().take(5) {
            let grids = decompress_layer_grids(&layer[56..], cells, c).unwrap();
            assert_eq!(compress_layer_grids(&grids, c).unwrap(), &layer[56..]);
        }
        // Random garbage never decompresses to the exact size, nor panics.
        for len in [1usize, 2, 16, 300, 5000] {
            for _ in 0..50 {
                let g: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
                let _ = decompress_layer_grids(&g, cells, c);
            }
        }
        assert!(compress_layer_grids(&[1, 2], c).is_err());
    }
}

#[test]
fn obstacle_pool_full_is_an_error_until_one_is_removed() {
    let g = geom("nav_test.obj");
    let settings = TileCacheSettings {
        max_obstacles: 4,
        ..TileCacheSettings::default()
    };
    let mut cache = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .cache_settings(settings.clone())
        .tile_cache()
        .unwrap();
    let p = Vec3::new(18.0, -2.9, -21.0);
    let obs: Vec<ObstacleRef> = (0..4)
        .map(|i| {
            cache
                .add(&cylinder(p + Vec3::X * (i as f32 * 2.0), 0.5, 2.0))
                .unwrap()
        })
        .collect();
    match cache.add(&cylinder(p, 0.5, 2.0)) {
        Err(Error::PoolFull { what, capacity }) => assert_eq!((what, capacity), ("obstacle", 4)),
        other => panic!("fifth obstacle: {other:?}"),
    }
    assert!(cache.add(&aabb(p, p + Vec3::ONE)).is_err());
    cache.update_until_done().unwrap();
    assert_eq!(cache.obstacles().len(), 4);
    cache.remove(obs[0]).unwrap();
    // The slot comes back once its tiles are rebuilt.
    assert!(cache.add(&cylinder(p, 0.5, 2.0)).is_err());
    cache.update_until_done().unwrap();
    let again = cache.add(&cylinder(p, 0.5, 2.0)).unwrap();
    assert_ne!(again, obs[0], "a reused slot gets a new salt");
    // The old ref is stale.
    assert!(matches!(
        cache.remove(obs[0]),
        Err(Error::StaleHandle { .. })
    ));
}

#[test]
fn bad_obstacles_and_stale_refs_are_errors() {
    let (_, mut cache) = cache_of("nav_test.obj");
    let p = Vec3::new(18.0, -2.9, -21.0);
    let nan = f32::NAN;
    let inf = f32::INFINITY;
    let invalid = |r: navkit::Result<ObstacleRef>| matches!(r, Err(Error::InvalidArgument(_)));
    assert!(invalid(cache.add(&cylinder(
        Vec3::new(nan, 0.0, 0.0),
        1.0,
        2.0
    ))));
    assert!(invalid(cache.add(&cylinder(p, nan, 2.0))));
    assert!(invalid(cache.add(&cylinder(p, 1.0, inf))));
    assert!(invalid(cache.add(&cylinder(p, -1.0, 2.0))));
    assert!(invalid(cache.add(&cylinder(p, 0.0, 2.0))));
    assert!(invalid(cache.add(&aabb(Vec3::splat(nan), p))));
    assert!(invalid(cache.add(&aabb(p + Vec3::ONE, p))));
    assert!(invalid(cache.add(&aabb(p, p + Vec3::new(1.0, inf, 1.0)))));
    assert!(invalid(cache.add(&oriented(p, Vec3::ONE, nan))));
    assert!(invalid(cache.add(&oriented(
        p,
        Vec3::new(1.0, -1.0, 1.0),
        0.0
    ))));
    assert!(invalid(cache.add(&oriented(
        Vec3::splat(inf),
        Vec3::ONE,
        0.0
    ))));
    // Huge or far-away obstacles (Detour would convert their bounds to int).
    assert!(invalid(cache.add(&cylinder(p, 1.0e6, 2.0))));
    assert!(invalid(
        cache.add(&aabb(p, p + Vec3::new(1.0, 1.0e30, 1.0)))
    ));
    assert!(invalid(cache.add(&cylinder(Vec3::splat(3.0e9), 1.0, 2.0))));
    // Wider than 8 tiles.
    assert!(invalid(
        cache.add(&aabb(p - Vec3::splat(70.0), p + Vec3::splat(70.0)))
    ));
    assert!(cache.obstacles().is_empty());
    assert!(cache.is_up_to_date());

    // Stale refs: forged, double removal, removal after processing.
    assert!(cache.remove(ObstacleRef(0)).is_err());
    assert!(cache.remove(ObstacleRef(0x0001_0005)).is_err());
    let ob = cache.add(&cylinder(p, 1.0, 2.0)).unwrap();
    cache.remove(ob).unwrap();
    assert!(matches!(cache.remove(ob), Err(Error::StaleHandle { .. })));
    cache.update_until_done().unwrap();
    assert!(matches!(cache.remove(ob), Err(Error::StaleHandle { .. })));
    assert!(cache.obstacles().is_empty());
    let shape = ObstacleShape::OrientedBox {
        center: p,
        half_extents: Vec3::ONE,
        y_angle: 0.6,
    };
    let o = cache.add(&oriented(p, Vec3::ONE, 0.6)).unwrap();
    match cache.obstacle(o).unwrap().shape {
        ObstacleShape::OrientedBox { y_angle, .. } => assert!((y_angle - 0.6).abs() < 1e-5),
        s => panic!("{s:?} is not {shape:?}"),
    }
    cache.update_until_done().unwrap();

    // More than 64 queued requests (or tile rebuilds) without an update: an error, until
    // update runs.
    let mut queued = 0;
    let err = loop {
        let q = p + Vec3::new((queued % 8) as f32 * 1.5, 0.0, (queued / 8) as f32 * 1.5);
        match cache.add(&cylinder(q, 0.2, 2.0)) {
            Ok(_) => queued += 1,
            Err(e) => break e,
        }
        assert!(queued <= 64);
    };
    match err {
        Error::QueueFull { capacity, .. } => assert_eq!(capacity, 64),
        e => panic!("{e}"),
    }
    let rep = cache.update(Duration::ZERO).unwrap();
    assert_eq!(rep.steps, 1);
    assert!(cache.add(&cylinder(p, 0.2, 2.0)).is_ok());
    let rep = cache.update_until_done().unwrap();
    assert!(rep.up_to_date);
    eprintln!("{queued} requests queued before the queue was full");
}

#[test]
fn update_respects_its_budget_and_reports_rebuilt_tiles() {
    let (_, mut cache) = cache_of("nav_test.obj");
    let p = Vec3::new(0.0, -2.9, 0.0);
    // A box over several tiles.
    cache
        .add(&aabb(
            p - Vec3::new(5.0, 1.0, 5.0),
            p + Vec3::new(5.0, 3.0, 5.0),
        ))
        .unwrap();
    assert!(!cache.is_up_to_date());
    let first = cache.update(Duration::ZERO).unwrap();
    assert_eq!(first.steps, 1);
    assert!(!first.up_to_date);
    assert_eq!(first.tiles_rebuilt, 1);
    let rest = cache.update_until_done().unwrap();
    assert!(rest.up_to_date && cache.is_up_to_date());
    assert!(rest.tiles_rebuilt >= 1, "{rest:?}");
    assert_eq!(rest.tiles_rebuilt, rest.steps);
    // Nothing pending: no step.
    let idle = cache.update(Duration::from_millis(5)).unwrap();
    assert_eq!(
        (idle.steps, idle.tiles_rebuilt, idle.up_to_date),
        (0, 0, true)
    );
    eprintln!(
        "box over {} tile layers: rebuilt in {:?}",
        first.tiles_rebuilt + rest.tiles_rebuilt,
        first.elapsed + rest.elapsed
    );
}

/// A row of one-cell obstacles every other cell makes a comb of tiny regions, which would
/// overflow Detour's 16 neighbour slots per region: the guard refuses the layer, the update
/// reports it, and the cache and navmesh stay usable.
#[test]
fn comb_of_obstacles_is_refused_not_overflowed() {
    // A flat 30 x 30 m floor.
    let mesh = TriMesh::new(
        vec![
            0.0, 0.0, 0.0, 30.0, 0.0, 0.0, 30.0, 0.0, 30.0, 0.0, 0.0, 30.0,
        ],
        vec![0, 2, 1, 0, 3, 2],
    )
    .unwrap();
    let g = InputGeometry::from_mesh(mesh);
    let mut cache = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let params = cache.params();
    let cs = params.cell_size;
    let origin = Vec3::from_array(params.origin);
    let before = route(
        &cache,
        origin + Vec3::new(5.0, 0.0, 2.0),
        origin + Vec3::new(5.0, 0.0, 12.0),
    )
    .unwrap();
    assert!(before.complete);
    // Tile (0, 0), row 20: obstacles on cells 2, 4, ..., 46.
    let mut obs = Vec::new();
    for i in 0..23 {
        let x = origin.x + (2.0 + 2.0 * i as f32 + 0.5) * cs;
        let z = origin.z + (20.0 + 0.5) * cs;
        obs.push(
            cache
                .add(&cylinder(Vec3::new(x, origin.y - 0.5, z), 0.01, 2.0))
                .unwrap(),
        );
    }
    let refused_before = cache.guard_stats().refused;
    match cache.update_until_done() {
        Err(Error::Build { stage, .. }) => {
            assert_eq!(stage, navkit::build::Stage::TileCacheRegions)
        }
        other => panic!("comb accepted: {other:?}"),
    }
    assert!(cache.guard_stats().refused > refused_before);
    cache.update_until_done().unwrap();
    // The tile kept its polygons: the route still works.
    let during = route(
        &cache,
        origin + Vec3::new(5.0, 0.0, 2.0),
        origin + Vec3::new(5.0, 0.0, 12.0),
    )
    .unwrap();
    assert!(during.complete);
    // Without every other obstacle the comb is fine (regions have few neighbours).
    for ob in obs.iter().skip(8) {
        cache.remove(*ob).unwrap();
    }
    cache.update_until_done().unwrap();
    for ob in obs.iter().take(8) {
        cache.remove(*ob).unwrap();
    }
    cache.update_until_done().unwrap();
    let after = route(
        &cache,
        origin + Vec3::new(5.0, 0.0, 2.0),
        origin + Vec3::new(5.0, 0.0, 12.0),
    )
    .unwrap();
    assert_eq!(after.points, before.points);
    eprintln!("guard: {:?}", cache.guard_stats());
}

#[test]
fn bad_settings_are_errors() {
    let g = geom("nav_test.obj");
    for s in [
        TileCacheSettings {
            tile_size: 0,
            ..Default::default()
        },
        TileCacheSettings {
            tile_size: 256,
            ..Default::default()
        },
        TileCacheSettings {
            max_obstacles: 0,
            ..Default::default()
        },
        TileCacheSettings {
            expected_layers_per_tile: 0,
            ..Default::default()
        },
    ] {
        assert!(matches!(
            NavMeshBuilder::new(&g)
                .settings(BuildSettings::default())
                .cache_settings(s.clone())
                .tile_cache(),
            Err(Error::Setting { .. })
        ));
    }
}

/// Off-mesh connections reach every tile through the mesh process (and must be passed again
/// when loading, as upstream), and convex volumes give their areas and RecastDemo's flags.
#[test]
fn off_mesh_connections_and_convex_volumes_reach_the_tiles() {
    // Ground floor and the raised platform of nav_test, joined by a jump (see tests/offmesh.rs).
    let ground = Vec3::new(20.161, -2.27, -18.1);
    let platform = Vec3::new(-0.629, 8.33, -7.66);
    let mut g = geom("nav_test.obj");
    g.off_mesh_connections.push(OffMeshConnection {
        start: Vec3::new(-0.6, -2.27, -15.5),
        // Onto the platform (its edge lies a little further in than in the solo build).
        end: Vec3::new(-0.63, 8.33, -11.0),
        radius: 0.6,
        bidirectional: true,
        area: area::JUMP,
        flags: flags::JUMP,
        user_id: 1000,
    });
    // A pool of water on the ground floor near the start.
    let c = ground + Vec3::new(-3.0, 0.0, 3.0);
    g.convex_volumes.push(ConvexVolume {
        verts: vec![
            c + Vec3::new(-1.5, 0.0, -1.5),
            c + Vec3::new(1.5, 0.0, -1.5),
            c + Vec3::new(1.5, 0.0, 1.5),
            c + Vec3::new(-1.5, 0.0, 1.5),
        ],
        hmin: -5.0,
        hmax: 0.0,
        area: area::WATER,
    });
    let cache = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap();
    let polys = cache.navmesh().polys();
    let jumps: Vec<_> = polys.iter().filter(|p| p.off_mesh).collect();
    assert_eq!(
        jumps.len(),
        1,
        "one tile layer holds the connection's start"
    );
    assert_eq!((jumps[0].area, jumps[0].flags), (area::JUMP, flags::JUMP));
    let water: Vec<_> = polys.iter().filter(|p| p.area == area::WATER).collect();
    assert!(!water.is_empty());
    assert!(water.iter().all(|p| p.flags == flags::SWIM));
    assert!(
        polys
            .iter()
            .filter(|p| !p.off_mesh && p.area == area::GROUND)
            .all(|p| p.flags == flags::WALK)
    );
    let r = route(&cache, ground, platform).unwrap();
    assert!(r.complete, "the jump joins the floors");

    // Loading with the connections gives the same navmesh; without them, no jump.
    let bytes = cache.to_tset_bytes();
    let with = TileCache::from_tset_bytes(&bytes, &g.off_mesh_connections).unwrap();
    assert_eq!(route(&with, ground, platform).unwrap().placed(), r.placed());
    let without = TileCache::from_tset_bytes(&bytes, &[]).unwrap();
    assert!(!route(&without, ground, platform).unwrap().complete);
    // Bad connections are refused.
    let mut bad = g.off_mesh_connections.clone();
    bad[0].radius = f32::NAN;
    assert!(matches!(
        TileCache::from_tset_bytes(&bytes, &bad),
        Err(Error::InvalidArgument(_))
    ));
}
