//! A glTF scene loaded by Bevy's asset server and marked at its root: every child mesh counts,
//! placed by its node's transform, and the navmesh equals navkit's tiled build of the same
//! triangles.

use std::time::Duration;

use bevy::gltf::GltfPlugin;
use bevy::prelude::*;
use bevy::transform::components::TransformTreeChanged;
use bevy::world_serialization::{WorldAssetRoot, WorldSerializationPlugin};
use bevy_navkit::navkit::{InputGeometry, NavMeshBuilder, TriMesh};
use bevy_navkit::{NavMeshBuilt, NavMeshSource, NavkitPlugin, SceneNavMesh};

/// A 10 x 10 m floor quad: four positions (f32) then six u16 indices.
fn floor_bin() -> Vec<u8> {
    let mut out = Vec::new();
    for p in [
        [0.0f32, 0.0, 0.0],
        [0.0, 0.0, 10.0],
        [10.0, 0.0, 10.0],
        [10.0, 0.0, 0.0],
    ] {
        for c in p {
            out.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        out.extend_from_slice(&i.to_le_bytes());
    }
    out
}

/// A scene: a root node "level" with two children, each the floor: one at the origin, one at
/// (12, 1, 0) (a 2 m gap, 1 m up).
const GLTF: &str = r#"{
  "asset": {"version": "2.0"},
  "scene": 0,
  "scenes": [{"nodes": [0]}],
  "nodes": [
    {"name": "level", "children": [1, 2]},
    {"name": "floor_a", "mesh": 0},
    {"name": "floor_b", "mesh": 0, "translation": [12.0, 1.0, 0.0]}
  ],
  "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
  "accessors": [
    {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3",
     "min": [0.0, 0.0, 0.0], "max": [10.0, 0.0, 10.0]},
    {"bufferView": 1, "componentType": 5123, "count": 6, "type": "SCALAR"}
  ],
  "bufferViews": [
    {"buffer": 0, "byteOffset": 0, "byteLength": 48, "target": 34962},
    {"buffer": 0, "byteOffset": 48, "byteLength": 12, "target": 34963}
  ],
  "buffers": [{"uri": "floor.bin", "byteLength": 60}]
}"#;

#[test]
fn a_gltf_scenes_child_meshes_all_count() {
    let dir = std::env::temp_dir().join(format!("bevy_navkit_gltf_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("level.gltf"), GLTF).unwrap();
    std::fs::write(dir.join("floor.bin"), floor_bin()).unwrap();
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin {
            file_path: dir.to_string_lossy().into_owned(),
            ..default()
        },
        TransformPlugin,
        WorldSerializationPlugin,
        GltfPlugin::default(),
        NavkitPlugin,
    ));
    app.init_asset::<Mesh>();
    // The components a glTF scene's entities carry, for the scene spawner (DefaultPlugins'
    // plugins register them).
    app.register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<TransformTreeChanged>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Mesh3d>()
        .register_type::<bevy::camera::primitives::Aabb>();
    // GltfPlugin registers its loader when the app finishes building (app.run() does this).
    app.finish();
    app.cleanup();
    let level = app
        .world()
        .resource::<AssetServer>()
        .load(GltfAssetLabel::Scene(0).from_asset("level.gltf"));
    app.world_mut()
        .spawn((WorldAssetRoot(level.clone()), NavMeshSource::default()));
    let mut built = false;
    for _ in 0..2_000 {
        app.update();
        if !app.world().resource::<Messages<NavMeshBuilt>>().is_empty() {
            built = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let state = app.world().resource::<AssetServer>().load_state(&level);
    let meshes = app.world_mut().query::<&Mesh3d>().iter(app.world()).count();
    assert!(
        built,
        "no navmesh in 60 s: the scene is {state:?}, {meshes} meshes spawned"
    );
    // Both floors, as navkit builds them from the same triangles.
    let verts = [
        [0.0f32, 0.0, 0.0],
        [0.0, 0.0, 10.0],
        [10.0, 0.0, 10.0],
        [10.0, 0.0, 0.0],
    ];
    let mut all = Vec::new();
    for offset in [[0.0, 0.0, 0.0], [12.0, 1.0, 0.0]] {
        for v in verts {
            all.extend([v[0] + offset[0], v[1] + offset[1], v[2] + offset[2]]);
        }
    }
    let tris = vec![0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7];
    let geom = InputGeometry::from_mesh(TriMesh::new(all, tris).unwrap());
    let direct = NavMeshBuilder::new(&geom).threads(1).tiled().unwrap();
    let scene = app.world().resource::<SceneNavMesh>();
    assert_eq!(scene.data_hash(), Some(direct.data_hash().as_str()));
    assert_eq!(
        scene.get().unwrap().tile_count(),
        direct.navmesh().tile_count()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
