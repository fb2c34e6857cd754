//! Obstacles carved through navkit's tile cache: a wall of a box forces a detour whose length
//! is derived by hand, moving the entity moves it, removing it restores the straight path;
//! the cache refuses an obstacle too large and says so; a tiled navmesh does not carve; a
//! source moved in a tile cache rebuilds only its tiles, obstacles still carved.

mod common;

use bevy::ecs::system::RunSystemOnce;
use bevy::prelude::*;
use bevy_navkit::navkit::PathOptions;
use bevy_navkit::navkit::tilecache::TileCacheSettings;
use bevy_navkit::{
    NavMeshBackend, NavMeshBuildFailed, NavMeshBuilt, NavMeshSettings, NavObstacle,
    NavObstacleRefused, NavQueries, SceneNavMesh,
};
use common::{polygons, quad, quads, run_until, spawn_source};

/// Builds and refusals so far.
#[derive(Resource, Default)]
struct Log {
    built: usize,
    /// The last build's `full` and `tiles_built`.
    last: Option<(bool, usize)>,
    failed: Vec<String>,
    refused: Vec<Entity>,
}

fn record(
    mut log: ResMut<Log>,
    mut built: MessageReader<NavMeshBuilt>,
    mut failed: MessageReader<NavMeshBuildFailed>,
    mut refused: MessageReader<NavObstacleRefused>,
) {
    for b in built.read() {
        log.built += 1;
        log.last = Some((b.full, b.tiles_built));
    }
    log.failed
        .extend(failed.read().map(|f| f.error.to_string()));
    log.refused.extend(refused.read().map(|r| r.entity));
}

/// The plugin building `backend` from a 30 x 30 m floor, its messages logged.
fn app(backend: NavMeshBackend) -> App {
    let mut app = common::app();
    app.insert_resource(NavMeshSettings {
        backend,
        ..NavMeshSettings::default()
    });
    app.init_resource::<Log>();
    app.add_systems(Last, record);
    spawn_source(
        &mut app,
        quads(&[quad(0.0, 0.0, 30.0, 30.0, 0.0)]),
        Vec3::ZERO,
    );
    app
}

fn cache() -> NavMeshBackend {
    NavMeshBackend::TileCache(TileCacheSettings::default())
}

/// Runs frames until `n` builds have ended in all (at most 60 s).
fn until_built(app: &mut App, n: usize) {
    run_until(app, "the builds", |app| {
        app.world().resource::<Log>().built >= n
    });
}

/// The straight path's xz length from (5, 0, 5) to (5, 0, 25).
fn length(app: &mut App) -> f32 {
    app.world_mut()
        .run_system_once(|nav: NavQueries| {
            let p = nav.path(
                Vec3::new(5.0, 0.0, 5.0),
                Vec3::new(5.0, 0.0, 25.0),
                &PathOptions::default(),
            );
            let p = p.unwrap();
            assert!(p.is_complete());
            p.straight
                .points
                .windows(2)
                .map(|w| (w[1].pos - w[0].pos).with_y(0.0).length())
                .sum::<f32>()
        })
        .unwrap()
}

/// A wall of a box across x 0..10 at z 14.5..15.5, 2 m high.
fn wall() -> (NavObstacle, Transform) {
    (
        NavObstacle::Box {
            half_extents: Vec3::new(5.0, 1.0, 0.5),
        },
        Transform::from_xyz(5.0, 1.0, 15.0),
    )
}

#[test]
fn an_obstacle_forces_a_detour_moves_with_its_entity_and_its_removal_restores_the_path() {
    let mut app = app(cache());
    until_built(&mut app, 1);
    assert!((length(&mut app) - 20.0).abs() < 0.01);
    assert!(app.world().resource::<SceneNavMesh>().data_hash().is_none());
    let wall = app.world_mut().spawn(wall()).id();
    until_built(&mut app, 2);
    // Widened by the agent radius (0.6 m): x 0..10.6, z 13.9..16.1. Round its corners
    // (10.6, 13.9) and (10.6, 16.1): 2 x |(5.6, 8.9)| + 2.2 = 23.23 m; the cache's cells
    // (0.3 m) move each edge by up to a cell: at most 2 x |(5.9, 8.6)| + 2.8 = 23.66 m.
    let detour = length(&mut app);
    assert!((23.1..=23.8).contains(&detour), "{detour}");
    // Moved to x 20..30, out of the way.
    app.world_mut()
        .entity_mut(wall)
        .insert(Transform::from_xyz(25.0, 1.0, 15.0));
    until_built(&mut app, 3);
    assert!((length(&mut app) - 20.0).abs() < 0.01);
    // Back, then despawned.
    app.world_mut()
        .entity_mut(wall)
        .insert(Transform::from_xyz(5.0, 1.0, 15.0));
    until_built(&mut app, 4);
    assert!((length(&mut app) - detour).abs() < 0.01);
    app.world_mut().entity_mut(wall).despawn();
    until_built(&mut app, 5);
    assert!((length(&mut app) - 20.0).abs() < 0.01);
    assert!(app.world().resource::<Log>().failed.is_empty());
}

