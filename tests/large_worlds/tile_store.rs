//! The tile store, shards and their merge (issue 25, parts 2, 3 and 6), on RecastDemo's
//! dungeon.obj with its settings (tiles of 32 cells): a second build through a store builds no
//! tile and gives the data hash of a build without one; an edit rebuilds exactly the tiles whose
//! border-expanded bounds it reaches (hand-derived from the grid); damaged entries are refused
//! and rebuilt; shards merged give the unsharded build's bytes; parts that do not make one
//! build are refused with what is wrong.

use navkit::build::tiled::{Part, Shard, TileStore, TiledNavMesh, merge_parts};
use navkit::navmesh::mset::{NavMeshSet, read_mset, write_mset};
use navkit::{Aabb, BuildSettings, Error, InputGeometry, NavMeshBuilder, TriMesh};

fn dungeon() -> InputGeometry {
    InputGeometry::load(crate::common::mesh("dungeon.obj")).unwrap()
}

fn settings() -> BuildSettings {
    BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    }
}

fn build(geom: &InputGeometry, store: Option<&TileStore>) -> TiledNavMesh {
    let b = NavMeshBuilder::new(geom).settings(settings());
    match store {
        Some(s) => b.tile_store(s).tiled().unwrap(),
        None => b.tiled().unwrap(),
    }
}

fn fresh_store(name: &str) -> TileStore {
    let dir = crate::common::temp(name);
    let _ = std::fs::remove_dir_all(&dir);
    TileStore::open(&dir).unwrap()
}

/// Every entry file of `store`.
fn entries(store: &TileStore) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for sub in std::fs::read_dir(store.dir()).unwrap() {
        for e in std::fs::read_dir(sub.unwrap().path()).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "tile") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_second_build_reuses_every_tile_with_the_same_hash() {
    let geom = dungeon();
    let plain = build(&geom, None);
    let store = fresh_store("store_second");
    let first = build(&geom, Some(&store));
    let second = build(&geom, Some(&store));
    let positions = plain.grid().tile_count();
    assert_eq!(positions, 88, "8 x 11 tiles of 9.6 m over dungeon.obj");
    let (r0, r1, r2) = (plain.report(), first.report(), second.report());
    assert_eq!((r0.tiles_built, r0.tiles_reused), (88, 0));
    assert_eq!((r1.tiles_built, r1.tiles_reused), (88, 0));
    assert_eq!((r2.tiles_built, r2.tiles_reused), (0, 88));
    assert_eq!(r1.data_hash, r0.data_hash);
    assert_eq!(r2.data_hash, r0.data_hash);
    assert_eq!(
        second.navmesh().to_mset_bytes(),
        plain.navmesh().to_mset_bytes()
    );
    // One entry per position, empty positions too (41 tiles have polygons).
    assert_eq!(entries(&store).len(), 88);
    assert_eq!(r0.tile_count, 41);
}

#[test]
fn damaged_entries_are_refused_and_rebuilt() {
    let geom = dungeon();
    let store = fresh_store("store_damage");
    let clean = build(&geom, Some(&store)).report().data_hash.clone();
    let files = entries(&store);
    // The largest entries hold tiles with polygons: truncate one, flip a byte in another, and
    // put a third's bytes under a fourth's name (a good entry, of another key).
    let mut by_size: Vec<_> = files
        .iter()
        .map(|p| (std::fs::metadata(p).unwrap().len(), p.clone()))
        .collect();
    by_size.sort();
    let big: Vec<_> = by_size
        .iter()
        .rev()
        .take(4)
        .map(|(_, p)| p.clone())
        .collect();
    let bytes = std::fs::read(&big[0]).unwrap();
    std::fs::write(&big[0], &bytes[..bytes.len() / 2]).unwrap();
    let mut b1 = std::fs::read(&big[1]).unwrap();
    b1[200] ^= 0x40;
    std::fs::write(&big[1], b1).unwrap();
    std::fs::copy(&big[2], &big[3]).unwrap();
    let again = build(&geom, Some(&store));
    let r = again.report();
    assert_eq!(
        (r.tiles_built, r.tiles_reused, r.store_entries_refused),
        (3, 85, 3)
    );
    assert_eq!(r.data_hash, clean);
    assert_eq!(
        r.warnings
            .iter()
            .filter(|w| w.starts_with("tile store:"))
            .count(),
        3
    );
    // Rebuilt entries replaced the damaged ones: the next build reuses everything.
    let r = build(&geom, Some(&store)).report().clone();
    assert_eq!(
        (r.tiles_built, r.tiles_reused, r.store_entries_refused),
        (0, 88, 0)
    );
}

