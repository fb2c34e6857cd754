//! Tests of the MSET reader and the tile data validator, on hand-assembled tiles.

use super::mset::*;
use super::params::{dt_ilog2, dt_next_pow2};
use crate::ffi::validate::tile::offsets::{bv, h, om, p, pd};
use crate::{Error, Result};
use recastnavigation_sys::{
    DT_EXT_LINK, DT_NAVMESH_MAGIC, DT_NAVMESH_VERSION, DT_OFFMESH_CON_BIDIR, dtBVNode, dtLink,
    dtMeshHeader, dtOffMeshConnection, dtPoly, dtPolyDetail,
};
use std::mem::{offset_of, size_of};

/// A hand-assembled tile, laid out exactly as `dtCreateNavMeshData` does.
#[derive(Clone, Debug)]
pub(crate) struct TestTile {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) layer: i32,
    pub(crate) verts: Vec<[f32; 3]>,
    /// (verts, neis, vertCount, areaAndtype)
    pub(crate) polys: Vec<([u16; 6], [u16; 6], u8, u8)>,
    pub(crate) max_link_count: i32,
    /// (vertBase, triBase, vertCount, triCount)
    pub(crate) detail_meshes: Vec<(u32, u32, u8, u8)>,
    pub(crate) detail_verts: Vec<[f32; 3]>,
    pub(crate) detail_tris: Vec<[u8; 4]>,
    /// (bmin, bmax, i)
    pub(crate) bv: Vec<([u16; 3], [u16; 3], i32)>,
    /// (pos, rad, poly, flags, side, userId)
    pub(crate) cons: Vec<([f32; 6], f32, u16, u8, u8, u32)>,
    pub(crate) off_mesh_base: i32,
    pub(crate) bmin: [f32; 3],
    pub(crate) bmax: [f32; 3],
    pub(crate) qfac: f32,
}

pub(crate) const EXT: u16 = DT_EXT_LINK;
pub(crate) const OFFMESH_TYPE: u8 = 1 << 6;

impl TestTile {
    /// Two ground quads sharing an edge, an external portal on the +x side, detail meshes
    /// (one with an extra detail vertex), a 3-node BV tree and one off-mesh connection.
    pub(crate) fn new() -> Self {
        TestTile {
            x: 0,
            y: 0,
            layer: 0,
            verts: vec![
                [0.0, 0.0, 0.0],
                [0.0, 0.0, 2.0],
                [2.0, 0.0, 2.0],
                [2.0, 0.0, 0.0],
                [4.0, 0.0, 2.0],
                [4.0, 0.0, 0.0],
                [1.0, 0.0, 1.0],
                [3.0, 0.0, 1.0],
            ],
            polys: vec![
                ([0, 1, 2, 3, 0, 0], [0, 0, 2, 0, 0, 0], 4, 0),
                ([3, 2, 4, 5, 0, 0], [1, 0, EXT, 0, 0, 0], 4, 0),
                ([6, 7, 0, 0, 0, 0], [0; 6], 2, OFFMESH_TYPE),
            ],
            max_link_count: 14,
            detail_meshes: vec![(0, 0, 1, 4), (1, 4, 0, 2)],
            detail_verts: vec![[1.0, 0.0, 1.0]],
            detail_tris: vec![
                [0, 1, 4, 1],
                [1, 2, 4, 1],
                [2, 3, 4, 1],
                [3, 0, 4, 1],
                [0, 1, 2, 1 | 4],
                [0, 2, 3, 4 | 16],
            ],
            bv: vec![
                ([0, 0, 0], [8, 2, 4], -3),
                ([0, 0, 0], [4, 2, 4], 0),
                ([4, 0, 0], [8, 2, 4], 1),
            ],
            cons: vec![(
                [1.0, 0.0, 1.0, 3.0, 0.0, 1.0],
                0.5,
                2,
                DT_OFFMESH_CON_BIDIR as u8,
                0xff,
                7,
            )],
            off_mesh_base: 2,
            bmin: [0.0, 0.0, 0.0],
            bmax: [4.0, 1.0, 2.0],
            qfac: 2.0,
        }
    }

    pub(crate) fn at(x: i32) -> Self {
        let mut t = Self::new();
        t.x = x;
        t
    }

