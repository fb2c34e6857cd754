//! [`TileView`]: one tile of a navmesh, and its [`TileHeader`].

use glam::Vec3;

use super::{BvNode, Link, PolyView, TileOffMeshConnection};
use crate::ffi::PolyRef;
use crate::ffi::tile_view::RawTile;
use crate::navmesh::TileCoord;

/// A tile's header (`dtMeshHeader`), copied out.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileHeader {
    /// Grid column.
    pub x: i32,
    /// Grid row (Detour's tile `y`, along world z).
    pub y: i32,
    /// Layer.
    pub layer: i32,
    /// The user id the tile was built with.
    pub user_id: u32,
    /// Polys, ground and off-mesh.
    pub poly_count: usize,
    /// Vertices, including two per off-mesh connection.
    pub vert_count: usize,
    /// Link slots (`maxLinkCount`).
    pub max_link_count: usize,
    /// Detail meshes (one per ground poly).
    pub detail_mesh_count: usize,
    /// Detail vertices beyond the poly vertices (`detailVertCount`).
    pub detail_vert_count: usize,
    /// Detail triangles.
    pub detail_tri_count: usize,
    /// BV tree nodes (0: no BV tree).
    pub bv_node_count: usize,
    /// Off-mesh connections.
    pub off_mesh_con_count: usize,
    /// Index of the first off-mesh connection poly: polys before it are ground polys.
    pub off_mesh_base: usize,
    /// Agent height the tile was built for.
    pub walkable_height: f32,
    /// Agent radius the tile was built for.
    pub walkable_radius: f32,
    /// Largest step the tile was built for.
    pub walkable_climb: f32,
    /// Bounds, minimum corner.
    pub bmin: Vec3,
    /// Bounds, maximum corner.
    pub bmax: Vec3,
    /// Scale from world units to the BV tree's quantised units (`bvQuantFactor`).
    pub bv_quant_factor: f32,
}

impl TileHeader {
    /// The tile's grid position.
    pub fn coord(&self) -> TileCoord {
        TileCoord::new(self.x, self.y).with_layer(self.layer)
    }
}

/// One tile of a navmesh, borrowed from it.
#[derive(Clone, Copy)]
pub struct TileView<'a> {
    raw: RawTile<'a>,
}

impl<'a> TileView<'a> {
    pub(super) fn new(raw: RawTile<'a>) -> Self {
        TileView { raw }
    }

