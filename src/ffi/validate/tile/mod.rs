//! Exhaustive validation of Detour tile data (the output of `dtCreateNavMeshData`).
//!
//! Detour trusts tile data completely: `dtNavMesh::addTile` and every query follow the
//! indices stored in it without bounds checks. [`validate_tile_data`] therefore checks every
//! index Detour follows, every float it computes with, and every structural invariant that
//! `dtCreateNavMeshData` guarantees, so that data which passes can be handed to `addTile`.
//! The checks are split by what they look at: the header, counts and section layout
//! (`header`), vertices and polygons (`polys`), detail meshes (`detail`), the BV tree
//! (`bvtree`) and off-mesh connections (`offmesh`).
//!
//! Error offsets are byte offsets relative to the start of the tile data.

mod bvtree;
mod convert;
mod detail;
mod header;
mod layout;
mod offmesh;
pub(crate) mod offsets;
mod polys;

pub use convert::convert_tile_data;

use crate::Result;
use crate::poly_ref::RefWidth;
use recastnavigation_sys::{
    DT_VERTS_PER_POLYGON, dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY,
    dtPolyTypes_DT_POLYTYPE_GROUND, dtPolyTypes_DT_POLYTYPE_OFFMESH_CONNECTION,
};

/// `DT_VERTS_PER_POLYGON` as a `usize`.
pub(crate) const NVP: usize = DT_VERTS_PER_POLYGON as usize;
/// Poly type of ground polygons (`DT_POLYTYPE_GROUND`).
const POLYTYPE_GROUND: u8 = dtPolyTypes_DT_POLYTYPE_GROUND as u8;
/// Poly type of off-mesh connection polygons (`DT_POLYTYPE_OFFMESH_CONNECTION`).
const POLYTYPE_OFFMESH: u8 = dtPolyTypes_DT_POLYTYPE_OFFMESH_CONNECTION as u8;
/// `DT_DETAIL_EDGE_BOUNDARY` in each of the three 2-bit edge fields of a detail triangle.
const ANY_BOUNDARY_EDGE: u8 = (dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY
    | dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY << 2
    | dtDetailTriEdgeFlags_DT_DETAIL_EDGE_BOUNDARY << 4) as u8;

/// Summary of validated tile data.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileInfo {
    /// Tile grid x.
    pub x: i32,
    /// Tile grid y (along world z).
    pub y: i32,
    /// Tile layer.
    pub layer: i32,
    /// Number of polygons, ground and off-mesh.
    pub poly_count: usize,
    /// Number of polygon vertices, including off-mesh connection end points.
    pub vert_count: usize,
    /// Number of detail sub-meshes (one per ground polygon).
    pub detail_mesh_count: usize,
    /// Number of extra detail vertices.
    pub detail_vert_count: usize,
    /// Number of detail triangles.
    pub detail_tri_count: usize,
    /// Number of BV tree nodes (0: no BV tree).
    pub bv_node_count: usize,
    /// Number of off-mesh connections.
    pub off_mesh_con_count: usize,
    /// Number of link slots reserved for Detour.
    pub max_link_count: usize,
    /// Tile bounds, minimum corner.
    pub bmin: [f32; 3],
    /// Tile bounds, maximum corner.
    pub bmax: [f32; 3],
    /// Agent height the tile was built for.
    pub walkable_height: f32,
    /// Agent radius the tile was built for.
    pub walkable_radius: f32,
    /// Maximum climb the tile was built for.
    pub walkable_climb: f32,
}
/// Byte offsets of the sections of a tile, as `dtNavMesh::addTile` computes them.
#[derive(Clone, Copy, Debug)]
struct Layout {
    verts: usize,
    polys: usize,
    links: usize,
    detail_meshes: usize,
    detail_verts: usize,
    detail_tris: usize,
    bv_tree: usize,
    off_mesh_cons: usize,
    end: usize,
}

/// A polygon as read from the tile.
#[derive(Clone, Copy, Debug)]
struct PolyRec {
    verts: [u16; NVP],
    neis: [u16; NVP],
    vert_count: usize,
    offset: usize,
}

