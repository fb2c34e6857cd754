//! [`DetailMeshView`]: the detail triangles of a ground poly, resolved to positions.

use glam::Vec3;
use recastnavigation_sys::{dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY, dtPolyDetail};

use super::PolyView;

/// A ground poly's detail mesh (`dtPolyDetail`): its triangles over the poly's own vertices and
/// `vertex_count` extra detail vertices.
#[derive(Clone, Copy)]
pub struct DetailMeshView<'a> {
    poly: PolyView<'a>,
    vert_base: usize,
    tri_base: usize,
    vert_count: usize,
    tri_count: usize,
}

/// A detail triangle.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DetailTriangle {
    /// Vertex indices local to the detail mesh: below the poly's vertex count, a poly vertex;
    /// from there on, an extra detail vertex.
    pub indices: [u8; 3],
    /// The vertices' positions.
    pub verts: [Vec3; 3],
    /// The raw edge flags byte: 2 bits per edge (edge `k` from vertex `k` to `k + 1`).
    pub flags: u8,
}

impl DetailTriangle {
    /// Edge `k`'s flags (`dtGetDetailTriEdgeFlags`).
    pub fn edge_flags(&self, k: usize) -> u8 {
        (self.flags >> (2 * (k % 3))) & 0x3
    }

    /// True if edge `k` lies on the poly's boundary (`DT_DETAIL_EDGE_BOUNDARY`).
    pub fn is_boundary_edge(&self, k: usize) -> bool {
        u32::from(self.edge_flags(k)) & dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY != 0
    }
}

impl<'a> DetailMeshView<'a> {
    pub(super) fn new(poly: PolyView<'a>, d: &dtPolyDetail) -> Self {
        DetailMeshView {
            poly,
            vert_base: d.vertBase as usize,
            tri_base: d.triBase as usize,
            vert_count: usize::from(d.vertCount),
            tri_count: usize::from(d.triCount),
        }
    }

    /// The poly it details.
    pub fn poly(&self) -> PolyView<'a> {
        self.poly
    }

    /// Index of its first extra vertex in [`super::TileView::detail_vertices`].
    pub fn vert_base(&self) -> usize {
        self.vert_base
    }

    /// Index of its first triangle in [`super::TileView::detail_triangles`].
    pub fn tri_base(&self) -> usize {
        self.tri_base
    }

    /// Number of extra detail vertices.
    pub fn vertex_count(&self) -> usize {
        self.vert_count
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.tri_count
    }

    /// Its extra detail vertices.
    pub fn extra_vertices(&self) -> &'a [[f32; 3]] {
        self.poly
            .tile()
            .detail_vertices()
            .get(self.vert_base..self.vert_base + self.vert_count)
            .unwrap_or(&[])
    }

    /// Local vertex `i` as a position: the poly's vertices first, then the extra ones.
    pub fn vertex(&self, i: usize) -> Option<Vec3> {
        let pv = self.poly.vertex_indices();
        match pv.get(i) {
            Some(&v) => self.poly.tile().vertex(usize::from(v)),
            None => self
                .extra_vertices()
                .get(i - pv.len())
                .map(|&v| Vec3::from_array(v)),
        }
    }

    /// Its triangles, resolved to positions.
    pub fn triangles(&self) -> impl ExactSizeIterator<Item = DetailTriangle> + 'a {
        let me = *self;
        let tris = self
            .poly
            .tile()
            .detail_triangles()
            .get(self.tri_base..self.tri_base + self.tri_count)
            .unwrap_or(&[]);
        tris.iter().map(move |t| DetailTriangle {
            indices: [t[0], t[1], t[2]],
            // Validated on load: every index is below the poly's plus the detail mesh's vertex
            // count.
            verts: [0, 1, 2].map(|k| me.vertex(usize::from(t[k])).unwrap_or(Vec3::NAN)),
            flags: t[3],
        })
    }
}

impl std::fmt::Debug for DetailMeshView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DetailMeshView")
            .field("poly", &self.poly.poly_ref())
            .field("vert_base", &self.vert_base)
            .field("vert_count", &self.vert_count)
            .field("tri_base", &self.tri_base)
            .field("tri_count", &self.tri_count)
            .finish()
    }
}
