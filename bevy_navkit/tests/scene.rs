//! The navmesh from the scene: built on the async compute pool from marked meshes (and a marked
//! root's children), rebuilt only where a source moved, equal to navkit's own tiled build of
//! the same triangles, and gone with the last source.

mod common;

use bevy::asset::RenderAssetUsages;
use bevy::mesh::{Indices, PrimitiveTopology};
use bevy::prelude::*;
use bevy_navkit::navkit::build::tiled::TiledNavMesh;
use bevy_navkit::navkit::{InputGeometry, NavMeshBuilder, NavMeshQuery, QueryFilter, TriMesh};
use bevy_navkit::{
    NavMeshBuildFailed, NavMeshBuilt, NavMeshSettings, NavMeshSource, NavMeshSourceSkipped,
    SceneNavMesh, SourceError,
};
use common::{polygons, quad, quads, run_until, spawn_source};

/// Every message the plugin sent, in order.
#[derive(Resource, Default)]
struct Log {
    built: Vec<NavMeshBuilt>,
    failed: Vec<NavMeshBuildFailed>,
    skipped: Vec<NavMeshSourceSkipped>,
}

fn record(
    mut log: ResMut<Log>,
    mut built: MessageReader<NavMeshBuilt>,
    mut failed: MessageReader<NavMeshBuildFailed>,
    mut skipped: MessageReader<NavMeshSourceSkipped>,
) {
    log.built.extend(built.read().cloned());
    log.failed.extend(failed.read().cloned());
    log.skipped.extend(skipped.read().cloned());
}

fn app() -> App {
    let mut app = common::app();
    app.init_resource::<Log>();
    app.add_systems(Last, record);
    app
}

/// Runs frames until `n` builds (or failures) have ended, at most 60 s.
fn until_built(app: &mut App, n: usize) {
    run_until(app, "the builds", |app| {
        let log = app.world().resource::<Log>();
        log.built.len() + log.failed.len() >= n
    });
}

/// A square floor, `size` a side, at height 0, from (0, 0) in its own space.
fn floor(size: f32) -> Mesh {
    quads(&[quad(0.0, 0.0, size, size, 0.0)])
}

fn add_mesh(app: &mut App, mesh: Mesh) -> Handle<Mesh> {
    app.world_mut().resource_mut::<Assets<Mesh>>().add(mesh)
}

/// navkit's own tiled build of a floor `size` a side at `offset`, plus a unit cube's 12
/// triangles (1 x 2 x 1 m, centred) moved to `pillar`, with default settings.
fn direct_build(size: f32, offset: Vec3, pillar: Option<Vec3>) -> TiledNavMesh {
    let mesh = Mesh::from(Cuboid::new(1.0, 2.0, 1.0));
    let mut verts: Vec<f32> = [
        [0.0, 0.0, 0.0],
        [0.0, 0.0, size],
        [size, 0.0, size],
        [size, 0.0, 0.0],
    ]
    .iter()
    .flat_map(|p| (Vec3::from_array(*p) + offset).to_array())
    .collect();
    let mut tris = vec![0, 1, 2, 0, 2, 3];
    if let Some(at) = pillar {
        let pos = mesh
            .attribute(Mesh::ATTRIBUTE_POSITION)
            .unwrap()
            .as_float3()
            .unwrap()
            .to_vec();
        for i in mesh.indices().unwrap().iter() {
            tris.push(4 + i as i32);
        }
        for p in pos {
            verts.extend_from_slice(&(Vec3::from_array(p) + at).to_array());
        }
    }
    let geom = InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap());
    NavMeshBuilder::new(&geom).threads(1).tiled().unwrap()
}

