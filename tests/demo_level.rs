//! navkit's own demo level (meshes/demo_level.gset): the jump, the water volume, the doorway.

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::{InputGeometry, Partition, area};

fn level() -> InputGeometry {
    InputGeometry::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/meshes/demo_level.gset"
    ))
    .unwrap()
}

#[test]
fn the_demo_level_loads_with_its_settings_jump_and_pond() {
    let g = level();
    let s = g.settings.clone().expect("the .gset has an `s` line");
    assert_eq!(s.partition, Partition::Watershed);
    assert_eq!(s.cell_size, 0.3);
    assert_eq!(g.off_mesh_connections.len(), 1);
    assert_eq!(g.convex_volumes.len(), 1);
    assert_eq!(g.convex_volumes[0].area, area::WATER);
}

#[test]
fn the_demo_path_jumps_onto_the_block_and_avoids_the_pond() {
    let g = level();
    let b = NavMeshBuilder::new(&g)
        .settings(g.settings.clone().unwrap())
        .solo()
        .unwrap();
    let polys = b.navmesh().polys();
    assert!(polys.iter().any(|p| p.area == area::WATER));
    assert_eq!(polys.iter().filter(|p| p.off_mesh).count(), 1);
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let f = QueryFilter::default();
    let fp = q
        .path(
            Vec3::new(2.0, 0.0, 2.0),
            Vec3::new(33.0, 2.5, 6.0),
            &f,
            &PathOptions::default(),
        )
        .unwrap();
    assert!(fp.is_complete());
    assert_eq!(fp.smooth.off_mesh_jumps, 1);
    assert!(fp.smooth.reached_end && !fp.smooth.stuck);
    for p in &fp.corridor.polys {
        assert_ne!(
            b.navmesh().poly_area(*p).unwrap(),
            area::WATER,
            "the path crosses the pond"
        );
    }
    // Through the doorway (x = 20, z in 13..17).
    assert!(
        fp.smooth
            .points
            .iter()
            .any(|p| (p.x - 20.0).abs() < 0.5 && (13.0..17.0).contains(&p.z))
    );
    // Up the ramp onto the platform without any jump.
    let up = q
        .path(
            Vec3::new(2.0, 0.0, 2.0),
            Vec3::new(8.0, 2.0, 25.0),
            &f,
            &PathOptions::default(),
        )
        .unwrap();
    assert!(up.is_complete());
    assert_eq!(up.smooth.off_mesh_jumps, 0);
    assert!((up.smooth.points.last().unwrap().y - 2.0).abs() < 0.3);
}
