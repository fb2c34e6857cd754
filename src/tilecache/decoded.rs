//! A tile cache's compressed layers decoded: header, height, area and connection grids, and the
//! regions Detour partitions them into when it rebuilds a tile. What RecastDemo's Temp
//! Obstacles sample draws as "layer areas" and "layer regions" (see
//! [`crate::debug_draw::tilecache`]).

use glam::Vec3;

use super::{LayerCompression, TileCache, TileCacheParams, TileCacheSet};
use crate::ffi::tile_layer::{LayerBuildError, layer_contours_and_mesh, layer_regions};
use crate::ffi::tilecache::{Compressor, LAYER_HEADER_SIZE};
use crate::ffi::validate::layer::{check_layer_len, read_layer_header};
use crate::{Error, Result};

/// The height of a cell with no walkable floor in [`DecodedLayer::heights`]
/// (`0xff`, as Detour).
pub const NO_HEIGHT: u8 = 0xff;
/// No region, in [`DecodedLayer::regions`] (`0xff`).
pub const NO_REGION: u8 = 0xff;

/// One tile layer decoded (`dtTileCacheLayer` after `dtDecompressTileCacheLayer` and
/// `dtBuildTileCacheRegions`). Cell `(x, y)` is index `x + y * width` of each grid; it covers
/// world x from `bmin.x + x * cell_size` and z from `bmin.z + y * cell_size`, and its floor is
/// at `bmin.y + height * cell_height`.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DecodedLayer {
    /// The compressed tile's ref in the cache (0 for a set not from a cache).
    pub tile_ref: u32,
    /// Tile column.
    pub tx: i32,
    /// Tile row.
    pub ty: i32,
    /// Layer index within the tile (floors, bottom first as Recast numbers them).
    pub tlayer: i32,
    /// Minimum corner of the layer's box (with the tile's border).
    pub bmin: Vec3,
    /// Maximum corner.
    pub bmax: Vec3,
    /// Lowest and highest floor height in the layer, in cells above `bmin.y`.
    pub hmin: u16,
    /// Highest floor height.
    pub hmax: u16,
    /// Width of the grids in cells (the tile size plus twice the border).
    pub width: usize,
    /// Height (along z) of the grids in cells.
    pub height: usize,
    /// The used part of the grid: first and last column and row with a floor.
    pub minx: u8,
    /// Last column.
    pub maxx: u8,
    /// First row.
    pub miny: u8,
    /// Last row.
    pub maxy: u8,
    /// Cell size (xz), from the cache parameters.
    pub cell_size: f32,
    /// Cell height (y), from the cache parameters.
    pub cell_height: f32,
    /// The agent's climb in cells, from the cache parameters (for [`DecodedLayer::build`]).
    pub walkable_climb: i32,
    /// The contour simplification error, from the cache parameters.
    pub max_simplification_error: f32,
    /// Floor height of each cell, or [`NO_HEIGHT`].
    pub heights: Vec<u8>,
    /// Area id of each cell (0: not walkable).
    pub areas: Vec<u8>,
    /// Connections of each cell: bits 0..4 a walkable neighbour in directions -x, +z, +x, -z
    /// (Recast's order) within this layer, bits 4..8 a portal to another layer of the tile
    /// (the layer's edge in that direction leads to a floor of another layer).
    pub cons: Vec<u8>,
    /// Region of each cell ([`NO_REGION`] for none), as `dtBuildTileCacheRegions` partitions
    /// the layer; all [`NO_REGION`] if Detour would not partition it (more than 255 regions)
    /// or the grids are not ones the tile cache accepts (see [`DecodedLayer::build`]).
    pub regions: Vec<u8>,
    /// Number of regions.
    pub region_count: usize,
}

