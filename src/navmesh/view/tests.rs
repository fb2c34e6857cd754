//! Tests of the navmesh views on two hand-assembled tiles whose every poly, link, off-mesh
//! connection, detail triangle and BV node is known.

use glam::Vec3;
use recastnavigation_sys::DT_EXT_LINK;

use super::*;
use crate::navmesh::NavMesh;
use crate::navmesh::mset::{NavMeshSet, RefWidth, TileRecord};
use crate::navmesh::tests::{EXT, TestTile, params, tref};

/// `TestTile` (two quads 0..2 and 2..4 in x, z 0..2, a portal on the +x side, an off-mesh
/// connection from (1, 0, 1) to (3, 0, 1)) at tile (0, 0), and its mirror image moved 4 units
/// along x to tile (1, 0), whose portal faces -x: the two portals are the same edge, x = 4.
fn two_tiles() -> NavMesh {
    let a = TestTile::at(0);
    let mut b = TestTile::at(1);
    for v in b.verts.iter_mut().chain(b.detail_verts.iter_mut()) {
        v[0] += 4.0;
    }
    b.bmin[0] += 4.0;
    b.bmax[0] += 4.0;
    b.cons[0].0[0] += 4.0;
    b.cons[0].0[3] += 4.0;
    b.cons[0].5 = 8;
    // Poly 0's edge 0 (x = 4) is the portal to the -x side (4); poly 1 has none.
    b.polys[0].1[0] = EXT | 4;
    b.polys[1].1[2] = 0;
    NavMesh::from_set(&NavMeshSet {
        params: params(),
        tiles: vec![
            TileRecord {
                tile_ref: tref(0),
                data: a.bytes(),
            },
            TileRecord {
                tile_ref: tref(1),
                data: b.bytes(),
            },
        ],
        ref_width: RefWidth::NATIVE,
    })
    .unwrap()
}

/// Where the salt and the tile index start in a ref under [`params`]: 2 tile bits and 3 poly
/// bits with 32-bit refs, 28 and 20 with 64-bit ones.
const SALT_SHIFT: u32 = if cfg!(feature = "large-refs") { 48 } else { 5 };
const TILE_SHIFT: u32 = if cfg!(feature = "large-refs") { 20 } else { 3 };

fn v(x: f32, y: f32, z: f32) -> Vec3 {
    Vec3::new(x, y, z)
}

#[test]
fn tiles_by_index_position_and_ref() {
    let nav = two_tiles();
    assert_eq!(nav.max_tiles(), 4);
    let tiles: Vec<_> = nav.tiles().collect();
    assert_eq!(tiles.len(), 2);
    assert_eq!(tiles.iter().map(|t| t.index()).collect::<Vec<_>>(), [0, 1]);
    assert!(nav.tile(2).is_none() && nav.tile(4).is_none() && nav.tile(usize::MAX).is_none());
    for (i, t) in tiles.iter().enumerate() {
        assert_eq!(t.tile_ref(), tref(i as u32));
        assert_eq!(t.salt(), 1);
        assert_eq!(t.coord(), TileCoord::new(i as i32, 0));
        assert_eq!(nav.tile_at(t.coord()).unwrap().index(), i);
        assert_eq!(nav.tile_by_ref(t.tile_ref()).unwrap().index(), i);
        // Poly 0 of tile i is salt 1 and tile index i.
        assert_eq!(
            t.poly_ref_base().to_u64(),
            (1 << SALT_SHIFT) | ((i as u64) << TILE_SHIFT)
        );
    }
    assert!(nav.tile_at(TileCoord::new(0, 0).with_layer(1)).is_none());
    assert!(nav.tile_at(TileCoord::new(2, 0)).is_none());
    assert!(nav.tile_by_ref(0).is_none());
    // Salt 2 is not current.
    assert!(nav.tile_by_ref(tref(0) + (1 << SALT_SHIFT)).is_none());
    assert_eq!(
        nav.tiles_at(1, 0)
            .iter()
            .map(|t| t.index())
            .collect::<Vec<_>>(),
        [1]
    );
    assert!(nav.tiles_at(0, 1).is_empty());

    // Tile size 4 from the origin.
    assert_eq!(
        nav.calc_tile_loc(v(5.0, 0.0, 1.0)).unwrap(),
        TileCoord::new(1, 0)
    );
    assert_eq!(
        nav.calc_tile_loc(v(-0.5, 3.0, 9.0)).unwrap(),
        TileCoord::new(-1, 2)
    );
    assert_eq!(
        nav.calc_tile_loc(v(4.0, 0.0, 0.0)).unwrap(),
        TileCoord::new(1, 0)
    );
    assert!(nav.calc_tile_loc(v(f32::NAN, 0.0, 0.0)).is_err());
    assert!(nav.calc_tile_loc(v(0.0, 0.0, f32::INFINITY)).is_err());
    assert!(nav.calc_tile_loc(v(1e30, 0.0, 0.0)).is_err());
    assert_eq!(
        nav.tile_containing(v(5.0, 0.5, 1.0))
            .unwrap()
            .unwrap()
            .index(),
        1
    );
    assert_eq!(
        nav.tile_containing(v(1.0, 30.0, 1.0))
            .unwrap()
            .unwrap()
            .index(),
        0
    );
    assert!(nav.tile_containing(v(1.0, 0.0, 5.0)).unwrap().is_none());
}

