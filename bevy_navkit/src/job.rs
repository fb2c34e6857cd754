//! One build, as it runs on Bevy's async compute pool: the whole navmesh (tiled, or a tile
//! cache with its obstacles), only the tiles that changes touched, or only the obstacles that
//! moved; then a copy of the navmesh for systems to read.

use std::time::{Duration, Instant};

use bevy::ecs::entity::Entity;
use bevy::platform::collections::HashMap;
use navkit::build::tiled::{TileGrid, TiledNavMesh};
use navkit::tilecache::ObstacleRef;
use navkit::{Aabb, InputGeometry, NavMesh, NavMeshBuilder, ObstacleShape, TileCache, TileCoord};

use crate::obstacle::widened;
use crate::scene_geometry::SceneGeometry;
use crate::settings::{NavMeshBackend, NavMeshSettings};

/// The obstacles placed in a tile cache: each entity's shape (as tracked, before widening) and
/// its ref, or `None` if the cache refused it (it is tried again when its shape changes).
pub(crate) type Placed = HashMap<Entity, (ObstacleShape, Option<ObstacleRef>)>;

/// The navmesh builds work on.
pub(crate) enum Backend {
    Tiled(Box<TiledNavMesh>),
    Cache {
        cache: Box<TileCache>,
        placed: Placed,
    },
}

/// What to build.
pub(crate) enum Work {
    /// Everything, on a grid over the geometry's bounds (and every obstacle, for a cache).
    Full,
    /// These tiles of the tiled navmesh or tile cache the job carries, from the new geometry
    /// (and every obstacle, for a cache).
    Tiles(Vec<TileCoord>),
    /// The obstacles of the tile cache the job carries, as they are now.
    Obstacles,
}

/// A build to run.
pub(crate) struct Job {
    /// Every source's triangles (for [`Work::Full`] and [`Work::Tiles`]), joined on the task.
    pub geometry: Option<SceneGeometry>,
    pub settings: NavMeshSettings,
    pub backend: Option<Backend>,
    pub work: Work,
    /// Every obstacle's shape now (before widening).
    pub obstacles: HashMap<Entity, ObstacleShape>,
}

/// A finished build: the navmesh the builder keeps (given back even when the build failed),
/// what came of it, and the obstacles the cache refused.
pub(crate) struct Done {
    pub backend: Option<Backend>,
    pub result: navkit::Result<Built>,
    pub refused: Vec<(Entity, navkit::Error)>,
}

/// A successful build.
pub(crate) struct Built {
    /// A copy of the navmesh, for [`SceneNavMesh`](crate::SceneNavMesh).
    pub navmesh: NavMesh,
    /// Its tiles' hash ([`TiledNavMesh::data_hash`]); `None` for a tile cache.
    pub data_hash: Option<String>,
    pub full: bool,
    pub tiles_built: usize,
    pub duration: Duration,
}

impl Backend {
    /// The tile grid it was built on (`None` for a tile cache navkit did not build).
    pub(crate) fn grid(&self) -> Option<TileGrid> {
        match self {
            Backend::Tiled(t) => Some(*t.grid()),
            Backend::Cache { cache, .. } => cache.grid(),
        }
    }
}

impl Job {
    /// Runs the build (blocking: call it on a task).
    pub(crate) fn run(self) -> Done {
        let started = Instant::now();
        let margin = self.settings.build.agent_radius;
        let mut refused = Vec::new();
        let geometry = match self.geometry.as_ref().map(SceneGeometry::join).transpose() {
            Ok(g) => g,
            Err(e) => {
                return Done {
                    backend: self.backend,
                    result: Err(e),
                    refused,
                };
            }
        };
        let outcome = match (self.work, self.backend, geometry) {
            (Work::Tiles(tiles), Some(Backend::Tiled(mut tiled)), Some(geometry)) => {
                match rebuild(&mut tiled, geometry, &tiles) {
                    Ok(()) => Ok((Backend::Tiled(tiled), tiles.len(), false)),
                    Err(e) => Err((Some(Backend::Tiled(tiled)), e)),
                }
            }
            (
                Work::Tiles(tiles),
                Some(Backend::Cache {
                    mut cache,
                    mut placed,
                }),
                Some(geometry),
            ) => {
                let obstacles = (&self.obstacles, margin);
                let done = cache
                    .rebuild_tiles(&geometry, &tiles)
                    .and_then(|n| Ok(n + place(&mut cache, &mut placed, obstacles, &mut refused)?));
                match done {
                    Ok(n) => Ok((Backend::Cache { cache, placed }, n, false)),
                    Err(e) => Err((Some(Backend::Cache { cache, placed }), e)),
                }
            }
            (
                Work::Obstacles,
                Some(Backend::Cache {
                    mut cache,
                    mut placed,
                }),
                _,
            ) => {
                let obstacles = (&self.obstacles, margin);
                match place(&mut cache, &mut placed, obstacles, &mut refused) {
                    Ok(n) => Ok((Backend::Cache { cache, placed }, n, false)),
                    Err(e) => Err((Some(Backend::Cache { cache, placed }), e)),
                }
            }
            (_, _, Some(geometry)) => full(
                &geometry,
                &self.settings,
                (&self.obstacles, margin),
                &mut refused,
            )
            .map(|(backend, n)| (backend, n, true))
            .map_err(|e| (None, e)),
            (_, backend, None) => Err((
                backend,
                navkit::Error::InvalidArgument("a full build needs the geometry".into()),
            )),
        };
        let (backend, result) = match outcome {
            Ok((backend, tiles_built, full)) => {
                let result = copy(&backend).map(|(navmesh, data_hash)| Built {
                    navmesh,
                    data_hash,
                    full,
                    tiles_built,
                    duration: started.elapsed(),
                });
                (Some(backend), result)
            }
            Err((backend, e)) => (backend, Err(e)),
        };
        Done {
            backend,
            result,
            refused,
        }
    }
}

