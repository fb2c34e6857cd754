//! The navmesh's layers, as RecastDemo's `duDebugDrawNavMesh` draws them: polys (by area, flags
//! or tile) from their detail triangles, detail triangle edges, poly outlines (inner edges thin,
//! walls thick), vertices, tile bounds, off-mesh links and BV-tree boxes. Read from
//! [`crate::navmesh::view`].

use glam::Vec3;

use super::{Color, Dash, DebugDraw, Layer};
use crate::navmesh::NavMesh;
use crate::navmesh::view::{DetailTriangle, EdgeNeighbour, PolyType, PolyView, TileView};
use crate::query::PolyRef;

/// Name of the layer of poly triangles.
pub const POLYS_LAYER: &str = "navmesh.polys";
/// Name of the layer of detail triangle edges inside polys.
pub const DETAIL_LAYER: &str = "navmesh.detail";
/// Name of the layer of poly outlines.
pub const OUTLINES_LAYER: &str = "navmesh.outlines";
/// Name of the layer of poly vertices.
pub const VERTICES_LAYER: &str = "navmesh.vertices";
/// Name of the layer of tile bounds.
pub const TILES_LAYER: &str = "navmesh.tiles";
/// Name of the layer of off-mesh links.
pub const OFF_MESH_LAYER: &str = "navmesh.off_mesh";
/// Name of the layer of BV-tree boxes.
pub const BV_TREE_LAYER: &str = "navmesh.bv_tree";

/// Outer (wall) edge colour: `duRGBA(0,48,64,220)`.
pub const WALL_COLOR: Color = Color::rgba(0, 48, 64, 220);
/// Inner edge colour: `duRGBA(0,48,64,32)`.
pub const INNER_EDGE_COLOR: Color = Color::rgba(0, 48, 64, 32);
/// Width of wall edges (RecastDemo's 2.5).
pub const WALL_WIDTH: f32 = 2.5;
/// Width of inner edges (RecastDemo's 1.5).
pub const INNER_EDGE_WIDTH: f32 = 1.5;

/// How polys are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PolyColoring {
    /// By area, RecastDemo's `areaToCol` at alpha 64 ([`Color::area`]).
    #[default]
    Area,
    /// By tile, `duIntToCol(tile index, 128)` (RecastDemo's `DU_DRAWNAVMESH_COLOR_TILES`).
    Tile,
    /// By flags, `duIntToCol(flags, 64)`: polys with equal flags share a colour.
    Flags,
}

/// How poly outlines are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Outlines {
    /// Along the detail mesh's boundary edges that lie on each poly edge, as RecastDemo does:
    /// the outline follows the surface.
    #[default]
    Detail,
    /// One straight segment per poly edge, between its two poly vertices.
    Straight,
}

/// What [`navmesh`] draws and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NavMeshDrawOptions {
    /// Poly colours.
    pub coloring: PolyColoring,
    /// Outline mode.
    pub outlines: Outlines,
    /// Draw the detail triangles' inner edges.
    pub detail_edges: bool,
    /// Draw poly vertices.
    pub vertices: bool,
    /// Draw tile bounds.
    pub tiles: bool,
    /// Draw off-mesh links.
    pub off_mesh: bool,
    /// Draw BV-tree boxes.
    pub bv_tree: bool,
}

impl Default for NavMeshDrawOptions {
    /// Polys by area, detail outlines, vertices and off-mesh links (RecastDemo's default
    /// navmesh view); no detail edges, tile bounds or BV tree.
    fn default() -> Self {
        NavMeshDrawOptions {
            coloring: PolyColoring::Area,
            outlines: Outlines::Detail,
            detail_edges: false,
            vertices: true,
            tiles: false,
            off_mesh: true,
            bv_tree: false,
        }
    }
}

/// The layers `opts` selects, in drawing order (polys first).
pub fn navmesh(nav: &NavMesh, opts: &NavMeshDrawOptions) -> DebugDraw {
    let mut d = DebugDraw::new();
    d.push(polys(nav, opts.coloring));
    if opts.detail_edges {
        d.push(detail_edges(nav));
    }
    d.push(outlines(nav, opts.outlines));
    if opts.vertices {
        d.push(vertices(nav));
    }
    if opts.tiles {
        d.push(tiles(nav));
    }
    if opts.off_mesh {
        d.push(off_mesh_links(nav));
    }
    if opts.bv_tree {
        d.push(bv_tree(nav));
    }
    d
}

