//! MSET files of both poly-ref widths: RecastDemo's own dungeon file (written by a Detour with
//! 64-bit refs) and navkit's, loaded and saved in either width by either build (default: 32-bit
//! refs; `large-refs`: 64-bit).

mod common;

use std::collections::BTreeSet;

use navkit::NavMeshBuilder;
use navkit::navmesh::NavMesh;
use navkit::navmesh::mset::{self, RefLayout, RefWidth};
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter, StraightPathOptions};
use navkit::{BuildSettings, InputGeometry};
use rand::SeedableRng;

fn recastdemo_file() -> Vec<u8> {
    std::fs::read(common::shared().join("meshes/recastdemo-files/dungeon_all_tiles_navmesh.bin"))
        .unwrap()
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// Where the sections of a tile that hold Detour's live link state are: the polys (whose
/// `firstLink` is the first 4 bytes of each 32-byte `dtPoly`) and the links.
struct LinkState {
    polys: usize,
    poly_count: usize,
    links: usize,
    link_count: usize,
    link_size: usize,
    ref_bytes: usize,
}

fn link_state(data: &[u8], width: RefWidth) -> LinkState {
    let info = mset::validate_tile_data_for(data, width).unwrap();
    let polys = 100 + (info.vert_count * 12).next_multiple_of(4);
    LinkState {
        polys,
        poly_count: info.poly_count,
        links: polys + info.poly_count * 32,
        link_count: info.max_link_count,
        link_size: width.link_size(),
        ref_bytes: width.bytes(),
    }
}

/// Every poly's links as Detour follows them (`firstLink`, then `next`): per poly, the set of
/// `(ref as (salt, tile, poly), edge, side, bmin, bmax)`.
type Link = ((u32, u32, u32), u8, u8, u8, u8);

fn link_graph(data: &[u8], width: RefWidth, layout: &RefLayout) -> Vec<BTreeSet<Link>> {
    let s = link_state(data, width);
    let mut out = Vec::new();
    for p in 0..s.poly_count {
        let mut set = BTreeSet::new();
        let mut l = le_u32(data, s.polys + 32 * p);
        let mut steps = 0;
        while l != 0xffff_ffff {
            assert!((l as usize) < s.link_count, "link {l} out of range");
            let at = s.links + s.link_size * l as usize;
            let r = if s.ref_bytes == 8 {
                le_u64(data, at)
            } else {
                u64::from(le_u32(data, at))
            };
            let b = &data[at + s.ref_bytes + 4..at + s.ref_bytes + 8];
            set.insert((layout.decode(r), b[0], b[1], b[2], b[3]));
            l = le_u32(data, at + s.ref_bytes);
            steps += 1;
            assert!(steps <= s.link_count, "cyclic link list");
        }
        out.push(set);
    }
    out
}

/// The file RecastDemo wrote for dungeon.obj (Tile Mesh sample, 64-bit refs) loads in either
/// build, with the parameters and tiles its README lists and the refs it had.
#[test]
fn recastdemo_64_bit_file_loads_with_its_refs() {
    let bytes = recastdemo_file();
    let set = mset::read_mset(&bytes).unwrap();
    assert_eq!(set.ref_width, RefWidth::Bits64);
    assert_eq!(set.tiles.len(), 41);
    assert_eq!(set.params.max_tiles, 128);
    assert_eq!(set.params.max_polys, 32768);
    assert_eq!(set.params.tile_width, 9.6);
    assert_eq!(set.params.tile_height, 9.6);
    assert_eq!(
        set.params.origin,
        [-25.015_217, -0.002_705_861, -90.041_275]
    );
    // Tile refs: salt 2..=5 (RecastDemo rebuilt some tiles), tile index = file order, poly 0.
    let large = set.params.ref_layout_for(RefWidth::Bits64);
    for (i, t) in set.tiles.iter().enumerate() {
        let (salt, index, poly) = large.decode(t.tile_ref);
        assert_eq!((index, poly), (i as u32, 0));
        assert!((2..=5).contains(&salt), "tile {i} salt {salt}");
    }

    let nav = NavMesh::from_mset_bytes(&bytes).unwrap();
    assert_eq!(nav.tile_count(), 41);
    let polys = nav.polys();
    let header_polys: usize = set
        .tiles
        .iter()
        .map(|t| {
            mset::validate_tile_data_for(&t.data, RefWidth::Bits64)
                .unwrap()
                .poly_count
        })
        .sum();
    assert_eq!(polys.len(), header_polys);
    // Every poly's ref keeps its file's salt and tile index (the 32-bit layout of these
    // params has 10 salt bits: salts up to 5 fit), in this build's layout.
    let native = nav.params().ref_layout();
    let salts: Vec<u32> = set
        .tiles
        .iter()
        .map(|t| large.decode(t.tile_ref).0)
        .collect();
    for p in &polys {
        let (salt, tile, _) = native.decode(p.poly.to_u64());
        assert_eq!(salt, salts[tile as usize], "{}", p.poly);
    }
}

/// Saved back in its own width, RecastDemo's file has the same bytes except (1) the 4 padding
/// bytes of each 16-byte tile record, which RecastDemo leaves uninitialised (0xff 0x7f 0 0
/// here) and navkit writes as zeros, and (2) Detour's live link state: each poly's
/// `firstLink` and the links array, whose slots depend on the order in which tiles were added
/// and removed (RecastDemo rebuilt tiles while editing; a load adds them in file order). The
/// links themselves are the same: every poly has the same set of links.
#[test]
fn recastdemo_file_saves_back_differing_only_in_padding_and_link_slots() {
    let bytes = recastdemo_file();
    let set = mset::read_mset(&bytes).unwrap();
    let nav = NavMesh::from_mset_bytes(&bytes).unwrap();
    let back = nav.to_mset_bytes_with(RefWidth::Bits64).unwrap();
    assert_eq!(back.len(), bytes.len());
    let back_set = mset::read_mset(&back).unwrap();
    assert_eq!(back_set.ref_width, RefWidth::Bits64);
    assert_eq!(back_set.params, set.params);

    let layout = set.params.ref_layout_for(RefWidth::Bits64);
    let mut pos = 40;
    let (mut padding, mut link_state_bytes) = (0, 0);
    for (t, (a, b)) in set.tiles.iter().zip(&back_set.tiles).enumerate() {
        assert_eq!(a.tile_ref, b.tile_ref, "tile {t} ref");
        assert_eq!(a.data.len(), b.data.len());
        // The record: ref and size equal; padding 0x7fff in RecastDemo's, 0 in ours.
        assert_eq!(bytes[pos..pos + 12], back[pos..pos + 12]);
        assert_eq!(le_u32(&bytes, pos + 12), 0x7fff, "tile {t} padding");
        assert_eq!(le_u32(&back, pos + 12), 0);
        padding += 2;
        let s = link_state(&a.data, RefWidth::Bits64);
        for i in (0..a.data.len()).filter(|&i| a.data[i] != b.data[i]) {
            let first_link = i >= s.polys && i < s.links && (i - s.polys) % 32 < 4;
            let link = i >= s.links && i < s.links + s.link_count * s.link_size;
            assert!(
                first_link || link,
                "tile {t}: byte {i} differs outside the link state"
            );
            link_state_bytes += 1;
        }
        assert_eq!(
            link_graph(&a.data, RefWidth::Bits64, &layout),
            link_graph(&b.data, RefWidth::Bits64, &layout),
            "tile {t}: the same links per poly"
        );
        pos += 16 + a.data.len();
    }
    assert!(padding > 0 && link_state_bytes > 0);
}

/// Save, load, save gives the same bytes in both widths, in either build; the width read back
/// is the one written; the navmeshes loaded from either width answer queries identically.
#[test]
fn both_widths_round_trip_and_answer_alike() {
    let nav = NavMesh::from_mset_bytes(&recastdemo_file()).unwrap();
    let (mut loaded, mut sets) = (Vec::new(), Vec::new());
    for w in [RefWidth::Bits32, RefWidth::Bits64] {
        let bytes = nav.to_mset_bytes_with(w).unwrap();
        let set = mset::read_mset(&bytes).unwrap();
        assert_eq!(set.ref_width, w);
        let record = mset::tile_record_size(w);
        assert_eq!(record, if w == RefWidth::Bits32 { 8 } else { 16 });
        let again = NavMesh::from_mset_bytes(&bytes).unwrap();
        assert_eq!(
            again.to_mset_bytes_with(w).unwrap(),
            bytes,
            "{w} round trip"
        );
        assert_eq!(
            again.to_mset_bytes(),
            nav.to_mset_bytes(),
            "{w}: same navmesh"
        );
        loaded.push(again);
        sets.push(set);
    }
    // Tile data differs between the widths in the links only: 4 bytes more a link with 64-bit
    // refs, and everything before and after the links is the same.
    for (a, b) in sets[0].tiles.iter().zip(&sets[1].tiles) {
        let (sa, sb) = (
            link_state(&a.data, RefWidth::Bits32),
            link_state(&b.data, RefWidth::Bits64),
        );
        assert_eq!(sa.link_count, sb.link_count);
        assert_eq!(b.data.len() - a.data.len(), 4 * sa.link_count);
        assert_eq!(a.data[..sa.links], b.data[..sb.links]);
        let (ea, eb) = (sa.links + 12 * sa.link_count, sb.links + 16 * sb.link_count);
        assert_eq!(a.data[ea..], b.data[eb..]);
    }
    // The file of the other width than the build's is refused by the raw validator with a
    // message naming the width.
    let other = if RefWidth::NATIVE == RefWidth::Bits32 {
        RefWidth::Bits64
    } else {
        RefWidth::Bits32
    };
    let bytes = nav.to_mset_bytes_with(other).unwrap();
    let set = mset::read_mset(&bytes).unwrap();
    let e = mset::validate_tile_data(&set.tiles[0].data)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains(&format!("built by a Detour with {other} poly refs")),
        "{e}"
    );

    // Queries: the same corridors and corners on both.
    let filter = QueryFilter::default();
    let mut q0 = NavMeshQuery::new(&loaded[0], 2048).unwrap();
    let mut q1 = NavMeshQuery::new(&loaded[1], 2048).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(12);
    for _ in 0..200 {
        let (a, pa) = q0.find_random_point(&filter, &mut rng).unwrap();
        let (b, pb) = q0.find_random_point(&filter, &mut rng).unwrap();
        let p0 = q0.find_path(a, b, pa, pb, &filter, 256).unwrap();
        let p1 = q1.find_path(a, b, pa, pb, &filter, 256).unwrap();
        assert_eq!(p0.polys, p1.polys);
        let s0 = q0
            .find_straight_path(pa, pb, &p0.polys, &StraightPathOptions::default())
            .unwrap();
        let s1 = q1
            .find_straight_path(pa, pb, &p1.polys, &StraightPathOptions::default())
            .unwrap();
        assert_eq!(s0.positions(), s1.positions());
    }
}