#[test]
fn an_edit_rebuilds_only_the_tiles_it_reaches() {
    let geom = dungeon();
    let store = fresh_store("store_edit");
    let before = build(&geom, Some(&store));
    let grid = *before.grid();
    // A 4 m x 4 m platform at a spot inside the level's bounds (big enough to stay walkable
    // after erosion).
    let (x0, z0, y, side) = (10.0f32, -40.0f32, 0.5f32, 4.0f32);
    let mut mesh = geom.mesh.clone();
    let base = (mesh.verts.len() / 3) as i32;
    for (x, z) in [
        (x0, z0),
        (x0 + side, z0),
        (x0 + side, z0 + side),
        (x0, z0 + side),
    ] {
        mesh.verts.extend_from_slice(&[x, y, z]);
    }
    mesh.tris
        .extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
    let edited = InputGeometry {
        mesh: TriMesh::new(mesh.verts, mesh.tris).unwrap(),
        ..geom.clone()
    };
    assert_eq!(
        edited.mesh.bounds(),
        geom.mesh.bounds(),
        "the grid is unchanged"
    );
    let after = build(&edited, Some(&store));
    // The tiles whose bounds, widened by the border (agent radius 2 cells + 3 = 5 cells of
    // 0.3 m), touch the platform's square.
    let border = 1.5;
    let reached = grid
        .all_tiles()
        .into_iter()
        .filter(|&t| {
            let b: Aabb = grid.tile_bounds(t);
            b.min.x - border <= x0 + side
                && b.max.x + border >= x0
                && b.min.z - border <= z0 + side
                && b.max.z + border >= z0
        })
        .count();
    assert!((1..=4).contains(&reached));
    let r = after.report();
    assert_eq!((r.tiles_built, r.tiles_reused), (reached, 88 - reached));
    assert_eq!(r.data_hash, build(&edited, None).report().data_hash);
    assert_ne!(r.data_hash, before.report().data_hash);
}

#[test]
fn builds_sharing_a_store_at_once_agree() {
    let geom = dungeon();
    let store = fresh_store("store_concurrent");
    let want = build(&geom, None).report().data_hash.clone();
    let hashes: Vec<String> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..3)
            .map(|_| s.spawn(|| build(&geom, Some(&store)).report().data_hash.clone()))
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(hashes.iter().all(|h| *h == want), "{hashes:?} vs {want}");
    let r = build(&geom, Some(&store)).report().clone();
    assert_eq!((r.tiles_built, r.data_hash), (0, want));
}

fn parts(geom: &InputGeometry, n: u32) -> Vec<Vec<u8>> {
    (0..n)
        .map(|i| {
            NavMeshBuilder::new(geom)
                .settings(settings())
                .shard(Shard::new(i, n).unwrap())
                .tiled()
                .unwrap()
                .part_bytes()
                .unwrap()
        })
        .collect()
}

fn read(parts: &[Vec<u8>]) -> Vec<Part> {
    parts.iter().map(|p| Part::from_bytes(p).unwrap()).collect()
}

