//! Islands (`NavMesh::islands`): the demo level's block, reached only by its jump, is an island
//! of its own without the jump and part of the ground's with it; areas add up; random points
//! stay on their island.

use glam::Vec3;
use navkit::{InputGeometry, NavMeshBuilder};

fn demo(with_links: bool) -> navkit::NavMesh {
    let mut g = InputGeometry::load(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/meshes/demo_level.gset"
    ))
    .unwrap();
    if !with_links {
        g.off_mesh_connections.clear();
    }
    NavMeshBuilder::new(&g).solo().unwrap().into_navmesh()
}

/// The 3D area of every detail triangle of the navmesh.
fn surface(nav: &navkit::NavMesh) -> f32 {
    nav.polys()
        .iter()
        .filter_map(|p| nav.poly(p.poly)?.detail())
        .flat_map(|d| d.triangles().collect::<Vec<_>>())
        .map(|t| {
            0.5 * (t.verts[1] - t.verts[0])
                .cross(t.verts[2] - t.verts[0])
                .length()
        })
        .sum()
}

#[test]
fn the_block_is_its_own_island_until_the_jump_joins_it() {
    let apart = demo(false);
    let islands = apart.islands();
    // The ground (with the ramp and platform), the block's top, and the block's inside: the
    // block is a closed box 2.5 m tall, its floor faces up and the agent (2 m) fits in it, so
    // Recast finds walkable ground inside it too (as it does inside any hollow solid).
    assert_eq!(islands.len(), 3);
    // The block spans x 28..38, z 2..10 (demo_level.obj). On the 0.3 m cell grid its first
    // whole cells start at x 28.2 and z 2.1 and its last end at x 37.8 and z 9.9; eroded by
    // the agent radius (0.6 m): x 28.8..37.2, z 2.7..9.3, 8.4 x 6.6 m = 55.44 m2, flat.
    let top = islands.get(1).unwrap();
    let inside = islands.get(2).unwrap();
    let (top, inside) = if top.bounds.min.y > inside.bounds.min.y {
        (top, inside)
    } else {
        (inside, top)
    };
    for island in [top, inside] {
        assert!((island.area - 55.44).abs() < 0.01, "{island:?}");
        let (lo, hi) = (island.bounds.min, island.bounds.max);
        assert!(
            (lo.x - 28.8).abs() < 1e-4 && (hi.x - 37.2).abs() < 1e-4,
            "{island:?}"
        );
        assert!(
            (lo.z - 2.7).abs() < 1e-4 && (hi.z - 9.3).abs() < 1e-4,
            "{island:?}"
        );
        assert_eq!(island.polys, 1);
        // A flat 8.4 x 6.6 m rectangle: its centre is the middle, its radius half the diagonal.
        let mid = Vec3::new((28.8 + 37.2) / 2.0, lo.y, (2.7 + 9.3) / 2.0);
        assert!((island.centre - mid).length() < 1e-3, "{island:?}");
        assert!((island.radius - 0.5 * (8.4f32.powi(2) + 6.6f32.powi(2)).sqrt()).abs() < 1e-3);
    }
    // Heights are rounded up to the 0.2 m cell height: 2.5 -> 2.6, 0 -> 0.2.
    assert!((top.bounds.min.y - 2.6).abs() < 1e-4 && (inside.bounds.max.y - 0.2).abs() < 1e-4);
    let ground = islands.get(0).unwrap();
    assert!(ground.area > 10.0 * top.area);
    let total: f32 = islands.iter().map(|i| i.area).sum();
    assert!((total - surface(&apart)).abs() < 1e-3 * total);
    let polys: usize = islands.iter().map(|i| i.polys).sum();
    assert_eq!(polys, apart.polys().len());

    // The jump (an off-mesh link from the ground onto the top) joins the top to the ground.
    let joined = demo(true).islands();
    assert_eq!(joined.len(), 2);
    assert_eq!(joined.get(0).unwrap().polys, polys - 1);
    let both = joined.get(0).unwrap().area;
    assert!((both - (ground.area + top.area)).abs() < 1e-3 * both);
}

#[test]
fn random_points_stay_on_their_island_and_repeat() {
    let nav = demo(false);
    let islands = nav.islands();
    let mut q = nav.query().unwrap();
    let filter = navkit::QueryFilter::default();
    for k in 0..islands.len() {
        let mut state = 7u32 + k as u32;
        let mut lcg = move || {
            state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let b = islands.get(k).unwrap().bounds;
        for _ in 0..300 {
            let (poly, p) = islands.random_point(k, &mut lcg).unwrap();
            assert_eq!(islands.island_of(poly), Some(k));
            assert!(b.contains(p), "{p} outside {b:?}");
            let n = q
                .find_nearest_poly(p, Vec3::new(0.01, 0.3, 0.01), &filter)
                .unwrap();
            assert_eq!(islands.island_of(n.poly), Some(k));
            assert!((n.point - p).length() < 0.05, "{p} vs {}", n.point);
        }
    }
    let draw = |seed: u32| {
        let mut s = seed;
        let mut r = move || {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32
        };
        islands.random_point(0, &mut r).unwrap()
    };
    assert_eq!(draw(3), draw(3));
    assert!(islands.random_point(3, || 0.5).is_err());
}