#[test]
fn header_matches_the_tile_built() {
    let nav = two_tiles();
    let h = nav.tile(1).unwrap().header();
    assert_eq!(
        h,
        TileHeader {
            x: 1,
            y: 0,
            layer: 0,
            user_id: 0,
            poly_count: 3,
            vert_count: 8,
            max_link_count: 14,
            detail_mesh_count: 2,
            detail_vert_count: 1,
            detail_tri_count: 6,
            bv_node_count: 3,
            off_mesh_con_count: 1,
            off_mesh_base: 2,
            walkable_height: 2.0,
            walkable_radius: 0.6,
            walkable_climb: 0.9,
            bmin: v(4.0, 0.0, 0.0),
            bmax: v(8.0, 1.0, 2.0),
            bv_quant_factor: 2.0,
        }
    );
    let t = nav.tile(1).unwrap();
    assert_eq!(t.off_mesh_base(), 2);
    assert_eq!(t.vertices().len(), 8);
    assert_eq!(t.vertex(4), Some(v(8.0, 0.0, 2.0)));
    assert_eq!(t.vertex(8), None);
    assert_eq!(
        t.bv_nodes().collect::<Vec<_>>(),
        [
            BvNode {
                bmin: [0, 0, 0],
                bmax: [8, 2, 4],
                i: -3
            },
            BvNode {
                bmin: [0, 0, 0],
                bmax: [4, 2, 4],
                i: 0
            },
            BvNode {
                bmin: [4, 0, 0],
                bmax: [8, 2, 4],
                i: 1
            },
        ]
    );
    let n: Vec<_> = t.bv_nodes().map(|n| (n.leaf_poly(), n.escape())).collect();
    assert_eq!(n, [(None, Some(3)), (Some(0), None), (Some(1), None)]);
}

