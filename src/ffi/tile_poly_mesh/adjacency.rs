//! Polygon neighbours and portal edges of a tile polygon mesh (Detour's `buildMeshAdjacency`
//! for tile caches): polygons sharing an edge point at each other; an open edge lying on a
//! contour edge that leads out of the tile gets `0x8000 | direction`.

use super::{NULL_IDX, NVP, TileContour, TilePolyMesh};

/// An edge between two vertices (`vert[0] < vert[1]` as first found), with the polygon(s)
/// holding it and its index in each; `poly[0] == poly[1]` while it is open, and then
/// `poly_edge[1]` is 0xff or the portal direction.
#[derive(Clone, Copy)]
struct Edge {
    vert: [u16; 2],
    poly_edge: [u16; 2],
    poly: [u16; 2],
}

/// The edge list with Detour's per-vertex chains; indices are kept as Detour's 16-bit numbers
/// (they only wrap past 65535 edges, as in Detour).
struct EdgeList {
    edges: Vec<Edge>,
    first: Vec<u16>,
    next: Vec<u16>,
}

impl EdgeList {
    /// Adds an open edge from `v0` to `v1` of polygon `poly` (its edge `j`), chained at `v0`.
    fn push(&mut self, v0: u16, v1: u16, poly: u16, j: u16) {
        self.edges.push(Edge {
            vert: [v0, v1],
            poly_edge: [j, 0xff],
            poly: [poly, poly],
        });
        self.next.push(self.first[usize::from(v0)]);
        self.first[usize::from(v0)] = (self.edges.len() - 1) as u16;
    }

    /// Gives the open edge from `v1` to `v0` its second polygon; false if there is none.
    fn close(&mut self, v0: u16, v1: u16, poly: u16, j: u16) -> bool {
        let mut e = self.first[usize::from(v1)];
        while e != NULL_IDX {
            let edge = &mut self.edges[usize::from(e)];
            if edge.vert[1] == v0 && edge.poly[0] == edge.poly[1] {
                edge.poly[1] = poly;
                edge.poly_edge[1] = j;
                return true;
            }
            e = self.next[usize::from(e)];
        }
        false
    }
}

/// The edges (j, start, end) of polygon `p`, wrapping to its first vertex.
fn poly_edges(p: &[u16]) -> impl Iterator<Item = (usize, u16, u16)> + '_ {
    (0..NVP).map_while(move |j| {
        (p[j] != NULL_IDX).then(|| {
            let v1 = if j + 1 >= NVP || p[j + 1] == NULL_IDX {
                p[0]
            } else {
                p[j + 1]
            };
            (j, p[j], v1)
        })
    })
}

/// Fills the neighbour half of every polygon of `mesh` (Detour's `buildMeshAdjacency`).
pub(super) fn build_adjacency(mesh: &mut TilePolyMesh, conts: &[TileContour]) {
    let npolys = mesh.npolys();
    let mut list = EdgeList {
        edges: Vec::with_capacity(npolys * NVP),
        first: vec![NULL_IDX; mesh.nverts()],
        next: Vec::with_capacity(npolys * NVP),
    };
    for i in 0..npolys {
        for (j, v0, v1) in poly_edges(mesh.poly(i)) {
            if v0 < v1 {
                list.push(v0, v1, i as u16, j as u16);
            }
        }
    }
    for i in 0..npolys {
        for (j, v0, v1) in poly_edges(mesh.poly(i)) {
            if v0 > v1 && !list.close(v0, v1, i as u16, j as u16) {
                list.push(v1, v0, i as u16, j as u16);
            }
        }
    }
    mark_portals(&mut list.edges, &mesh.verts, conts);
    for e in &list.edges {
        let slot = |poly: u16, edge: u16| usize::from(poly) * 2 * NVP + NVP + usize::from(edge);
        if e.poly[0] != e.poly[1] {
            mesh.polys[slot(e.poly[0], e.poly_edge[0])] = e.poly[1];
            mesh.polys[slot(e.poly[1], e.poly_edge[1])] = e.poly[0];
        } else if e.poly_edge[1] != 0xff {
            mesh.polys[slot(e.poly[0], e.poly_edge[0])] = 0x8000 | e.poly_edge[1];
        }
    }
}