#[test]
fn a_floor_becomes_the_same_navmesh_as_navkits_tiled_build() {
    let mut app = app();
    let handle = add_mesh(&mut app, floor(40.0));
    let offset = Vec3::new(-20.0, 1.5, -20.0);
    app.world_mut().spawn((
        Mesh3d(handle),
        Transform::from_translation(offset),
        NavMeshSource::default(),
    ));
    until_built(&mut app, 1);
    let log = app.world().resource::<Log>();
    assert!(log.failed.is_empty(), "{:?}", log.failed);
    assert_eq!(log.built.len(), 1);
    let b = &log.built[0];
    assert!(b.full);
    assert_eq!(b.generation, 1);
    // RecastDemo's defaults: 0.3 m cells, 32-cell tiles: 40 m is 133 cells, 5 tiles a side.
    assert_eq!(b.tiles_built, 25);
    let scene = app.world().resource::<SceneNavMesh>();
    let nav = scene.get().expect("a navmesh");
    assert_eq!(nav.tile_count(), 25);
    let direct = direct_build(40.0, offset, None);
    assert_eq!(scene.data_hash(), Some(direct.data_hash().as_str()));
    assert_eq!(polygons(nav), polygons(direct.navmesh()));
    // The transform placed the floor: a point near its centre, 1.5 m up, is on the navmesh.
    let mut q = NavMeshQuery::new(nav, 256).unwrap();
    let near = q
        .find_nearest_poly(Vec3::new(1.0, 2.0, 1.0), Vec3::ONE, &QueryFilter::default())
        .unwrap();
    assert!(near.over_poly);
    assert!((near.point.y - 1.5).abs() < 0.3, "{}", near.point);
}

/// The tile (of 9.6 m) a point is in, on a grid from `origin`.
fn tile_of(p: Vec3, origin: Vec3) -> (i32, i32) {
    let t = (p - origin) / 9.6;
    (t.x.floor() as i32, t.z.floor() as i32)
}

#[test]
fn moving_a_pillar_rebuilds_only_the_tiles_it_left_and_entered() {
    let mut app = app();
    spawn_source(&mut app, floor(40.0), Vec3::ZERO);
    let cube = add_mesh(&mut app, Mesh::from(Cuboid::new(1.0, 2.0, 1.0)));
    // Tile centres (tiles of 9.6 m from the origin): (14.4, 14.4) is tile (1, 1)'s, (33.6,
    // 24.0) tile (3, 2)'s; the pillar (1 m wide) and the tiles' borders (agent radius 0.6 m
    // plus 3 cells) stay well inside each.
    let (from, to) = (Vec3::new(14.4, 1.0, 14.4), Vec3::new(33.6, 1.0, 24.0));
    let pillar = app
        .world_mut()
        .spawn((
            Mesh3d(cube),
            Transform::from_translation(from),
            NavMeshSource::default(),
        ))
        .id();
    until_built(&mut app, 1);
    assert_eq!(tile_of(from, Vec3::ZERO), (1, 1));
    assert_eq!(tile_of(to, Vec3::ZERO), (3, 2));
    let before = app
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    app.world_mut()
        .entity_mut(pillar)
        .insert(Transform::from_translation(to));
    until_built(&mut app, 2);
    let log = app.world().resource::<Log>();
    assert!(log.failed.is_empty(), "{:?}", log.failed);
    let b = &log.built[1];
    assert!(!b.full);
    assert_eq!(b.tiles_built, 2, "the tile it left and the tile it entered");
    assert_eq!(b.generation, 2);
    let scene = app.world().resource::<SceneNavMesh>();
    let nav = scene.get().unwrap();
    let direct = direct_build(40.0, Vec3::ZERO, Some(to));
    assert_eq!(
        scene.data_hash(),
        Some(direct.data_hash().as_str()),
        "as a fresh build"
    );
    assert_eq!(polygons(nav), polygons(direct.navmesh()));
    assert_ne!(polygons(nav), polygons(&before), "the pillar moved");
    // The old navmesh is still whole for whoever kept it.
    let direct = direct_build(40.0, Vec3::ZERO, Some(from));
    assert_eq!(polygons(&before), polygons(direct.navmesh()));
    // Where the pillar stood is open floor again, and where it stands is not.
    let mut q = NavMeshQuery::new(nav, 256).unwrap();
    let f = QueryFilter::default();
    let here = |q: &mut NavMeshQuery, p: Vec3| {
        q.find_nearest_poly(p, Vec3::new(0.1, 2.0, 0.1), &f).is_ok()
    };
    assert!(here(&mut q, from - Vec3::Y));
    assert!(!here(&mut q, to - Vec3::Y));
    drop(q);
    // Inside tile (3, 3), 0.3 m from its corner with (2, 2), (3, 2) and (2, 3) (at 28.8 m): each
    // of the four reads the pillar within its border (1.5 m), so all four are rebuilt (the tile
    // it left, (3, 2), is one of them), and the navmesh is still a fresh build's.
    let corner = Vec3::new(29.6, 1.0, 29.6);
    app.world_mut()
        .entity_mut(pillar)
        .insert(Transform::from_translation(corner));
    until_built(&mut app, 3);
    assert_eq!(app.world().resource::<Log>().built[2].tiles_built, 4);
    let direct = direct_build(40.0, Vec3::ZERO, Some(corner));
    let scene = app.world().resource::<SceneNavMesh>();
    assert_eq!(
        scene.data_hash(),
        Some(direct.data_hash().as_str()),
        "as a fresh build"
    );
}