#[test]
fn the_cache_refuses_an_obstacle_too_large_and_carves_the_rest() {
    let mut app = app(cache());
    until_built(&mut app, 1);
    // 10 km across: more tiles than an obstacle may touch.
    let huge = app
        .world_mut()
        .spawn((
            NavObstacle::Cylinder {
                radius: 5000.0,
                height: 2.0,
            },
            Transform::from_xyz(15.0, 1.0, 15.0),
        ))
        .id();
    app.world_mut().spawn(wall());
    until_built(&mut app, 2);
    let log = app.world().resource::<Log>();
    assert_eq!(log.refused, vec![huge]);
    assert!(length(&mut app) > 23.0, "the wall is carved");
}

#[test]
fn a_tiled_navmesh_does_not_carve_obstacles() {
    let mut app = app(NavMeshBackend::Tiled);
    until_built(&mut app, 1);
    app.world_mut().spawn(wall());
    for _ in 0..50 {
        app.update();
    }
    assert_eq!(app.world().resource::<Log>().built, 1);
    assert!((length(&mut app) - 20.0).abs() < 0.01);
}

#[test]
fn an_oriented_box_turns_with_its_entity() {
    let mut app = app(cache());
    until_built(&mut app, 1);
    // 1 x 10 m, turned a quarter about y: across x 0..10 at z 14.5..15.5, as the box wall.
    let half_extents = Vec3::new(0.5, 1.0, 5.0);
    let turned = Transform::from_xyz(5.0, 1.0, 15.0)
        .with_rotation(Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
    let slab = app
        .world_mut()
        .spawn((NavObstacle::OrientedBox { half_extents }, turned))
        .id();
    until_built(&mut app, 2);
    let across = length(&mut app);
    assert!((23.1..=23.8).contains(&across), "{across}");
    // Unturned: along the path, x 4.5..5.5 at z 10..20, widened to x 3.9..6.1, z 9.4..20.6:
    // round it, 2 x |(1.1, 4.4)| + 11.2 = 20.27 m (a cell either way: at most 20.9).
    app.world_mut()
        .entity_mut(slab)
        .insert(Transform::from_xyz(5.0, 1.0, 15.0));
    until_built(&mut app, 3);
    let along = length(&mut app);
    assert!((20.2..=20.9).contains(&along), "{along}");
}

/// The tile-cache app with a 1 x 2 x 1 m block standing at `block` and the wall; its first
/// build done.
fn block_and_wall(block: Vec3) -> (App, Entity) {
    let mut app = app(cache());
    let cube = Mesh::from(Cuboid::new(1.0, 2.0, 1.0));
    let block = spawn_source(&mut app, cube, block);
    app.world_mut().spawn(wall());
    until_built(&mut app, 1);
    (app, block)
}

#[test]
fn a_source_moved_in_a_tile_cache_rebuilds_only_its_tiles_with_the_obstacles_carved() {
    let (from, to) = (Vec3::new(24.0, 1.0, 5.0), Vec3::new(8.0, 1.0, 18.0));
    let (mut app, block) = block_and_wall(from);
    assert_eq!(
        app.world().resource::<Log>().last,
        Some((true, 9)),
        "3 x 3 tiles"
    );
    app.world_mut()
        .entity_mut(block)
        .insert(Transform::from_translation(to));
    until_built(&mut app, 2);
    // The cache's tiles are 48 cells of 0.3 m (14.4 m); each reads 1.8 m past its edges (agent
    // radius 0.6 m + 4 cells). The block left x 21.7..26.3, z 2.7..7.3 (tile (1, 0)) and
    // entered x 5.7..10.3, z 15.7..20.3 (tile (0, 1)). One layer each: 2 navmesh tiles.
    assert_eq!(app.world().resource::<Log>().last, Some((false, 2)));
    // The same navmesh as a cache built with the block there from the start: the wall (x
    // 0..10.6, z 13.9..16.1 widened: tiles (0, 0) and (0, 1)) carved into the rebuilt layer too.
    let (fresh, _) = block_and_wall(to);
    let moved = app
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    let direct = fresh
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    assert_eq!(polygons(&moved), polygons(&direct));
    let (plain, _) = block_and_wall(from);
    let before = plain
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    assert_ne!(polygons(&moved), polygons(&before), "the block moved");
    assert!(app.world().resource::<Log>().failed.is_empty());
}