#[test]
fn polys_edges_and_types() {
    let nav = two_tiles();
    let a = nav.tile(0).unwrap();
    let polys: Vec<_> = a.polys().collect();
    assert_eq!(polys.len(), 3);
    let p0 = polys[0];
    assert_eq!(p0.poly_type(), PolyType::Ground);
    assert_eq!((p0.area(), p0.flags()), (0, 1));
    assert_eq!(p0.vertex_indices(), [0, 1, 2, 3]);
    assert_eq!(
        p0.vertices().collect::<Vec<_>>(),
        [
            v(0.0, 0.0, 0.0),
            v(0.0, 0.0, 2.0),
            v(2.0, 0.0, 2.0),
            v(2.0, 0.0, 0.0)
        ]
    );
    assert_eq!(p0.neis(), [0, 0, 2, 0]);
    let e: Vec<_> = p0.edges().map(|e| e.neighbour).collect();
    use EdgeNeighbour::*;
    assert_eq!(e, [Wall, Wall, Internal(1), Wall]);
    let e2 = p0.edges().nth(2).unwrap();
    assert_eq!((e2.start, e2.end), (v(2.0, 0.0, 2.0), v(2.0, 0.0, 0.0)));
    let p1 = polys[1];
    assert_eq!(p1.neis(), [1, 0, DT_EXT_LINK, 0]);
    assert_eq!(
        p1.edges().map(|e| e.neighbour).collect::<Vec<_>>(),
        [Internal(0), Wall, Portal { side: 0 }, Wall]
    );
    let b0 = nav.tile(1).unwrap().poly(0).unwrap();
    assert_eq!(b0.edges().next().unwrap().neighbour, Portal { side: 4 });
    let p2 = polys[2];
    assert_eq!(p2.poly_type(), PolyType::OffMeshConnection);
    assert_eq!(
        p2.vertices().collect::<Vec<_>>(),
        [v(1.0, 0.0, 1.0), v(3.0, 0.0, 1.0)]
    );
    assert!(p2.detail().is_none() && p0.off_mesh_connection().is_none());
    assert!(a.poly(3).is_none());

    // By ref, and the ref's parts.
    for t in nav.tiles() {
        for p in t.polys() {
            let r = p.poly_ref();
            let found = nav.poly(r).unwrap();
            assert_eq!(
                (found.tile().index(), found.index()),
                (t.index(), p.index())
            );
            let d = nav.decode_poly_ref(r);
            assert_eq!(
                d,
                DecodedPolyRef {
                    salt: 1,
                    tile: t.index() as u32,
                    poly: p.index() as u32
                }
            );
            assert_eq!(nav.encode_poly_ref(d.salt, d.tile, d.poly), Some(r));
        }
    }
    // Poly 3 of tile 0 is in the poly bits but not in the tile; salt 2 is stale.
    let r3 = nav.encode_poly_ref(1, 0, 3).unwrap();
    assert!(nav.poly(r3).is_none());
    assert!(nav.poly(nav.encode_poly_ref(2, 0, 0).unwrap()).is_none());
    assert!(nav.poly(crate::ffi::PolyRef(0)).is_none());
    // 32-bit refs: 3 poly bits, 2 tile bits, salt fills the remaining 27 bits. 64-bit refs: 20
    // poly bits, 28 tile bits, 16 salt bits.
    let (poly, tile, salt) = if cfg!(feature = "large-refs") {
        (20, 28, 16)
    } else {
        (3, 2, 27)
    };
    assert_eq!(nav.encode_poly_ref(1, 0, 1 << poly), None);
    assert_eq!(nav.encode_poly_ref(1, 1 << tile, 0), None);
    assert_eq!(nav.encode_poly_ref(1 << salt, 0, 0), None);
    let max = nav
        .encode_poly_ref((1 << salt) - 1, (1 << tile) - 1, (1 << poly) - 1)
        .unwrap();
    assert_eq!(max.to_u64(), u64::MAX >> (64 - PolyRef::BITS));
}

/// (target tile, target poly, edge, side) of every live link of poly `p` of tile `t`, sorted.
fn links_of(nav: &NavMesh, t: usize, p: usize) -> Vec<(u32, u32, u8, u8)> {
    let mut l: Vec<_> = nav
        .tile(t)
        .unwrap()
        .poly(p)
        .unwrap()
        .links()
        .map(|l| {
            let d = nav.decode_poly_ref(l.target);
            (d.tile, d.poly, l.edge, l.side)
        })
        .collect();
    l.sort();
    l
}