impl DecodedLayer {
    /// Decodes one compressed layer (header and grids, as in [`TileCacheSet::tiles`]) of a
    /// cache with parameters `params` whose layers are compressed with `compression`.
    ///
    /// # Errors
    /// [`Error::NavMeshData`] if the layer is shorter than its header, its size is not the
    /// cache's tile size, or its grids do not decompress to exactly 3 bytes per cell (offsets
    /// relative to the layer).
    pub fn decode(
        tile_ref: u32,
        data: &[u8],
        params: &TileCacheParams,
        compression: LayerCompression,
    ) -> Result<DecodedLayer> {
        check_layer_len(data)?;
        let h = read_layer_header(data, 0)?;
        let (w, hh) = (usize::from(h.width), usize::from(h.height));
        if w as i64 != i64::from(params.width) || hh as i64 != i64::from(params.height) {
            return Err(Error::data(
                0,
                format!(
                    "layer is {w} x {hh} cells, the cache's tiles are {} x {}",
                    params.width, params.height
                ),
            ));
        }
        let cells = w * hh;
        let grids = Compressor::new(compression)
            .decompress_grids(&data[LAYER_HEADER_SIZE..], cells)
            .map_err(|_| {
                Error::data(
                    LAYER_HEADER_SIZE,
                    format!(
                        "layer grids do not decompress ({}) to {} bytes",
                        compression.describe(),
                        3 * cells
                    ),
                )
            })?;
        let heights = grids[..cells].to_vec();
        let areas = grids[cells..2 * cells].to_vec();
        let cons = grids[2 * cells..3 * cells].to_vec();
        let climb = if params.cell_height > 0.0 {
            (params.walkable_climb / params.cell_height) as i32
        } else {
            0
        };
        let (regions, region_count) = layer_regions(w, hh, &heights, &areas, &cons, climb)
            .unwrap_or_else(|| (vec![NO_REGION; cells], 0));
        Ok(DecodedLayer {
            tile_ref,
            tx: h.tx,
            ty: h.ty,
            tlayer: h.tlayer,
            bmin: Vec3::from(h.bmin),
            bmax: Vec3::from(h.bmax),
            hmin: h.hmin,
            hmax: h.hmax,
            width: w,
            height: hh,
            minx: h.minx,
            maxx: h.maxx,
            miny: h.miny,
            maxy: h.maxy,
            cell_size: params.cell_size,
            cell_height: params.cell_height,
            walkable_climb: climb,
            max_simplification_error: params.max_simplification_error,
            heights,
            areas,
            cons,
            regions,
            region_count,
        })
    }

    /// The grid index of cell `(x, y)`, `None` outside the layer.
    pub fn index(&self, x: usize, y: usize) -> Option<usize> {
        (x < self.width && y < self.height).then(|| x + y * self.width)
    }

    /// True if cell `(x, y)` has a floor.
    pub fn has_floor(&self, x: usize, y: usize) -> bool {
        self.index(x, y)
            .is_some_and(|i| self.heights[i] != NO_HEIGHT)
    }

    /// Number of cells with a floor.
    pub fn floor_cells(&self) -> usize {
        self.heights.iter().filter(|&&h| h != NO_HEIGHT).count()
    }

    /// The world position of the minimum corner of cell `(x, y)` at its floor (`None` without
    /// one).
    pub fn floor_corner(&self, x: usize, y: usize) -> Option<Vec3> {
        let i = self.index(x, y)?;
        let h = self.heights[i];
        (h != NO_HEIGHT).then(|| {
            self.bmin
                + Vec3::new(
                    x as f32 * self.cell_size,
                    f32::from(h) * self.cell_height,
                    y as f32 * self.cell_size,
                )
        })
    }
}

/// A contour of a layer (`dtTileCacheContour`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayerContour {
    /// Vertices in cells of the layer: x, floor height, z and flags (bits 0..4: the direction,
    /// -x, +z, +x, -z, of the portal the edge from this vertex lies on, `0xf` for none; bit 7:
    /// a vertex Detour removes, on the tile border).
    pub verts: Vec<[u8; 4]>,
    /// Its region.
    pub region: u8,
    /// Its area.
    pub area: u8,
}

/// A polygon of a layer's poly mesh.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayerPoly {
    /// Vertex indices into [`LayerPolyMesh::verts`] (3 to 6).
    pub verts: Vec<u16>,
    /// Per edge (from vertex `i` to `i + 1`): the neighbouring poly's index, `0x8000 | dir` for
    /// a portal to the tile's neighbour in direction `dir` (-x, +z, +x, -z), `0xffff` for a wall.
    pub neighbours: Vec<u16>,
    /// Area id.
    pub area: u8,
}

