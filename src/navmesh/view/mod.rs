//! Borrowing views of a navmesh's tiles, polys, links, off-mesh connections, detail meshes and
//! BV trees, read straight from Detour's own arrays (nothing is copied).
//!
//! Start from [`NavMesh::tiles`], [`NavMesh::tile`], [`NavMesh::tile_at`],
//! [`NavMesh::tiles_at`], [`NavMesh::tile_containing`] or [`NavMesh::poly`]. Every view borrows
//! the navmesh, which therefore cannot change while one is alive. Every accessor is safe on any
//! navmesh: its tiles were validated when they were added, and everything is indexed through
//! bounds-checked slices.
//!
//! ```
//! # fn main() -> navkit::Result<()> {
//! use navkit::navmesh::view::PolyType;
//! let floor = navkit::TriMesh::new(
//!     vec![0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 0.0, 10.0, 10.0, 0.0, 0.0],
//!     vec![0, 1, 2, 0, 2, 3],
//! )?;
//! let geom = navkit::InputGeometry::from_mesh(floor);
//! let nav = navkit::NavMeshBuilder::new(&geom).solo()?.into_navmesh();
//! let tile = nav.tiles().next().unwrap();
//! assert_eq!(tile.header().poly_count, tile.polys().count());
//! for poly in tile.polys() {
//!     assert_eq!(poly.poly_type(), PolyType::Ground);
//!     assert_eq!(nav.poly(poly.poly_ref()).unwrap().index(), poly.index());
//! }
//! # Ok(())
//! # }
//! ```

mod bv_tree;
mod detail;
mod link;
mod off_mesh;
mod poly;
mod poly_ref;
#[cfg(test)]
mod tests;
mod tile;

pub use bv_tree::BvNode;
pub use detail::{DetailMeshView, DetailTriangle};
pub use link::{Link, LinkIter};
pub use off_mesh::TileOffMeshConnection;
pub use poly::{EdgeNeighbour, PolyEdge, PolyType, PolyView};
pub use poly_ref::DecodedPolyRef;
pub use tile::{TileHeader, TileView};

use glam::Vec3;

use super::{NavMesh, TileCoord};
use crate::ffi::PolyRef;
use crate::{Error, Result};

impl NavMesh {
    /// The length of the navmesh's tile array (`dtNavMesh::getMaxTiles`): tile indices run
    /// from 0 to `max_tiles() - 1`, some of them free.
    pub fn max_tiles(&self) -> usize {
        self.raw().max_tiles()
    }

    /// The tile at `index` of the tile array, if that slot holds one.
    pub fn tile(&self, index: usize) -> Option<TileView<'_>> {
        self.raw().raw_tile(index).map(TileView::new)
    }

    /// Every tile in use, in tile-array order (the order RecastDemo saves them in).
    pub fn tiles(&self) -> impl Iterator<Item = TileView<'_>> + '_ {
        (0..self.max_tiles()).filter_map(move |i| self.tile(i))
    }

    /// The tile at grid position `at` (column, row and layer), if there is one.
    pub fn tile_at(&self, at: TileCoord) -> Option<TileView<'_>> {
        self.tile(self.raw().tile_index_at(at.x, at.z, at.layer)?)
    }

    /// Every tile at grid column `x`, row `z`, all layers.
    pub fn tiles_at(&self, x: i32, z: i32) -> Vec<TileView<'_>> {
        self.raw()
            .tile_indices_at(x, z)
            .into_iter()
            .filter_map(|i| self.tile(i))
            .collect()
    }

    /// The tile a tile ref names (as [`TileView::tile_ref`] gives), if it is current: a ref of
    /// a tile since removed (or re-added, with a new salt) names none.
    pub fn tile_by_ref(&self, tile_ref: u64) -> Option<TileView<'_>> {
        self.tile(self.raw().tile_index_by_ref(tile_ref)?)
    }

    /// The grid column and row (layer 0) of the tile that would hold `pos`
    /// (`dtNavMesh::calcTileLoc`: `floor((pos - origin) / tile size)` in x and z).
    ///
    /// [`Error::NonFinite`] for a non-finite position, [`Error::InvalidArgument`] for one whose column or row does not
    /// fit an `i32`.
    pub fn calc_tile_loc(&self, pos: Vec3) -> Result<TileCoord> {
        if !pos.is_finite() {
            return Err(Error::NonFinite {
                argument: "pos",
                value: pos,
            });
        }
        let p = self.params();
        let cell = |v: f32, o: f32, size: f32, axis: &str| -> Result<i32> {
            let c = ((v - o) / size).floor();
            if c.is_finite() && c >= i32::MIN as f32 && c < i32::MAX as f32 {
                Ok(c as i32)
            } else {
                Err(Error::InvalidArgument(format!(
                    "calc_tile_loc: position {pos} is {c} tiles from the origin along {axis}, \
                     beyond the tile grid"
                )))
            }
        };
        Ok(TileCoord::new(
            cell(pos.x, p.origin[0], p.tile_width, "x")?,
            cell(pos.z, p.origin[2], p.tile_height, "z")?,
        ))
    }

    /// The tile holding `pos`: of the tiles at its grid position ([`NavMesh::calc_tile_loc`]),
    /// the one whose bounds contain `pos`, or if none does (`pos` above or below every layer)
    /// the one nearest to it in height. `None` if no tile is at that position.
    pub fn tile_containing(&self, pos: Vec3) -> Result<Option<TileView<'_>>> {
        let at = self.calc_tile_loc(pos)?;
        let gap = |t: &TileView<'_>| {
            let h = t.header();
            (h.bmin.y - pos.y).max(pos.y - h.bmax.y).max(0.0)
        };
        Ok(self
            .tiles_at(at.x, at.z)
            .into_iter()
            .min_by(|a, b| gap(a).total_cmp(&gap(b))))
    }

    /// The tile and poly `poly` refers to, if it is a valid ref of this navmesh (current salt,
    /// tile in use, poly index within the tile).
    pub fn poly(&self, poly: PolyRef) -> Option<PolyView<'_>> {
        if !self.is_valid(poly) {
            return None;
        }
        let d = self.decode_poly_ref(poly);
        self.tile(d.tile as usize)?.poly(d.poly as usize)
    }
}