    pub(crate) fn bytes(&self) -> Vec<u8> {
        let header = size_of::<dtMeshHeader>();
        let sizes = [
            header,
            12 * self.verts.len(),
            size_of::<dtPoly>() * self.polys.len(),
            size_of::<dtLink>() * self.max_link_count.max(0) as usize,
            size_of::<dtPolyDetail>() * self.detail_meshes.len(),
            12 * self.detail_verts.len(),
            4 * self.detail_tris.len(),
            size_of::<dtBVNode>() * self.bv.len(),
            size_of::<dtOffMeshConnection>() * self.cons.len(),
        ];
        let mut d = vec![0u8; sizes.iter().sum()];
        let mut starts = [0usize; 9];
        for k in 1..9 {
            starts[k] = starts[k - 1] + sizes[k - 1];
        }
        fn put(d: &mut [u8], off: usize, b: &[u8]) {
            d[off..off + b.len()].copy_from_slice(b);
        }
        let i32s = [
            (h::MAGIC, DT_NAVMESH_MAGIC),
            (h::VERSION, DT_NAVMESH_VERSION),
            (h::X, self.x),
            (h::Y, self.y),
            (h::LAYER, self.layer),
            (h::POLY_COUNT, self.polys.len() as i32),
            (h::VERT_COUNT, self.verts.len() as i32),
            (h::MAX_LINK_COUNT, self.max_link_count),
            (h::DETAIL_MESH_COUNT, self.detail_meshes.len() as i32),
            (h::DETAIL_VERT_COUNT, self.detail_verts.len() as i32),
            (h::DETAIL_TRI_COUNT, self.detail_tris.len() as i32),
            (h::BV_NODE_COUNT, self.bv.len() as i32),
            (h::OFF_MESH_CON_COUNT, self.cons.len() as i32),
            (h::OFF_MESH_BASE, self.off_mesh_base),
        ];
        for (off, v) in i32s {
            put(&mut d, off, &v.to_le_bytes());
        }
        put(&mut d, h::WALKABLE_HEIGHT, &2.0f32.to_le_bytes());
        put(&mut d, h::WALKABLE_RADIUS, &0.6f32.to_le_bytes());
        put(&mut d, h::WALKABLE_CLIMB, &0.9f32.to_le_bytes());
        for a in 0..3 {
            put(&mut d, h::BMIN + 4 * a, &self.bmin[a].to_le_bytes());
            put(&mut d, h::BMAX + 4 * a, &self.bmax[a].to_le_bytes());
        }
        put(&mut d, h::BV_QUANT_FACTOR, &self.qfac.to_le_bytes());
        for (i, v) in self.verts.iter().enumerate() {
            for (a, c) in v.iter().enumerate() {
                put(&mut d, starts[1] + 12 * i + 4 * a, &c.to_le_bytes());
            }
        }
        for (i, (verts, neis, nv, at)) in self.polys.iter().enumerate() {
            let b = starts[2] + i * size_of::<dtPoly>();
            // firstLink garbage: Detour rewrites it, so validation must ignore it.
            put(&mut d, b, &0xdead_beefu32.to_le_bytes());
            for j in 0..6 {
                put(&mut d, b + p::VERTS + 2 * j, &verts[j].to_le_bytes());
                put(&mut d, b + p::NEIS + 2 * j, &neis[j].to_le_bytes());
            }
            put(&mut d, b + offset_of!(dtPoly, flags), &1u16.to_le_bytes());
            d[b + p::VERT_COUNT] = *nv;
            d[b + p::AREA_AND_TYPE] = *at;
        }
        // Links: garbage, Detour rebuilds them.
        for byte in &mut d[starts[3]..starts[4]] {
            *byte = 0xa5;
        }
        for (i, (vb, tb, vc, tc)) in self.detail_meshes.iter().enumerate() {
            let b = starts[4] + i * size_of::<dtPolyDetail>();
            put(&mut d, b + pd::VERT_BASE, &vb.to_le_bytes());
            put(&mut d, b + pd::TRI_BASE, &tb.to_le_bytes());
            d[b + pd::VERT_COUNT] = *vc;
            d[b + pd::TRI_COUNT] = *tc;
        }
        for (i, v) in self.detail_verts.iter().enumerate() {
            for (a, c) in v.iter().enumerate() {
                put(&mut d, starts[5] + 12 * i + 4 * a, &c.to_le_bytes());
            }
        }
        for (i, t) in self.detail_tris.iter().enumerate() {
            put(&mut d, starts[6] + 4 * i, t);
        }
        for (k, (lo, hi, i)) in self.bv.iter().enumerate() {
            let b = starts[7] + k * size_of::<dtBVNode>();
            for a in 0..3 {
                put(&mut d, b + bv::BMIN + 2 * a, &lo[a].to_le_bytes());
                put(&mut d, b + bv::BMAX + 2 * a, &hi[a].to_le_bytes());
            }
            put(&mut d, b + bv::I, &i.to_le_bytes());
        }
        for (c, (pos, rad, poly, flags, side, user)) in self.cons.iter().enumerate() {
            let b = starts[8] + c * size_of::<dtOffMeshConnection>();
            for (k, v) in pos.iter().enumerate() {
                put(&mut d, b + om::POS + 4 * k, &v.to_le_bytes());
            }
            put(&mut d, b + om::RAD, &rad.to_le_bytes());
            put(&mut d, b + om::POLY, &poly.to_le_bytes());
            d[b + om::FLAGS] = *flags;
            d[b + om::SIDE] = *side;
            put(
                &mut d,
                b + offset_of!(dtOffMeshConnection, userId),
                &user.to_le_bytes(),
            );
        }
        d
    }
}

