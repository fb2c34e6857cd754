//! The Recast stages of one tile of a tiled build (`build::tiled::build_tile_stages`,
//! `TiledNavMesh::tile_stages`): on RecastDemo's levels, every tile's snapshot ends in exactly
//! the tile the tiled build made (the same Detour bytes, the same counts, and a poly mesh and
//! detail mesh that match the navmesh's tile poly by poly); bad coordinates are typed errors.

mod common;

use navkit::NavMeshBuilder;
use navkit::build::Budget;
use navkit::build::tiled::{TileStages, TiledNavMesh};
use navkit::navmesh::view::PolyType;
use navkit::{BuildSettings, Error, InputGeometry, TileCoord};

fn geom(name: &str) -> InputGeometry {
    InputGeometry::load(common::mesh(name)).unwrap()
}

/// Checks `t` against the tile the tiled build `tiled` made at the same position.
fn check_against_build(name: &str, tiled: &TiledNavMesh, t: &TileStages) {
    let at = format!("{name} tile {}", t.tile);
    let grid = tiled.grid();
    let slot = (t.tile.z * grid.tiles_x + t.tile.x) as usize;
    let report = &tiled.report().tile_counts[slot];
    assert_eq!(report.tile, t.tile, "{at}");
    assert_eq!(report.counts, t.counts, "{at}: counts");
    let built = tiled.tiles().into_iter().find(|d| d.tile == t.tile);
    assert_eq!(built.map(|d| d.data), t.data, "{at}: Detour data");

    // The snapshots agree with the counts.
    let s = &t.stages;
    let walkable = s.heightfield.spans.iter().filter(|s| s.area != 0).count();
    assert_eq!(walkable, t.counts.spans, "{at}: walkable spans");
    assert_eq!(s.compact.spans.len(), t.counts.compact_spans, "{at}");
    assert_eq!(s.contours.contours.len(), t.counts.contours, "{at}");
    assert_eq!(s.poly_mesh.verts.len(), t.counts.polymesh_verts, "{at}");
    assert_eq!(s.poly_mesh.polys.len(), t.counts.polymesh_polys, "{at}");
    assert_eq!(s.detail_mesh.tris.len(), t.counts.detail_tris, "{at}");
    // The heightfield and compact heightfield cover the tile and its border.
    let side = grid.tile_size + 2 * t.config.border_size;
    assert_eq!((t.config.width, t.config.height), (side, side), "{at}");
    assert!(
        s.heightfield
            .spans
            .iter()
            .all(|p| i32::from(p.x) < side && i32::from(p.z) < side),
        "{at}: a span outside the tile's grid"
    );
    if s.compact.spans.is_empty() {
        assert!(t.data.is_none(), "{at}");
        return;
    }
    assert_eq!(
        (s.compact.width, s.compact.height),
        (side as usize, side as usize),
        "{at}"
    );
    let (tmin, _) = grid.tile_bounds(t.tile).into();
    let border = t.config.border_size as f32 * t.config.cs;
    assert!(
        (s.compact.bmin.x - (tmin.x - border)).abs() < 1e-4
            && (s.compact.bmin.z - (tmin.z - border)).abs() < 1e-4,
        "{at}: compact heightfield at {}, the tile at {tmin} with a {border} m border",
        s.compact.bmin
    );

    // The poly mesh is the navmesh tile's ground polys, vertex for vertex (Detour puts a vertex
    // at bmin + v * (cs, ch, cs); the snapshot's `vertex` draws it one cell height up).
    let Some(data) = &t.data else {
        assert!(s.poly_mesh.polys.is_empty(), "{at}");
        return;
    };
    assert!(!data.is_empty());
    let tile = tiled
        .navmesh()
        .tile_at(t.tile)
        .expect("the tile is in the navmesh");
    let ground: Vec<_> = tile
        .polys()
        .filter(|p| p.poly_type() == PolyType::Ground)
        .collect();
    assert_eq!(ground.len(), s.poly_mesh.polys.len(), "{at}: polys");
    let ch = s.poly_mesh.ch;
    for (i, (p, snap)) in ground.iter().zip(&s.poly_mesh.polys).enumerate() {
        let detour: Vec<_> = p.vertices().collect();
        assert_eq!(detour.len(), snap.len(), "{at} poly {i}");
        for (d, &v) in detour.iter().zip(snap) {
            let v = s.poly_mesh.vertex(usize::from(v)).unwrap() - glam::Vec3::Y * ch;
            assert!(d.distance(v) < 1e-4, "{at} poly {i}: {d} vs {v}");
        }
        assert_eq!(p.area(), s.poly_mesh.areas[i], "{at} poly {i}");
        assert_eq!(p.flags(), s.poly_mesh.flags[i], "{at} poly {i}");
        // Its detail triangles: as many as the snapshot's submesh.
        let d = p.detail().unwrap();
        assert_eq!(
            d.triangle_count() as u32,
            s.detail_mesh.meshes[i][3],
            "{at} poly {i}"
        );
    }
    assert_eq!(
        tile.detail_triangles().len(),
        s.detail_mesh.tris.len(),
        "{at}"
    );
}

