//! The gizmo layers (feature `gizmos`): navkit's debug-draw layers as line segments, each
//! toggled by `NavGizmos`, drawn every frame by the plugin without disturbing the app.

mod common;

use bevy::gizmos::config::DefaultGizmoConfigGroup;
use bevy::gizmos::{AppGizmoBuilder, GizmoAsset};
use bevy::prelude::*;
use bevy_navkit::navkit::debug_draw::{self, PrimitiveKind};
use bevy_navkit::{
    AgentTarget, NavAgent, NavGizmos, NavObstacle, SceneNavMesh, gizmo_lines, navmesh_picture,
};
use common::{quad, quads, spawn_source, until_navmesh};

#[test]
fn each_layer_is_toggled_and_the_app_draws_them() {
    let mut app = common::app();
    // What gizmos need without a renderer (Bevy's GizmoPlugin also draws cameras' and meshes'
    // bounds, which need their plugins).
    app.init_asset::<GizmoAsset>();
    app.init_gizmo_group::<DefaultGizmoConfigGroup>();
    spawn_source(
        &mut app,
        quads(&[quad(0.0, 0.0, 30.0, 30.0, 0.0)]),
        Vec3::ZERO,
    );
    app.world_mut().spawn((
        NavAgent::default(),
        Transform::from_xyz(5.0, 0.0, 5.0),
        AgentTarget(Vec3::new(25.0, 0.0, 25.0)),
    ));
    app.world_mut().spawn((
        NavObstacle::Cylinder {
            radius: 1.0,
            height: 2.0,
        },
        Transform::from_xyz(15.0, 1.0, 15.0),
    ));
    until_navmesh(&mut app);
    for _ in 0..30 {
        app.update();
    }
    let nav = app
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    let picture = navmesh_picture(&nav);
    let all = NavGizmos::default();
    let no_tiles = NavGizmos {
        tiles: false,
        ..NavGizmos::default()
    };
    let with = gizmo_lines(&picture, |n| all.shows(n)).len();
    let without = gizmo_lines(&picture, |n| no_tiles.shows(n)).len();
    let tiles = picture.layer(debug_draw::navmesh::TILES_LAYER).unwrap();
    assert_eq!(with - without, tiles.count(PrimitiveKind::Lines));
    // The polygons' triangles are drawn by their three edges.
    let polys = picture.layer(debug_draw::navmesh::POLYS_LAYER).unwrap();
    let only_polys = gizmo_lines(&picture, |n| n == debug_draw::navmesh::POLYS_LAYER).len();
    assert_eq!(only_polys, 3 * polys.count(PrimitiveKind::Triangles));
    assert!(polys.count(PrimitiveKind::Triangles) > 0);
    // Nothing shown, nothing drawn; the plugin draws with the resource gone.
    let none = NavGizmos {
        navmesh: false,
        tiles: false,
        agents: false,
        obstacles: false,
    };
    assert!(gizmo_lines(&picture, |n| none.shows(n)).is_empty());
    app.world_mut().remove_resource::<NavGizmos>();
    for _ in 0..5 {
        app.update();
    }
}