pub(crate) fn params() -> NavMeshParams {
    NavMeshParams {
        origin: [0.0, 0.0, 0.0],
        tile_width: 4.0,
        tile_height: 4.0,
        max_tiles: 4,
        max_polys: 8,
    }
}

/// Tile ref for tile index `it` with salt 1 under [`params`] (2 tile bits, 3 poly bits).
pub(crate) fn tref(it: u32) -> u64 {
    params().ref_layout().encode(1, it, 0).unwrap()
}

pub(crate) fn test_set() -> NavMeshSet {
    NavMeshSet {
        params: params(),
        tiles: vec![
            TileRecord {
                tile_ref: tref(0),
                data: TestTile::at(0).bytes(),
            },
            TileRecord {
                tile_ref: tref(1),
                data: TestTile::at(1).bytes(),
            },
        ],
        ref_width: RefWidth::NATIVE,
    }
}

fn err_of(r: Result<impl std::fmt::Debug>) -> (usize, String) {
    match r {
        Err(Error::NavMeshData {
            offset, message, ..
        }) => (offset, message),
        other => panic!("expected a NavMeshData error, got {other:?}"),
    }
}

#[track_caller]
fn assert_tile_err(tile: &TestTile, needle: &str) {
    let (offset, message) = err_of(validate_tile_data(&tile.bytes()));
    assert!(
        message.contains(needle),
        "expected an error containing {needle:?}, got {message:?} at {offset}"
    );
}

#[test]
fn constants_match_detour_layout() {
    assert_eq!(MSET_MAGIC, 0x4d53_4554);
    assert_eq!(SET_HEADER_SIZE, 40);
    assert_eq!(size_of::<dtMeshHeader>(), 100);
    assert_eq!(size_of::<dtPoly>(), 32);
    assert_eq!(size_of::<dtOffMeshConnection>(), 36);
}

#[test]
fn detour_bit_helpers() {
    assert_eq!(dt_next_pow2(0), 0);
    assert_eq!(dt_next_pow2(1), 1);
    assert_eq!(dt_next_pow2(5), 8);
    assert_eq!(dt_next_pow2(1 << 31), 1 << 31);
    assert_eq!(dt_next_pow2((1 << 31) + 1), 0);
    assert_eq!(dt_ilog2(0), 0);
    assert_eq!(dt_ilog2(1), 0);
    assert_eq!(dt_ilog2(8), 3);
    assert_eq!(dt_ilog2(1 << 22), 22);
    let l = params().ref_layout_for(RefWidth::Bits32);
    assert_eq!((l.tile_bits, l.poly_bits, l.salt_bits), (2, 3, 27));
    assert_eq!(l.decode(l.encode(5, 3, 7).unwrap()), (5, 3, 7));
    assert_eq!(l.encode(5, 3, 7), Some(5 << 5 | 3 << 3 | 7));
    assert_eq!(l.encode(1, 4, 0), None);
    // 64-bit refs: 16 salt, 28 tile, 20 poly bits whatever the params.
    let l = params().ref_layout_for(RefWidth::Bits64);
    assert_eq!(l, RefLayout::LARGE);
    assert_eq!((l.tile_bits, l.poly_bits, l.salt_bits), (28, 20, 16));
    assert_eq!(l.encode(0xffff, 1, 2), Some(0xffff << 48 | 1 << 20 | 2));
    assert_eq!(l.decode(u64::MAX), (0xffff, (1 << 28) - 1, (1 << 20) - 1));
    assert_eq!(l.encode(1 << 16, 0, 0), None);
    assert_eq!(
        params().ref_layout(),
        params().ref_layout_for(RefWidth::NATIVE)
    );
}

#[test]
fn valid_tile_is_accepted() {
    let info = validate_tile_data(&TestTile::new().bytes()).unwrap();
    assert_eq!(info.poly_count, 3);
    assert_eq!(info.vert_count, 8);
    assert_eq!(info.detail_mesh_count, 2);
    assert_eq!(info.detail_vert_count, 1);
    assert_eq!(info.detail_tri_count, 6);
    assert_eq!(info.bv_node_count, 3);
    assert_eq!(info.off_mesh_con_count, 1);
    assert_eq!(info.max_link_count, 14);
    assert_eq!(info.bmax, [4.0, 1.0, 2.0]);
    assert_eq!(info.walkable_height, 2.0);
}

#[test]
fn tile_without_bv_tree_or_off_mesh_is_accepted() {
    let mut t = TestTile::new();
    t.bv.clear();
    t.cons.clear();
    t.polys.pop();
    t.verts.truncate(6);
    t.max_link_count = 10;
    validate_tile_data(&t.bytes()).unwrap();
    // dtCreateNavMeshData reserves 2 * polyCount BV nodes; the unused ones are zero.
    let mut t = TestTile::new();
    t.bv.push(([0; 3], [0; 3], 0));
    validate_tile_data(&t.bytes()).unwrap();
}

