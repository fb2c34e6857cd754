//! The Recast stages of one tile of a tiled build.

use super::{TRIS_PER_CHUNK, TileGrid, TileParts, tiled_estimate};
use crate::build::budget::Budget;
use crate::build::{SoloStages, Stage, StageCounts};
use crate::geometry::InputGeometry;
use crate::geometry::spatial::ChunkyTriMesh;
use crate::navmesh::TileCoord;
use crate::settings::{BuildSettings, VoxelConfig};
use crate::{Error, Result};

/// The Recast stages of one tile of a tiled build (RecastDemo's Tile Mesh sample shows those
/// of the tile the user builds by clicking): [`build_tile_stages`] or
/// [`TiledNavMesh::tile_stages`](super::TiledNavMesh::tile_stages).
///
/// The heightfield and compact heightfield snapshots cover the tile and its border
/// (`config.border_size` cells on every side, `config.bmin`..`config.bmax`); the contours, poly
/// mesh and detail mesh are the tile's own, as the tiled build gives them to Detour.
#[derive(Clone, Debug, PartialEq)]
pub struct TileStages {
    /// The tile.
    pub tile: TileCoord,
    /// The tile grid it belongs to.
    pub grid: TileGrid,
    /// The tile's voxel grid: its border-expanded bounds, border size and the settings in cells.
    pub config: VoxelConfig,
    /// The stages; all empty if no triangle is near the tile.
    pub stages: SoloStages,
    /// The stages' counts, as the tiled build reports them for this tile.
    pub counts: StageCounts,
    /// The Detour tile data, byte for byte what the tiled build makes for this tile; `None` if
    /// the tile has no polygons.
    pub data: Option<Vec<u8>>,
    /// Milliseconds per stage.
    pub stage_ms: Vec<(Stage, f64)>,
    /// Milliseconds for the whole tile (copies included).
    pub ms: f64,
    /// Recast's warnings and errors, prefixed with the tile.
    pub warnings: Vec<String>,
}

/// The stages of tile `tile` of a tiled build of `geom` with `settings` (tile size
/// `settings.tile_size`): the same pipeline as [`TiledNavMesh::build`](super::TiledNavMesh::build) runs for that tile (its
/// border-expanded bounds, the triangles of the chunks overlapping them, the same settings),
/// with a copy of each stage. Only that tile is built.
///
/// Within `budget`: refused before building if one tile's grid (with its border) is over the
/// budget's cell or memory limit, or the level has stray vertices; stopped once its time runs
/// out or its token is cancelled. A tile outside the grid, or on a layer other than 0, is an
/// [`Error::InvalidArgument`].
///
/// ```
/// # fn main() -> navkit::Result<()> {
/// use navkit::build::tiled::build_tile_stages;
/// let floor = navkit::TriMesh::new(
///     vec![0.0, 0.0, 0.0, 0.0, 0.0, 20.0, 20.0, 0.0, 20.0, 20.0, 0.0, 0.0],
///     vec![0, 1, 2, 0, 2, 3],
/// )?;
/// let geom = navkit::InputGeometry::from_mesh(floor);
/// let settings = navkit::BuildSettings { tile_size: 32, ..Default::default() };
/// let t = build_tile_stages(&geom, &settings, navkit::TileCoord::new(1, 0), &Default::default())?;
/// assert_eq!(t.stages.poly_mesh.polys.len(), t.counts.polymesh_polys);
/// assert!(build_tile_stages(&geom, &settings, navkit::TileCoord::new(9, 0), &Default::default()).is_err());
/// # Ok(())
/// # }
/// ```
pub fn build_tile_stages(
    geom: &InputGeometry,
    settings: &BuildSettings,
    tile: TileCoord,
    budget: &Budget,
) -> Result<TileStages> {
    let guard = budget.start();
    geom.validate()?;
    let (bmin, bmax) = geom.mesh.bounds().into();
    let grid = TileGrid::new(bmin, bmax, settings)?;
    let base = settings.to_config(bmin, bmax)?;
    check_tile(&grid, tile)?;
    check_tile_estimate(geom, settings, &base, &grid, budget)?;
    let index = ChunkyTriMesh::new(&geom.mesh, TRIS_PER_CHUNK);
    TileParts {
        geom,
        index: &index,
        settings,
        base: &base,
        grid: &grid,
    }
    .stages(&guard, tile)
}

/// `Err` unless `tile` is a position of `grid` (layer 0).
pub(super) fn check_tile(grid: &TileGrid, tile: TileCoord) -> Result<()> {
    if (0..grid.tiles_x).contains(&tile.x) && (0..grid.tiles_z).contains(&tile.z) && tile.layer == 0
    {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "tile {tile} is outside the {} x {} tile grid (x in 0..{}, z in 0..{}, layer 0)",
        grid.tiles_x, grid.tiles_z, grid.tiles_x, grid.tiles_z
    )))
}

/// Checks the estimate of one tile's build (its grid with the border) against `budget`.
pub(super) fn check_tile_estimate(
    geom: &InputGeometry,
    settings: &BuildSettings,
    base: &VoxelConfig,
    grid: &TileGrid,
    budget: &Budget,
) -> Result<()> {
    let mut e = tiled_estimate(geom, settings, 1)?;
    let side = (grid.tile_size + 2 * (base.walkable_radius + 3)).max(0) as u64;
    e.width = side;
    e.depth = side;
    e.cells = side * side;
    budget.check_estimate(&e)
}
