//! navkit's own polygon mesh builder for tile-cache layers: from a layer's contours (what
//! `dtBuildTileCacheContours` gives) to the polygon mesh `dtCreateNavMeshData` packs (vertices,
//! polygons with neighbours and portal edges, areas, flags). Safe Rust.
//!
//! It gives what Detour's `dtBuildTileCachePolyMesh` gives wherever Detour's behaviour is
//! defined: the same vertices, polygons, order, neighbours and portal flags, so the packed tile
//! is the same bytes (the differential tests in `crate::tilecache` compare them). Detour's
//! undefined cases get a defined outcome here:
//! - removing a border vertex whose hole does not close into a ring of 3 or more vertices
//!   (Detour triangulates it anyway, reading an uninitialised index and writing garbage vertex
//!   numbers into the mesh): the vertex is **kept** with its polygons, as when Detour's own
//!   `canRemoveVertex` refuses, so the mesh stays what it was, valid and connected;
//! - a hole of more than 36 vertices, or more than 16 distinct edges at the removed vertex
//!   (Detour's fixed stack arrays overflow): the buffers here are sized for the 48 edges Detour
//!   allows, so the removal runs as Detour's algorithm intends;
//! - 0xffff or more distinct vertices (Detour's 16-bit vertex numbers wrap into its "none"
//!   value): the build fails (`DT_BUFFER_TOO_SMALL`).
//!
//! One outcome differs from Detour's defined one, where Detour's is a broken tile: a contour
//! that runs over itself (Detour's contour walk gives such rings on some layers, e.g. the same
//! 7 vertices 4 times) makes overlapping polygons, whose neighbour links Detour's edge matching
//! leaves one-sided; Detour packs them so (navkit's tile validator refuses such a tile, and
//! queries cross those edges one way only). Here every link that is not mutual along the same
//! edge becomes a wall. A mesh whose links are all mutual, as any from simple contours, is
//! untouched, so tiles stay Detour's bytes there.

mod adjacency;
mod remove;
mod triangulate;

use recastnavigation_sys as sys;

/// Most vertices per polygon (Detour's `DT_VERTS_PER_POLYGON`, the tile cache's `nvp`).
pub(crate) const NVP: usize = 6;
/// "No vertex" / "no neighbour" (`DT_TILECACHE_NULL_IDX`).
pub(crate) const NULL_IDX: u16 = 0xffff;
/// Most edges and hole vertices one vertex removal handles (Detour's `MAX_REM_EDGES`).
const MAX_REM_EDGES: usize = 48;
/// The status of a build that ran out of Detour's fixed limits.
const TOO_SMALL: u32 = sys::DT_FAILURE | sys::DT_BUFFER_TOO_SMALL;

/// One contour of a layer: `verts` holds 4 bytes a vertex (x, y, z, flags: bit 7 "remove if
/// possible", low nibble the portal direction or 0xf), as `dtTileCacheContour`.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TileContour {
    pub verts: Vec<u8>,
    pub reg: u8,
    pub area: u8,
}

impl TileContour {
    /// Number of vertices.
    fn nverts(&self) -> usize {
        self.verts.len() / 4
    }
}

/// A tile's polygon mesh, laid out as `dtTileCachePolyMesh` (and `dtNavMeshCreateParams`):
/// 3 `u16` a vertex, `2 * NVP` a polygon (vertices, then neighbours: a polygon index, `0x8000 |
/// dir` for a portal, or [`NULL_IDX`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct TilePolyMesh {
    pub verts: Vec<u16>,
    pub polys: Vec<u16>,
    pub areas: Vec<u8>,
    pub flags: Vec<u16>,
    /// Border vertices kept because their removal would leave a hole that does not close
    /// (Detour's undefined case; see the module doc).
    pub kept_open_holes: usize,
    /// Neighbour links that were not mutual, made walls (see the module doc).
    pub one_sided_links: usize,
}

impl TilePolyMesh {
    /// Number of vertices.
    pub(crate) fn nverts(&self) -> usize {
        self.verts.len() / 3
    }

    /// Number of polygons.
    pub(crate) fn npolys(&self) -> usize {
        self.areas.len()
    }

    /// The vertex half of polygon `i`.
    fn poly(&self, i: usize) -> &[u16] {
        &self.polys[i * 2 * NVP..i * 2 * NVP + NVP]
    }