#[test]
fn round_trip() {
    let set = test_set();
    let bytes = write_mset(&set);
    let record = super::mset::tile_record_size(RefWidth::NATIVE);
    assert_eq!(bytes.len(), 40 + 2 * (record + set.tiles[0].data.len()));
    let back = read_mset(&bytes).unwrap();
    assert_eq!(back, set);
    assert_eq!(write_mset(&back), bytes);
    let empty = NavMeshSet {
        params: params(),
        tiles: vec![],
        ref_width: RefWidth::NATIVE,
    };
    assert_eq!(read_mset(&write_mset(&empty)).unwrap(), empty);
}

#[test]
fn tile_corruptions_are_rejected() {
    type Edit = fn(&mut TestTile);
    let cases: &[(&str, Edit, &str)] = &[
        (
            "bad x",
            |t| t.x = i32::MAX,
            "neighbour lookups would overflow",
        ),
        ("negative layer", |t| t.layer = -1, "layer is -1"),
        (
            "ground vert index",
            |t| t.polys[0].0[2] = 900,
            "poly 0 vertex 2 index 900 >= 6",
        ),
        (
            "ground uses off-mesh vert",
            |t| t.polys[1].0[3] = 6,
            "poly 1 vertex 3 index 6 >= 6",
        ),
        (
            "off-mesh vert",
            |t| t.polys[2].0[1] = 3,
            "off-mesh poly 2 vertex 1 index 3",
        ),
        (
            "vertCount 7",
            |t| t.polys[0].2 = 7,
            "ground poly 0 has vertCount 7",
        ),
        (
            "vertCount 2",
            |t| t.polys[0].2 = 2,
            "ground poly 0 has vertCount 2",
        ),
        (
            "off-mesh vertCount",
            |t| t.polys[2].2 = 3,
            "off-mesh poly 2 has vertCount 3",
        ),
        (
            "ground typed off-mesh",
            |t| t.polys[1].3 = OFFMESH_TYPE,
            "poly 1 has type 1",
        ),
        (
            "off-mesh typed ground",
            |t| t.polys[2].3 = 0,
            "poly 2 has type 0",
        ),
        ("type 2", |t| t.polys[0].3 = 2 << 6 | 5, "poly 0 has type 2"),
        (
            "nei out of range",
            |t| t.polys[0].1[0] = 5,
            "neighbour index 4 >= ground poly count 2",
        ),
        (
            "nei to off-mesh",
            |t| t.polys[0].1[0] = 3,
            "neighbour index 2 >= ground poly count 2",
        ),
        (
            "self nei",
            |t| t.polys[0].1[0] = 1,
            "poly 0 edge 0 is its own neighbour",
        ),
        (
            "one-sided nei",
            |t| t.polys[1].1[0] = 0,
            "poly 0 edge 2 (2, 3) has neighbour poly 1",
        ),
        (
            "nei wrong edge",
            |t| t.polys[0].1 = [0, 2, 0, 0, 0, 0],
            "poly 0 edge 1",
        ),
        (
            "ext dir 1",
            |t| t.polys[1].1[2] = EXT | 1,
            "side 0, 2, 4 or 6",
        ),
        ("ext junk bits", |t| t.polys[1].1[2] = EXT | 0x100, "0x8100"),
        (
            "off-mesh nei",
            |t| t.polys[2].1[0] = 1,
            "off-mesh poly 2 edge 0 has neighbour",
        ),
        (
            "NaN vert",
            |t| t.verts[3][1] = f32::NAN,
            "vertex 3[1] is NaN",
        ),
        (
            "inf vert",
            |t| t.verts[0][0] = f32::INFINITY,
            "vertex 0[0] is inf",
        ),
        ("huge vert", |t| t.verts[0][2] = 1e20, "beyond"),
        (
            "NaN detail vert",
            |t| t.detail_verts[0][0] = f32::NAN,
            "detail vertex 0[0] is NaN",
        ),
        ("bmin > bmax", |t| t.bmin[1] = 2.0, "bmax[1] 1 < bmin[1] 2"),
        ("NaN bmin", |t| t.bmin[0] = f32::NAN, "tile bmin[0] is NaN"),
        ("qfac 0", |t| t.qfac = 0.0, "bvQuantFactor is 0"),
        ("qfac NaN", |t| t.qfac = f32::NAN, "bvQuantFactor is NaN"),
        ("qfac overflow", |t| t.qfac = 1e5, "16-bit BV tree"),
        (
            "detail vert range",
            |t| t.detail_meshes[0].2 = 2,
            "detail mesh 0 vertices 0..0+2",
        ),
        (
            "detail vert base",
            |t| t.detail_meshes[1].0 = u32::MAX,
            "exceed detailVertCount 1",
        ),
        (
            "detail tri range",
            |t| t.detail_meshes[1].1 = 5,
            "detail mesh 1 triangles 5..5+2",
        ),
        (
            "detail tri base",
            |t| t.detail_meshes[1].1 = u32::MAX,
            "exceed detailTriCount 6",
        ),
        (
            "no detail tris",
            |t| t.detail_meshes[1].3 = 0,
            "detail mesh 1 has no triangles",
        ),
        (
            "detail tri index",
            |t| t.detail_tris[5][2] = 4,
            "detail mesh 1 triangle 5 vertex 2 index 4 >= 4",
        ),
        (
            "detail tri index A",
            |t| t.detail_tris[0][2] = 5,
            "triangle 0 vertex 2 index 5 >= 5",
        ),
        (
            "no boundary edges",
            |t| {
                t.detail_tris[4][3] = 0;
                t.detail_tris[5][3] = 0x40;
            },
            "DT_DETAIL_EDGE_BOUNDARY",
        ),
        (
            "bv leaf",
            |t| t.bv[1].2 = 2,
            "BV node 1 is a leaf for poly 2",
        ),
        ("bv escape", |t| t.bv[0].2 = -4, "BV node 0 escape index -4"),
        (
            "bv escape min",
            |t| t.bv[0].2 = i32::MIN,
            "escape index -2147483648",
        ),
        (
            "bv bounds",
            |t| t.bv[2].0[0] = 9,
            "BV node 2 bmax[0] 8 < bmin[0] 9",
        ),
        (
            "off-mesh poly",
            |t| t.cons[0].2 = 1,
            "off-mesh connection 0 poly index 1",
        ),
        ("off-mesh rad", |t| t.cons[0].1 = -1.0, "radius is -1"),
        (
            "off-mesh rad NaN",
            |t| t.cons[0].1 = f32::NAN,
            "radius is NaN",
        ),
        (
            "off-mesh pos",
            |t| t.cons[0].0[4] = f32::NEG_INFINITY,
            "end point 1[1] is -inf",
        ),
        ("off-mesh flags", |t| t.cons[0].3 = 2, "flags 0x02"),
        ("off-mesh side", |t| t.cons[0].4 = 8, "side 8"),
        ("offMeshBase 0", |t| t.off_mesh_base = 0, "offMeshBase is 0"),
        (
            "offMeshBase big",
            |t| t.off_mesh_base = 4,
            "offMeshBase is 4",
        ),
        (
            "offMeshBase 3",
            |t| t.off_mesh_base = 3,
            "offMeshConCount is 1",
        ),
        ("no links", |t| t.max_link_count = 0, "maxLinkCount is 0"),
        (
            // 8 edges + 2 x 1 portal + 2 x 1 off-mesh connection
            "too few links",
            |t| t.max_link_count = 11,
            "maxLinkCount is 11, fewer than the 12 links",
        ),
        (
            "extra detail mesh",
            |t| t.detail_meshes.push((0, 0, 0, 1)),
            "detailMeshCount is 3",
        ),
        (
            "missing off-mesh verts",
            |t| {
                t.verts.truncate(1);
                t.polys.truncate(1);
                t.polys.push(([0; 6], [0; 6], 2, OFFMESH_TYPE));
                t.polys.push(([0; 6], [0; 6], 2, OFFMESH_TYPE));
                t.cons.push(t.cons[0]);
                t.off_mesh_base = 1;
                t.detail_meshes.truncate(1);
            },
            "fewer than the 4 vertices",
        ),
    ];
    for (name, edit, needle) in cases {
        let mut t = TestTile::new();
        edit(&mut t);
        let (_, message) = err_of(validate_tile_data(&t.bytes()));
        assert!(
            message.contains(needle),
            "{name}: expected an error containing {needle:?}, got {message:?}"
        );
    }
}