/// What the header checks found, for the later checks.
#[derive(Debug)]
struct Header {
    /// The tile summary returned on success.
    info: TileInfo,
    /// Where each section starts.
    layout: Layout,
    /// The first off-mesh connection poly (polys before it are ground polys).
    off_mesh_base: usize,
    /// Number of ground polys (`offMeshBase`).
    ground_count: usize,
    /// Number of ground poly vertices (those before the off-mesh connection end points).
    ground_vert_count: usize,
    /// Number of off-mesh connection end points (two per connection).
    off_mesh_verts: usize,
}

/// Checks Detour tile data (the output of `dtCreateNavMeshData`) exhaustively, so that it can
/// be handed to `dtNavMesh::addTile` and queried without Detour reading or writing out of
/// bounds.
///
/// Checks, in order (error offsets are relative to the start of `data`):
/// - length >= the 100-byte `dtMeshHeader` and <= `i32::MAX`; magic `DT_NAVMESH_MAGIC`,
///   version `DT_NAVMESH_VERSION`; `x`, `y` not `i32::MIN`/`i32::MAX`; `layer >= 0`;
/// - every count `>= 0`, and the `dtAlign4` section sizes `addTile` computes (checked
///   arithmetic) add up to exactly `data.len()`;
/// - `1 <= offMeshBase <= polyCount`, `offMeshConCount == polyCount - offMeshBase`,
///   `detailMeshCount == offMeshBase`, `maxLinkCount >= 1`,
///   `vertCount >= 2 * offMeshConCount`;
/// - header floats finite and within [`MAX_COORDINATE`](crate::navmesh::params::MAX_COORDINATE), walkable values `>= 0`,
///   `bmin <= bmax`, `bvQuantFactor` finite `> 0` and (with a BV tree) small enough that the
///   quantised tile extent fits 16 bits; every vertex and detail vertex finite and bounded;
/// - polys `[0, offMeshBase)` are ground with 3..=6 vertices indexing the ground vertices
///   (`< vertCount - 2 * offMeshConCount`); polys `[offMeshBase, polyCount)` are off-mesh
///   connections with exactly 2 vertices, their own (`groundVerts + 2c`, `+ 1`) and no
///   neighbours;
/// - `maxLinkCount` at least what `dtCreateNavMeshData` reserves for these polygons: one link
///   per ground polygon edge, two more per portal edge (`DT_EXT_LINK`), two per off-mesh
///   connection (fewer, and `addTile` silently drops connections);
/// - ground neighbours are 0, `DT_EXT_LINK | side` with side 0, 2, 4 or 6, or an internal
///   ground poly other than itself that links back across the same (reversed) edge;
/// - each detail mesh's vertex and triangle ranges lie within the detail arrays, it has at
///   least one triangle and at least one triangle edge flagged `DT_DETAIL_EDGE_BOUNDARY`,
///   and every triangle index is `< poly vertCount + detail vertCount`;
/// - BV nodes: `bmin <= bmax`, leaves index ground polys, escape offsets stay within
///   `[0, bvNodeCount]` (and are not `i32::MIN`);
/// - off-mesh connections: end points finite and bounded, radius finite `>= 0`, poly index
///   exactly `offMeshBase + c`, flags only `DT_OFFMESH_CON_BIDIR`, side `0..=7` or `0xff`.
///
/// Links and `dtPoly::firstLink` are ignored: `addTile` rebuilds them.
pub fn validate_tile_data(data: &[u8]) -> Result<TileInfo> {
    validate_tile_data_for(data, RefWidth::NATIVE)
}

/// [`validate_tile_data`] for tile data built by a Detour with refs of `width`, which sizes its
/// links (`dtLink` holds a `dtPolyRef`: 12 bytes with 32-bit refs, 16 with 64-bit ones). Data
/// of the other width than this build's cannot go to Detour as it is; [`convert_tile_data`]
/// converts it.
pub fn validate_tile_data_for(data: &[u8], width: RefWidth) -> Result<TileInfo> {
    let hd = header::check(data, width)?;
    polys::check_verts(data, &hd)?;
    let polys = polys::check_polys(data, &hd)?;
    polys::check_neighbours(&polys, hd.ground_count)?;
    polys::check_link_budget(&polys, &hd)?;
    detail::check_detail_meshes(data, &hd, &polys)?;
    detail::check_detail_verts(data, &hd)?;
    bvtree::check(data, &hd)?;
    offmesh::check(data, &hd)?;
    Ok(hd.info)
}
