//! RecastDemo's `TSET` files both ways. RecastDemo's own tile cache of dungeon.obj (FastLZ
//! layers, `../shared/meshes/recastdemo-files/`) loads, builds its navmesh, answers queries as
//! navkit's own build of dungeon.obj does, and saves back byte-identical; what navkit writes by
//! default is RecastDemo's format (checked byte by byte, with RecastDemo's fastlz.c decoding
//! the layers); LZ4 files (navkit's LZ4 version and the older version-1 ones) load and convert;
//! corrupt FastLZ layers are typed errors.

mod common;

use std::collections::{HashMap, HashSet};

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{
    DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter, StraightPathOptions,
};
use navkit::tilecache::{
    LayerCompression, TSET_MAGIC, TSET_VERSION, TSET_VERSION_LZ4, TileCache, TileCacheSet,
    TileCacheSettings, fastlz, read_tset, write_tset,
};
use navkit::{BuildSettings, Error, InputGeometry, NavMesh};
use rand::SeedableRng;

/// `TileCacheSetHeader` size: magic, version, numTiles, dtNavMeshParams, dtTileCacheParams.
const HEADER: usize = 12 + 28 + 52;
/// `TileCacheTileHeader` size: a 4-byte tile ref and a 4-byte data size.
const TILE_HEADER: usize = 8;
/// `dtTileCacheLayerHeader` rounded up to 4: where a layer's compressed grids start.
const LAYER_HEADER: usize = 56;