#[test]
fn error_offsets_point_at_the_field() {
    let mut t = TestTile::new();
    t.polys[1].0[3] = 500;
    let (offset, _) = err_of(validate_tile_data(&t.bytes()));
    let polys = 100 + 12 * 8;
    assert_eq!(offset, polys + 32 + p::VERTS + 2 * 3);
}

fn set_i32(d: &mut [u8], off: usize, v: i32) {
    d[off..off + 4].copy_from_slice(&v.to_le_bytes());
}

#[test]
fn header_corruptions_are_rejected() {
    let good = TestTile::new().bytes();
    let cases: &[(usize, i32, &str)] = &[
        (h::MAGIC, 0x1234, "tile magic is 0x00001234"),
        (h::VERSION, 6, "tile version is 6"),
        (h::POLY_COUNT, -1, "polyCount is -1"),
        (h::POLY_COUNT, 4, "runs past the end"),
        (h::POLY_COUNT, i32::MAX, "polys section"),
        (h::VERT_COUNT, 9, "runs past the end"),
        (h::VERT_COUNT, i32::MAX, "verts section"),
        (h::MAX_LINK_COUNT, 13, "tile layout"),
        (h::MAX_LINK_COUNT, i32::MIN, "maxLinkCount is -2147483648"),
        (h::DETAIL_MESH_COUNT, 3, "runs past the end"),
        (h::DETAIL_VERT_COUNT, 2, "runs past the end"),
        (h::DETAIL_TRI_COUNT, 7, "runs past the end"),
        (h::DETAIL_TRI_COUNT, 5, "4 trailing bytes"),
        (h::BV_NODE_COUNT, 2, "tile layout"),
        (h::BV_NODE_COUNT, 1 << 30, "bvTree section"),
        (h::OFF_MESH_CON_COUNT, 0, "tile layout"),
        (h::OFF_MESH_CON_COUNT, -5, "offMeshConCount is -5"),
        (h::OFF_MESH_BASE, -1, "offMeshBase is -1"),
    ];
    for (off, v, needle) in cases {
        let mut d = good.clone();
        set_i32(&mut d, *off, *v);
        let (_, message) = err_of(validate_tile_data(&d));
        assert!(
            message.contains(needle),
            "field at {off} = {v}: expected {needle:?}, got {message:?}"
        );
    }
    let mut d = good.clone();
    d[h::WALKABLE_CLIMB..h::WALKABLE_CLIMB + 4].copy_from_slice(&(-1.0f32).to_le_bytes());
    assert!(
        err_of(validate_tile_data(&d))
            .1
            .contains("walkableClimb is -1")
    );
    let mut d = good.clone();
    d.extend_from_slice(&[0; 4]);
    assert!(
        err_of(validate_tile_data(&d))
            .1
            .contains("4 trailing bytes")
    );
}