fn merge_message(parts: &[Part]) -> String {
    match merge_parts(parts) {
        Err(Error::InvalidArgument(m)) => m,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn shards_merge_into_the_unsharded_navmesh() {
    let geom = dungeon();
    let whole = build(&geom, None);
    for n in [1, 3, 7, 100] {
        let bytes = parts(&geom, n);
        let parts = read(&bytes);
        // Every tile position in exactly one shard.
        let mut positions: Vec<_> = (0..n)
            .flat_map(|i| Shard::new(i, n).unwrap().tiles(whole.grid()))
            .collect();
        positions.sort_by_key(|t| (t.z, t.x));
        assert_eq!(positions, whole.grid().all_tiles(), "{n} shards");
        let tiles: usize = parts.iter().map(|p| p.set.tiles.len()).sum();
        assert_eq!(tiles, 41);
        let m = merge_parts(&parts).unwrap();
        assert_eq!(m.data_hash, whole.report().data_hash, "{n} shards");
        assert_eq!(m.navmesh.to_mset_bytes(), whole.navmesh().to_mset_bytes());
        // Each part's MSET, without the trailer, is a navmesh set with the whole parameters.
        assert!(
            parts
                .iter()
                .all(|p| p.set.params == whole.navmesh().params())
        );
    }
}

#[test]
fn parts_that_are_not_one_build_are_refused() {
    let geom = dungeon();
    let three = parts(&geom, 3);
    let p = read(&three);
    // A shard missing, a shard twice.
    assert!(merge_message(&p[..2]).contains("missing [2]"));
    let twice = vec![p[0].clone(), p[1].clone(), p[1].clone(), p[2].clone()];
    assert!(merge_message(&twice).contains("more than once [1]"));
    // A part of another build (other settings), and of another shard count.
    let other = NavMeshBuilder::new(&geom)
        .settings(BuildSettings {
            agent_radius: 0.5,
            ..settings()
        })
        .shard(Shard::new(2, 3).unwrap())
        .tiled()
        .unwrap()
        .part_bytes()
        .unwrap();
    let mixed = vec![
        p[0].clone(),
        p[1].clone(),
        Part::from_bytes(&other).unwrap(),
    ];
    assert!(merge_message(&mixed).contains("another build"));
    let four = read(&parts(&geom, 4));
    assert!(
        merge_message(&[p[0].clone(), four[1].clone(), p[2].clone()]).contains("another build")
    );
    // A tile dropped from a part (the trailer still counts it), a tile of shard 1 put into
    // shard 0's part, a tile doubled.
    let with_tiles = |part: &Part, tiles: Vec<navkit::navmesh::mset::TileRecord>| Part {
        set: NavMeshSet {
            tiles,
            ..part.set.clone()
        },
        info: part.info.clone(),
    };
    let mut dropped = p.clone();
    dropped[1] = with_tiles(&p[1], p[1].set.tiles[1..].to_vec());
    assert!(merge_message(&dropped).contains("missing or damaged"));
    let mut moved = p.clone();
    let mut t0 = p[0].set.tiles.clone();
    t0.push(p[1].set.tiles[0].clone());
    moved[0] = with_tiles(&p[0], t0);
    assert!(merge_message(&moved).contains("belongs to shard 1/3"));
    let mut doubled = p.clone();
    let mut t2 = p[2].set.tiles.clone();
    t2.push(t2[0].clone());
    doubled[2] = with_tiles(&p[2], t2);
    assert!(merge_message(&doubled).contains("twice"));
    assert!(merge_message(&[]).contains("no parts"));
}

#[test]
fn damaged_part_files_and_bad_shards_are_errors() {
    let geom = dungeon();
    let bytes = parts(&geom, 2).remove(0);
    // Truncated (trailer gone or cut), a flipped trailer byte, a whole navmesh (no trailer).
    for cut in [bytes.len() - 1, bytes.len() - 100, 50] {
        assert!(Part::from_bytes(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    let mut flipped = bytes.clone();
    let n = flipped.len();
    flipped[n - 60] ^= 1;
    let e = Part::from_bytes(&flipped).unwrap_err().to_string();
    assert!(e.contains("checksum"), "{e}");
    let whole = build(&geom, None).navmesh().to_mset_bytes();
    assert!(
        Part::from_bytes(&whole)
            .unwrap_err()
            .to_string()
            .contains("NKSHARD")
    );
    // The MSET before the trailer is RecastDemo's format, which navkit reads on its own.
    let set = read_mset(&bytes[..bytes.len() - 128]).unwrap();
    assert_eq!(write_mset(&set), bytes[..bytes.len() - 128]);
    // Shard numbers.
    for bad in ["3/3", "1/0", "a/2", "1", "-1/2", "1/2/3"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
    assert_eq!("2/5".parse::<Shard>().unwrap(), Shard::new(2, 5).unwrap());
    assert!(Shard::new(5, 5).is_err());
    // A whole build has no part to write.
    assert!(build(&geom, None).part_bytes().is_err());
}

#[test]
fn a_shard_read_from_the_file_keeps_its_part_and_builds_the_same_part() {
    use navkit::build::tiled::ShardInput;
    let path = crate::common::mesh("dungeon.obj");
    let geom = dungeon();
    let total = geom.mesh.tri_count();
    for n in [3, 100] {
        let from_memory = parts(&geom, n);
        let mut kept = 0;
        let mut read = Vec::new();
        for (i, want) in from_memory.iter().enumerate() {
            let shard = Shard::new(i as u32, n).unwrap();
            let input =
                ShardInput::load(&path, &Default::default(), shard, |s| s.tile_size = 32).unwrap();
            assert_eq!(input.triangles_read, total);
            assert_eq!(
                input.geometry.mesh.verts, geom.mesh.verts,
                "every vertex is kept"
            );
            let mine = input.geometry.mesh.tri_count();
            kept += mine;
            if n == 3 {
                assert!(
                    mine < total * 2 / 3,
                    "shard {shard}: {mine} of {total} triangles"
                );
            }
            let part = input.builder().tiled().unwrap().part_bytes().unwrap();
            assert_eq!(
                &part, want,
                "shard {shard}: the same bytes, trailer and key included"
            );
            read.push(part);
        }
        // Triangles near a border between shards are kept by both.
        assert!(kept >= total);
        let m = merge_parts(
            &read
                .iter()
                .map(|p| Part::from_bytes(p).unwrap())
                .collect::<Vec<_>>(),
        )
        .unwrap();
        assert_eq!(m.data_hash, build(&geom, None).report().data_hash);
    }
}

#[test]
fn shards_of_a_gset_with_links_and_volumes_merge_to_its_tiled_build() {
    use navkit::build::tiled::ShardInput;
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("meshes/demo_level.gset");
    let geom = InputGeometry::load(&path).unwrap();
    assert!(!geom.off_mesh_connections.is_empty() || !geom.convex_volumes.is_empty());
    let whole = NavMeshBuilder::new(&geom).tile_size(16).tiled().unwrap();
    let parts: Vec<Part> = (0..4)
        .map(|i| {
            let shard = Shard::new(i, 4).unwrap();
            let input =
                ShardInput::load(&path, &Default::default(), shard, |s| s.tile_size = 16).unwrap();
            Part::from_bytes(&input.builder().tiled().unwrap().part_bytes().unwrap()).unwrap()
        })
        .collect();
    let m = merge_parts(&parts).unwrap();
    assert_eq!(m.data_hash, whole.report().data_hash);
    assert_eq!(m.navmesh.to_mset_bytes(), whole.navmesh().to_mset_bytes());
}