#[test]
fn every_tile_of_the_demo_levels_ends_in_the_tiled_builds_tile() {
    for (name, tile_size) in [("dungeon.obj", 32), ("nav_test.obj", 48)] {
        let settings = BuildSettings {
            tile_size,
            ..BuildSettings::default()
        };
        let tiled = NavMeshBuilder::new(&geom(name))
            .settings(settings.clone())
            .tiled()
            .unwrap();
        let grid = *tiled.grid();
        let mut non_empty = 0;
        for tile in grid.all_tiles() {
            let t = tiled.tile_stages(tile, &Budget::default()).unwrap();
            assert_eq!(t.tile, tile);
            assert_eq!(t.grid, grid);
            non_empty += usize::from(t.data.is_some());
            check_against_build(name, &tiled, &t);
        }
        assert_eq!(non_empty, tiled.report().tiles.non_empty, "{name}");
        assert!(non_empty > 10, "{name}: {non_empty} tiles with polys");

        // Another build of the same geometry (on one thread) gives the same tile.
        let middle = TileCoord::new(grid.tiles_x / 2, grid.tiles_z / 2);
        let alone = NavMeshBuilder::new(&geom(name))
            .settings(settings.clone())
            .threads(1)
            .tiled()
            .unwrap()
            .tile_stages(middle, &Budget::default())
            .unwrap();
        let from_tiled = tiled.tile_stages(middle, &Budget::default()).unwrap();
        assert!(alone.data.is_some(), "{name}: the middle tile is empty");
        assert_eq!(alone.data, from_tiled.data, "{name}");
        assert_eq!(alone.stages, from_tiled.stages, "{name}");
        check_against_build(name, &tiled, &alone);
    }
}

#[test]
fn tiles_outside_the_grid_and_over_budget_are_errors() {
    let g = geom("dungeon.obj");
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    let tiled = NavMeshBuilder::new(&g)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let (nx, nz) = (tiled.grid().tiles_x, tiled.grid().tiles_z);
    for tile in [
        TileCoord::new(-1, 0),
        TileCoord::new(0, -1),
        TileCoord::new(nx, 0),
        TileCoord::new(0, nz),
        TileCoord::new(i32::MAX, i32::MIN),
        TileCoord::new(i32::MIN, i32::MAX),
        TileCoord::new(0, 0).with_layer(1),
    ] {
        {
            match tiled.tile_stages(tile, &Budget::default()) {
                Err(Error::InvalidArgument(m)) => {
                    assert!(m.contains(&format!("{nx} x {nz} tile grid")), "{m}")
                }
                other => panic!("{tile}: {other:?}"),
            }
        }
    }
    // One tile's grid (32 + 2 * (2 + 3) = 42 cells a side: 1764 cells) against a cell limit.
    let small = Budget::default().max_cells(1000);
    {
        match tiled.tile_stages(TileCoord::new(0, 0), &small) {
            Err(Error::OverBudget {
                estimate, limit, ..
            }) => assert_eq!((estimate, limit), (42 * 42, 1000)),
            other => panic!("{other:?}"),
        }
    }
    assert!(
        tiled
            .tile_stages(TileCoord::new(0, 0), &Budget::default().max_cells(42 * 42))
            .is_ok()
    );
    // A bad tile size is the grid's error.
    let bad = BuildSettings {
        tile_size: 0,
        ..settings
    };
    assert!(matches!(
        NavMeshBuilder::new(&g).settings(bad).tiled(),
        Err(Error::Setting {
            name: "tile_size",
            ..
        })
    ));
}
