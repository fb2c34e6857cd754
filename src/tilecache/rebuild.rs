//! Rebuilding tiles of a built tile cache from changed geometry (a level edited in place): each
//! named tile is rasterized again into heightfield layers, which replace its old ones, and its
//! navmesh tiles are rebuilt with every placed obstacle carved out, as a new cache built from
//! the changed geometry with the same obstacles would have them.

use glam::Vec3;

use super::{TileCache, TileCacheSettings, layers_per_tile};
use crate::build::budget::Budget;
use crate::build::tiled::{TileGrid, check_tile};
use crate::geometry::{InputGeometry, OffMeshConnection};
use crate::navmesh::TileCoord;
use crate::settings::BuildSettings;
use crate::status::detour_err;
use crate::{Error, Result};

/// What a cache was built with: all a tile needs to be built again the same way.
pub(super) struct BuildFrame {
    settings: BuildSettings,
    cache: TileCacheSettings,
    grid: TileGrid,
    /// The off-mesh connections Detour's mesh process was given (they cannot change).
    off_mesh: Vec<OffMeshConnection>,
}

impl BuildFrame {
    pub(super) fn new(
        geom: &InputGeometry,
        settings: BuildSettings,
        cache: &TileCacheSettings,
        grid: &TileGrid,
    ) -> BuildFrame {
        BuildFrame {
            settings,
            cache: cache.clone(),
            grid: *grid,
            off_mesh: geom.off_mesh_connections.clone(),
        }
    }

    /// Checks that `geom` can be built on this frame: inside the grid's bounds (the cache's
    /// origin, tile count and height range were fixed by the build), with the same off-mesh
    /// connections.
    fn check(&self, geom: &InputGeometry) -> Result<()> {
        geom.validate()?;
        let b = geom.mesh.bounds();
        let (lo, hi) = (self.grid.bmin, self.grid.bmax);
        if !(b.min.cmpge(lo).all() && b.max.cmple(hi).all()) {
            return Err(Error::InvalidArgument(format!(
                "the geometry's bounds {} .. {} leave the tile cache's {} .. {}: its grid was \
                 fixed by its build (build a new cache)",
                fmt(b.min),
                fmt(b.max),
                fmt(lo),
                fmt(hi)
            )));
        }
        if geom.off_mesh_connections != self.off_mesh {
            return Err(Error::InvalidArgument(
                "the geometry's off-mesh connections differ from the tile cache's build's: \
                 Detour keeps them for the cache's lifetime (build a new cache)"
                    .into(),
            ));
        }
        Ok(())
    }

    /// `tiles`, each checked to be on the grid, once each, in grid order.
    fn positions(&self, tiles: &[TileCoord]) -> Result<Vec<TileCoord>> {
        let mut out = Vec::with_capacity(tiles.len());
        for &t in tiles {
            check_tile(&self.grid, t)?;
            out.push(t);
        }
        out.sort_by_key(|t| (t.z, t.x));
        out.dedup();
        Ok(out)
    }
}

fn fmt(v: Vec3) -> String {
    format!("({:.2}, {:.2}, {:.2})", v.x, v.y, v.z)
}

impl TileCache {
    /// The tile grid the cache was built on, or `None` for a cache loaded from a file (a
    /// `TSET` file does not keep the build's height range): the tiles
    /// [`rebuild_tiles`](Self::rebuild_tiles) takes.
    pub fn grid(&self) -> Option<TileGrid> {
        self.frame.as_ref().map(|f| f.grid)
    }