/// RecastDemo's navmesh answers queries like navkit's own tiled build of dungeon.obj with the
/// same settings (RecastDemo's defaults, tiles of 32 cells): random points of one are on the
/// other, and path lengths between them agree.
#[test]
fn recastdemo_navmesh_answers_like_navkits_build() {
    let theirs = NavMesh::from_mset_bytes(&recastdemo_file()).unwrap();
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    let tiled = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let ours = tiled.navmesh();
    assert_eq!(ours.params(), theirs.params());
    assert_eq!(ours.tile_count(), theirs.tile_count());

    let filter = QueryFilter::default();
    let mut qt = NavMeshQuery::new(&theirs, 4096).unwrap();
    let mut qo = NavMeshQuery::new(ours, 4096).unwrap();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(7);
    let (mut compared, mut close, mut agree) = (0, 0, 0);
    for _ in 0..300 {
        let (_, a) = qt.find_random_point(&filter, &mut rng).unwrap();
        let (_, b) = qt.find_random_point(&filter, &mut rng).unwrap();
        let length = |q: &mut NavMeshQuery<'_>| -> Option<f32> {
            let p = q
                .path(a, b, &filter, &PathOptions::corridor_only())
                .map(|p| p.corridor)
                .ok()?;
            if !p.is_complete() {
                return None;
            }
            let s = q
                .find_straight_path(a, b, &p.polys, &StraightPathOptions::default())
                .ok()?;
            Some(s.length())
        };
        let (lt, lo) = (length(&mut qt), length(&mut qo));
        if lt.is_some() == lo.is_some() {
            agree += 1;
        }
        if let (Some(lt), Some(lo)) = (lt, lo) {
            compared += 1;
            if (lt - lo).abs() <= 0.01 * lt.max(1.0) {
                close += 1;
            }
        }
    }
    eprintln!("{agree} agree, {compared} compared, {close} close");
    assert!(
        agree >= 291,
        "{agree} of 300 pairs complete on both or on neither"
    );
    assert!(compared >= 200, "{compared} of 300 pairs complete on both");
    assert!(
        close * 100 >= compared * 97,
        "{close} of {compared} lengths within 1%"
    );
}