/// A layer's poly mesh (`dtTileCachePolyMesh`): what Detour turns into the navmesh tile.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayerPolyMesh {
    /// Vertices in cells of the layer: x, height, z.
    pub verts: Vec<[u16; 3]>,
    /// The polygons.
    pub polys: Vec<LayerPoly>,
}

/// The stages `dtTileCache` builds from a layer before making its navmesh tile.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct LayerBuild {
    /// The simplified region contours.
    pub contours: Vec<LayerContour>,
    /// The poly mesh.
    pub poly_mesh: LayerPolyMesh,
}

impl DecodedLayer {
    /// The world position of a vertex given in cells of this layer (a contour's or the poly
    /// mesh's): `bmin + (x * cell_size, height * cell_height, z * cell_size)`.
    pub fn world(&self, x: u16, height: u16, z: u16) -> Vec3 {
        self.bmin
            + Vec3::new(
                f32::from(x) * self.cell_size,
                f32::from(height) * self.cell_height,
                f32::from(z) * self.cell_size,
            )
    }

    /// Runs the tile build on the layer as it is stored (no obstacles marked, as RecastDemo's
    /// layer views): regions, contours simplified with the cache's error (Detour's
    /// `dtBuildTileCacheRegions`, `dtBuildTileCacheContours`), poly mesh (navkit's, as the
    /// tile builds: Detour's `dtBuildTileCachePolyMesh` is not memory-safe on every layer).
    ///
    /// # Errors
    /// [`Error::Detour`] (or [`Error::OutOfMemory`]) when Detour fails;
    /// [`Error::NavMeshData`], without calling Detour, for grids the tile cache would not trust
    /// either (the fields are public, so they are checked again here): grids not of
    /// `width * height` cells, areas above 63, connections to cells outside the layer, a region
    /// partition that would overflow Detour's neighbour lists (upstream issue #452).
    pub fn build(&self) -> Result<LayerBuild> {
        let (contours, mesh) = layer_contours_and_mesh(
            self.width,
            self.height,
            &self.heights,
            &self.areas,
            &self.cons,
            self.walkable_climb,
            self.max_simplification_error,
        )
        .map_err(|e| match e {
            LayerBuildError::Refused(why) => Error::data(
                0,
                format!(
                    "tile layer ({}, {}) layer {}: not a layer Detour can build: {why}",
                    self.tx, self.ty, self.tlayer
                ),
            ),
            LayerBuildError::Detour(st) => {
                crate::status::detour_err("dtBuildTileCache regions, contours and poly mesh", st)
            }
        })?;
        let nvp = mesh.nvp.max(1);
        let polys = mesh
            .polys
            .chunks_exact(2 * nvp)
            .zip(&mesh.areas)
            .map(|(p, &area)| {
                let n = p[..nvp].iter().take_while(|&&v| v != 0xffff).count();
                LayerPoly {
                    verts: p[..n].to_vec(),
                    neighbours: p[nvp..nvp + n].to_vec(),
                    area,
                }
            })
            .collect();
        Ok(LayerBuild {
            contours: contours
                .into_iter()
                .map(|c| LayerContour {
                    verts: c.verts,
                    region: c.reg,
                    area: c.area,
                })
                .collect(),
            poly_mesh: LayerPolyMesh {
                verts: mesh.verts,
                polys,
            },
        })
    }
}

impl TileCacheSet {
    /// Every layer decoded ([`DecodedLayer::decode`]), in the set's order.
    pub fn decode_layers(&self) -> Result<Vec<DecodedLayer>> {
        self.tiles
            .iter()
            .map(|(r, d)| DecodedLayer::decode(*r, d, &self.cache, self.compression))
            .collect()
    }
}

impl TileCache {
    /// Every layer of the cache decoded ([`DecodedLayer::decode`]), in tile-array order.
    pub fn decode_layers(&self) -> Result<Vec<DecodedLayer>> {
        self.to_tile_cache_set().decode_layers()
    }
}
