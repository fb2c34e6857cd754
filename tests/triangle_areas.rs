//! Per-triangle areas (`InputGeometry::triangle_areas`): a 20 x 20 m floor whose east half is
//! road builds ground polygons west of x = 10 and road polygons east of it, in solo, tiled and
//! tile-cache builds alike; bad areas are errors.

use glam::Vec3;
use navkit::{InputGeometry, NavMeshBuilder, TriMesh, area};

/// A flat floor of 1 m squares (two triangles each) from (0, 0) to (20, 20), the triangles of
/// squares east of x = 10 given `east`, the others ground.
fn floor(east: u8) -> InputGeometry {
    let (mut verts, mut tris, mut areas) = (Vec::new(), Vec::new(), Vec::new());
    for z in 0..=20 {
        for x in 0..=20 {
            verts.extend([x as f32, 0.0, z as f32]);
        }
    }
    for z in 0..20 {
        for x in 0..20 {
            let i = z * 21 + x;
            tris.extend([i, i + 21, i + 1, i + 1, i + 21, i + 22]);
            let a = if x >= 10 { east } else { area::GROUND };
            areas.extend([a, a]);
        }
    }
    let mut g = InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap());
    g.triangle_areas = Some(areas);
    g
}

/// Each polygon's area and the x of its centre.
fn areas_by_x(nav: &navkit::NavMesh) -> Vec<(u8, f32)> {
    nav.polys()
        .iter()
        .map(|p| {
            let c = p.verts.iter().copied().sum::<Vec3>() / p.verts.len() as f32;
            (p.area, c.x)
        })
        .collect()
}

/// Ground west of the line, road east of it: the line is x = 10 on the 0.3 m cell grid (the
/// cell edge nearest it, 9.9 or 10.2).
fn check(polys: &[(u8, f32)]) {
    assert!(polys.iter().any(|&(a, _)| a == area::ROAD));
    assert!(polys.iter().any(|&(a, _)| a == area::GROUND));
    for &(a, x) in polys {
        match a {
            area::GROUND => assert!(x < 10.3, "ground polygon centred at x = {x}"),
            area::ROAD => assert!(x > 9.8, "road polygon centred at x = {x}"),
            other => panic!("area {other}"),
        }
    }
}

#[test]
fn the_east_half_is_road_in_every_kind_of_build() {
    let g = floor(area::ROAD);
    let solo = NavMeshBuilder::new(&g).solo().unwrap();
    check(&areas_by_x(solo.navmesh()));
    let tiled = NavMeshBuilder::new(&g).tile_size(16).tiled().unwrap();
    check(&areas_by_x(tiled.navmesh()));
    let cache = NavMeshBuilder::new(&g).tile_size(16).tile_cache().unwrap();
    check(&areas_by_x(cache.navmesh()));
    // All ground: the same build as no areas at all, byte for byte.
    let mut plain = floor(area::GROUND);
    let with = NavMeshBuilder::new(&plain)
        .solo()
        .unwrap()
        .navmesh()
        .to_mset_bytes();
    plain.triangle_areas = None;
    let without = NavMeshBuilder::new(&plain)
        .solo()
        .unwrap()
        .navmesh()
        .to_mset_bytes();
    assert_eq!(with, without);
}

#[test]
fn bad_triangle_areas_are_errors() {
    let mut g = floor(area::ROAD);
    g.triangle_areas.as_mut().unwrap()[7] = 64;
    let e = NavMeshBuilder::new(&g).solo().unwrap_err().to_string();
    assert!(e.contains("triangle 7 has area 64"), "{e}");
    g.triangle_areas.as_mut().unwrap().pop();
    let e = NavMeshBuilder::new(&g).solo().unwrap_err().to_string();
    assert!(e.contains("799 triangle areas for 800 triangles"), "{e}");
}
