//! The polygon mesh builder on contour sets where Detour's `dtBuildTileCachePolyMesh` is
//! undefined: a hole that does not close (from a contour that runs over itself, found by
//! fuzzing: h4's case 318, tile (2,0,0)), more than 16 edges at a removed vertex, and a hole of
//! more than 36 vertices (Detour's stack arrays overflow). Each gets the outcome the module doc
//! promises, and a mesh every reference and link of which is sound.

use super::*;

/// Every polygon's vertices exist and every neighbour link is mutual along the same edge.
fn assert_sound(mesh: &TilePolyMesh) {
    for a in 0..mesh.npolys() {
        let p = mesh.poly(a);
        let n = count_poly_verts(p);
        assert!(n >= 3, "poly {a} has {n} vertices");
        assert!(
            p[..n].iter().all(|&v| usize::from(v) < mesh.nverts()),
            "poly {a}: {p:?}"
        );
    }
    let mut copy = mesh.clone();
    assert_eq!(
        adjacency::drop_one_sided_links(&mut copy),
        0,
        "one-sided links left"
    );
}

/// Twice the area (x-z) of every polygon, summed.
fn area2_sum(mesh: &TilePolyMesh) -> i64 {
    let v = |i: u16| {
        let i = usize::from(i) * 3;
        (i64::from(mesh.verts[i]), i64::from(mesh.verts[i + 2]))
    };
    (0..mesh.npolys())
        .map(|a| {
            let p = mesh.poly(a);
            let n = count_poly_verts(p);
            let s: i64 = (0..n)
                .map(|j| {
                    let ((x0, z0), (x1, z1)) = (v(p[j]), v(p[(j + 1) % n]));
                    x0 * z1 - x1 * z0
                })
                .sum();
            s.abs()
        })
        .sum()
}

/// A contour of area 63 from (x, y, z, flags) vertices.
fn contour(verts: &[[u8; 4]], reg: u8) -> TileContour {
    TileContour {
        verts: verts.concat(),
        reg,
        area: 63,
    }
}

/// Case 318, tile (2,0,0): region 0's contour runs over the same 7 vertices 4 times; removing
/// the flagged vertex (0, 6, 5) would leave a hole whose edges chain into fewer than 3 vertices.
/// Detour then reads an uninitialised index (valgrind: DetourTileCacheBuilder.cpp:1671); here the
/// vertex is kept, and the links the overlapping polygons make one-sided become walls.
#[test]
fn a_hole_that_does_not_close_keeps_its_vertex() {
    // Region 0's contour as Detour's dtBuildTileCacheContours gave it: 2 vertices, then the
    // same 7 four times over, cut at 28 vertices, the last with no portal (flags 15).
    let ring: [[u8; 4]; 7] = [
        [0, 5, 3, 0],
        [0, 6, 5, 143],
        [0, 6, 6, 1],
        [1, 6, 6, 2],
        [1, 6, 4, 1],
        [2, 0, 4, 15],
        [2, 10, 3, 15],
    ];
    let mut r0 = vec![[1, 10, 2, 15], [1, 10, 3, 15]];
    (0..4).for_each(|_| r0.extend_from_slice(&ring));
    r0.truncate(28);
    r0[27][3] = 15;
    let conts = [
        contour(&r0, 0),
        contour(
            &[
                [5, 11, 6, 15],
                [5, 11, 7, 15],
                [3, 12, 7, 15],
                [3, 12, 8, 1],
                [8, 10, 8, 2],
                [8, 10, 7, 3],
                [7, 10, 7, 143],
                [6, 11, 7, 15],
                [6, 11, 6, 15],
            ],
            1,
        ),
        contour(&[[0, 9, 7, 0], [0, 9, 8, 1], [1, 9, 8, 2], [1, 9, 7, 3]], 2),
    ];
    let mesh = build_tile_poly_mesh(&conts).unwrap();
    // Measured on this contour set (the counts name the two defined outcomes taken).
    assert_eq!(mesh.kept_open_holes, 1);
    assert_eq!(mesh.one_sided_links, 6);
    assert!(
        mesh.verts.chunks_exact(3).any(|v| v == [0, 6, 5]),
        "flagged vertex kept"
    );
    assert_sound(&mesh);
}

