//! A headless server: no window, no renderer. Builds the navmesh of a small level (a floor and
//! a wall with a doorway, as Bevy meshes), sends eight agents through the doorway, carves a
//! crate into their way through the tile cache, and prints when each arrives.
//!
//! ```text
//! cargo +nightly run -p bevy_navkit --example headless --ignore-rust-version
//! ```
//! (a nightly only because these machines' stable Rust is older than Bevy 0.20's 1.97.1).

use std::time::Duration;

use bevy::app::ScheduleRunnerPlugin;
use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy::time::TimeUpdateStrategy;
use bevy_navkit::navkit::tilecache::TileCacheSettings;
use bevy_navkit::{
    AgentStatus, AgentTarget, NavAgent, NavMeshBackend, NavMeshBuilt, NavMeshSettings,
    NavMeshSource, NavObstacle, NavkitPlugin,
};

fn main() {
    App::new()
        .add_plugins((
            MinimalPlugins.set(ScheduleRunnerPlugin::run_loop(Duration::ZERO)),
            AssetPlugin::default(),
            TransformPlugin,
            NavkitPlugin,
        ))
        .init_asset::<Mesh>()
        // Simulated time: 1/64 s a frame, as fast as the machine goes.
        .insert_resource(TimeUpdateStrategy::ManualDuration(Duration::from_micros(
            15_625,
        )))
        .insert_resource(NavMeshSettings {
            backend: NavMeshBackend::TileCache(TileCacheSettings::default()),
            ..default()
        })
        .add_systems(Startup, level)
        .add_systems(Update, (spawn_agents, report))
        .run();
}

/// A 30 x 30 m floor; a wall along z = 15 with a 3 m doorway at x 13.5..16.5; a crate.
fn level(mut commands: Commands, mut meshes: ResMut<Assets<Mesh>>) {
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
    commands.spawn((
        Mesh3d(meshes.add(floor)),
        Transform::default(),
        NavMeshSource::default(),
    ));
    let wall = meshes.add(Cuboid::new(13.5, 2.0, 0.6));
    for x in [6.75, 23.25] {
        commands.spawn((
            Mesh3d(wall.clone()),
            Transform::from_xyz(x, 1.0, 15.0),
            NavMeshSource::default(),
        ));
    }
    // A crate on the far side, carved through the tile cache.
    commands.spawn((
        NavObstacle::Box {
            half_extents: Vec3::new(1.0, 0.5, 1.0),
        },
        Transform::from_xyz(15.0, 0.5, 20.0),
    ));
}

/// Once the navmesh exists, eight agents from the near side to the far side.
fn spawn_agents(
    mut commands: Commands,
    mut built: MessageReader<NavMeshBuilt>,
    mut done: Local<bool>,
) {
    for b in built.read() {
        println!(
            "navmesh {}: {} tiles built in {:?}",
            b.generation, b.tiles_built, b.duration
        );
        if !*done {
            *done = true;
            for i in 0..8 {
                let x = 3.0 + i as f32 * 3.4;
                commands.spawn((
                    NavAgent::default(),
                    Transform::from_xyz(x, 0.0, 4.0),
                    AgentTarget(Vec3::new(30.0 - x, 0.0, 26.0)),
                    Name::new(format!("agent {i}")),
                ));
            }
        }
    }
}

/// Prints each arrival; exits when all have arrived (or after a minute of simulated time).
fn report(
    agents: Query<(&Name, &AgentStatus)>,
    time: Res<Time>,
    mut arrived: Local<Vec<String>>,
    mut exit: MessageWriter<AppExit>,
) {
    for (name, status) in &agents {
        if status.arrived() && !arrived.contains(&name.to_string()) {
            println!("{name} arrived at {:.1} s", time.elapsed_secs());
            arrived.push(name.to_string());
        }
    }
    let all = !agents.is_empty() && arrived.len() == agents.iter().len();
    if all || time.elapsed_secs() > 60.0 {
        println!("{} of {} arrived", arrived.len(), agents.iter().len());
        exit.write(if all {
            AppExit::Success
        } else {
            AppExit::error()
        });
    }
}