#[test]
fn every_truncated_tile_is_an_error() {
    let good = TestTile::new().bytes();
    for len in 0..good.len() {
        assert!(
            validate_tile_data(&good[..len]).is_err(),
            "prefix of {len} bytes"
        );
    }
}

#[test]
fn every_truncated_file_is_an_error() {
    let good = write_mset(&test_set());
    for len in 0..good.len() {
        assert!(read_mset(&good[..len]).is_err(), "prefix of {len} bytes");
    }
}

#[track_caller]
fn assert_set_err(set: &NavMeshSet, needle: &str) {
    assert_bytes_err(&write_mset(set), needle);
}

#[track_caller]
fn assert_bytes_err(bytes: &[u8], needle: &str) {
    let (offset, message) = err_of(read_mset(bytes));
    assert!(
        message.contains(needle),
        "expected {needle:?}, got {message:?} at {offset}"
    );
}

#[test]
fn file_corruptions_are_rejected() {
    let good = write_mset(&test_set());

    let mut b = good.clone();
    b[0] = b'X';
    assert_bytes_err(&b, "file magic");
    let mut b = good.clone();
    set_i32(&mut b, 4, 2);
    match read_mset(&b) {
        Err(Error::VersionMismatch {
            path: None,
            what: "MSET file",
            found: 2,
            supported: &[MSET_VERSION],
        }) => {}
        other => panic!("expected a version mismatch, got {other:?}"),
    }
    let mut b = good.clone();
    set_i32(&mut b, 8, -1);
    assert_bytes_err(&b, "numTiles is -1");
    let mut b = good.clone();
    set_i32(&mut b, 8, 3);
    assert_bytes_err(&b, "tile 2: file ends inside its tile header");
    let mut b = good.clone();
    set_i32(&mut b, 8, 1);
    assert_bytes_err(&b, "trailing data after the last of 1 tiles");
    let mut b = good.clone();
    b.push(0);
    assert_bytes_err(&b, "1 bytes of trailing data");
    let mut b = good.clone();
    set_i32(&mut b, 8, 4);
    b.truncate(60);
    assert_bytes_err(&b, "numTiles 4 cannot fit");

    // Tile headers.
    let mut s = test_set();
    s.tiles[1].tile_ref = 0;
    assert_set_err(&s, "end marker");
    let mut s = test_set();
    s.tiles[1].data.clear();
    assert_set_err(&s, "end marker");
    let mut b = good.clone();
    let size_at = 40 + RefWidth::NATIVE.bytes();
    set_i32(&mut b, size_at, -8);
    assert_bytes_err(&b, "dataSize is -8");
    let mut b = good.clone();
    set_i32(&mut b, size_at, 100_000);
    assert_bytes_err(&b, "dataSize 100000 exceeds");

    // Tile refs.
    let mut s = test_set();
    s.tiles[1].tile_ref = tref(1) | 1;
    assert_set_err(&s, "has poly index 1");
    let mut s = test_set();
    s.tiles[1].tile_ref = params().ref_layout().encode(0, 1, 0).unwrap();
    assert_set_err(&s, "has salt 0");
    let mut s = test_set();
    s.params.max_tiles = 3;
    s.tiles[1].tile_ref = tref(3);
    assert_set_err(&s, "tile index 3 >= maxTiles 3");
    let mut s = test_set();
    s.tiles[1].tile_ref = tref(0);
    assert_set_err(&s, "uses tile index 0, as tile 0 does");
    let mut s = test_set();
    s.tiles[1].data = TestTile::at(0).bytes();
    assert_set_err(&s, "is at (x 0, y 0, layer 0), as tile 0 is");
    // 32-bit refs: a tile's polys must fit the poly bits maxPolys gives (64-bit refs always
    // have 20 poly bits, and Detour checks nothing else).
    #[cfg(not(feature = "large-refs"))]
    {
        let mut s = test_set();
        s.params.max_polys = 2;
        assert_set_err(&s, "has 3 polys, more than the 2");
    }
    let mut s = test_set();
    s.params.max_tiles = 1;
    assert_set_err(&s, "numTiles 2 exceeds maxTiles 1");

    // Tile data errors are reported at file offsets.
    let mut s = test_set();
    let mut t = TestTile::at(1);
    t.polys[0].0[1] = 77;
    s.tiles[1].data = t.bytes();
    let bytes = write_mset(&s);
    let (offset, message) = err_of(read_mset(&bytes));
    let record = tile_record_size(RefWidth::NATIVE);
    let tile1 = 40 + record + s.tiles[0].data.len() + record;
    assert_eq!(offset, tile1 + 100 + 12 * 8 + p::VERTS + 2);
    assert!(message.starts_with("tile 1 (data at byte"), "{message}");
    assert!(
        message.contains("poly 0 vertex 1 index 77 >= 6"),
        "{message}"
    );
}