/// navkit's tiled build of dungeon.obj with RecastDemo's settings against the tiles RecastDemo
/// itself wrote: every tile's polygons are RecastDemo's to the byte (vertices, polys with their
/// neighbours, flags and areas, and the header counts that describe them). Where a tile's size
/// is the same (36 of 41), so are its detail meshes and detail vertices; what differs there is
/// the order and edge flags of detail triangles and the order of BV tree nodes, never the
/// polygons a query walks. (Probably the platform: Detour sorts BV nodes with `qsort`, whose
/// order for equal keys is the C library's choice, and the detail triangulation compares
/// floats that another compiler may round differently; RecastDemo's file was not built here.)
#[test]
fn navkit_tiles_have_recastdemos_polygons() {
    let set = mset::read_mset(&recastdemo_file()).unwrap();
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    let tiled = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let ours = tiled
        .navmesh()
        .to_mset_bytes_with(RefWidth::Bits64)
        .unwrap();
    let ours = mset::read_mset(&ours).unwrap();
    assert_eq!(ours.tiles.len(), set.tiles.len());
    let info = |d: &[u8]| mset::validate_tile_data_for(d, RefWidth::Bits64).unwrap();
    let (mut same_size, mut same_detail) = (0, 0);
    for t in &set.tiles {
        let a = info(&t.data);
        let o = ours
            .tiles
            .iter()
            .find(|o| {
                let b = info(&o.data);
                (b.x, b.y, b.layer) == (a.x, a.y, a.layer)
            })
            .expect("the same tile positions");
        let b = info(&o.data);
        let at = format!("tile ({}, {})", a.x, a.y);
        assert_eq!(
            (
                a.poly_count,
                a.vert_count,
                a.max_link_count,
                a.off_mesh_con_count
            ),
            (
                b.poly_count,
                b.vert_count,
                b.max_link_count,
                b.off_mesh_con_count
            ),
            "{at}"
        );
        assert_eq!((a.bmin, a.bmax), (b.bmin, b.bmax), "{at}");
        // Vertices and polys, but for each poly's firstLink (Detour's live link state).
        let s = link_state(&t.data, RefWidth::Bits64);
        assert_eq!(t.data[100..s.polys], o.data[100..s.polys], "{at}: vertices");
        for p in 0..s.poly_count {
            let r = s.polys + 32 * p + 4..s.polys + 32 * (p + 1);
            assert_eq!(t.data[r.clone()], o.data[r], "{at}: poly {p}");
        }
        if t.data.len() == o.data.len() {
            same_size += 1;
            let detail = s.links + s.link_count * 16;
            let detail_end = detail + a.detail_mesh_count * 12 + a.detail_vert_count * 12;
            if t.data[detail..detail_end] == o.data[detail..detail_end] {
                same_detail += 1;
            }
        }
    }
    assert_eq!((same_size, same_detail), (36, 36));
}
