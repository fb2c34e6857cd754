//! The windowed example: navkit's demo level (`meshes/demo_level.obj`: a wall with a doorway,
//! a pond, a raised block), written as glTF and loaded by Bevy's asset server, its navmesh built
//! by the plugin. Click to send the eight agents there (a ray from the camera onto the navmesh);
//! `O` puts an obstacle at the cursor and `R` removes the last one (carved through the tile
//! cache); `1`-`4` toggle the gizmo layers (navmesh, tiles, agents, obstacles).
//!
//! ```text
//! cargo +nightly run -p bevy_navkit --example click_to_walk --features example-window --ignore-rust-version
//! ```
//!
//! With `NAVKIT_SCREENSHOT=shot.png` it sends the agents across the level itself, saves a
//! screenshot once they have walked 8 s, and exits.

use std::path::PathBuf;

use bevy::camera::primitives::Aabb;
use bevy::core_pipeline::tonemapping::Tonemapping;
use bevy::prelude::*;
use bevy::render::view::screenshot::{Screenshot, save_to_disk};
use bevy::transform::components::TransformTreeChanged;
use bevy::world_serialization::WorldAssetRoot;
use bevy_navkit::navkit::TriMesh;
use bevy_navkit::navkit::tilecache::TileCacheSettings;
use bevy_navkit::{
    AgentTarget, NavAgent, NavGizmos, NavMeshBackend, NavMeshSettings, NavMeshSource, NavObstacle,
    NavkitPlugin, SceneNavMesh,
};

fn main() {
    let assets = std::env::temp_dir().join("bevy_navkit_click_to_walk");
    if let Err(e) = write_level(&assets) {
        eprintln!("could not write the demo level as glTF: {e}");
        std::process::exit(1);
    }
    App::new()
        .add_plugins(
            DefaultPlugins
                .set(AssetPlugin {
                    file_path: assets.to_string_lossy().into_owned(),
                    ..default()
                })
                .set(WindowPlugin {
                    primary_window: Some(Window {
                        title: "bevy_navkit: click to walk".into(),
                        resolution: (1280, 720).into(),
                        ..default()
                    }),
                    ..default()
                }),
        )
        .add_plugins(NavkitPlugin)
        // The components of a glTF scene's entities, for the scene spawner (Bevy's
        // `reflect_auto_register` feature, left out of this build, would register them).
        .register_type::<Transform>()
        .register_type::<GlobalTransform>()
        .register_type::<TransformTreeChanged>()
        .register_type::<Visibility>()
        .register_type::<InheritedVisibility>()
        .register_type::<ViewVisibility>()
        .register_type::<Name>()
        .register_type::<ChildOf>()
        .register_type::<Children>()
        .register_type::<Mesh3d>()
        .register_type::<MeshMaterial3d<StandardMaterial>>()
        .register_type::<Aabb>()
        .insert_resource(NavMeshSettings {
            backend: NavMeshBackend::TileCache(TileCacheSettings::default()),
            ..default()
        })
        .add_systems(Startup, setup)
        .add_systems(
            Update,
            (click_to_walk, obstacle_keys, gizmo_keys, screenshot),
        )
        .run();
}

/// navkit's demo level as `level.glb` in `dir`.
fn write_level(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let obj = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../meshes/demo_level.obj");
    std::fs::create_dir_all(dir)?;
    TriMesh::from_obj(obj)?.write_gltf(dir.join("level.glb"))?;
    Ok(())
}

/// The level (a navmesh source), a camera over it, a light, and eight agents.
fn setup(mut commands: Commands, assets: Res<AssetServer>) {
    let level = assets.load(GltfAssetLabel::Scene(0).from_asset("level.glb"));
    commands.spawn((WorldAssetRoot(level), NavMeshSource::default()));
    commands.spawn((
        Camera3d::default(),
        // Without Bevy's tonemapping look-up tables (not in this build).
        Tonemapping::None,
        Transform::from_xyz(20.0, 38.0, 42.0).looking_at(Vec3::new(20.0, 0.0, 14.0), Vec3::Y),
    ));
    commands.spawn((
        DirectionalLight {
            illuminance: 1500.0,
            ..default()
        },
        // Low and from the side, so that the walls and the block stand out.
        Transform::from_xyz(40.0, 20.0, 35.0).looking_at(Vec3::new(15.0, 0.0, 10.0), Vec3::Y),
    ));
    for i in 0..8 {
        let (x, z) = (2.0 + (i % 4) as f32 * 1.5, 2.0 + (i / 4) as f32 * 1.5);
        commands.spawn((NavAgent::default(), Transform::from_xyz(x, 0.0, z)));
    }
}