/// Everything from `geometry`: the tiled navmesh, or the tile cache with every obstacle.
fn full(
    geometry: &InputGeometry,
    settings: &NavMeshSettings,
    obstacles: (&HashMap<Entity, ObstacleShape>, f32),
    refused: &mut Vec<(Entity, navkit::Error)>,
) -> navkit::Result<(Backend, usize)> {
    let builder = NavMeshBuilder::new(geometry)
        .settings(settings.build.clone())
        .threads(settings.threads);
    match &settings.backend {
        NavMeshBackend::Tiled => {
            let tiled = builder.tiled()?;
            let n = tiled.grid().tile_count();
            Ok((Backend::Tiled(Box::new(tiled)), n))
        }
        NavMeshBackend::TileCache(cache_settings) => {
            let cache = builder
                .cache_settings(cache_settings.clone())
                .tile_cache()?;
            let mut cache = Box::new(cache);
            let mut placed = Placed::default();
            place(&mut cache, &mut placed, obstacles, refused)?;
            let n = cache.navmesh().tile_count();
            Ok((Backend::Cache { cache, placed }, n))
        }
    }
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

/// Brings the obstacles of `cache` to `wanted` (each widened by the margin): removes those
/// gone or moved, adds the new and moved ones (in entity order), and rebuilds the tile layers
/// they touch. Obstacles the cache refuses go to `refused`. The number of layers rebuilt.
fn place(
    cache: &mut TileCache,
    placed: &mut Placed,
    (wanted, margin): (&HashMap<Entity, ObstacleShape>, f32),
    refused: &mut Vec<(Entity, navkit::Error)>,
) -> navkit::Result<usize> {
    let mut rebuilt = 0;
    let stale: Vec<Entity> = placed
        .iter()
        .filter(|(e, (shape, _))| wanted.get(*e) != Some(shape))
        .map(|(e, _)| *e)
        .collect();
    for e in stale {
        if let Some((_, Some(r))) = placed.remove(&e) {
            // A stale ref is an obstacle already gone: nothing to undo.
            if let Ok(((), n)) = retry_when_full(cache, |c| c.remove(r)) {
                rebuilt += n;
            }
        }
    }
    let mut new: Vec<(&Entity, &ObstacleShape)> = wanted
        .iter()
        .filter(|(e, _)| !placed.contains_key(*e))
        .collect();
    new.sort_by_key(|(e, _)| **e);
    for (&e, &shape) in new {
        let added = retry_when_full(cache, |c| c.add(&widened(shape, margin)));
        let r = match added {
            Ok((r, n)) => {
                rebuilt += n;
                Some(r)
            }
            Err(error) => {
                refused.push((e, error));
                None
            }
        };
        placed.insert(e, (shape, r));
    }
    Ok(rebuilt + cache.update_until_done()?.tiles_rebuilt)
}

/// `op` on `cache`; if the cache's request queue is full, the queue is worked off and `op`
/// tried once more. Its result, and the layers rebuilt meanwhile.
fn retry_when_full<T>(
    cache: &mut TileCache,
    mut op: impl FnMut(&mut TileCache) -> navkit::Result<T>,
) -> navkit::Result<(T, usize)> {
    match op(cache) {
        Err(navkit::Error::QueueFull { .. }) => {
            let n = cache.update_until_done()?.tiles_rebuilt;
            Ok((op(cache)?, n))
        }
        r => Ok((r?, 0)),
    }
}

/// A navmesh with the same parameters and tiles as the backend's, and its data hash.
fn copy(backend: &Backend) -> navkit::Result<(NavMesh, Option<String>)> {
    match backend {
        Backend::Tiled(tiled) => {
            let mut out = NavMesh::new(&tiled.navmesh().params())?;
            for tile in tiled.tiles() {
                out.add_tile(&tile.data)?;
            }
            Ok((out, Some(tiled.data_hash())))
        }
        Backend::Cache { cache, .. } => {
            let bytes = cache.navmesh().to_mset_bytes();
            Ok((NavMesh::from_mset_bytes(&bytes)?, None))
        }
    }
}

/// The tiles of `grid` whose build reads geometry inside one of `boxes` (each widened by
/// `reach`, the tiles' border), once each, in grid order.
pub(crate) fn touched_tiles(grid: &TileGrid, boxes: &[Aabb], reach: f32) -> Vec<TileCoord> {
    let grow = glam::Vec3::new(reach, 0.0, reach);
    let mut tiles: Vec<TileCoord> = boxes
        .iter()
        .flat_map(|b| {
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

/// True if `bounds` fits the tile grid `g` (else the grid must grow: a full build).
pub(crate) fn fits(g: &TileGrid, bounds: &Aabb) -> bool {
    bounds.min.cmpge(g.bmin).all() && bounds.max.cmple(g.bmax).all()
}
