//! The gizmo layers (feature `gizmos`): navkit's debug-draw layers as line segments, each
//! toggled by `NavGizmos`, drawn every frame by the plugin without disturbing the app.

use std::time::Duration;

use bevy::asset::RenderAssetUsages;
use bevy::gizmos::config::DefaultGizmoConfigGroup;
use bevy::gizmos::{AppGizmoBuilder, GizmoAsset};
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy_navkit::navkit::debug_draw::{self, PrimitiveKind};
use bevy_navkit::{
    AgentTarget, NavAgent, NavGizmos, NavMeshBuilt, NavMeshSource, NavObstacle, NavkitPlugin,
    SceneNavMesh, gizmo_lines, navmesh_picture,
};

#[test]
fn each_layer_is_toggled_and_the_app_draws_them() {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        NavkitPlugin,
    ));
    app.init_asset::<Mesh>();
    // What gizmos need without a renderer (Bevy's GizmoPlugin also draws cameras' and meshes'
    // bounds, which need their plugins).
    app.init_asset::<GizmoAsset>();
    app.init_gizmo_group::<DefaultGizmoConfigGroup>();
    let floor = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::all())
        .with_inserted_attribute(
            Mesh::ATTRIBUTE_POSITION,
            vec![
                [0.0f32, 0.0, 0.0],
                [0.0, 0.0, 30.0],
                [30.0, 0.0, 30.0],
                [30.0, 0.0, 0.0],
            ],
        )
        .with_inserted_indices(Indices::U32(vec![0, 1, 2, 0, 2, 3]));
    let h = app.world_mut().resource_mut::<Assets<Mesh>>().add(floor);
    app.world_mut()
        .spawn((Mesh3d(h), Transform::default(), NavMeshSource::default()));
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
    let mut built = false;
    for _ in 0..12_000 {
        app.update();
        built |= !app.world().resource::<Messages<NavMeshBuilt>>().is_empty();
        if built {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(built);
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