/// A ground poly's triangles: its detail triangles, or a fan from vertex 0 (how Detour
/// triangulates a poly without a detail mesh) if it has none.
pub fn poly_triangles(poly: &PolyView<'_>) -> Vec<[Vec3; 3]> {
    if poly.poly_type() != PolyType::Ground {
        return Vec::new();
    }
    if let Some(d) = poly.detail().filter(|d| d.triangle_count() > 0) {
        return d.triangles().map(|t: DetailTriangle| t.verts).collect();
    }
    let v: Vec<Vec3> = poly.vertices().collect();
    (2..v.len()).map(|i| [v[0], v[i - 1], v[i]]).collect()
}

/// The colour `coloring` gives `poly` of `tile`.
pub fn poly_color(tile: &TileView<'_>, poly: &PolyView<'_>, coloring: PolyColoring) -> Color {
    match coloring {
        PolyColoring::Area => Color::area(poly.area()).with_alpha(64),
        PolyColoring::Tile => Color::from_int(tile.index() as u32, 128),
        PolyColoring::Flags => Color::from_int(u32::from(poly.flags()), 64),
    }
}

/// Every ground poly's triangles ([`poly_triangles`]), coloured by `coloring`.
pub fn polys(nav: &NavMesh, coloring: PolyColoring) -> Layer {
    let mut l = Layer::new(POLYS_LAYER);
    for tile in nav.tiles() {
        for poly in tile.polys() {
            let c = poly_color(&tile, &poly, coloring);
            for t in poly_triangles(&poly) {
                l.triangle(t, c);
            }
        }
    }
    l
}

/// The ground polys whose flags include any of `flags`, in `color`
/// (`duDebugDrawNavMeshPolysWithFlags`).
pub fn polys_with_flags(nav: &NavMesh, flags: u16, color: Color) -> Layer {
    let mut l = Layer::new(POLYS_LAYER);
    for tile in nav.tiles() {
        for poly in tile.polys().filter(|p| p.flags() & flags != 0) {
            for t in poly_triangles(&poly) {
                l.triangle(t, color);
            }
        }
    }
    l
}

/// The polys of `refs` (a corridor, a search's visited set), in `color`
/// (`duDebugDrawNavMeshPoly`); refs not in the navmesh are skipped. Off-mesh connection polys
/// are drawn as a line between their end points.
pub fn polys_by_ref(nav: &NavMesh, name: &str, refs: &[PolyRef], color: Color) -> Layer {
    let mut l = Layer::new(name);
    for &r in refs {
        let Some(poly) = nav.poly(r) else { continue };
        match poly.poly_type() {
            PolyType::Ground => {
                for t in poly_triangles(&poly) {
                    l.triangle(t, color);
                }
            }
            PolyType::OffMeshConnection => {
                if let Some(c) = poly.off_mesh_connection() {
                    l.polyline(&arc(c.start, c.end, 0.25), color.darken(), 2.0, Dash::Solid);
                }
            }
        }
    }
    l
}

/// The inner edges of every detail triangle (boundary edges are the outlines), each once.
pub fn detail_edges(nav: &NavMesh) -> Layer {
    let mut l = Layer::new(DETAIL_LAYER);
    let c = Color::rgba(0, 0, 0, 48);
    for tile in nav.tiles() {
        for poly in tile.polys() {
            let Some(d) = poly.detail() else { continue };
            for t in d.triangles() {
                for k in 0..3 {
                    let (i, j) = (t.indices[k], t.indices[(k + 1) % 3]);
                    if !t.is_boundary_edge(k) && i < j {
                        l.line(t.verts[k], t.verts[(k + 1) % 3], c, 1.0);
                    }
                }
            }
        }
    }
    l
}