#[test]
fn a_marked_root_counts_its_childrens_meshes_and_despawning_it_removes_the_navmesh() {
    let mut app = app();
    let handle = add_mesh(&mut app, floor(10.0));
    let root = app
        .world_mut()
        .spawn((Transform::from_xyz(5.0, 0.0, 0.0), NavMeshSource::default()))
        .with_children(|c| {
            c.spawn((Mesh3d(handle), Transform::from_xyz(0.0, 2.0, 0.0)));
        })
        .id();
    until_built(&mut app, 1);
    {
        let nav = app
            .world()
            .resource::<SceneNavMesh>()
            .get()
            .unwrap()
            .clone();
        let mut q = NavMeshQuery::new(&nav, 64).unwrap();
        // The child's floor, placed by both transforms: x 5..15, height 2.
        let near = q
            .find_nearest_poly(
                Vec3::new(10.0, 2.0, 5.0),
                Vec3::new(0.5, 0.5, 0.5),
                &QueryFilter::default(),
            )
            .unwrap();
        assert!(
            near.over_poly && (near.point.y - 2.0).abs() < 0.3,
            "{}",
            near.point
        );
    }
    app.world_mut().entity_mut(root).despawn();
    until_built(&mut app, 2);
    let log = app.world().resource::<Log>();
    assert_eq!(log.built[1].tiles_built, 0);
    let scene = app.world().resource::<SceneNavMesh>();
    assert!(scene.get().is_none());
    assert_eq!(scene.generation(), 2);
}

#[test]
fn a_broken_mesh_is_skipped_with_its_reason_and_the_rest_builds() {
    let mut app = app();
    let good = add_mesh(&mut app, floor(10.0));
    let bad = floor(10.0).with_inserted_indices(Indices::U16(vec![0, 1, 7]));
    let bad = add_mesh(&mut app, bad);
    let lines = Mesh::new(PrimitiveTopology::LineList, RenderAssetUsages::all())
        .with_inserted_attribute(
            Mesh::ATTRIBUTE_POSITION,
            vec![[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0]],
        );
    let lines = add_mesh(&mut app, lines);
    app.world_mut()
        .spawn((Mesh3d(good), Transform::default(), NavMeshSource::default()));
    let bad_entity = app
        .world_mut()
        .spawn((
            Mesh3d(bad),
            Transform::from_xyz(20.0, 0.0, 0.0),
            NavMeshSource::default(),
        ))
        .id();
    app.world_mut().spawn((
        Mesh3d(lines),
        Transform::default(),
        NavMeshSource::default(),
    ));
    until_built(&mut app, 1);
    let log = app.world().resource::<Log>();
    assert!(log.failed.is_empty());
    // Lines have no surface: left out without a word. The bad index is reported once.
    assert_eq!(log.skipped.len(), 1);
    assert_eq!(log.skipped[0].entity, bad_entity);
    assert_eq!(
        log.skipped[0].error,
        SourceError::IndexOutOfRange {
            at: 2,
            index: 7,
            vertices: 4
        }
    );
    let nav = app
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    // Only the good floor: 10 m is 33 cells, a grid of 2 x 2 tiles of 32; the three past the
    // first hold a strip 1.3 cells wide, less than the agent's radius (2 cells) erodes: empty.
    assert_eq!(log.built[0].tiles_built, 4);
    assert_eq!(nav.tile_count(), 1);
    for _ in 0..10 {
        app.update();
    }
    assert_eq!(
        app.world().resource::<Log>().skipped.len(),
        1,
        "not reported every frame"
    );
}

