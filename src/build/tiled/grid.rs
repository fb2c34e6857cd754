//! The tile grid of a tiled build.

use glam::Vec3;

use super::TILE_SIZE_RANGE;
use crate::Aabb;
use crate::navmesh::TileCoord;
use crate::settings::BuildSettings;
use crate::{Error, Result};

/// The tile grid of a tiled build: where the tiles are and how big.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileGrid {
    /// The build area's minimum corner (the navmesh origin).
    pub bmin: Vec3,
    /// The build area's maximum corner.
    pub bmax: Vec3,
    /// Cell size (world units).
    pub cell_size: f32,
    /// Tile size in cells.
    pub tile_size: i32,
    /// Tiles along x.
    pub tiles_x: i32,
    /// Tiles along z (Detour's tile y).
    pub tiles_z: i32,
}

impl TileGrid {
    /// The grid for `settings` over `bmin`..`bmax` (RecastDemo: `rcCalcGridSize`, then tiles of
    /// `tile_size` cells, rounded up).
    pub fn new(bmin: Vec3, bmax: Vec3, settings: &BuildSettings) -> Result<TileGrid> {
        let ts = settings.tile_size;
        if !TILE_SIZE_RANGE.contains(&ts) {
            return Err(Error::Setting {
                name: "tile_size",
                value: ts.to_string(),
                reason: format!(
                    "must be a number of cells in {}..={}",
                    TILE_SIZE_RANGE.start(),
                    TILE_SIZE_RANGE.end()
                ),
            });
        }
        let cfg = settings.to_config(bmin, bmax)?;
        let ts = ts as i32; // at most 1024: checked above
        let tiles_x = (cfg.width + ts - 1) / ts;
        let tiles_z = (cfg.height + ts - 1) / ts;
        if tiles_x <= 0 || tiles_z <= 0 {
            return Err(Error::Geometry(format!(
                "the build area is empty: {} x {} cells",
                cfg.width, cfg.height
            )));
        }
        Ok(TileGrid {
            bmin: Vec3::from_array(cfg.bmin),
            bmax: Vec3::from_array(cfg.bmax),
            cell_size: cfg.cs,
            tile_size: ts,
            tiles_x,
            tiles_z,
        })
    }

    /// The number of tile positions.
    pub fn tile_count(&self) -> usize {
        self.tiles_x as usize * self.tiles_z as usize
    }

    /// A tile's width (and depth) in world units.
    pub fn tile_width(&self) -> f32 {
        self.tile_size as f32 * self.cell_size
    }

    /// The tile containing `p`, or `None` outside the grid.
    pub fn tile_at(&self, p: Vec3) -> Option<TileCoord> {
        let tw = self.tile_width();
        let tx = ((p.x - self.bmin.x) / tw).floor();
        let tz = ((p.z - self.bmin.z) / tw).floor();
        let inside = tx >= 0.0 && tz >= 0.0 && tx < self.tiles_x as f32 && tz < self.tiles_z as f32;
        inside.then_some(TileCoord::new(tx as i32, tz as i32))
    }

    /// The xz bounds of `tile` (y from the build area).
    pub fn tile_bounds(&self, tile: TileCoord) -> Aabb {
        let (x, z) = (tile.x, tile.z);
        let tw = self.tile_width();
        Aabb::new(
            Vec3::new(
                self.bmin.x + x as f32 * tw,
                self.bmin.y,
                self.bmin.z + z as f32 * tw,
            ),
            Vec3::new(
                self.bmin.x + (x + 1) as f32 * tw,
                self.bmax.y,
                self.bmin.z + (z + 1) as f32 * tw,
            ),
        )
    }

    /// The tiles whose xz bounds overlap `area`, in grid order (row by row), clamped to the
    /// grid. Empty if the box is outside the grid or not finite.
    pub fn tiles_in_box(&self, area: Aabb) -> Vec<TileCoord> {
        let (bmin, bmax) = (area.min, area.max);
        if !bmin.is_finite() || !bmax.is_finite() {
            return Vec::new();
        }
        let tw = self.tile_width();
        let lo = |v: f32, o: f32| ((v - o) / tw).floor().max(0.0);
        let hi = |v: f32, o: f32, n: i32| ((v - o) / tw).floor().min((n - 1) as f32);
        let (x0, x1) = (
            lo(bmin.x, self.bmin.x),
            hi(bmax.x, self.bmin.x, self.tiles_x),
        );
        let (z0, z1) = (
            lo(bmin.z, self.bmin.z),
            hi(bmax.z, self.bmin.z, self.tiles_z),
        );
        let mut out = Vec::new();
        if x0 > x1 || z0 > z1 {
            return out;
        }
        for z in z0 as i32..=z1 as i32 {
            for x in x0 as i32..=x1 as i32 {
                out.push(TileCoord::new(x, z));
            }
        }
        out
    }

    /// Every tile position, in grid order (row by row, x fastest).
    pub fn all_tiles(&self) -> Vec<TileCoord> {
        (0..self.tiles_z)
            .flat_map(|z| (0..self.tiles_x).map(move |x| TileCoord::new(x, z)))
            .collect()
    }

    /// Tile and poly bits as RecastDemo chooses them for this grid.
    pub fn ref_bits(&self) -> (u32, u32) {
        let tiles = (self.tile_count() as u32).max(1).next_power_of_two();
        let tile_bits = tiles.ilog2().min(14);
        (tile_bits, 22 - tile_bits)
    }
}