#[test]
fn link_graph_is_the_one_detour_builds() {
    let nav = two_tiles();
    // Ground links within a tile (edge, side 0xff); a ground poly's link to the off-mesh
    // connection landing on it (edge 0xff); the connection's links to its start (edge 0) and
    // end (edge 1) polys; the portal link on edge 2 of (0, 1) to side 0 and edge 0 of (1, 0) to
    // side 4.
    assert_eq!(links_of(&nav, 0, 0), [(0, 1, 2, 0xff), (0, 2, 0xff, 0xff)]);
    assert_eq!(
        links_of(&nav, 0, 1),
        [(0, 0, 0, 0xff), (0, 2, 0xff, 0xff), (1, 0, 2, 0)]
    );
    assert_eq!(links_of(&nav, 0, 2), [(0, 0, 0, 0xff), (0, 1, 1, 0xff)]);
    assert_eq!(
        links_of(&nav, 1, 0),
        [(0, 1, 0, 4), (1, 1, 2, 0xff), (1, 2, 0xff, 0xff)]
    );
    assert_eq!(links_of(&nav, 1, 1), [(1, 0, 0, 0xff), (1, 2, 0xff, 0xff)]);
    assert_eq!(links_of(&nav, 1, 2), [(1, 0, 0, 0xff), (1, 1, 1, 0xff)]);

    for t in nav.tiles() {
        for p in t.polys() {
            // The chain is what `neighbours` walks, in the same order.
            let targets: Vec<_> = p.links().map(|l| l.target).collect();
            assert_eq!(targets, nav.neighbours(p.poly_ref()));
            // Every link has its way back.
            for l in p.links() {
                let back = nav.poly(l.target).unwrap();
                assert!(
                    back.links().any(|b| b.target == p.poly_ref()),
                    "{p:?} -> {l:?}"
                );
            }
            // The portal edge's link covers the whole shared edge.
            for l in p.links().filter(|l| l.crosses_tiles()) {
                assert_eq!((l.bmin, l.bmax), (0, 255));
                assert_eq!(p.edge_links(usize::from(l.edge)).count(), 1);
            }
        }
        // Tile-wide live links are the union of the chains; free slots are the rest.
        assert_eq!(
            t.links().count(),
            t.polys().map(|p| p.links().count()).sum::<usize>()
        );
        assert_eq!(t.link_slot_count(), 14);
        for l in t.links() {
            assert_eq!(t.link_slot(l.index), Some(l));
        }
    }
    assert_eq!(nav.tile(0).unwrap().links().count(), 7);

    // Removing tile (1, 0) takes the portal link with it.
    let mut nav = nav;
    assert!(nav.remove_tile(TileCoord::new(1, 0)).unwrap());
    assert_eq!(links_of(&nav, 0, 1), [(0, 0, 0, 0xff), (0, 2, 0xff, 0xff)]);
    assert!(nav.tile(1).is_none());
}

#[test]
fn off_mesh_connections_as_built() {
    let nav = two_tiles();
    for (t, (dx, user)) in [(0.0, 7), (4.0, 8)].into_iter().enumerate() {
        let tile = nav.tile(t).unwrap();
        let cons: Vec<_> = tile.off_mesh_connections().collect();
        let poly = tile.poly(2).unwrap();
        assert_eq!(
            cons,
            [TileOffMeshConnection {
                index: 0,
                poly: 2,
                poly_ref: poly.poly_ref(),
                start: v(1.0 + dx, 0.0, 1.0),
                end: v(3.0 + dx, 0.0, 1.0),
                radius: 0.5,
                flags: 1,
                bidirectional: true,
                side: 0xff,
                user_id: user,
            }]
        );
        assert_eq!(poly.off_mesh_connection(), Some(cons[0]));
        assert_eq!(tile.off_mesh_base() + cons[0].index, cons[0].poly);
        // The same end points Detour gives when entering from the start poly.
        let (s, e) = nav
            .off_mesh_connection_endpoints(tile.poly(0).unwrap().poly_ref(), poly.poly_ref())
            .unwrap();
        assert_eq!((s, e), (cons[0].start, cons[0].end));
    }
}

