//! [`PolyView`]: one poly of a tile, its edges ([`PolyEdge`], [`EdgeNeighbour`]) and type.

use glam::Vec3;
use recastnavigation_sys::{
    DT_EXT_LINK, DT_NULL_LINK, dtPoly, dtPolyTypes_DT_POLYTYPE_OFFMESH_CONNECTION,
};

use super::{DetailMeshView, Link, LinkIter, TileOffMeshConnection, TileView};
use crate::ffi::{PolyRef, RawPolyRef};

/// What a poly is (`dtPolyTypes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum PolyType {
    /// A ground polygon (`DT_POLYTYPE_GROUND`).
    Ground,
    /// An off-mesh connection (`DT_POLYTYPE_OFFMESH_CONNECTION`): two vertices, its end points.
    OffMeshConnection,
}

/// What lies across one edge of a poly, from its `neis` entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum EdgeNeighbour {
    /// Nothing: a wall (`neis` 0).
    Wall,
    /// The poly of the same tile with this index (`neis` = index + 1).
    Internal(usize),
    /// A portal to the neighbouring tile on `side` (0..=7, `neis` = `DT_EXT_LINK | side`);
    /// the polys across it are the poly's links on this edge ([`PolyView::edge_links`]).
    Portal {
        /// The side of the tile the edge lies on.
        side: u8,
    },
}

impl EdgeNeighbour {
    /// The meaning of a raw `neis` value.
    pub fn from_neis(nei: u16) -> Self {
        if nei & DT_EXT_LINK != 0 {
            EdgeNeighbour::Portal {
                side: (nei & 0xff) as u8,
            }
        } else if nei == 0 {
            EdgeNeighbour::Wall
        } else {
            EdgeNeighbour::Internal(usize::from(nei) - 1)
        }
    }
}

/// One edge of a poly: from vertex `index` to the next one.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PolyEdge {
    /// Edge index (0..vertex count).
    pub index: usize,
    /// Start vertex.
    pub start: Vec3,
    /// End vertex.
    pub end: Vec3,
    /// The raw `neis` entry.
    pub neis: u16,
    /// Its meaning.
    pub neighbour: EdgeNeighbour,
}

/// One poly of a tile, borrowed from the navmesh.
#[derive(Clone, Copy)]
pub struct PolyView<'a> {
    tile: TileView<'a>,
    index: usize,
}

impl<'a> PolyView<'a> {
    /// Only made by [`TileView::poly`] and [`TileView::polys`], with `index < poly count`.
    pub(super) fn new(tile: TileView<'a>, index: usize) -> Self {
        PolyView { tile, index }
    }

    fn raw(&self) -> &'a dtPoly {
        // In range: `PolyView::new` is only called with an index below the poly count.
        &self.tile.raw().polys[self.index]
    }

    /// The tile it belongs to.
    pub fn tile(&self) -> TileView<'a> {
        self.tile
    }

    /// Its index in the tile.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Its ref.
    pub fn poly_ref(&self) -> PolyRef {
        PolyRef(self.tile.raw().poly_ref_base | self.index as RawPolyRef)
    }

    /// Ground poly or off-mesh connection.
    pub fn poly_type(&self) -> PolyType {
        if u32::from(self.raw().areaAndtype >> 6) == dtPolyTypes_DT_POLYTYPE_OFFMESH_CONNECTION {
            PolyType::OffMeshConnection
        } else {
            PolyType::Ground
        }
    }

    /// Its area id (0..=63).
    pub fn area(&self) -> u8 {
        self.raw().areaAndtype & 0x3f
    }

    /// Its flags.
    pub fn flags(&self) -> u16 {
        self.raw().flags
    }

    /// Number of vertices (3..=6 for a ground poly, 2 for an off-mesh connection).
    pub fn vertex_count(&self) -> usize {
        self.vertex_indices().len()
    }

    /// Its vertices as indices into [`TileView::vertices`].
    pub fn vertex_indices(&self) -> &'a [u16] {
        let p = self.raw();
        &p.verts[..usize::from(p.vertCount).min(p.verts.len())]
    }

    /// Its vertices as positions.
    pub fn vertices(&self) -> impl ExactSizeIterator<Item = Vec3> + 'a {
        let verts = self.tile.vertices();
        self.vertex_indices().iter().map(move |&i| {
            // Validated on load: every poly vertex index is below the vertex count.
            verts
                .get(usize::from(i))
                .map_or(Vec3::NAN, |&v| Vec3::from_array(v))
        })
    }

    /// The raw `neis` entries, one per edge (edge `j` runs from vertex `j` to vertex `j + 1`).
    pub fn neis(&self) -> &'a [u16] {
        let p = self.raw();
        &p.neis[..usize::from(p.vertCount).min(p.neis.len())]
    }

    /// Its edges, with what lies across each.
    pub fn edges(&self) -> impl ExactSizeIterator<Item = PolyEdge> + 'a {
        let verts: Vec<Vec3> = self.vertices().collect();
        let neis = self.neis();
        (0..neis.len()).map(move |j| PolyEdge {
            index: j,
            start: verts[j],
            end: verts[(j + 1) % verts.len()],
            neis: neis[j],
            neighbour: EdgeNeighbour::from_neis(neis[j]),
        })
    }

    /// The first slot of its link chain (`firstLink`), `None` if it has no links.
    pub fn first_link(&self) -> Option<usize> {
        let f = self.raw().firstLink;
        (f != DT_NULL_LINK).then_some(f as usize)
    }

    /// Its links, in Detour's chain order (the order of [`crate::navmesh::NavMesh::neighbours`]).
    pub fn links(&self) -> LinkIter<'a> {
        LinkIter::new(self.tile.raw().links, self.raw().firstLink)
    }

    /// Its links across edge `edge` (for a portal edge: the polys of the neighbouring tile
    /// that share part of it).
    pub fn edge_links(&self, edge: usize) -> impl Iterator<Item = Link> + 'a {
        self.links().filter(move |l| usize::from(l.edge) == edge)
    }

    /// Its detail mesh (ground polys only).
    pub fn detail(&self) -> Option<DetailMeshView<'a>> {
        if self.poly_type() != PolyType::Ground {
            return None;
        }
        let d = self.tile.raw().detail_meshes.get(self.index)?;
        Some(DetailMeshView::new(*self, d))
    }

    /// The off-mesh connection it is (off-mesh connection polys only).
    pub fn off_mesh_connection(&self) -> Option<TileOffMeshConnection> {
        if self.poly_type() != PolyType::OffMeshConnection {
            return None;
        }
        self.tile
            .off_mesh_connection(self.index.checked_sub(self.tile.off_mesh_base())?)
    }
}

impl std::fmt::Debug for PolyView<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolyView")
            .field("poly_ref", &self.poly_ref())
            .field("type", &self.poly_type())
            .field("area", &self.area())
            .field("flags", &self.flags())
            .field("verts", &self.vertex_indices())
            .field("neis", &self.neis())
            .finish()
    }
}