    pub(super) fn raw(&self) -> &RawTile<'a> {
        &self.raw
    }

    /// Index in the navmesh's tile array (see [`crate::navmesh::NavMesh::tile`]).
    pub fn index(&self) -> usize {
        self.raw.index
    }

    /// The tile's ref (`dtNavMesh::getTileRef`: salt and tile index, poly 0), widened to 64
    /// bits whatever the width of this build's refs.
    pub fn tile_ref(&self) -> u64 {
        self.raw.tile_ref
    }

    /// The tile's salt (bumped each time its slot is reused).
    pub fn salt(&self) -> u32 {
        self.raw.salt
    }

    /// The ref of the tile's poly 0 (`dtNavMesh::getPolyRefBase`); poly `i`'s ref is this
    /// with `i` in the poly bits.
    pub fn poly_ref_base(&self) -> PolyRef {
        PolyRef(self.raw.poly_ref_base)
    }

    /// The tile's data as Detour holds it (`dtCreateNavMeshData`'s layout; its links are the
    /// live ones Detour wrote when tiles were added).
    pub fn data(&self) -> &'a [u8] {
        self.raw.data
    }

    /// Bytes of tile data.
    pub fn data_size(&self) -> usize {
        self.raw.data.len()
    }

    /// The header.
    pub fn header(&self) -> TileHeader {
        let h = self.raw.header;
        let n = |v: i32| v.max(0) as usize;
        TileHeader {
            x: h.x,
            y: h.y,
            layer: h.layer,
            user_id: h.userId,
            poly_count: n(h.polyCount),
            vert_count: n(h.vertCount),
            max_link_count: n(h.maxLinkCount),
            detail_mesh_count: n(h.detailMeshCount),
            detail_vert_count: n(h.detailVertCount),
            detail_tri_count: n(h.detailTriCount),
            bv_node_count: n(h.bvNodeCount),
            off_mesh_con_count: n(h.offMeshConCount),
            off_mesh_base: n(h.offMeshBase),
            walkable_height: h.walkableHeight,
            walkable_radius: h.walkableRadius,
            walkable_climb: h.walkableClimb,
            bmin: Vec3::from_array(h.bmin),
            bmax: Vec3::from_array(h.bmax),
            bv_quant_factor: h.bvQuantFactor,
        }
    }

    /// The grid position (column, row, layer).
    pub fn coord(&self) -> TileCoord {
        let h = self.raw.header;
        TileCoord::new(h.x, h.y).with_layer(h.layer)
    }

    /// Index of the first off-mesh connection poly (`offMeshBase`): polys before it are ground
    /// polys, poly `off_mesh_base() + c` is off-mesh connection `c`.
    pub fn off_mesh_base(&self) -> usize {
        self.raw.header.offMeshBase.max(0) as usize
    }

    /// The vertices (`vertCount`), ground poly vertices first, then two per off-mesh connection.
    pub fn vertices(&self) -> &'a [[f32; 3]] {
        self.raw.verts
    }

    /// Vertex `i` as a position.
    pub fn vertex(&self, i: usize) -> Option<Vec3> {
        self.raw.verts.get(i).map(|&v| Vec3::from_array(v))
    }

    /// Number of polys, ground and off-mesh.
    pub fn poly_count(&self) -> usize {
        self.raw.polys.len()
    }

    /// Poly `i` of the tile.
    pub fn poly(&self, i: usize) -> Option<PolyView<'a>> {
        (i < self.raw.polys.len()).then(|| PolyView::new(*self, i))
    }

    /// Every poly, ground polys first, then one per off-mesh connection.
    pub fn polys(&self) -> impl ExactSizeIterator<Item = PolyView<'a>> + 'a {
        let tile = *self;
        (0..self.raw.polys.len()).map(move |i| PolyView::new(tile, i))
    }

    /// Number of link slots (`maxLinkCount`), in use or free.
    pub fn link_slot_count(&self) -> usize {
        self.raw.links.len()
    }

    /// Link slot `i` as stored, whether a poly's chain reaches it or not (a free slot holds
    /// stale values). Use [`TileView::links`] or [`PolyView::links`] for the live links.
    pub fn link_slot(&self, i: usize) -> Option<Link> {
        self.raw.links.get(i).map(|l| Link::from_raw(i, &l))
    }

    /// Every live link of the tile: each poly's chain ([`PolyView::links`]) in poly order.
    pub fn links(&self) -> impl Iterator<Item = Link> + 'a {
        self.polys().flat_map(|p| p.links())
    }

    /// The off-mesh connections, in order (connection `c` is poly `off_mesh_base() + c`).
    pub fn off_mesh_connections(
        &self,
    ) -> impl ExactSizeIterator<Item = TileOffMeshConnection> + 'a {
        let tile = *self;
        (0..self.raw.off_mesh_cons.len())
            .map(move |c| TileOffMeshConnection::new(&tile, c, &tile.raw.off_mesh_cons[c]))
    }

    /// Off-mesh connection `c`.
    pub fn off_mesh_connection(&self, c: usize) -> Option<TileOffMeshConnection> {
        self.raw
            .off_mesh_cons
            .get(c)
            .map(|raw| TileOffMeshConnection::new(self, c, raw))
    }

    /// The detail vertices (`detailVertCount`): the extra vertices of every detail mesh.
    pub fn detail_vertices(&self) -> &'a [[f32; 3]] {
        self.raw.detail_verts
    }

    /// The detail triangles (`detailTriCount`), as stored: three vertex indices local to their
    /// poly's detail mesh, then the edge flags. [`PolyView::detail`] resolves them.
    pub fn detail_triangles(&self) -> &'a [[u8; 4]] {
        self.raw.detail_tris
    }

    /// The BV tree's nodes, in Detour's order (empty if the tile has no BV tree).
    pub fn bv_nodes(&self) -> impl ExactSizeIterator<Item = BvNode> + 'a {
        self.raw.bv_tree.iter().map(BvNode::from_raw)
    }
}

impl std::fmt::Debug for TileView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TileView")
            .field("index", &self.index())
            .field("tile_ref", &self.tile_ref())
            .field("header", &self.header())
            .finish()
    }
}