#[test]
fn detail_meshes_resolve_to_positions() {
    let nav = two_tiles();
    let t = nav.tile(0).unwrap();
    let d0 = t.poly(0).unwrap().detail().unwrap();
    assert_eq!((d0.vert_base(), d0.vertex_count()), (0, 1));
    assert_eq!((d0.tri_base(), d0.triangle_count()), (0, 4));
    assert_eq!(d0.extra_vertices(), [[1.0, 0.0, 1.0]]);
    let tris: Vec<_> = d0.triangles().collect();
    assert_eq!(tris.len(), 4);
    assert_eq!(tris[0].indices, [0, 1, 4]);
    assert_eq!(
        tris[0].verts,
        [v(0.0, 0.0, 0.0), v(0.0, 0.0, 2.0), v(1.0, 0.0, 1.0)]
    );
    assert!(tris[0].is_boundary_edge(0) && !tris[0].is_boundary_edge(1));
    assert_eq!(
        tris[3].verts,
        [v(2.0, 0.0, 0.0), v(0.0, 0.0, 0.0), v(1.0, 0.0, 1.0)]
    );
    let d1 = t.poly(1).unwrap().detail().unwrap();
    assert_eq!(
        (d1.tri_base(), d1.triangle_count(), d1.vertex_count()),
        (4, 2, 0)
    );
    let t1: Vec<_> = d1.triangles().collect();
    // [0, 2, 3] with flags 4 | 16: edges 1 and 2 on the boundary.
    assert_eq!(
        t1[1].verts,
        [v(2.0, 0.0, 0.0), v(4.0, 0.0, 2.0), v(4.0, 0.0, 0.0)]
    );
    assert_eq!(
        [0, 1, 2].map(|k| t1[1].is_boundary_edge(k)),
        [false, true, true]
    );
    // Per-poly triangle counts add up to the header's.
    let sum: usize = t
        .polys()
        .filter_map(|p| p.detail())
        .map(|d| d.triangle_count())
        .sum();
    assert_eq!(sum, t.header().detail_tri_count);
    // Every detail triangle's area adds up to its poly's (both quads are 2 x 2).
    for p in t.polys().filter_map(|p| p.detail()) {
        let area: f32 = p
            .triangles()
            .map(|t| {
                0.5 * (t.verts[1] - t.verts[0])
                    .cross(t.verts[2] - t.verts[0])
                    .length()
            })
            .sum();
        assert!((area - 4.0).abs() < 1e-5, "{area}");
    }
}

/// Reads every view of `nav`, checking what holds on any navmesh that loaded.
fn walk(nav: &NavMesh) -> usize {
    let mut n = 0;
    for t in nav.tiles() {
        let h = t.header();
        assert_eq!(nav.tile_at(t.coord()).unwrap().index(), t.index());
        assert_eq!(nav.tile_by_ref(t.tile_ref()).unwrap().index(), t.index());
        let _ = nav.tile_containing(h.bmin);
        n += t
            .bv_nodes()
            .map(|b| b.leaf_poly().unwrap_or(0))
            .sum::<usize>();
        for c in t.off_mesh_connections() {
            assert_eq!(nav.poly(c.poly_ref).unwrap().index(), c.poly);
        }
        for p in t.polys() {
            let r = p.poly_ref();
            assert_eq!(nav.poly(r).unwrap().index(), p.index());
            let d = nav.decode_poly_ref(r);
            assert_eq!(nav.encode_poly_ref(d.salt, d.tile, d.poly), Some(r));
            n += p.edges().count() + p.vertices().filter(|v| v.is_finite()).count();
            let targets: Vec<_> = p.links().map(|l| l.target).collect();
            assert_eq!(targets, nav.neighbours(r));
            match p.poly_type() {
                PolyType::Ground => {
                    for tri in p.detail().unwrap().triangles() {
                        assert!(tri.verts.iter().all(|v| v.is_finite()));
                        n += 1;
                    }
                }
                PolyType::OffMeshConnection => {
                    assert_eq!(p.off_mesh_connection().unwrap().poly_ref, r);
                }
            }
        }
    }
    n
}

/// Every single-bit change of the two tiles' MSET file either fails to load or gives a navmesh
/// whose every view reads without a panic (what the mset fuzz target checks at random).
#[test]
fn every_view_of_every_loadable_bit_flip_reads() {
    let bytes = two_tiles().to_mset_bytes();
    let mut loaded = 0;
    for bit in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        if let Ok(nav) = NavMesh::from_mset_bytes(&b) {
            loaded += 1;
            walk(&nav);
        }
    }
    // Flips of floats, flags, areas and unchecked padding load; most structure does not.
    assert!(loaded > 100, "{loaded}");
}
