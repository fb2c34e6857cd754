//! The `mint` feature (glam's `mint` conversions): the vector types navkit's API takes and
//! returns — `Vec3` (points), `Vec2` (follower geometry), `UVec2` (grid cells) — convert to and
//! from mint's `Point`/`Vector` types, so a caller with another math library can use navkit.
#![cfg(feature = "mint")]

mod common;

use navkit::agents::follower::TurnBoundary;
use navkit::glam::{UVec2, Vec2, Vec3};
use navkit::grid::{Algorithm, Grid, SearchContext, Terrain};
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use navkit::{Aabb, PathStatus};

#[test]
fn vectors_convert_both_ways() {
    let v3 = Vec3::new(1.5, -2.25, 3.125);
    let p3: mint::Point3<f32> = v3.into();
    let m3: mint::Vector3<f32> = v3.into();
    assert_eq!((p3.x, p3.y, p3.z), (1.5, -2.25, 3.125));
    assert_eq!((m3.x, m3.y, m3.z), (1.5, -2.25, 3.125));
    assert_eq!(Vec3::from(p3), v3);
    assert_eq!(Vec3::from(m3), v3);

    let v2 = Vec2::new(-0.5, 4.0);
    let p2: mint::Point2<f32> = v2.into();
    let m2: mint::Vector2<f32> = v2.into();
    assert_eq!((p2.x, p2.y, m2.x, m2.y), (-0.5, 4.0, -0.5, 4.0));
    assert_eq!(Vec2::from(p2), v2);
    assert_eq!(Vec2::from(m2), v2);

    let c = UVec2::new(7, 11);
    let pc: mint::Point2<u32> = c.into();
    let mc: mint::Vector2<u32> = c.into();
    assert_eq!((pc.x, pc.y, mc.x, mc.y), (7, 11, 7, 11));
    assert_eq!(UVec2::from(pc), c);
    assert_eq!(UVec2::from(mc), c);
}

#[test]
fn a_navmesh_path_from_and_to_mint_points() {
    let b = common::build("nav_test.obj");
    let mut q = NavMeshQuery::new(b.navmesh(), 2048).unwrap();
    // nav_mesh_test.txt's first query, as another library would hold it.
    let start = mint::Point3 {
        x: 18.13855f32,
        y: -2.370003,
        z: -21.319118,
    };
    let goal = mint::Point3 {
        x: -19.20618f32,
        y: -2.369133,
        z: 24.802742,
    };
    let f = QueryFilter::default();
    let p = q
        .path(start.into(), goal.into(), &f, &PathOptions::default())
        .unwrap();
    let same = q
        .path(
            Vec3::new(18.13855, -2.370003, -21.319118),
            Vec3::new(-19.20618, -2.369133, 24.802742),
            &f,
            &PathOptions::default(),
        )
        .unwrap();
    assert_eq!(p, same);
    assert!(p.is_complete());
    // And the corners back as mint points: the first and last are the query's points.
    let corners: Vec<mint::Point3<f32>> =
        p.straight.positions().into_iter().map(Into::into).collect();
    let (first, last) = (corners[0], corners[corners.len() - 1]);
    assert_eq!((first.x, first.z), (start.x, start.z));
    assert_eq!((last.x, last.z), (goal.x, goal.z));
    // A box from mint corners.
    let a = Aabb::new(
        mint::Vector3 {
            x: -1.0f32,
            y: 0.0,
            z: -2.0,
        }
        .into(),
        mint::Vector3 {
            x: 1.0f32,
            y: 2.0,
            z: 2.0,
        }
        .into(),
    );
    assert_eq!(
        (a.min, a.max),
        (Vec3::new(-1.0, 0.0, -2.0), Vec3::new(1.0, 2.0, 2.0))
    );
}

#[test]
fn grid_cells_and_follower_geometry_from_mint() {
    // A 5x5 grid with a wall across the middle row but for its last cell.
    let mut grid = Grid::new(5, 5).unwrap();
    for x in 0..4u32 {
        grid.set_terrain(mint::Point2 { x, y: 2 }.into(), Terrain::Blocked);
    }
    assert_eq!(
        grid.terrain(mint::Vector2 { x: 1u32, y: 2 }.into()),
        Terrain::Blocked
    );
    let mut ctx = SearchContext::new();
    let r = Algorithm::AStar
        .find_path(
            &mut ctx,
            &grid,
            mint::Point2 { x: 0u32, y: 0 }.into(),
            mint::Point2 { x: 0u32, y: 4 }.into(),
        )
        .unwrap();
    assert_eq!(r.status, PathStatus::Complete);
    let cells: Vec<mint::Point2<u32>> = ctx.path_cells(&grid).into_iter().map(Into::into).collect();
    assert_eq!((cells[0].x, cells[0].y), (0, 0));
    assert_eq!((cells[cells.len() - 1].x, cells[cells.len() - 1].y), (0, 4));
    // Round the wall's end: through (4, 2).
    assert!(cells.iter().any(|c| (c.x, c.y) == (4, 2)));

    let line = TurnBoundary {
        point: mint::Point2 { x: 1.0f32, y: 0.0 }.into(),
        dir: mint::Vector2 { x: 1.0f32, y: 0.0 }.into(),
    };
    assert!(line.crossed(mint::Point2 { x: 1.5f32, y: 3.0 }.into()));
    assert!(!line.crossed(mint::Point2 { x: 0.5f32, y: 3.0 }.into()));
}