    /// Appends a polygon (its neighbours none yet) of `area`.
    fn push_poly(&mut self, verts: &[u16; NVP], area: u8) {
        self.polys.extend_from_slice(verts);
        self.polys.extend_from_slice(&[NULL_IDX; NVP]);
        self.areas.push(area);
    }
}

/// What navkit's builder did differently from Detour's, summed over a cache's tile builds (see
/// the module doc): border vertices kept where Detour's removal is undefined, and one-sided
/// neighbour links made walls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct PolyMeshFixes {
    pub kept_vertices: u64,
    pub walled_links: u64,
}

impl PolyMeshFixes {
    /// Adds what the build of `mesh` did.
    pub(crate) fn add(&mut self, mesh: &TilePolyMesh) {
        self.kept_vertices += mesh.kept_open_holes as u64;
        self.walled_links += mesh.one_sided_links as u64;
    }
}

/// Number of vertices of a polygon (up to its first [`NULL_IDX`]).
fn count_poly_verts(p: &[u16]) -> usize {
    p.iter()
        .take(NVP)
        .position(|&v| v == NULL_IDX)
        .unwrap_or(NVP.min(p.len()))
}

/// Detour's vertex welding: vertices at the same (x, z) within 2 in y are one, found through a
/// 256-bucket hash on (x, z).
struct VertexWelder {
    first: [u16; 256],
    next: Vec<u16>,
}

impl VertexWelder {
    fn new() -> Self {
        VertexWelder {
            first: [NULL_IDX; 256],
            next: Vec::new(),
        }
    }

    /// The number of vertex (x, y, z) in `verts`, added if new; `Err` once the numbers would
    /// reach [`NULL_IDX`].
    fn add(&mut self, x: u16, y: u16, z: u16, verts: &mut Vec<u16>) -> Result<u16, u32> {
        let h = 0x8da6_b343u32
            .wrapping_mul(u32::from(x))
            .wrapping_add(0xcb1a_b31fu32.wrapping_mul(u32::from(z)));
        let bucket = (h & 255) as usize;
        let mut i = self.first[bucket];
        while i != NULL_IDX {
            let v = &verts[usize::from(i) * 3..usize::from(i) * 3 + 3];
            if v[0] == x && v[2] == z && (i32::from(v[1]) - i32::from(y)).abs() <= 2 {
                return Ok(i);
            }
            i = self.next[usize::from(i)];
        }
        let i = u16::try_from(verts.len() / 3)
            .ok()
            .filter(|&i| i != NULL_IDX)
            .ok_or(TOO_SMALL)?;
        verts.extend([x, y, z]);
        self.next.push(self.first[bucket]);
        self.first[bucket] = i;
        Ok(i)
    }
}

/// Builds the polygon mesh of a layer's contours, as `dtBuildTileCachePolyMesh` (see the
/// module doc for where the outcome is navkit's own). Contours of fewer than 3 vertices are
/// skipped. `Err` carries a Detour status.
pub(crate) fn build_tile_poly_mesh(conts: &[TileContour]) -> Result<TilePolyMesh, u32> {
    let solid = || conts.iter().filter(|c| c.nverts() >= 3);
    let max_tris: usize = solid().map(|c| c.nverts() - 2).sum();
    let mut mesh = TilePolyMesh::default();
    let mut vflags: Vec<u8> = Vec::new();
    let mut welder = VertexWelder::new();
    for cont in solid() {
        let n = cont.nverts();
        let mut indices: Vec<u16> = (0..n).map(|j| j as u16).collect();
        let tris = triangulate::triangulate(n, &cont.verts, &mut indices);
        for (j, v) in cont.verts.chunks_exact(4).enumerate() {
            let [x, y, z, flags] = [v[0], v[1], v[2], v[3]].map(u16::from);
            indices[j] = welder.add(x, y, z, &mut mesh.verts)?;
            vflags.resize(mesh.nverts(), 0);
            if flags & 0x80 != 0 {
                vflags[usize::from(indices[j])] = 1;
            }
        }
        let mut polys = triangle_polys(&tris, |t| indices[usize::from(t)]);
        merge_polys(&mut polys, None, &mesh.verts);
        for p in &polys {
            mesh.push_poly(p, cont.area);
        }
        if mesh.npolys() > max_tris {
            return Err(TOO_SMALL);
        }
    }
    remove::remove_border_vertices(&mut mesh, &mut vflags, max_tris)?;
    adjacency::build_adjacency(&mut mesh, conts);
    mesh.one_sided_links = adjacency::drop_one_sided_links(&mut mesh);
    mesh.flags = vec![0; mesh.npolys()];
    Ok(mesh)
}