/// Squared distance in xz from `p` to the segment `a`..`b`.
fn dist_pt_seg_2d_sqr(p: Vec3, a: Vec3, b: Vec3) -> f32 {
    let (px, pz) = (p.x - a.x, p.z - a.z);
    let (dx, dz) = (b.x - a.x, b.z - a.z);
    let d = dx * dx + dz * dz;
    let t = if d > 0.0 {
        ((px * dx + pz * dz) / d).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let (ex, ez) = (a.x + t * dx - p.x, a.z + t * dz - p.z);
    ex * ex + ez * ez
}

/// The colour and width of poly edge `edge` of `poly`: walls [`WALL_COLOR`] at
/// [`WALL_WIDTH`]; edges to a poly of the same tile [`INNER_EDGE_COLOR`]; tile portals white
/// (`duRGBA(255,255,255,48)`) where linked, black (`duRGBA(0,0,0,48)`) where not, both at
/// [`INNER_EDGE_WIDTH`].
pub fn edge_style(poly: &PolyView<'_>, edge: usize, neighbour: EdgeNeighbour) -> (Color, f32) {
    match neighbour {
        EdgeNeighbour::Wall => (WALL_COLOR, WALL_WIDTH),
        EdgeNeighbour::Internal(_) => (INNER_EDGE_COLOR, INNER_EDGE_WIDTH),
        EdgeNeighbour::Portal { .. } => {
            let linked = poly.edge_links(edge).next().is_some();
            let c = if linked {
                Color::rgba(255, 255, 255, 48)
            } else {
                Color::rgba(0, 0, 0, 48)
            };
            (c, INNER_EDGE_WIDTH)
        }
    }
}

/// Every ground poly's outline, styled by [`edge_style`] (walls thicker). With
/// [`Outlines::Straight`], exactly one segment per poly edge; with [`Outlines::Detail`], the
/// detail boundary edges lying on each poly edge (within 1 cm in xz, as RecastDemo), or the
/// straight edge where none does.
pub fn outlines(nav: &NavMesh, mode: Outlines) -> Layer {
    const THR: f32 = 0.01 * 0.01;
    let mut l = Layer::new(OUTLINES_LAYER);
    // Inner edges first, then walls over them (two batches, as RecastDemo's two passes).
    for walls in [false, true] {
        for tile in nav.tiles() {
            for poly in tile.polys().filter(|p| p.poly_type() == PolyType::Ground) {
                let detail = poly.detail();
                for e in poly.edges() {
                    if (e.neighbour == EdgeNeighbour::Wall) != walls {
                        continue;
                    }
                    let (c, w) = edge_style(&poly, e.index, e.neighbour);
                    let mut drawn = false;
                    if mode == Outlines::Detail
                        && let Some(d) = detail
                    {
                        for t in d.triangles() {
                            for k in 0..3 {
                                if !t.is_boundary_edge(k) {
                                    continue;
                                }
                                let (a, b) = (t.verts[k], t.verts[(k + 1) % 3]);
                                if dist_pt_seg_2d_sqr(a, e.start, e.end) < THR
                                    && dist_pt_seg_2d_sqr(b, e.start, e.end) < THR
                                {
                                    l.line(a, b, c, w);
                                    drawn = true;
                                }
                            }
                        }
                    }
                    if !drawn {
                        l.line(e.start, e.end, c, w);
                    }
                }
            }
        }
    }
    l
}

/// Every tile vertex as a 3-pixel point, `duRGBA(0,0,0,196)`.
pub fn vertices(nav: &NavMesh) -> Layer {
    let mut l = Layer::new(VERTICES_LAYER);
    for tile in nav.tiles() {
        for &v in tile.vertices() {
            l.point(Vec3::from_array(v), Color::rgba(0, 0, 0, 196), 3.0);
        }
    }
    l
}

/// Every tile's bounding box (12 lines each), coloured `duIntToCol(tile index, 160)`.
pub fn tiles(nav: &NavMesh) -> Layer {
    let mut l = Layer::new(TILES_LAYER);
    for tile in nav.tiles() {
        let h = tile.header();
        l.box_wire(
            h.bmin,
            h.bmax,
            Color::from_int(tile.index() as u32, 160),
            1.0,
        );
    }
    l
}

/// Points along a parabolic arc from `a` to `b` rising `h` times the horizontal distance
/// (RecastDemo's off-mesh arc shape), 16 segments.
pub fn arc(a: Vec3, b: Vec3, h: f32) -> Vec<Vec3> {
    const N: usize = 16;
    let d = b - a;
    let len = (d.x * d.x + d.z * d.z).sqrt();
    (0..=N)
        .map(|i| {
            let u = i as f32 / N as f32;
            let s = u * 2.0 - 1.0;
            a + d * u + Vec3::Y * (h * len * (1.0 - s * s))
        })
        .collect()
}

/// Two short lines making an arrowhead at `tip` pointing from `from`, `size` long.
fn arrow_head(l: &mut Layer, from: Vec3, tip: Vec3, size: f32, color: Color, width: f32) {
    let d = tip - from;
    let len = d.length();
    if len <= 1e-6 {
        return;
    }
    let back = d / len * size;
    let side = Vec3::new(-back.z, 0.0, back.x) * 0.5;
    l.line(tip, tip - back + side, color, width);
    l.line(tip, tip - back - side, color, width);
}

/// Every off-mesh link: the arc between its end points (arrowheads at the ends it can be
/// travelled to), a line from each end point to the poly vertex Detour snapped it to, a circle
/// of the link's radius at each end (red where the end found no poly to link to), a short
/// post and a 5-pixel point at each end point. Colour: the area's, darkened, alpha 220.
pub fn off_mesh_links(nav: &NavMesh) -> Layer {
    let mut l = Layer::new(OFF_MESH_LAYER);
    let post = Color::rgba(0, 48, 64, 196);
    let unlinked = Color::rgba(220, 32, 16, 196);
    let mut points = Vec::new();
    for tile in nav.tiles() {
        for poly in tile
            .polys()
            .filter(|p| p.poly_type() == PolyType::OffMeshConnection)
        {
            let Some(con) = poly.off_mesh_connection() else {
                continue;
            };
            let col = Color::area(poly.area()).with_alpha(220).darken();
            let v: Vec<Vec3> = poly.vertices().collect();
            let start_set = poly.links().any(|k| k.edge == 0);
            let end_set = poly.links().any(|k| k.edge == 1);
            for (end, snapped, set) in [
                (con.start, v.first(), start_set),
                (con.end, v.get(1), end_set),
            ] {
                if let Some(&s) = snapped {
                    l.line(s, end, col, 2.0);
                }
                l.circle(
                    end + Vec3::Y * 0.1,
                    con.radius,
                    if set { col } else { unlinked },
                    2.0,
                    16,
                );
                l.line(end, end + Vec3::Y * 0.2, post, 2.0);
            }
            let pts = arc(con.start, con.end, 0.25);
            l.polyline(&pts, col, 2.0, Dash::Solid);
            let n = pts.len();
            arrow_head(&mut l, pts[n - 2], pts[n - 1], 0.6, col, 2.0);
            if con.bidirectional {
                arrow_head(&mut l, pts[1], pts[0], 0.6, col, 2.0);
            }
            points.push((con.start, col));
            points.push((con.end, col));
        }
    }
    for (p, c) in points {
        l.point(p, c, 5.0);
    }
    l
}

/// The boxes of every BV-tree leaf (`duDebugDrawNavMeshBVTree`: 12 lines each,
/// `duRGBA(255,255,255,128)`), in world units.
///
/// Only the nodes of the tree are read: `dtCreateNavMeshData` stores `2 * polys` nodes but
/// its tree of `n` leaves uses `2n - 1`, so the last slot is a zeroed node, which reads as a
/// leaf for poly 0 with an empty box at the tile's corner (upstream's drawing shows it). The
/// tree's extent is the root's escape offset.
pub fn bv_tree(nav: &NavMesh) -> Layer {
    let mut l = Layer::new(BV_TREE_LAYER);
    for tile in nav.tiles() {
        let h = tile.header();
        if h.bv_quant_factor <= 0.0 {
            continue;
        }
        let cs = 1.0 / h.bv_quant_factor;
        let nodes: Vec<_> = tile.bv_nodes().collect();
        let used = nodes.first().map_or(0, |root| root.escape().unwrap_or(1));
        for n in nodes.iter().take(used).filter(|n| n.leaf_poly().is_some()) {
            let q = |v: [u16; 3]| {
                h.bmin + Vec3::new(f32::from(v[0]), f32::from(v[1]), f32::from(v[2])) * cs
            };
            l.box_wire(q(n.bmin), q(n.bmax), Color::rgba(255, 255, 255, 128), 1.0);
        }
    }
    l
}
