//! [`NavMesh`]: an owned Detour navmesh, built by [`crate::build`] or loaded from an `MSET` file.

pub mod islands;
pub mod mset;
pub mod tile_coord;

use crate::Aabb;
pub use islands::{Island, Islands};
pub use tile_coord::TileCoord;
pub mod params;
#[cfg(test)]
mod tests;
pub mod validate;
pub mod view;

use std::path::Path;

use glam::Vec3;

use crate::ffi::detour::{RawNavMesh, RawParams};
use crate::ffi::validate::ValidTileData;
use crate::ffi::{PolyRef, PolyRefBits};
use crate::status::Status;
use crate::{Error, Result};
use mset::{NavMeshSet, TileRecord};
use params::NavMeshParams;
use validate::{convert_tile_data, validate_tile_data};

/// A Detour navigation mesh (`dtNavMesh`), owned.
///
/// Build one with [`crate::NavMeshBuilder`], or load one with [`NavMesh::load`]. Query it
/// through a [`crate::query::NavMeshQuery`], which borrows it: the navmesh cannot be changed or
/// dropped while a query is alive.
///
/// `NavMesh` is `Send` and `Sync`: shared references only read it. Changing poly flags or areas
/// takes `&mut self`.
pub struct NavMesh {
    raw: RawNavMesh,
}

/// A polygon of the navmesh, for inspection and drawing.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct PolyInfo {
    /// The polygon's reference.
    pub poly: PolyRef,
    /// Its vertices (two for an off-mesh connection: start and end).
    pub verts: Vec<Vec3>,
    /// Its area id (see [`crate::area`]).
    pub area: u8,
    /// Its flags (see [`crate::flags`]).
    pub flags: u16,
    /// True for an off-mesh connection.
    pub off_mesh: bool,
}

use crate::status::detour_err;

impl NavMesh {
    /// A single-tile navmesh from trusted tile data (as `dtNavMesh::init(data, ...)` does: origin
    /// at the tile's minimum, one tile, as many polys as the tile has). The data is validated
    /// first all the same.
    pub fn from_tile_data(data: &[u8]) -> Result<NavMesh> {
        let info = validate_tile_data(data)?;
        let params = NavMeshParams {
            origin: info.bmin,
            tile_width: info.bmax[0] - info.bmin[0],
            tile_height: info.bmax[2] - info.bmin[2],
            max_tiles: 1,
            max_polys: info.poly_count.max(1) as i32,
        };
        Self::from_set(&NavMeshSet {
            params,
            tiles: vec![TileRecord {
                tile_ref: 0,
                data: data.to_vec(),
            }],
            ref_width: params::RefWidth::NATIVE,
        })
    }

    /// An empty navmesh for tiles (`dtNavMesh::init` with `params`); add tiles with
    /// [`NavMesh::add_tile`].
    ///
    /// ```
    /// use navkit::navmesh::{NavMesh, params::NavMeshParams};
    /// let nav = NavMesh::new(&NavMeshParams {
    ///     origin: [0.0; 3], tile_width: 9.6, tile_height: 9.6, max_tiles: 256, max_polys: 16384,
    /// })?;
    /// assert_eq!(nav.tile_count(), 0);
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn new(params: &NavMeshParams) -> Result<NavMesh> {
        Self::from_set(&NavMeshSet {
            params: *params,
            tiles: Vec::new(),
            ref_width: params::RefWidth::NATIVE,
        })
    }