/// The triangles (3 ring positions each) with three distinct corners, as polygons of the
/// vertices `vertex(position)` gives.
fn triangle_polys(tris: &[u16], vertex: impl Fn(u16) -> u16) -> Vec<[u16; NVP]> {
    tris.chunks_exact(3)
        .filter(|t| t[0] != t[1] && t[0] != t[2] && t[1] != t[2])
        .map(|t| {
            let mut p = [NULL_IDX; NVP];
            p[..3].copy_from_slice(&[vertex(t[0]), vertex(t[1]), vertex(t[2])]);
            p
        })
        .collect()
}

/// Merges polygons greedily, the pair sharing the longest edge first, while the result stays
/// convex and within [`NVP`] vertices (Detour's merge loop; `areas`, if given, moves along).
fn merge_polys(polys: &mut Vec<[u16; NVP]>, mut areas: Option<&mut Vec<u8>>, verts: &[u16]) {
    loop {
        let mut best = (0, 0, 0, 0, 0);
        for j in 0..polys.len().saturating_sub(1) {
            for k in j + 1..polys.len() {
                if let Some((v, ea, eb)) = merge_value(&polys[j], &polys[k], verts) {
                    if v > best.0 {
                        best = (v, j, k, ea, eb);
                    }
                }
            }
        }
        let (value, pa, pb, ea, eb) = best;
        if value <= 0 {
            return;
        }
        polys[pa] = merged(&polys[pa], &polys[pb], ea, eb);
        polys.swap_remove(pb);
        if let Some(a) = areas.as_deref_mut() {
            a.swap_remove(pb);
        }
    }
}

/// True if c is strictly left of a->b (x-z of 3-`u16` vertices).
fn uleft(a: &[u16], b: &[u16], c: &[u16]) -> bool {
    let [ax, az, bx, bz, cx, cz] = [a[0], a[2], b[0], b[2], c[0], c[2]].map(i32::from);
    (bx - ax) * (cz - az) - (cx - ax) * (bz - az) < 0
}

/// The squared length of the edge `pa` and `pb` share and its index in each, if they can be
/// merged into one convex polygon of at most [`NVP`] vertices (Detour's `getPolyMergeValue`:
/// the last shared edge of `pa` counts).
fn merge_value(pa: &[u16], pb: &[u16], verts: &[u16]) -> Option<(i32, usize, usize)> {
    let (na, nb) = (count_poly_verts(pa), count_poly_verts(pb));
    if na + nb < 2 || na + nb - 2 > NVP {
        return None;
    }
    let sorted = |a: u16, b: u16| if a > b { (b, a) } else { (a, b) };
    let mut shared = None;
    for i in 0..na {
        let ea = sorted(pa[i], pa[(i + 1) % na]);
        if let Some(j) = (0..nb).find(|&j| sorted(pb[j], pb[(j + 1) % nb]) == ea) {
            shared = Some((i, j));
        }
    }
    let (ea, eb) = shared?;
    let v = |i: u16| &verts[usize::from(i) * 3..usize::from(i) * 3 + 3];
    if !uleft(v(pa[(ea + na - 1) % na]), v(pa[ea]), v(pb[(eb + 2) % nb])) {
        return None;
    }
    if !uleft(v(pb[(eb + nb - 1) % nb]), v(pb[eb]), v(pa[(ea + 2) % na])) {
        return None;
    }
    let (a, b) = (v(pa[ea]), v(pa[(ea + 1) % na]));
    let dx = i32::from(a[0]) - i32::from(b[0]);
    let dz = i32::from(a[2]) - i32::from(b[2]);
    Some((dx * dx + dz * dz, ea, eb))
}

/// `pa` and `pb` joined along their shared edge `ea` / `eb` (Detour's `mergePolys`).
fn merged(pa: &[u16; NVP], pb: &[u16; NVP], ea: usize, eb: usize) -> [u16; NVP] {
    let (na, nb) = (count_poly_verts(pa), count_poly_verts(pb));
    let mut out = [NULL_IDX; NVP];
    let from_a = (0..na - 1).map(|i| pa[(ea + 1 + i) % na]);
    let from_b = (0..nb - 1).map(|i| pb[(eb + 1 + i) % nb]);
    for (slot, v) in out.iter_mut().zip(from_a.chain(from_b)) {
        *slot = v;
    }
    out
}

#[cfg(test)]
mod tests;