#[test]
fn params_are_validated() {
    type Edit = fn(&mut NavMeshParams);
    let bad: &[(Edit, &str, usize)] = &[
        (|p| p.origin[1] = f32::NAN, "origin[1] is NaN", 12 + 4),
        (|p| p.tile_width = 0.0, "tileWidth is 0", 12 + 12),
        (
            |p| p.tile_height = f32::INFINITY,
            "tileHeight is inf",
            12 + 16,
        ),
        (|p| p.max_tiles = 0, "maxTiles is 0", 12 + 20),
        (
            |p| p.max_tiles = MAX_TILES_LIMIT + 1,
            "maxTiles is 1048577",
            12 + 20,
        ),
        (|p| p.max_polys = -3, "maxPolys is -3", 12 + 24),
        // 2^14 tiles and 2^9 polys leave 9 salt bits.
        #[cfg(not(feature = "large-refs"))]
        (
            |p| {
                p.max_tiles = 1 << 14;
                p.max_polys = 300;
            },
            "leave 9 salt bits",
            12 + 24,
        ),
        // Detour's own unsigned arithmetic would wrap to 31 salt bits here.
        #[cfg(not(feature = "large-refs"))]
        (|p| p.max_polys = i32::MAX, "leave -1 salt bits", 12 + 24),
    ];
    for (edit, needle, file_offset) in bad {
        let mut s = test_set();
        edit(&mut s.params);
        let (_, message) = err_of(validate_params(&s.params));
        assert!(
            message.contains(needle),
            "expected {needle:?}, got {message:?}"
        );
        let (offset, message) = err_of(read_mset(&write_mset(&s)));
        assert!(
            message.contains(needle),
            "expected {needle:?}, got {message:?}"
        );
        assert_eq!(offset, *file_offset, "{message}");
    }
    let mut p = params();
    p.max_tiles = 1 << 14;
    p.max_polys = 256;
    validate_params(&p).unwrap();
}

#[test]
fn tile_data_larger_than_needed_counts_use_checked_math() {
    let mut d = TestTile::new().bytes();
    for off in [
        h::VERT_COUNT,
        h::POLY_COUNT,
        h::MAX_LINK_COUNT,
        h::DETAIL_MESH_COUNT,
        h::DETAIL_VERT_COUNT,
        h::DETAIL_TRI_COUNT,
        h::BV_NODE_COUNT,
        h::OFF_MESH_CON_COUNT,
    ] {
        set_i32(&mut d, off, i32::MAX);
    }
    assert!(validate_tile_data(&d).is_err());
}

#[test]
fn flipping_any_bit_never_panics() {
    let good = write_mset(&test_set());
    let mut accepted = 0;
    for byte in 0..good.len() {
        for bit in 0..8 {
            let mut b = good.clone();
            b[byte] ^= 1 << bit;
            if read_mset(&b).is_ok() {
                accepted += 1;
            }
        }
    }
    // Links, flags, areas, user ids, float mantissas ... are free; the rest is caught.
    assert!(accepted < good.len() * 8, "{accepted} flips accepted");
}

#[test]
fn flipping_any_bit_of_a_tile_never_panics() {
    let good = TestTile::new().bytes();
    for byte in 0..good.len() {
        for bit in 0..8 {
            let mut b = good.clone();
            b[byte] ^= 1 << bit;
            let _ = validate_tile_data(&b);
        }
    }
}

#[test]
fn unused_tile_helper_is_consistent() {
    assert_tile_err(
        &{
            let mut t = TestTile::new();
            t.verts[7][0] = f32::NAN;
            t
        },
        "vertex 7[0] is NaN",
    );
}

