//! What the bevy_navkit tests share: a headless app with the plugin, level meshes, and waiting
//! for builds. Each test file uses a part of it.
#![allow(dead_code)]

use std::time::Duration;

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy_navkit::{NavMeshBuilt, NavMeshSource, NavkitPlugin};

/// A headless app (no window, no renderer) with navkit's plugin and Bevy meshes.
pub fn app() -> App {
    let mut app = App::new();
    app.add_plugins((
        MinimalPlugins,
        AssetPlugin::default(),
        TransformPlugin,
        NavkitPlugin,
    ));
    app.init_asset::<Mesh>();
    app
}

/// A horizontal quad over x0..x1, z0..z1 at height y, counter-clockwise seen from above.
pub fn quad(x0: f32, z0: f32, x1: f32, z1: f32, y: f32) -> [[f32; 3]; 4] {
    [[x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]]
}

/// A triangle-list mesh of `quads` (each four corners, two triangles), kept in the main world.
pub fn quads(quads: &[[[f32; 3]; 4]]) -> Mesh {
    let mut pos = Vec::new();
    let mut idx = Vec::new();
    for q in quads {
        let n = pos.len() as u32;
        pos.extend_from_slice(q);
        idx.extend_from_slice(&[n, n + 1, n + 2, n, n + 2, n + 3]);
    }
    Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::all())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, pos)
        .with_inserted_indices(Indices::U32(idx))
}

/// Spawns `mesh` at `at` as a navmesh source.
pub fn spawn_source(app: &mut App, mesh: Mesh, at: Vec3) -> Entity {
    let h = app.world_mut().resource_mut::<Assets<Mesh>>().add(mesh);
    app.world_mut()
        .spawn((
            Mesh3d(h),
            Transform::from_translation(at),
            NavMeshSource::default(),
        ))
        .id()
}

/// A 30 x 30 m floor and a wall along z = 15 (2 m high, 0.6 m thick) with a 3 m doorway at
/// x 13.5..16.5.
pub fn doorway_level(app: &mut App) {
    spawn_source(app, quads(&[quad(0.0, 0.0, 30.0, 30.0, 0.0)]), Vec3::ZERO);
    let wall = Mesh::from(Cuboid::new(13.5, 2.0, 0.6));
    spawn_source(app, wall.clone(), Vec3::new(6.75, 1.0, 15.0));
    spawn_source(app, wall, Vec3::new(23.25, 1.0, 15.0));
}

/// Runs frames until `done` (at most 60 s of wall time; builds run on other threads).
pub fn run_until(app: &mut App, what: &str, done: impl Fn(&App) -> bool) {
    for _ in 0..12_000 {
        app.update();
        if done(app) {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("{what}: not within 60 s");
}

/// Runs frames until a build has ended this frame or the last.
pub fn until_navmesh(app: &mut App) {
    run_until(app, "a navmesh", |app| {
        !app.world().resource::<Messages<NavMeshBuilt>>().is_empty()
    });
}

/// The navmesh's polygons, as sorted lists of vertices (independent of tile order and links).
pub fn polygons(nav: &bevy_navkit::navkit::NavMesh) -> Vec<Vec<[i64; 3]>> {
    let mut out: Vec<Vec<[i64; 3]>> = nav
        .polys()
        .iter()
        .map(|p| {
            p.verts
                .iter()
                .map(|v| [v.x, v.y, v.z].map(|c| (c * 1000.0).round() as i64))
                .collect()
        })
        .collect();
    out.sort();
    out
}