/// True if the open ranges (amin, amax) and (bmin, bmax) overlap.
fn overlap_exclusive(a: (u16, u16), b: (u16, u16)) -> bool {
    !(a.0 >= b.1 || a.1 <= b.0)
}

/// Sorted pair.
fn sorted(a: u16, b: u16) -> (u16, u16) {
    if a > b { (b, a) } else { (a, b) }
}

/// Gives every open edge lying along a contour edge that leads out of the layer (direction in
/// the low nibble of the contour vertex's flags, 0xf for none) that direction.
fn mark_portals(edges: &mut [Edge], verts: &[u16], conts: &[TileContour]) {
    let v = |i: u16| &verts[usize::from(i) * 3..usize::from(i) * 3 + 3];
    for cont in conts.iter().filter(|c| c.nverts() >= 3) {
        let n = cont.nverts();
        for j in 0..n {
            let k = if j == 0 { n - 1 } else { j - 1 };
            let va = &cont.verts[k * 4..k * 4 + 4];
            let vb = &cont.verts[j * 4..j * 4 + 4];
            let dir = va[3] & 0xf;
            if dir == 0xf {
                continue;
            }
            // Along z at x = va.x (dir 0 or 2), or along x at z = va.z (dir 1 or 3).
            let (fixed, run) = if dir == 0 || dir == 2 { (0, 2) } else { (2, 0) };
            let at = u16::from(va[fixed]);
            let range = sorted(u16::from(va[run]), u16::from(vb[run]));
            for e in edges.iter_mut().filter(|e| e.poly[0] == e.poly[1]) {
                let (eva, evb) = (v(e.vert[0]), v(e.vert[1]));
                if eva[fixed] == at
                    && evb[fixed] == at
                    && overlap_exclusive(range, sorted(eva[run], evb[run]))
                {
                    e.poly_edge[1] = u16::from(dir);
                }
            }
        }
    }
}

/// True if polygon `b` has the edge (`vb`, `va`) with neighbour `a`.
fn links_back(mesh: &TilePolyMesh, b: usize, a: usize, va: u16, vb: u16) -> bool {
    let pb = mesh.poly(b);
    let nb = super::count_poly_verts(pb);
    let neis = &mesh.polys[b * 2 * NVP + NVP..(b + 1) * 2 * NVP];
    (0..nb).any(|k| usize::from(neis[k]) == a && pb[k] == vb && pb[(k + 1) % nb] == va)
}

/// Turns every neighbour link that is not mutual along the same edge (polygons of a contour
/// that runs over itself overlap, and Detour's edge matching then links one side only) into a
/// wall, until all links are mutual; the number turned. A mesh whose links are all mutual (any
/// mesh from simple contours) is left as it is. Detour packs one-sided links as they are, which
/// navkit's tile validator refuses: queries crossing them go one way only.
pub(super) fn drop_one_sided_links(mesh: &mut TilePolyMesh) -> usize {
    let mut dropped = 0;
    loop {
        let mut one_sided = Vec::new();
        for a in 0..mesh.npolys() {
            let pa = mesh.poly(a);
            let na = super::count_poly_verts(pa);
            for j in 0..na {
                let n = mesh.polys[a * 2 * NVP + NVP + j];
                if n == NULL_IDX || n & 0x8000 != 0 {
                    continue;
                }
                let b = usize::from(n);
                let (va, vb) = (pa[j], pa[(j + 1) % na]);
                if b >= mesh.npolys() || b == a || !links_back(mesh, b, a, va, vb) {
                    one_sided.push(a * 2 * NVP + NVP + j);
                }
            }
        }
        if one_sided.is_empty() {
            return dropped;
        }
        dropped += one_sided.len();
        for slot in one_sided {
            mesh.polys[slot] = NULL_IDX;
        }
    }
}