    /// Adds one tile of Detour data (as built by [`crate::build::tiled`]) at the grid position stored in
    /// its header and returns its tile ref. The data is validated first, and must fit the
    /// navmesh: no more polygons than the poly bits of its refs can address, and no tile already
    /// at that position.
    pub fn add_tile(&mut self, data: &[u8]) -> Result<u64> {
        let (data, info) = ValidTileData::new(data)?;
        let layout = self.params().ref_layout();
        if info.poly_count > 1usize << layout.poly_bits {
            return Err(Error::Build {
                stage: crate::stage::Stage::DetourData,
                message: format!(
                    "tile ({}, {}) has {} polys; this navmesh's refs address at most {} per tile",
                    info.x,
                    info.y,
                    info.poly_count,
                    1usize << layout.poly_bits
                ),
            });
        }
        if self.raw.tile_ref_at(info.x, info.y, info.layer) != 0 {
            return Err(Error::InvalidArgument(format!(
                "there is already a tile at ({}, {}, layer {})",
                info.x, info.y, info.layer
            )));
        }
        #[allow(clippy::useless_conversion)] // dtTileRef is u32 or u64, by feature
        self.raw
            .add_tile(data, 0)
            .map(u64::from)
            .map_err(|s| detour_err("dtNavMesh::addTile", s))
    }

    /// Removes the tile at `tile`; returns whether there was one.
    pub fn remove_tile(&mut self, tile: TileCoord) -> Result<bool> {
        let r = self.raw.tile_ref_at(tile.x, tile.z, tile.layer);
        if r == 0 {
            return Ok(false);
        }
        Status(self.raw.remove_tile(r)).check("dtNavMesh::removeTile")?;
        Ok(true)
    }

    /// The Detour data of the tile at `tile`, if there is one.
    pub fn tile_data_at(&self, tile: TileCoord) -> Option<&[u8]> {
        self.raw.tile_data_at(tile.x, tile.z, tile.layer)
    }

    /// Every tile's grid position and bounds, in tile-array order.
    pub fn tile_bounds(&self) -> Vec<(TileCoord, Aabb)> {
        self.raw
            .tile_data()
            .into_iter()
            .filter_map(|(_, d)| validate_tile_data(d).ok())
            .map(|i| {
                (
                    TileCoord::new(i.x, i.y).with_layer(i.layer),
                    Aabb::new(Vec3::from_array(i.bmin), Vec3::from_array(i.bmax)),
                )
            })
            .collect()
    }