#[test]
fn new_settings_rebuild_every_tile() {
    let mut app = app();
    spawn_source(&mut app, floor(40.0), Vec3::ZERO);
    until_built(&mut app, 1);
    app.world_mut()
        .resource_mut::<NavMeshSettings>()
        .build
        .tile_size = 64;
    until_built(&mut app, 2);
    let log = app.world().resource::<Log>();
    assert!(log.built[1].full);
    // 133 cells in 64-cell tiles: 3 a side.
    assert_eq!(log.built[1].tiles_built, 9);
}

/// A mesh of `positions` with `indices` (or none).
fn raw_mesh(positions: Vec<[f32; 3]>, indices: Option<Vec<u32>>) -> Mesh {
    let m = Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::all())
        .with_inserted_attribute(Mesh::ATTRIBUTE_POSITION, positions);
    match indices {
        Some(i) => m.with_inserted_indices(Indices::U32(i)),
        None => m,
    }
}

#[test]
fn bad_meshes_are_reported_and_the_app_keeps_running() {
    let mut app = app();
    let quad = |y: f32| {
        vec![
            [0.0, y, 0.0],
            [0.0, y, 10.0],
            [10.0, y, 10.0],
            [10.0, y, 0.0],
        ]
    };
    let cases = [
        (
            raw_mesh(
                vec![[f32::NAN, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]],
                None,
            ),
            SourceError::NotFinite { vertex: 0 },
        ),
        (raw_mesh(Vec::new(), Some(Vec::new())), SourceError::Empty),
        (raw_mesh(quad(0.0), Some(Vec::new())), SourceError::Empty),
        (
            raw_mesh(quad(0.0), None),
            SourceError::PartialTriangle { indices: 4 },
        ),
        (
            Mesh::new(PrimitiveTopology::TriangleList, RenderAssetUsages::all()),
            SourceError::NoPositions,
        ),
    ];
    let mut expected = Vec::new();
    for (mesh, error) in cases {
        let h = add_mesh(&mut app, mesh);
        let e = app
            .world_mut()
            .spawn((Mesh3d(h), Transform::default(), NavMeshSource::default()))
            .id();
        expected.push((e, error));
    }
    // A transform that sends a good mesh to infinity: NaN-free input, non-finite placed.
    let h = add_mesh(&mut app, floor(10.0));
    let far = app
        .world_mut()
        .spawn((
            Mesh3d(h.clone()),
            Transform::from_scale(Vec3::splat(f32::MAX)).with_translation(Vec3::splat(f32::MAX)),
            NavMeshSource::default(),
        ))
        .id();
    expected.push((far, SourceError::NotFinite { vertex: 1 }));
    // A non-indexed triangle list is read as consecutive triples: this one builds.
    let listed = raw_mesh(
        vec![
            [0.0, 0.0, 0.0],
            [0.0, 0.0, 10.0],
            [10.0, 0.0, 10.0],
            [0.0, 0.0, 0.0],
            [10.0, 0.0, 10.0],
            [10.0, 0.0, 0.0],
        ],
        None,
    );
    let listed = add_mesh(&mut app, listed);
    app.world_mut().spawn((
        Mesh3d(listed),
        Transform::default(),
        NavMeshSource::default(),
    ));
    until_built(&mut app, 1);
    let log = app.world().resource::<Log>();
    assert!(log.failed.is_empty(), "{:?}", log.failed);
    let mut got: Vec<(Entity, SourceError)> = log
        .skipped
        .iter()
        .map(|s| (s.entity, s.error.clone()))
        .collect();
    got.sort_by_key(|(e, _)| e.index());
    expected.sort_by_key(|(e, _)| e.index());
    assert_eq!(got, expected);
    assert_eq!(
        app.world()
            .resource::<SceneNavMesh>()
            .get()
            .unwrap()
            .tile_count(),
        1
    );
}

