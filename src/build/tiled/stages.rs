//! The Recast stages of one tile of a tiled build.

use super::TileGrid;
use crate::build::budget::Budget;
use crate::build::{SoloStages, Stage, StageCounts};
use crate::geometry::InputGeometry;
use crate::navmesh::TileCoord;
use crate::settings::{BuildSettings, VoxelConfig};
use crate::{Error, Result};

/// The Recast stages of one tile of a tiled build (RecastDemo's Tile Mesh sample shows those
/// of the tile the user builds by clicking), from
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

/// `Err` unless `tile` is a position of `grid` (layer 0).
pub(crate) fn check_tile(grid: &TileGrid, tile: TileCoord) -> Result<()> {
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
    let mut e = crate::build::budget::estimate_validated(geom, settings)?;
    let side = (grid.tile_size + 2 * (base.walkable_radius + 3)).max(0) as u64;
    e.width = side;
    e.depth = side;
    e.cells = side * side;
    budget.check_estimate_for(&e, crate::build::budget::BuildKind::Tile)
}