    /// A navmesh from a parsed (and therefore validated) navmesh set, converted to this build's
    /// ref width if it has the other one.
    fn from_set(set: &NavMeshSet) -> Result<NavMesh> {
        let native = params::RefWidth::NATIVE;
        params::validate_params(&set.params).map_err(|e| {
            if set.ref_width == native {
                e
            } else {
                Error::InvalidArgument(format!(
                    "a navmesh of {} refs cannot be converted to this build's {native} refs: \
                     {e}{}",
                    set.ref_width,
                    if native == params::RefWidth::Bits32 {
                        "; build navkit with the `large-refs` feature to load it"
                    } else {
                        ""
                    }
                ))
            }
        })?;
        let p = &set.params;
        let mut raw = RawNavMesh::new(&RawParams {
            orig: p.origin,
            tile_width: p.tile_width,
            tile_height: p.tile_height,
            max_tiles: p.max_tiles,
            max_polys: p.max_polys,
        })
        .map_err(|s| detour_err("dtNavMesh::init", s))?;
        let (from, to) = (p.ref_layout_for(set.ref_width), p.ref_layout());
        for (t, tile) in set.tiles.iter().enumerate() {
            let converted;
            let (data, tile_ref) = if set.ref_width == native {
                (&tile.data[..], tile.tile_ref)
            } else {
                converted = convert_tile_data(&tile.data, set.ref_width, &from, native, &to)?;
                let (salt, index, poly) = from.decode(tile.tile_ref);
                // A salt too wide for the narrower layout keeps its low bits (never 0).
                let salt = (salt & ((1u32 << to.salt_bits.min(31)) - 1)).max(1);
                let r = to.encode(salt, index, poly).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "tile {t}: its tile index {index} does not fit this build's {native} refs"
                    ))
                })?;
                (&converted[..], if tile.tile_ref == 0 { 0 } else { r })
            };
            let tile_ref = PolyRefBits::try_from(tile_ref).map_err(|_| {
                Error::InvalidArgument(format!("tile {t}: ref {tile_ref:#x} does not fit {native}"))
            })?;
            // Every tile's data is checked before Detour sees it (`read_mset` did too).
            let (data, _) = ValidTileData::new(data)?;
            raw.add_tile(data, tile_ref)
                .map_err(|s| detour_err("dtNavMesh::addTile", s))?;
        }
        Ok(NavMesh { raw })
    }

    /// Reads a navmesh from RecastDemo's `MSET` format, validating every byte first.
    ///
    /// Files written with either width of poly refs load (see [`mset`]); tiles of the other
    /// width than this build's ([`params::RefWidth::NATIVE`]) are converted.
    pub fn from_mset_bytes(bytes: &[u8]) -> Result<NavMesh> {
        let set = mset::read_mset(bytes)?;
        Self::from_set(&set)
    }

    /// Loads a navmesh saved in RecastDemo's `MSET` format (`Sample::saveAll`), with 32-bit or
    /// 64-bit poly refs.
    ///
    /// Corrupt files give [`Error::NavMeshData`] naming the byte offset, files of another
    /// version [`Error::VersionMismatch`] (both naming the file); Detour never sees unvalidated
    /// data.
    pub fn load(path: impl AsRef<Path>) -> Result<NavMesh> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Self::from_mset_bytes(&bytes).map_err(|e| e.in_file(path))
    }

    /// The navmesh in RecastDemo's `MSET` format, with this build's ref width.
    pub fn to_mset_bytes(&self) -> Vec<u8> {
        self.to_mset_bytes_with(params::RefWidth::NATIVE)
            .expect("a navmesh converts to its own ref width")
    }

    /// The navmesh in RecastDemo's `MSET` format with refs of `width`: for a Detour (such as
    /// RecastDemo's) built with the other width than this build's. Fails if a tile index does not
    /// fit the narrower layout.
    pub fn to_mset_bytes_with(&self, width: params::RefWidth) -> Result<Vec<u8>> {
        let params = self.params();
        let native = params::RefWidth::NATIVE;
        if width != native {
            params::validate_params_for(&params, width)?;
        }
        let (from, to) = (params.ref_layout(), params.ref_layout_for(width));
        let mut tiles = Vec::new();
        for (tile_ref, data) in self.raw.tile_data() {
            #[allow(clippy::useless_conversion)] // dtTileRef is u32 or u64, by feature
            let tile_ref = u64::from(tile_ref);
            if width == native {
                tiles.push(TileRecord {
                    tile_ref,
                    data: data.to_vec(),
                });
                continue;
            }
            let (salt, index, poly) = from.decode(tile_ref);
            let salt = (salt & ((1u32 << to.salt_bits.min(31)) - 1)).max(1);
            let r = to.encode(salt, index, poly).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "tile index {index} does not fit {width} refs with these params"
                ))
            })?;
            tiles.push(TileRecord {
                tile_ref: r,
                data: convert_tile_data(data, native, &from, width, &to)?,
            });
        }
        Ok(mset::write_mset(&NavMeshSet {
            params,
            tiles,
            ref_width: width,
        }))
    }

    /// Saves the navmesh in RecastDemo's `MSET` format.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<()> {
        let path = path.as_ref();
        crate::atomic_file::write(path, &self.to_mset_bytes())
    }

    /// Saves the navmesh in RecastDemo's `MSET` format with refs of `width` (see
    /// [`NavMesh::to_mset_bytes_with`]).
    pub fn save_with(&self, path: impl AsRef<Path>, width: params::RefWidth) -> Result<()> {
        let path = path.as_ref();
        crate::atomic_file::write(path, &self.to_mset_bytes_with(width)?)
    }

    /// The navmesh parameters (origin, tile size, tile and poly limits).
    pub fn params(&self) -> NavMeshParams {
        let p = self.raw.params();
        NavMeshParams {
            origin: p.orig,
            tile_width: p.tile_width,
            tile_height: p.tile_height,
            max_tiles: p.max_tiles,
            max_polys: p.max_polys,
        }
    }

    /// The number of tiles in use.
    pub fn tile_count(&self) -> usize {
        self.raw.tile_data().len()
    }

    /// Total bytes of tile data.
    pub fn data_size(&self) -> usize {
        self.raw.tile_data().iter().map(|(_, d)| d.len()).sum()
    }

    /// Every polygon, ground and off-mesh, with its vertices, area and flags.
    pub fn polys(&self) -> Vec<PolyInfo> {
        self.raw
            .polys()
            .into_iter()
            .map(|(r, p)| PolyInfo {
                poly: PolyRef(r),
                verts: p.verts.into_iter().map(Vec3::from_array).collect(),
                area: p.area,
                flags: p.flags,
                off_mesh: p.off_mesh,
            })
            .collect()
    }

    /// True if `poly` refers to a polygon of this navmesh.
    pub fn is_valid(&self, poly: PolyRef) -> bool {
        self.raw.is_valid_ref(poly.0)
    }

    /// A polygon's flags.
    pub fn poly_flags(&self, poly: PolyRef) -> Result<u16> {
        self.raw
            .poly_flags(poly.0)
            .map_err(|s| detour_err("dtNavMesh::getPolyFlags", s))
    }

    /// Sets a polygon's flags (e.g. [`crate::flags::DISABLED`] to close a door).
    pub fn set_poly_flags(&mut self, poly: PolyRef, flags: u16) -> Result<()> {
        Status(self.raw.set_poly_flags(poly.0, flags)).check("dtNavMesh::setPolyFlags")?;
        Ok(())
    }

    /// A polygon's area id.
    pub fn poly_area(&self, poly: PolyRef) -> Result<u8> {
        self.raw
            .poly_area(poly.0)
            .map_err(|s| detour_err("dtNavMesh::getPolyArea", s))
    }

    /// Sets a polygon's area id (0..=63).
    pub fn set_poly_area(&mut self, poly: PolyRef, area: u8) -> Result<()> {
        if area > 63 {
            return Err(Error::InvalidArgument(format!("area {area} > 63")));
        }
        Status(self.raw.set_poly_area(poly.0, area)).check("dtNavMesh::setPolyArea")?;
        Ok(())
    }

    /// The end points of off-mesh connection `poly` when entered from `prev`: (start, end).
    pub fn off_mesh_connection_endpoints(
        &self,
        prev: PolyRef,
        poly: PolyRef,
    ) -> Result<(Vec3, Vec3)> {
        self.raw
            .off_mesh_endpoints(prev.0, poly.0)
            .map(|(a, b)| (Vec3::from_array(a), Vec3::from_array(b)))
            .map_err(|s| detour_err("dtNavMesh::getOffMeshConnectionPolyEndPoints", s))
    }

    /// The polygons linked to `poly`, in Detour's link order. Empty for an invalid ref.
    pub fn neighbours(&self, poly: PolyRef) -> Vec<PolyRef> {
        let mut v = Vec::new();
        self.raw.neighbours(poly.0, &mut v);
        v
    }

    /// [`NavMesh::neighbours`] into `out` (cleared first), reusing its buffer; false for an
    /// invalid ref. For loops that must not allocate (the smooth path).
    #[inline]
    pub(crate) fn neighbours_into(&self, poly: PolyRef, out: &mut Vec<PolyRef>) -> bool {
        self.raw.neighbours(poly.0, out)
    }

    pub(crate) fn raw(&self) -> &RawNavMesh {
        &self.raw
    }
}

impl std::fmt::Debug for NavMesh {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NavMesh")
            .field("params", &self.params())
            .field("tiles", &self.tile_count())
            .finish()
    }
}

impl NavMesh {
    /// The Detour navmesh, mutably: for [`crate::tilecache::TileCache`], which rebuilds its
    /// tiles (only through `&mut`, so no query can be borrowing it).
    pub(crate) fn raw_mut(&mut self) -> &mut RawNavMesh {
        &mut self.raw
    }
}