#[test]
fn an_enormous_level_fails_with_an_error_and_the_app_keeps_running() {
    let mut app = app();
    // 1e7 m a side: floats are 1 m apart out there, far coarser than 0.3 m cells; navkit
    // refuses the settings before Recast sees them.
    let h = add_mesh(&mut app, floor(1.0e7));
    app.world_mut()
        .spawn((Mesh3d(h), Transform::default(), NavMeshSource::default()));
    until_built(&mut app, 1);
    let log = app.world().resource::<Log>();
    assert_eq!(log.failed.len(), 1);
    assert!(log.built.is_empty());
    let message = log.failed[0].error.to_string();
    assert!(
        message.contains("cell_size") && message.contains("10000000 m"),
        "{message}"
    );
    // The app goes on; a level of sane size then builds.
    let small = add_mesh(&mut app, floor(10.0));
    let e = app
        .world_mut()
        .spawn((
            Mesh3d(small),
            Transform::default(),
            NavMeshSource::default(),
        ))
        .id();
    let _ = e;
    let big: Vec<Entity> = app
        .world_mut()
        .query_filtered::<Entity, With<NavMeshSource>>()
        .iter(app.world())
        .filter(|&x| x != e)
        .collect();
    for b in big {
        app.world_mut().entity_mut(b).despawn();
    }
    until_built(&mut app, 2);
    let log = app.world().resource::<Log>();
    assert_eq!(log.built.len(), 1, "{:?}", log.failed);
}

#[test]
fn changing_a_sources_mesh_rebuilds_its_tiles() {
    let mut app = app();
    let handle = add_mesh(&mut app, floor(40.0));
    app.world_mut().spawn((
        Mesh3d(handle.clone()),
        Transform::default(),
        NavMeshSource::default(),
    ));
    until_built(&mut app, 1);
    // The mesh asset itself changes: the floor is cut to 20 x 40 m.
    let narrow = vec![
        [0.0f32, 0.0, 0.0],
        [0.0, 0.0, 40.0],
        [20.0, 0.0, 40.0],
        [20.0, 0.0, 0.0],
    ];
    app.world_mut()
        .resource_mut::<Assets<Mesh>>()
        .get_mut(&handle)
        .unwrap()
        .insert_attribute(Mesh::ATTRIBUTE_POSITION, narrow.clone());
    until_built(&mut app, 2);
    let log = app.world().resource::<Log>();
    assert!(log.failed.is_empty(), "{:?}", log.failed);
    // Old and new bounds together cover every tile of the grid, which holds the new floor:
    // all 25 rebuilt in place, not a new build.
    assert!(!log.built[1].full);
    assert_eq!(log.built[1].tiles_built, 25);
    // The same polygons as navkit's build of the narrow floor (same grid origin, same cells).
    let verts: Vec<f32> = narrow.iter().flatten().copied().collect();
    let geom = InputGeometry::from_mesh(TriMesh::new(verts, vec![0, 1, 2, 0, 2, 3]).unwrap());
    let direct = NavMeshBuilder::new(&geom).threads(1).tiled().unwrap();
    let nav = app
        .world()
        .resource::<SceneNavMesh>()
        .get()
        .unwrap()
        .clone();
    assert_eq!(polygons(&nav), polygons(direct.navmesh()));
}
