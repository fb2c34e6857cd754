//! Off-mesh connections and convex volumes from .gset files, on nav_test.obj.

mod common;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::smooth::{SmoothPathOptions, full_path};
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::{BuildSettings, InputGeometry, area};

/// Ground floor (y -2.27) near the east side, and the raised platform at y 8.33 in the middle
/// of nav_test.obj, which no walkable slope reaches from the ground.
const GROUND: Vec3 = Vec3::new(20.161, -2.27, -18.1);
const PLATFORM: Vec3 = Vec3::new(-0.629, 8.33, -7.66);
/// A jump from the ground up onto the platform.
const JUMP_START: Vec3 = Vec3::new(-0.6, -2.27, -15.5);
const JUMP_END: Vec3 = Vec3::new(-0.63, 8.33, -12.5);

fn gset(extra: &str) -> std::path::PathBuf {
    let path = common::temp(&format!("jump-{}.gset", extra.len()));
    let text = format!("f {}\n{extra}", common::mesh("nav_test.obj").display());
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn off_mesh_connection_joins_two_levels() {
    let with = InputGeometry::load(gset(&format!(
        "c {} {} {}  {} {} {}  0.6 1 {} 8\n",
        JUMP_START.x,
        JUMP_START.y,
        JUMP_START.z,
        JUMP_END.x,
        JUMP_END.y,
        JUMP_END.z,
        area::JUMP
    )))
    .unwrap();
    assert_eq!(with.off_mesh_connections.len(), 1);
    let without = InputGeometry::load(common::mesh("nav_test.obj")).unwrap();
    let f = QueryFilter::default();
    let opts = SmoothPathOptions::default();

    // Without the connection the platform cannot be reached: partial.
    let b0 = NavMeshBuilder::new(&without)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let mut q0 = NavMeshQuery::new(b0.navmesh(), 2048).unwrap();
    let p0 = full_path(&mut q0, GROUND, PLATFORM, &f, &opts).unwrap();
    assert!(!p0.path.is_complete());
    assert!(p0.straight.partial);
    assert_eq!(p0.smooth.off_mesh_jumps, 0);

    // With it: complete, through the connection, and the smooth path jumps.
    let b1 = NavMeshBuilder::new(&with)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    assert_eq!(b1.report().off_mesh_connections, 1);
    let mut q1 = NavMeshQuery::new(b1.navmesh(), 2048).unwrap();
    let p1 = full_path(&mut q1, GROUND, PLATFORM, &f, &opts).unwrap();
    assert!(p1.path.is_complete());
    let off: Vec<_> = b1
        .navmesh()
        .polys()
        .into_iter()
        .filter(|p| p.off_mesh)
        .collect();
    assert_eq!(off.len(), 1);
    assert_eq!(off[0].area, area::JUMP);
    assert!(
        p1.path.polys.contains(&off[0].poly),
        "the corridor uses the connection"
    );
    assert!(
        p1.straight
            .points
            .iter()
            .any(|p| p.flags & navkit::query::straight_flags::OFFMESH_CONNECTION != 0)
    );
    assert_eq!(p1.smooth.off_mesh_jumps, 1);
    assert!(p1.smooth.reached_end && !p1.smooth.stuck);
    // Somewhere consecutive smooth points are ~10 units apart vertically: the jump.
    let biggest_rise = p1
        .smooth
        .points
        .windows(2)
        .map(|w| w[1].y - w[0].y)
        .fold(0.0, f32::max);
    assert!(biggest_rise > 9.0, "largest rise {biggest_rise}");
    assert!((p1.smooth.points.last().unwrap().y - PLATFORM.y).abs() < 0.2);

    // Excluding the jump flag makes the path partial again.
    let no_jump = QueryFilter::default().with_include_exclude(0xffff, navkit::flags::JUMP);
    let p2 = full_path(&mut q1, GROUND, PLATFORM, &no_jump, &opts).unwrap();
    assert!(!p2.path.is_complete());
}

#[test]
fn convex_volume_marks_its_area() {
    // A water volume over part of the ground floor.
    let vol = "v 4 1 -5 5\n5 -2.27 5\n15 -2.27 5\n15 -2.27 15\n5 -2.27 15\n";
    let geom = InputGeometry::load(gset(vol)).unwrap();
    assert_eq!(geom.convex_volumes.len(), 1);
    let b = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap();
    let water: Vec<_> = b
        .navmesh()
        .polys()
        .into_iter()
        .filter(|p| p.area == area::WATER)
        .collect();
    assert!(!water.is_empty());
    for p in &water {
        assert_eq!(p.flags, navkit::flags::SWIM);
        for v in &p.verts {
            assert!(
                (4.0..=16.0).contains(&v.x) && (4.0..=16.0).contains(&v.z),
                "{v}"
            );
        }
    }
    // Swimming excluded: no water poly in any path.
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    let dry = QueryFilter::default().with_include_exclude(navkit::flags::WALK, 0);
    let p = q
        .find_path_between(
            Vec3::new(2.0, -2.27, 10.0),
            Vec3::new(18.0, -2.27, 10.0),
            &dry,
        )
        .unwrap();
    for poly in &p.polys {
        assert_ne!(b.navmesh().poly_area(*poly).unwrap(), area::WATER);
    }
}
