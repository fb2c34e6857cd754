//! What one shard of a tiled build reads of a level file: every vertex (an OBJ face may name
//! any vertex before it) but only the triangles near its tiles, so that a worker's memory for
//! triangles, their index and the tiles grows with its shard, not with the world.
//!
//! Two passes over the file: the first finds the level's bounds (which place the tile grid)
//! and keeps no triangle; the second keeps the triangles whose xz bounds overlap the shard's
//! tiles with their borders (at most three rectangles: a shard is a run of whole tile rows, cut
//! at its ends) and hashes every vertex and triangle for the build's key, which therefore equals
//! [`build_key`](super::shard::build_key) of the whole level. A tile's triangles are those of
//! the whole level near it, in the same order, so its bytes are the whole build's.
//!
//! ```no_run
//! use navkit::build::tiled::{Shard, ShardInput};
//! let input = ShardInput::load("world.gset".as_ref(), &Default::default(), Shard::new(2, 8)?, |_| {})?;
//! let part = input.builder().threads(1).tiled()?.part_bytes()?;
//! navkit::atomic_file::write("world.2.part".as_ref(), &part)?;
//! # Ok::<(), navkit::Error>(())
//! ```

use std::path::Path;

use super::shard::{MeshDigest, Shard};
use super::{TileGrid, tile_config};
use crate::geometry::mesh::XzRect;
use crate::geometry::{InputGeometry, LoadOptions, TrianglePicker};
use crate::settings::BuildSettings;
use crate::{NavMeshBuilder, Result};

/// One shard's part of a level, read from its file ([`ShardInput::load`]).
#[derive(Clone, Debug)]
pub struct ShardInput {
    /// Every vertex of the level, the triangles near the shard's tiles, and the level's
    /// settings, volumes and links.
    pub geometry: InputGeometry,
    /// The settings the shard is built with.
    pub settings: BuildSettings,
    /// The shard.
    pub shard: Shard,
    /// The whole build's key ([`build_key`](super::shard::build_key) of the whole level).
    pub build_key: [u8; 32],
    /// Triangles in the level file.
    pub triangles_read: usize,
}

/// Keeps no triangle (the first pass: the vertices give the bounds).
struct NoTriangles;

impl TrianglePicker for NoTriangles {
    fn triangle(&mut self, _: &[f32], _: [i32; 3]) -> bool {
        false
    }
}

/// Keeps the triangles whose xz bounds overlap one of `rects`, and hashes everything.
struct NearShard {
    rects: Vec<XzRect>,
    digest: MeshDigest,
}

impl TrianglePicker for NearShard {
    fn vertex(&mut self, xyz: [f32; 3]) {
        self.digest.vertex(xyz);
    }

    fn triangle(&mut self, verts: &[f32], tri: [i32; 3]) -> bool {
        self.digest.triangle(tri);
        let r = XzRect::of_triangle(verts, tri);
        self.rects.iter().any(|x| r.touches(x))
    }
}

/// The xz rectangles covering `shard`'s tiles of `grid` with their borders (`base`'s): one per
/// run of tiles in a row, the full rows in the middle merged.
fn shard_rects(grid: &TileGrid, base: &crate::settings::VoxelConfig, shard: Shard) -> Vec<XzRect> {
    let tiles = shard.tiles(grid);
    let mut rows: Vec<(i32, i32, i32, i32)> = Vec::new(); // z0, z1, x0, x1
    for t in tiles {
        match rows.last_mut() {
            Some(r) if r.1 == t.z && r.3 + 1 == t.x => r.3 = t.x,
            _ => rows.push((t.z, t.z, t.x, t.x)),
        }
    }
    // Whole rows one after another become one rectangle.
    let full = grid.tiles_x - 1;
    let mut merged: Vec<(i32, i32, i32, i32)> = Vec::new();
    for r in rows {
        match merged.last_mut() {
            Some(m) if m.2 == 0 && m.3 == full && r.2 == 0 && r.3 == full && m.1 + 1 == r.0 => {
                m.1 = r.0;
            }
            _ => merged.push(r),
        }
    }
    merged
        .into_iter()
        .map(|(z0, z1, x0, x1)| {
            let a = tile_config(base, grid, crate::navmesh::TileCoord::new(x0, z0));
            let b = tile_config(base, grid, crate::navmesh::TileCoord::new(x1, z1));
            XzRect {
                min: XzRect::of_grid(&a).min,
                max: XzRect::of_grid(&b).max,
            }
        })
        .collect()
}

impl ShardInput {
    /// Reads `shard`'s part of the level at `path` (a `.gset`, or a mesh: OBJ streamed, glTF
    /// read whole), with the level's settings (or RecastDemo's) changed by `adjust`. Errors are
    /// those of [`InputGeometry::load_with`] and of the tile grid's settings.
    pub fn load(
        path: &Path,
        options: &LoadOptions,
        shard: Shard,
        adjust: impl FnOnce(&mut BuildSettings),
    ) -> Result<ShardInput> {
        let first = InputGeometry::load_picked(path, options, &mut NoTriangles)?;
        let mut settings = first.settings.clone().unwrap_or_default();
        adjust(&mut settings);
        let (bmin, bmax) = first.mesh.bounds().into();
        drop(first);
        let grid = TileGrid::new(bmin, bmax, &settings)?;
        let base = settings.to_config(bmin, bmax)?;
        let mut near = NearShard {
            rects: shard_rects(&grid, &base, shard),
            digest: MeshDigest::default(),
        };
        let geometry = InputGeometry::load_picked(path, options, &mut near)?;
        Ok(ShardInput {
            build_key: near.digest.key(&geometry, &settings),
            triangles_read: near.digest.triangles,
            geometry,
            settings,
            shard,
        })
    }

    /// A builder of this shard: its geometry, settings, shard and build key; add threads, a
    /// tile store or a budget, then [`NavMeshBuilder::tiled`] and
    /// [`part_bytes`](super::TiledNavMesh::part_bytes).
    pub fn builder(&self) -> NavMeshBuilder<'_> {
        NavMeshBuilder::new(&self.geometry)
            .settings(self.settings.clone())
            .shard_of(self.shard, self.build_key)
    }
}