/// Where the cursor's ray from the camera first meets the navmesh.
fn cursor_on_navmesh(
    window: &Window,
    camera: (&Camera, &GlobalTransform),
    navmesh: &SceneNavMesh,
) -> Option<Vec3> {
    let ray = camera
        .0
        .viewport_to_world(camera.1, window.cursor_position()?)
        .ok()?;
    let nav = navmesh.get()?;
    let mut best: Option<f32> = None;
    for poly in nav.polys().iter().filter(|p| !p.off_mesh) {
        for i in 1..poly.verts.len().saturating_sub(1) {
            let tri = [poly.verts[0], poly.verts[i], poly.verts[i + 1]];
            if let Some(t) = ray_triangle(ray.origin, *ray.direction, tri) {
                best = Some(best.map_or(t, |b| b.min(t)));
            }
        }
    }
    best.map(|t| ray.origin + *ray.direction * t)
}

/// The distance along the ray to the triangle (Möller-Trumbore), from either side.
fn ray_triangle(origin: Vec3, dir: Vec3, [a, b, c]: [Vec3; 3]) -> Option<f32> {
    let (e1, e2) = (b - a, c - a);
    let p = dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-9 {
        return None;
    }
    let s = origin - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let v = dir.dot(q) / det;
    let t = e2.dot(q) / det;
    (u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t > 0.0).then_some(t)
}

/// A left click sends every agent to the point clicked.
fn click_to_walk(
    mut commands: Commands,
    buttons: Res<ButtonInput<MouseButton>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    navmesh: Res<SceneNavMesh>,
    agents: Query<Entity, With<NavAgent>>,
) {
    if !buttons.just_pressed(MouseButton::Left) {
        return;
    }
    if let Some(p) = cursor_on_navmesh(&window, *camera, &navmesh) {
        for a in &agents {
            commands.entity(a).insert(AgentTarget(p));
        }
    }
}

/// `O`: an obstacle (a crate 1.2 m across) at the cursor; `R`: the last one removed.
fn obstacle_keys(
    mut commands: Commands,
    keys: Res<ButtonInput<KeyCode>>,
    window: Single<&Window>,
    camera: Single<(&Camera, &GlobalTransform)>,
    navmesh: Res<SceneNavMesh>,
    mut placed: Local<Vec<Entity>>,
) {
    if keys.just_pressed(KeyCode::KeyO)
        && let Some(p) = cursor_on_navmesh(&window, *camera, &navmesh)
    {
        let half_extents = Vec3::new(0.6, 0.5, 0.6);
        let e = commands.spawn((
            NavObstacle::Box { half_extents },
            Transform::from_translation(p + Vec3::Y * 0.5),
        ));
        placed.push(e.id());
    }
    if keys.just_pressed(KeyCode::KeyR)
        && let Some(e) = placed.pop()
    {
        commands.entity(e).despawn();
    }
}

/// A gizmo layer's switch in [`NavGizmos`].
type Switch = fn(&mut NavGizmos) -> &mut bool;

/// `1`-`4` toggle the navmesh, tiles, agents and obstacles layers.
fn gizmo_keys(keys: Res<ButtonInput<KeyCode>>, mut shown: ResMut<NavGizmos>) {
    let toggles: [(KeyCode, Switch); 4] = [
        (KeyCode::Digit1, |g| &mut g.navmesh),
        (KeyCode::Digit2, |g| &mut g.tiles),
        (KeyCode::Digit3, |g| &mut g.agents),
        (KeyCode::Digit4, |g| &mut g.obstacles),
    ];
    for (key, field) in toggles {
        if keys.just_pressed(key) {
            let f = field(&mut shown);
            *f = !*f;
        }
    }
}

/// With `NAVKIT_SCREENSHOT`: once the navmesh exists, an obstacle past the doorway and the
/// agents sent onto the block (through the doorway, round the obstacle and up the jump); 8 s
/// later a screenshot, then exit.
fn screenshot(
    mut commands: Commands,
    navmesh: Res<SceneNavMesh>,
    agents: Query<Entity, With<NavAgent>>,
    time: Res<Time>,
    mut started: Local<Option<f32>>,
    mut frames: Local<u32>,
    mut exit: MessageWriter<AppExit>,
) {
    let Ok(path) = std::env::var("NAVKIT_SCREENSHOT") else {
        return;
    };
    let Some(at) = *started else {
        if navmesh.get().is_some() {
            *started = Some(time.elapsed_secs());
            for a in &agents {
                commands
                    .entity(a)
                    .insert(AgentTarget(Vec3::new(33.0, 2.5, 6.0)));
            }
            let half_extents = Vec3::new(1.0, 0.5, 1.0);
            // Just east of the doorway (x 20, z 13..17): they go round it.
            let at = Transform::from_xyz(23.5, 0.5, 15.0);
            commands.spawn((NavObstacle::Box { half_extents }, at));
        }
        return;
    };
    let elapsed = time.elapsed_secs() - at;
    if elapsed > 8.0 && *frames == 0 {
        commands
            .spawn(Screenshot::primary_window())
            .observe(save_to_disk(path));
        *frames = 1;
    } else if *frames > 0 {
        *frames += 1;
        if *frames > 30 {
            exit.write(AppExit::Success);
        }
    }
}