fn recastdemo_tset() -> Vec<u8> {
    let path = common::shared().join("meshes/recastdemo-files/dungeon_all_tiles_tilecache.bin");
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn build(name: &str, compression: LayerCompression) -> (InputGeometry, TileCache) {
    let g = InputGeometry::load(common::mesh(name)).unwrap();
    let settings = TileCacheSettings {
        layer_compression: compression,
        ..TileCacheSettings::default()
    };
    let c = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .cache_settings(settings.clone())
        .tile_cache()
        .unwrap();
    (g, c)
}

fn i32_at(b: &[u8], at: usize) -> i32 {
    i32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Walks a `TSET` file as RecastDemo's `loadAll` reads it: the header's fields and each tile's
/// (ref, data), checking that the records exactly fill the file.
fn walk(bytes: &[u8]) -> (i32, i32, Vec<(u32, &[u8])>) {
    let (magic, version, n) = (i32_at(bytes, 0), i32_at(bytes, 4), i32_at(bytes, 8));
    let mut at = HEADER;
    let mut tiles = Vec::new();
    for _ in 0..n {
        let r = i32_at(bytes, at) as u32;
        let size = i32_at(bytes, at + 4) as usize;
        tiles.push((r, &bytes[at + TILE_HEADER..at + TILE_HEADER + size]));
        at += TILE_HEADER + size;
    }
    assert_eq!(at, bytes.len(), "tile records do not fill the file");
    (magic, version, tiles)
}

#[test]
fn recastdemo_tset_loads_builds_and_saves_back_byte_identical() {
    let bytes = recastdemo_tset();
    let set = read_tset(&bytes).unwrap();
    // What the README says the file holds.
    assert_eq!(set.compression, LayerCompression::FastLz);
    assert_eq!(set.tiles.len(), 30);
    let (n, c) = (&set.navmesh, &set.cache);
    for (a, b) in n.origin.iter().zip([-25.0152, -0.0027, -90.0413]) {
        assert!((a - b).abs() < 1e-4, "origin {:?}", n.origin);
    }
    assert_eq!(c.origin, n.origin);
    assert!((n.tile_width - 14.4).abs() < 1e-4 && (n.tile_height - 14.4).abs() < 1e-4);
    assert_eq!((n.max_tiles, n.max_polys), (256, 16384));
    assert_eq!(
        (c.width, c.height, c.max_tiles, c.max_obstacles),
        (48, 48, 168, 128)
    );
    assert_eq!(
        (
            c.cell_size,
            c.cell_height,
            c.walkable_height,
            c.walkable_radius
        ),
        (0.3, 0.2, 2.0, 0.6)
    );
    assert_eq!((c.walkable_climb, c.max_simplification_error), (0.9, 1.3));
    // Tile refs as dtTileCache gives them to tiles added in order: salt 1, index 0..30.
    let refs: Vec<u32> = set.tiles.iter().map(|t| t.0).collect();
    assert_eq!(refs, (0..30).map(|i| 0x100 | i).collect::<Vec<u32>>());

    let cells = 48 * 48;
    for (i, (_, layer)) in set.tiles.iter().enumerate() {
        let stream = &layer[LAYER_HEADER..];
        assert_eq!(
            stream[0] >> 5,
            0,
            "tile {i}: FastLZ level 1 (grids under 64 KiB)"
        );
        // RecastDemo's own decoder and navkit's agree on every layer, and compressing the
        // grids again with fastlz.c gives RecastDemo's bytes (FastLZ is deterministic).
        let ours = fastlz::decompress(stream, 4 * cells).unwrap();
        assert_eq!(ours.len(), 3 * cells);
        let (r, theirs) = fastlz::reference_decompress(stream, 4 * cells).unwrap();
        assert_eq!((r as usize, &theirs), (3 * cells, &ours), "tile {i}");
        assert_eq!(fastlz::compress(&ours).unwrap(), stream, "tile {i}");
    }

    let tc = TileCache::from_tset_bytes(&bytes, &[]).unwrap();
    assert_eq!(tc.layer_compression(), LayerCompression::FastLz);
    let report = tc.report();
    assert_eq!((report.layers, report.navmesh_tiles), (30, 30));
    assert_eq!((report.tiles_x, report.tiles_z), (6, 7));
    assert_eq!(
        report.compressed_bytes,
        bytes.len() - HEADER - 30 * TILE_HEADER
    );
    assert!(tc.navmesh().polys().len() > 100);
    // Saved back: the very same file.
    assert_eq!(tc.to_tset_bytes(), bytes);
    let path = common::temp("recastdemo-dungeon.tset");
    tc.save(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);
    // And through LZ4 and back: the same file again.
    let lz4 = tc.to_tset_bytes_with(LayerCompression::Lz4).unwrap();
    assert_eq!(i32_at(&lz4, 4), TSET_VERSION_LZ4);
    let back = TileCache::from_tset_bytes(&lz4, &[]).unwrap();
    assert_eq!(back.layer_compression(), LayerCompression::Lz4);
    assert_eq!(
        back.to_tset_bytes_with(LayerCompression::FastLz).unwrap(),
        bytes
    );
}

/// A polygon as (tile x, tile z, layer, index in its tile): the same polygon whatever tile index
/// (so whatever poly ref) its navmesh gave its tile.
type PolyKey = (i32, i32, i32, usize);

fn key(nav: &NavMesh, r: PolyRef) -> PolyKey {
    let p = nav.poly(r).unwrap();
    let c = p.tile().coord();
    (c.x, c.z, c.layer, p.index())
}

/// A path as compared here: corridor (as [`PolyKey`]s), corners, completeness.
#[derive(Debug, PartialEq)]
struct Route {
    polys: Vec<PolyKey>,
    points: Vec<Vec3>,
    complete: bool,
}

fn route(cache: &TileCache, a: Vec3, b: Vec3) -> Option<Route> {
    let f = QueryFilter::default();
    let mut q = NavMeshQuery::new(cache.navmesh(), 4096).unwrap();
    let s = q.find_nearest_poly(a, DEFAULT_HALF_EXTENTS, &f).ok()?;
    let e = q.find_nearest_poly(b, DEFAULT_HALF_EXTENTS, &f).ok()?;
    let path = q
        .find_path(s.poly, e.poly, s.point, e.point, &f, 4096)
        .ok()?;
    let sp = q
        .find_straight_path(
            s.point,
            e.point,
            &path.polys,
            &StraightPathOptions {
                max_points: 4096,
                ..StraightPathOptions::default()
            },
        )
        .ok()?;
    Some(Route {
        complete: path.is_complete(),
        polys: path
            .polys
            .iter()
            .map(|&r| key(cache.navmesh(), r))
            .collect(),
        points: sp.positions(),
    })
}

/// Decoded grids (heights, areas, connections) of a FastLZ layer of 48 x 48 cells.
fn grids(layer: &[u8]) -> Vec<u8> {
    fastlz::decompress(&layer[LAYER_HEADER..], 4 * 48 * 48).unwrap()
}

#[test]
fn navkit_builds_recastdemos_tile_cache_of_dungeon() {
    let theirs = recastdemo_tset();
    let (_, cache) = build("dungeon.obj", LayerCompression::FastLz);
    let ours = cache.to_tset_bytes();
    // Same settings (RecastDemo's defaults): the same header, byte for byte.
    assert_eq!(ours[..HEADER], theirs[..HEADER]);
    let (a, b) = (read_tset(&ours).unwrap(), read_tset(&theirs).unwrap());
    assert_eq!(a.tiles.len(), b.tiles.len());
    // 29 of the 30 layers are byte-identical (headers and FastLZ streams). Layer 7 (tile
    // (3, 1), layer 1: a floor at y 24-24.8) differs: navkit's Recast (recastnavigation-sys
    // 1.0.3) finds two more walkable cells there than the Recast that wrote RecastDemo's file,
    // so the layer's top (bmax.y, hmax) and the connections of three neighbouring cells
    // differ with them. Every other cell is the same.
    let mut differing = Vec::new();
    for (i, ((ra, da), (rb, db))) in a.tiles.iter().zip(&b.tiles).enumerate() {
        assert_eq!(ra, rb, "tile {i} ref");
        if da != db {
            differing.push(i);
        }
    }
    assert_eq!(differing, [7]);
    let (da, db) = (&a.tiles[7].1, &b.tiles[7].1);
    let header_diff: Vec<usize> = (0..LAYER_HEADER).filter(|&k| da[k] != db[k]).collect();
    assert_eq!(header_diff, [36, 37, 38, 46], "bmax.y and hmax only");
    let f = |d: &[u8], at: usize| f32::from_le_bytes(d[at..at + 4].try_into().unwrap());
    assert_eq!((f(da, 36), f(db, 36)), (24.797295, 24.597294));
    assert_eq!((da[46], db[46]), (124, 123));
    let (ga, gb) = (grids(da), grids(db));
    let cell = |g: &[u8], x: usize, z: usize| {
        let c = x + z * 48;
        (g[c], g[48 * 48 + c], g[2 * 48 * 48 + c])
    };
    let mut cell_diff = Vec::new();
    for z in 0..48 {
        for x in 0..48 {
            if cell(&ga, x, z) != cell(&gb, x, z) {
                cell_diff.push(((x, z), cell(&ga, x, z), cell(&gb, x, z)));
            }
        }
    }
    // (height, area, connections): 255/0/0 is an empty cell; 63 is Recast's walkable area.
    assert_eq!(
        cell_diff,
        [
            ((10, 7), (3, 63, 11), (3, 63, 9)),
            ((9, 8), (3, 63, 15), (3, 63, 9)),
            ((10, 8), (3, 63, 9), (255, 0, 0)),
            ((8, 9), (3, 63, 13), (3, 63, 9)),
            ((9, 9), (4, 63, 9), (255, 0, 0)),
        ]
    );

    // Queries: both caches give the same corridor and corners on every pair of points whose
    // corridors avoid the polygons that differ (those of the tile built from layer 7). The
    // build makes its navmesh position by position and the load in file order (RecastDemo's
    // two orders: tests/tset_load_order.rs), so where a position has several layers the same
    // polygon has another ref in each: polygons are compared by tile position, layer and index.
    let loaded = TileCache::from_tset_bytes(&theirs, &[]).unwrap();
    let polys = |c: &TileCache| -> HashMap<PolyKey, Vec<Vec3>> {
        c.navmesh()
            .polys()
            .into_iter()
            .map(|p| (key(c.navmesh(), p.poly), p.verts))
            .collect()
    };
    let (pa, pb) = (polys(&cache), polys(&loaded));
    let changed: HashSet<PolyKey> = pa
        .keys()
        .chain(pb.keys())
        .filter(|r| pa.get(r) != pb.get(r))
        .copied()
        .collect();
    assert!(
        !changed.is_empty() && changed.len() < 20,
        "{} polys differ",
        changed.len()
    );
    assert!(pa.len() > 100);
    let mut q = NavMeshQuery::new(loaded.navmesh(), 2048).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(12);
    let f = QueryFilter::default();
    let (mut same, mut touching, mut long) = (0, 0, 0);
    for _ in 0..300 {
        let (_, a) = q.find_random_point(&f, &mut rng).unwrap();
        let (_, b) = q.find_random_point(&f, &mut rng).unwrap();
        let (ra, rb) = (route(&cache, a, b).unwrap(), route(&loaded, a, b).unwrap());
        let touches = |r: &Route| r.polys.iter().any(|p| changed.contains(p));
        if touches(&ra) || touches(&rb) {
            touching += 1;
            continue;
        }
        assert_eq!(ra, rb, "{a} -> {b}");
        same += 1;
        if ra.polys.len() > 10 {
            long += 1;
        }
    }
    eprintln!("dungeon: {same} identical routes ({long} of 10+ polys), {touching} near layer 7");
    assert!(same >= 200 && long >= 50);
}

#[test]
fn navkit_tset_is_recastdemos_format() {
    let (_, cache) = build("nav_test.obj", LayerCompression::FastLz);
    assert_eq!(
        TileCacheSettings::default().layer_compression,
        LayerCompression::FastLz
    );
    assert_eq!(cache.layer_compression(), LayerCompression::FastLz);
    let bytes = cache.to_tset_bytes();
    let (magic, version, tiles) = walk(&bytes);
    assert_eq!((magic, version), (TSET_MAGIC, 1));
    assert_eq!(TSET_VERSION, 1);
    assert_eq!(tiles.len(), cache.report().layers);
    let params = cache.params();
    let cells = (params.width * params.height) as usize;
    let mut seen = HashSet::new();
    for (r, data) in &tiles {
        // A tile cache ref (non-zero, distinct) and a layer: 'DTLR' magic, version 1.
        assert!(*r != 0 && seen.insert(*r));
        assert_eq!(i32_at(data, 0), i32::from_le_bytes(*b"RLTD"));
        assert_eq!(i32_at(data, 4), 1);
        assert_eq!(
            (data[48] as i32, data[49] as i32),
            (params.width, params.height)
        );
        // fastlz.c's own decoder takes the stream and gives the 3 grids, as navkit's does,
        // and fastlz.c's compressor makes the same stream from them.
        let stream = &data[LAYER_HEADER..];
        let (n, out) = fastlz::reference_decompress(stream, 4 * cells).unwrap();
        assert_eq!(n as usize, 3 * cells);
        assert_eq!(out, fastlz::decompress(stream, 4 * cells).unwrap());
        assert_eq!(fastlz::compress(&out).unwrap(), stream);
    }
    // What RecastDemo would load is what navkit loads back, byte for byte.
    let loaded = TileCache::from_tset_bytes(&bytes, &[]).unwrap();
    assert_eq!(loaded.to_tset_bytes(), bytes);
}

#[test]
fn lz4_files_round_trip_and_old_version_1_lz4_files_still_load() {
    let (_, lz4) = build("nav_test.obj", LayerCompression::Lz4);
    let (_, fast) = build("nav_test.obj", LayerCompression::FastLz);
    let bytes = lz4.to_tset_bytes();
    let (magic, version, tiles) = walk(&bytes);
    // A version RecastDemo's loadAll refuses before reading anything else.
    assert_eq!((magic, version), (TSET_MAGIC, TSET_VERSION_LZ4));
    assert_ne!(version, TSET_VERSION);
    assert_eq!(&bytes[4..8], &[1, b'4', b'Z', b'L']);
    assert_eq!(tiles.len(), fast.report().layers);
    let set = read_tset(&bytes).unwrap();
    assert_eq!(set.compression, LayerCompression::Lz4);
    let loaded = TileCache::from_tset_bytes(&bytes, &[]).unwrap();
    assert_eq!(loaded.layer_compression(), LayerCompression::Lz4);
    assert_eq!(loaded.to_tset_bytes(), bytes);
    // The same layers in either format: converting one build gives the other's file exactly.
    assert_eq!(
        lz4.to_tset_bytes_with(LayerCompression::FastLz).unwrap(),
        fast.to_tset_bytes()
    );
    assert_eq!(
        fast.to_tset_bytes_with(LayerCompression::Lz4).unwrap(),
        bytes
    );
    assert_eq!(
        set.recompressed(LayerCompression::FastLz).unwrap(),
        read_tset(&fast.to_tset_bytes()).unwrap()
    );
    let path = common::temp("nav_test-lz4.tset");
    fast.save_with(&path, LayerCompression::Lz4).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), bytes);

    // navkit's LZ4 files from before FastLZ: version 1 with LZ4 layers. They load as LZ4, and
    // save with the LZ4 version (the only bytes that change).
    let mut old = bytes.clone();
    old[4..8].copy_from_slice(&1i32.to_le_bytes());
    let set = read_tset(&old).unwrap();
    assert_eq!(set.compression, LayerCompression::Lz4);
    let loaded = TileCache::from_tset_bytes(&old, &[]).unwrap();
    assert_eq!(loaded.layer_compression(), LayerCompression::Lz4);
    assert_eq!(loaded.to_tset_bytes(), bytes);
    // A version-1 LZ4 file with a corrupt later layer reports that layer (the LZ4 reading got
    // further than the FastLZ one), as LZ4.
    let mut set = read_tset(&old).unwrap();
    set.compression = LayerCompression::FastLz; // written with version 1
    let last = set.tiles.len() - 1;
    set.tiles[last].1.truncate(LAYER_HEADER + 3);
    let bad = write_tset(&set);
    let last_at = bad.len() - (LAYER_HEADER + 3);
    match TileCache::from_tset_bytes(&bad, &[]) {
        Err(Error::NavMeshData {
            offset, message, ..
        }) => {
            assert_eq!(offset, last_at + LAYER_HEADER, "{message}");
            assert!(message.contains("LZ4 block"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    // Other versions are refused, saying which ones navkit reads.
    let mut other = bytes.clone();
    other[4..8].copy_from_slice(&2i32.to_le_bytes());
    match read_tset(&other) {
        Err(Error::VersionMismatch {
            path: None,
            what: "TSET file",
            found: 2,
            supported,
        }) => assert_eq!(supported, [TSET_VERSION, TSET_VERSION_LZ4]),
        o => panic!("{o:?}"),
    }
    // Loaded from a file, the error names it.
    let path = common::temp("version-2.tset");
    std::fs::write(&path, &other).unwrap();
    match TileCache::load(&path, &[]) {
        Err(e @ Error::VersionMismatch { .. }) => {
            assert!(
                matches!(&e, Error::VersionMismatch { path: Some(p), found: 2, .. } if *p == path)
            );
            assert_eq!(
                e.to_string(),
                format!(
                    "{}: TSET file version 2: this navkit reads version 1 or {TSET_VERSION_LZ4}",
                    path.display()
                )
            );
        }
        o => panic!("{o:?}"),
    }
}

/// RecastDemo's file with tile 0's compressed grids replaced by `stream`.
fn with_first_stream(stream: &[u8]) -> Vec<u8> {
    let mut set: TileCacheSet = read_tset(&recastdemo_tset()).unwrap();
    set.tiles[0].1.truncate(LAYER_HEADER);
    set.tiles[0].1.extend_from_slice(stream);
    write_tset(&set)
}

/// The error loading `bytes` gives: its offset and message.
fn data_error(bytes: &[u8]) -> (usize, String) {
    match TileCache::from_tset_bytes(bytes, &[]) {
        Err(Error::NavMeshData {
            offset, message, ..
        }) => (offset, message),
        other => panic!("expected a data error, got {other:?}"),
    }
}

#[test]
fn corrupt_fastlz_layers_are_typed_errors() {
    let set = read_tset(&recastdemo_tset()).unwrap();
    let stream = set.tiles[0].1[LAYER_HEADER..].to_vec();
    let start = HEADER + TILE_HEADER + LAYER_HEADER; // the stream's offset in the file
    let cells: usize = 48 * 48;
    assert_eq!(with_first_stream(&stream), recastdemo_tset());

    // Wrong level byte: levels 3..=8 do not exist.
    for level in 2u8..8 {
        let mut s = stream.clone();
        s[0] = (s[0] & 31) | level << 5;
        let (offset, message) = data_error(&with_first_stream(&s));
        assert_eq!(offset, start, "{message}");
        assert!(
            message.contains(&format!("says level {}", level + 1)),
            "{message}"
        );
    }
    // Truncated: every cut of the stream is refused (the stream ends inside an instruction,
    // or decodes to too few bytes); none reads past its end.
    for cut in 0..stream.len() {
        let (offset, message) = data_error(&with_first_stream(&stream[..cut]));
        assert!(
            offset >= start - LAYER_HEADER && offset <= start + cut,
            "{cut}: {message}"
        );
    }
    let (_, message) = data_error(&with_first_stream(&stream[..stream.len() - 1]));
    assert!(message.contains("FastLZ"), "{message}");
    // A match reaching back before the output (3 bytes decoded, match from 9 back).
    let (offset, message) = data_error(&with_first_stream(&[2, 0, 0, 0, 1 << 5, 8, 31]));
    assert_eq!(offset, start + 4);
    assert!(
        message.contains("copies from 9 bytes back, but only 3"),
        "{message}"
    );
    // Length overruns: a run longer than the layer's 4 * cells buffer, and a stream that
    // decodes to one byte too many or too few for the 3 grids.
    let mut run = vec![0u8, 255];
    let mut left: usize = 4 * cells; // repeat the byte far past the buffer: matches of 264 bytes
    while left > 0 {
        run.extend_from_slice(&[7 << 5, 255, 0]);
        left = left.saturating_sub(264);
    }
    let (offset, message) = data_error(&with_first_stream(&run));
    assert!(offset > start && message.contains("past the"), "{message}");
    let grids = fastlz::decompress(&stream, 4 * cells).unwrap();
    for len in [3 * cells - 1, 3 * cells + 1] {
        let mut g = grids.clone();
        g.resize(len, 0);
        let (offset, message) = data_error(&with_first_stream(&fastlz::compress(&g).unwrap()));
        assert_eq!(offset, start - LAYER_HEADER + LAYER_HEADER);
        assert!(
            message.contains(&format!(
                "decompress (FastLZ) to {len} bytes, not exactly 6912"
            )),
            "{message}"
        );
    }
    // A literal run promising more bytes than the stream has.
    let (offset, message) = data_error(&with_first_stream(&[31, 1, 2, 3]));
    assert_eq!(offset, start);
    assert!(message.contains("runs past the end"), "{message}");
    // A literal run in the middle of a valid stream is flipped into a match: still refused or
    // still valid, never out of bounds; every single-byte change of the stream's first 200
    // bytes either loads (and the cache works) or is a data error.
    let (mut refused, mut loaded) = (0, 0);
    for i in 0..200.min(stream.len()) {
        let mut s = stream.clone();
        s[i] ^= 0xa5;
        match TileCache::from_tset_bytes(&with_first_stream(&s), &[]) {
            Ok(c) => {
                loaded += 1;
                assert_eq!(c.report().layers, 30);
            }
            Err(Error::NavMeshData { .. }) => refused += 1,
            Err(e) => panic!("byte {i}: {e}"),
        }
    }
    eprintln!("flipped FastLZ bytes: {refused} refused, {loaded} loaded");
    assert!(refused > 100);
}