/// `n` wedges around a centre vertex (128, 0, 128) flagged for removal (or not), as at a
/// layer's border: each a contour of the centre and `arc + 1` points of the half circle of
/// radius 120 on its +z side; (the mesh, twice the area of the half disc the points span).
fn half_fan(n: usize, arc: usize, flagged: bool) -> (TilePolyMesh, i64) {
    let points = n * arc;
    let at = |k: usize| {
        let a = std::f64::consts::PI * k as f64 / points as f64;
        [
            (128.0 + 120.0 * a.cos()).round() as u8,
            0,
            (128.0 + 120.0 * a.sin()).round() as u8,
        ]
    };
    let centre = [128, 0, 128, if flagged { 0x80 | 0xf } else { 0xf }];
    let conts: Vec<TileContour> = (0..n)
        .map(|w| {
            // Clockwise in x-z (Detour's contour winding: `left` is a negative area).
            let mut verts = vec![centre];
            for k in (w * arc..=(w + 1) * arc).rev() {
                let [x, y, z] = at(k);
                verts.push([x, y, z, 0xf]);
            }
            contour(&verts, w as u8)
        })
        .collect();
    // The half disc's outline: the centre, then the points (the centre lies on the chord).
    let outline: Vec<[u8; 3]> = std::iter::once([128, 0, 128])
        .chain((0..=points).map(at))
        .collect();
    let twice_area: i64 = (0..outline.len())
        .map(|k| {
            let ([x0, _, z0], [x1, _, z1]) = (outline[k], outline[(k + 1) % outline.len()]);
            i64::from(x0) * i64::from(z1) - i64::from(x1) * i64::from(z0)
        })
        .sum();
    (build_tile_poly_mesh(&conts).unwrap(), twice_area.abs())
}

/// 20 triangles around one border vertex: 21 distinct edges meet at it, past the 16 Detour's
/// `canRemoveVertex` holds (it writes the rest past its array). The vertex goes and the hole is
/// filled again: one vertex fewer, the same area, a sound mesh.
#[test]
fn more_than_16_edges_at_a_removed_vertex_remove_it() {
    let (kept, ring) = half_fan(20, 1, false);
    let (removed, _) = half_fan(20, 1, true);
    assert_eq!(kept.npolys(), 20);
    assert_eq!(area2_sum(&kept), ring, "the fan covers the ring");
    assert_eq!(removed.nverts(), kept.nverts() - 1);
    assert!(!removed.verts.chunks_exact(3).any(|v| v == [128, 0, 128]));
    assert_eq!(area2_sum(&removed), ring, "the hole is filled again");
    assert_eq!(removed.kept_open_holes, 0);
    assert_sound(&removed);
}

/// 10 wedges of 5 circle points each around one border vertex: its hole has 39 vertices (40
/// circle points less the wedges' chords kept where rounding left a wedge not convex; counted
/// once by instrumenting the builder), past the 36
/// Detour's `removeVertex` lays out for triangulation (it writes the rest past its array). The
/// vertex goes and the hole is filled again: one vertex fewer, the same area, a sound mesh.
#[test]
fn a_hole_of_more_than_36_vertices_is_filled() {
    let (kept, ring) = half_fan(10, 4, false);
    let (removed, _) = half_fan(10, 4, true);
    assert_eq!(area2_sum(&kept), ring, "the wedges cover the ring");
    assert_eq!(removed.nverts(), kept.nverts() - 1);
    assert_eq!(area2_sum(&removed), ring, "the hole is filled again");
    assert_sound(&removed);
}