    /// Rebuilds `tiles` from `geom`, the level after an edit (a moved, changed, added or
    /// removed mesh), with the settings the cache was built with: each tile is rasterized
    /// again (its triangles within the tile's border, as the build did), its heightfield
    /// layers replace the old ones, and its navmesh tiles are rebuilt with every placed
    /// obstacle carved out. Queued obstacle requests are worked off first ([`Self::update`]).
    /// Tiles outside `tiles` keep their layers and polygons (and their poly refs): name
    /// every tile whose border-expanded bounds the edit touched, before and after, and the
    /// cache equals one built from `geom` with the same obstacles. Returns the navmesh tiles
    /// built.
    ///
    /// Errors: a loaded cache (it does not know its build's settings), geometry that leaves
    /// the grid ([`Self::grid`]) or whose off-mesh connections differ from the build's, a
    /// tile off the grid, or more layers than the cache was sized for. On an error while the
    /// tiles are replaced, the tiles done so far stay rebuilt, and the failing tile is left
    /// without polygons.
    ///
    /// ```
    /// use navkit::{Aabb, InputGeometry, NavMeshBuilder};
    /// use glam::Vec3;
    ///
    /// let mut geom = InputGeometry::load("meshes/demo_level.gset")?;
    /// let mut cache = NavMeshBuilder::new(&geom).tile_cache()?;
    /// // The level without its first triangle: the tiles whose border reaches it change.
    /// let corners = geom.mesh.tris[..3].iter().map(|&v| geom.mesh.vertex(v as usize));
    /// let gone = Aabb::from_points(corners).expect("three corners");
    /// geom.mesh.tris.drain(..3);
    /// let border = Vec3::new(2.0, 0.0, 2.0); // past the tiles' border (agent radius + 3 cells)
    /// let grid = cache.grid().expect("a cache built by navkit");
    /// let tiles = grid.tiles_in_box(Aabb::new(gone.min - border, gone.max + border));
    /// let built = cache.rebuild_tiles(&geom, &tiles)?;
    /// println!("{} tiles rasterized again, {built} navmesh tiles built", tiles.len());
    /// # Ok::<(), navkit::Error>(())
    /// ```
    pub fn rebuild_tiles(&mut self, geom: &InputGeometry, tiles: &[TileCoord]) -> Result<usize> {
        let frame = self.frame.take().ok_or_else(|| {
            Error::InvalidArgument(
                "a tile cache loaded from a file cannot rebuild tiles from geometry (it does \
                 not know its build's settings): build the cache with navkit"
                    .into(),
            )
        })?;
        let result = self.rebuild_on(&frame, geom, tiles);
        self.frame = Some(frame);
        result
    }

    fn rebuild_on(
        &mut self,
        frame: &BuildFrame,
        geom: &InputGeometry,
        tiles: &[TileCoord],
    ) -> Result<usize> {
        frame.check(geom)?;
        let positions = frame.positions(tiles)?;
        self.update_until_done()?;
        let guard = Budget::new().start();
        let base = frame.settings.to_config(frame.grid.bmin, frame.grid.bmax)?;
        let settings = (&frame.settings, &frame.cache);
        let layers = layers_per_tile(geom, settings, &base, &frame.grid, &positions, &guard)?;
        let mut built = 0;
        for (&pos, (layers, _, _)) in positions.iter().zip(&layers) {
            built += self.replace_layers(pos, layers)?;
        }
        Ok(built)
    }

    /// Replaces the layers of tile `pos` with `layers` and rebuilds its navmesh tiles: the
    /// navmesh tiles built.
    fn replace_layers(
        &mut self,
        pos: TileCoord,
        layers: &[crate::ffi::validate::ValidLayer],
    ) -> Result<usize> {
        let (x, z) = (pos.x, pos.z);
        self.raw
            .remove_layers_at(x, z)
            .map_err(|s| detour_err("dtTileCache::removeTile", s))?;
        let old: Vec<TileCoord> = self
            .navmesh
            .tiles_at(x, z)
            .iter()
            .map(|t| t.coord())
            .collect();
        for t in old {
            self.navmesh.remove_tile(t)?;
        }
        for layer in layers {
            self.raw.add_tile(layer).map_err(|s| Error::Build {
                stage: crate::build::Stage::TileCache,
                message: format!(
                    "tile ({x}, {z}): its {} layers do not fit the tile cache, sized for the \
                     build's layers ({}); build a new cache",
                    layers.len(),
                    detour_err("dtTileCache::addTile", s)
                ),
            })?;
        }
        // The layers' refs are new: obstacles list them again, so the build below carves them.
        self.raw.refresh_obstacle_touches();
        self.build_navmesh_tiles(&[(x, z)], &Budget::new().start())?;
        Ok(self.navmesh.tiles_at(x, z).len())
    }
}
