//! One build, as it runs on Bevy's async compute pool: the whole tiled navmesh, or only the
//! tiles that changes touched, then a copy of the navmesh for systems to read.

use std::time::{Duration, Instant};

use navkit::build::tiled::TiledNavMesh;
use navkit::{Aabb, InputGeometry, NavMesh, NavMeshBuilder, TileCoord};

use crate::settings::NavMeshSettings;

/// What to build.
pub(crate) enum Work {
    /// Every tile, on a grid over the geometry's bounds.
    Full,
    /// These tiles of the navmesh the job carries, from the new geometry.
    Tiles(Vec<TileCoord>),
}

/// A build to run: the geometry of every source, the settings, and the navmesh to change.
pub(crate) struct Job {
    pub geometry: InputGeometry,
    pub settings: NavMeshSettings,
    pub tiled: Option<TiledNavMesh>,
    pub work: Work,
}

/// A finished build: the navmesh the builder keeps (given back even when the build failed),
/// and what came of it.
pub(crate) struct Done {
    pub tiled: Option<TiledNavMesh>,
    pub result: navkit::Result<Built>,
}

/// A successful build.
pub(crate) struct Built {
    /// A copy of the navmesh, for [`SceneNavMesh`](crate::SceneNavMesh).
    pub navmesh: NavMesh,
    /// Its tiles' hash ([`TiledNavMesh::data_hash`]).
    pub data_hash: String,
    pub full: bool,
    pub tiles_built: usize,
    pub duration: Duration,
}

impl Job {
    /// Runs the build (blocking: call it on a task).
    pub(crate) fn run(self) -> Done {
        let started = Instant::now();
        let Job {
            geometry,
            settings,
            tiled,
            work,
        } = self;
        let outcome = match (work, tiled) {
            (Work::Tiles(tiles), Some(mut tiled)) => match rebuild(&mut tiled, geometry, &tiles) {
                Ok(()) => Ok((tiled, tiles.len(), false)),
                Err(e) => Err((Some(tiled), e)),
            },
            _ => full(&geometry, &settings)
                .map(|(tiled, n)| (tiled, n, true))
                .map_err(|e| (None, e)),
        };
        match outcome {
            Ok((tiled, tiles_built, full)) => Done {
                result: copy(&tiled).map(|navmesh| Built {
                    navmesh,
                    data_hash: tiled.data_hash(),
                    full,
                    tiles_built,
                    duration: started.elapsed(),
                }),
                tiled: Some(tiled),
            },
            Err((tiled, e)) => Done {
                tiled,
                result: Err(e),
            },
        }
    }
}

/// Every tile of `geometry`.
fn full(
    geometry: &InputGeometry,
    settings: &NavMeshSettings,
) -> navkit::Result<(TiledNavMesh, usize)> {
    let tiled = NavMeshBuilder::new(geometry)
        .settings(settings.build.clone())
        .threads(settings.threads)
        .tiled()?;
    let n = tiled.grid().tile_count();
    Ok((tiled, n))
}

/// Rebuilds `tiles` of `tiled` from `geometry`. On an error the tiles rebuilt so far stay.
fn rebuild(
    tiled: &mut TiledNavMesh,
    geometry: InputGeometry,
    tiles: &[TileCoord],
) -> navkit::Result<()> {
    tiled.set_geometry(geometry)?;
    for &tile in tiles {
        tiled.rebuild_tile(tile)?;
    }
    Ok(())
}

/// A navmesh with the same parameters and tiles as `navmesh`.
fn copy(tiled: &TiledNavMesh) -> navkit::Result<NavMesh> {
    let mut out = NavMesh::new(&tiled.navmesh().params())?;
    for tile in tiled.tiles() {
        out.add_tile(&tile.data)?;
    }
    Ok(out)
}

/// The tiles of `tiled` whose build reads geometry inside one of `boxes` (each widened by
/// `reach`, the tiles' border), once each, in grid order.
pub(crate) fn touched_tiles(tiled: &TiledNavMesh, boxes: &[Aabb], reach: f32) -> Vec<TileCoord> {
    let grid = tiled.grid();
    let mut tiles: Vec<TileCoord> = boxes
        .iter()
        .flat_map(|b| {
            let grow = glam::Vec3::new(reach, 0.0, reach);
            grid.tiles_in_box(Aabb {
                min: b.min - grow,
                max: b.max + grow,
            })
        })
        .collect();
    tiles.sort_by_key(|t| (t.z, t.x));
    tiles.dedup();
    tiles
}

/// True if `bounds` fits the tile grid `tiled` was built on (else the grid must grow: a full
/// build).
pub(crate) fn fits(tiled: &TiledNavMesh, bounds: &Aabb) -> bool {
    let g = tiled.grid();
    bounds.min.cmpge(g.bmin).all() && bounds.max.cmple(g.bmax).all()
}