/// One square ground polygon per tile, `x0..4` by `0..2`, whose +x edge (at x = 4) is a portal
/// to the tile at `x + 1` (`side` 0) or `x - 1` (`side` 4).
fn portal_square(tile_x: i32, x0: f32, side: u16) -> TestTile {
    let mut t = TestTile::new();
    t.x = tile_x;
    t.verts = vec![
        [x0, 0.0, 0.0],
        [x0, 0.0, 2.0],
        [4.0, 0.0, 2.0],
        [4.0, 0.0, 0.0],
    ];
    t.polys = vec![([0, 1, 2, 3, 0, 0], [0, 0, EXT | side, 0, 0, 0], 4, 0)];
    t.max_link_count = 4 + 2;
    t.detail_meshes = vec![(0, 0, 0, 2)];
    t.detail_verts.clear();
    t.detail_tris = vec![[0, 1, 2, 1 | 4], [0, 2, 3, 4 | 16]];
    t.bv.clear();
    t.cons.clear();
    t.off_mesh_base = 1;
    t.bmin = [x0, 0.0, 0.0];
    t.bmax = [4.0, 1.0, 2.0];
    t
}

/// The cyclic raycast walk (upstream issue #436), built from valid-looking tiles: tile 0's
/// square `0..4` has a portal at x = 4 to tile 1, whose square lies *inside* tile 0's
/// (`2..4`, overlapping) with a portal at the same x = 4 back to tile 0. Detour links the two
/// both ways, and a ray along +x leaves each square by that edge into the other, forever: the
/// t reached stays 0.5 and Detour 1.0.3's raycast, once its path buffer is full, never returns
/// (so it is not called here). navkit's walk stops at the full buffer, or at the step cap when
/// no path is recorded.
///
/// The tile validator accepts these tiles: each is well-formed on its own, and where a tile's
/// polygons lie against its grid cell is not checked (Detour does not need it for memory
/// safety; overlapping polygons also come from bad builds inside one tile, where only the
/// raycast's own guard helps).
#[test]
fn raycast_cycle_through_overlapping_tiles_ends() {
    use crate::query::{PolyRef, QueryFilter, RaycastOptions};
    use glam::Vec3;
    let mut nav = super::NavMesh::new(&params()).unwrap();
    nav.add_tile(&portal_square(0, 0.0, 0).bytes()).unwrap();
    nav.add_tile(&portal_square(1, 2.0, 4).bytes()).unwrap();
    let polys: Vec<PolyRef> = nav.polys().iter().map(|p| p.poly).collect();
    let [a, b] = polys[..] else {
        panic!("two polys expected, got {polys:?}")
    };
    // The link graph is the 2-cycle.
    assert_eq!(nav.neighbours(a), vec![b]);
    assert_eq!(nav.neighbours(b), vec![a]);

    let f = QueryFilter::default();
    let mut q = nav.query().unwrap();
    let (start, end) = (Vec3::new(1.0, 0.0, 1.0), Vec3::new(7.0, 0.0, 1.0));
    // The simple raycast: the buffer fills with a, b, a, b ... and the walk stops there.
    let simple = RaycastOptions {
        max_path: 64,
        ..RaycastOptions::default()
    };
    let hit = q.raycast(a, start, end, &f, &simple).unwrap();
    assert_eq!(hit.polys.len(), 64);
    assert!(
        hit.polys
            .iter()
            .enumerate()
            .all(|(i, &p)| p == [a, b][i % 2])
    );
    assert_eq!(hit.t, 0.5);
    assert_eq!(hit.normal, Vec3::ZERO);

    // The full hit: flagged truncated, with the cost of the 64 stretches (the first 1 -> 4 in
    // a, then zero-length ones at x = 4).
    let opts = RaycastOptions {
        use_costs: true,
        ..RaycastOptions::default()
    };
    let opts = RaycastOptions {
        max_path: 64,
        ..opts
    };
    let r = q.raycast(a, start, end, &f, &opts).unwrap();
    assert!(r.truncated && !r.hit());
    assert_eq!((r.polys.len(), r.t, r.hit_edge), (64, 0.5, Some(2)));
    assert_eq!(r.path_cost, 3.0);
    assert!(r.detour_status.has(crate::status::Status::BUFFER_TOO_SMALL));

    // No path recorded: only the step cap (every poly the navmesh can hold, 4 x 8) ends it.
    let opts = RaycastOptions {
        max_path: 0,
        ..opts
    };
    let r = q.raycast(a, start, end, &f, &opts).unwrap();
    assert!(r.truncated && r.polys.is_empty());
    assert_eq!(r.t, 0.5);
    assert!(r.detour_status.has(crate::status::Status::PARTIAL_RESULT));
    assert_eq!(r.path_cost, 3.0);

    // A ray that stays in a ends normally.
    let r = q
        .raycast(
            a,
            start,
            Vec3::new(3.0, 0.0, 1.5),
            &f,
            &RaycastOptions::default(),
        )
        .unwrap();
    assert!(!r.truncated);
    assert_eq!(
        (r.t, r.polys.clone(), r.hit_edge),
        (f32::MAX, vec![a], None)
    );
}
