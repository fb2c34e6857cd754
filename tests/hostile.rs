//! Hostile geometry (`../shared/hostile/`, and variants of ours along every axis): a solo grid
//! wider or deeper than Recast's 16-bit vertex coordinates is refused before Recast sees it
//! (before the first stage: a build whose budget is already cancelled still gets the refusal,
//! not `Cancelled`), with the axis, the extreme vertices and the remedies; the mesh-derived
//! grid and the builder refuse it too. Closer stray vertices, which fit the grid but stretch it
//! into long wedges that take seconds to minutes to build, are refused as stray vertices (as
//! early), naming them; real levels are not.

mod common;

use glam::Vec3;
use navkit::build::{Budget, CancelToken, MAX_SOLO_CELLS_PER_AXIS};
use navkit::{Aabb, BuildSettings, Error, InputGeometry, NavMeshBuilder, TriMesh};

fn hostile(name: &str) -> InputGeometry {
    InputGeometry::load(common::shared().join("hostile").join(name)).expect("load")
}

/// A budget whose cancellation token is already tripped: a build stops with
/// `Error::Cancelled` at the first stage it reaches (rasterizing, for solo, tiled and tile-cache
/// builds: tests/budget.rs), so any other error it gives came before any stage ran.
fn cancelled() -> Budget {
    let token = CancelToken::new();
    token.cancel();
    Budget::new().cancel_token(token)
}

/// Solo-builds `geom` twice, as asked and with a [`cancelled`] budget, and expects the same
/// error from both: the refusal, given before rasterizing (where the second would stop).
fn refusal_before_rasterizing(geom: &InputGeometry, settings: &BuildSettings) -> Error {
    let build = |b: NavMeshBuilder<'_>| match b.settings(settings.clone()).solo() {
        Ok(_) => panic!("built, not refused"),
        Err(e) => e,
    };
    let early = build(NavMeshBuilder::new(geom).budget(cancelled()));
    assert!(
        !matches!(early, Error::Cancelled { .. }),
        "not refused before rasterizing: {early}"
    );
    let e = build(NavMeshBuilder::new(geom));
    assert_eq!(early.to_string(), e.to_string());
    e
}

/// Builds solo and expects the per-axis refusal, before rasterizing.
fn refused(geom: &InputGeometry, settings: &BuildSettings) -> String {
    let e = refusal_before_rasterizing(geom, settings);
    assert!(matches!(e, Error::Geometry(_)), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains(&MAX_SOLO_CELLS_PER_AXIS.to_string()), "{msg}");
    assert!(
        msg.contains("build tiled") && msg.contains("cell size of at least"),
        "{msg}"
    );
    msg
}

#[test]
fn the_shared_reproducers_are_refused_at_once_naming_the_stray_vertex() {
    let s = BuildSettings::default();
    let m = refused(&hostile("far_vertex_small_level.obj"), &s);
    assert!(m.contains("along x") && m.contains("(-99999,"), "{m}");
    let m = refused(&hostile("far_vertex_demo_level.obj"), &s);
    assert!(m.contains("along z") && m.contains("-99999)"), "{m}");
    let m = refused(&hostile("sliver.obj"), &s);
    assert!(m.contains("along x") && m.contains("(65536,"), "{m}");
    // The mesh-derived grid (walkable spans) and the builder refuse the same.
    let g = hostile("sliver.obj");
    assert!(NavMeshBuilder::new(&g).settings(s.clone()).grid().is_err());
    assert!(NavMeshBuilder::new(&g).solo().is_err());
}

/// A small walkable quad plus one stray vertex at `stray`.
fn quad_with(stray: Vec3) -> InputGeometry {
    let mut verts = vec![
        0.0, 0.0, 0.0, 10.0, 0.0, 0.0, 10.0, 0.0, 10.0, 0.0, 0.0, 10.0,
    ];
    verts.extend(stray.to_array());
    // The stray vertex is part of a thin triangle, as a real stray vertex would be.
    let tris = vec![0, 2, 1, 0, 3, 2, 1, 2, 4];
    InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap())
}

#[test]
fn a_stray_vertex_along_either_axis_and_either_side_is_refused() {
    let s = BuildSettings::default();
    let far = 0.3 * (MAX_SOLO_CELLS_PER_AXIS as f32 + 10.0);
    for (stray, axis) in [
        (Vec3::new(far, 0.0, 5.0), "along x"),
        (Vec3::new(-far, 0.0, 5.0), "along x"),
        (Vec3::new(5.0, 0.0, far), "along z"),
        (Vec3::new(5.0, 0.0, -far), "along z"),
    ] {
        let m = refused(&quad_with(stray), &s);
        assert!(
            m.contains(axis) && m.contains("OBJ vertex 5"),
            "{stray}: {m}"
        );
    }
    // Far along both: the grid's total cell limit refuses it first, as early.
    let e = refusal_before_rasterizing(&quad_with(Vec3::new(far, 0.0, far)), &s);
    assert!(
        matches!(
            e,
            Error::Setting {
                name: "cell_size",
                ..
            }
        ),
        "{e:?}"
    );
    // Just inside the limit is accepted by the check (the build itself goes on).
    let near = 0.3 * (MAX_SOLO_CELLS_PER_AXIS as f32 - 100.0);
    let g = quad_with(Vec3::new(5.0, 50.0, near));
    // (Refused now as a stray vertex, see the test below; the axis check lets it through.)
    let coarse = BuildSettings {
        partition: navkit::Partition::Monotone,
        ..BuildSettings::default()
    };
    if let Err(e) = NavMeshBuilder::new(&g).settings(coarse.clone()).solo() {
        assert!(!e.to_string().contains("16-bit"), "{e}");
    }
    // Following the advice works: a coarser cell size is accepted.
    let g = quad_with(Vec3::new(far, 0.0, 5.0));
    let m = refused(&g, &s);
    let cs: f32 = m
        .rsplit("cell size of at least ")
        .next()
        .and_then(|t| t.trim_end_matches(" m").parse().ok())
        .expect("a cell size in the message");
    let ok = BuildSettings {
        cell_size: cs,
        agent_radius: cs,
        partition: navkit::Partition::Monotone,
        ..BuildSettings::default()
    };
    if let Err(e) = NavMeshBuilder::new(&g).settings(ok.clone()).solo() {
        assert!(!e.to_string().contains("16-bit"), "{e}");
    }
}

#[test]
fn build_bounds_from_the_settings_are_checked_the_same_way() {
    let g = quad_with(Vec3::new(5.0, 1.0, 5.0));
    let s = BuildSettings {
        bounds: Some(Aabb::new(
            Vec3::new(-10.0, -1.0, -10.0),
            Vec3::new(30_000.0, 5.0, 20.0),
        )),
        ..BuildSettings::default()
    };
    let m = refused(&g, &s);
    assert!(
        m.contains("settings' build bounds") && m.contains("along x"),
        "{m}"
    );
}

/// `name` from ../shared/hostile with its far coordinate `from` replaced by `to`.
fn moved(name: &str, from: &str, to: &str) -> InputGeometry {
    let text = std::fs::read_to_string(common::shared().join("hostile").join(name)).unwrap();
    assert!(text.contains(from), "{name} has no `{from}`");
    let path = common::temp(&format!("{to}-{name}"));
    std::fs::write(&path, text.replace(from, to)).unwrap();
    InputGeometry::load(&path).expect("load")
}

/// Builds solo with the default budget and expects the stray-vertex refusal naming `vertex`,
/// before rasterizing.
fn stray_refused(geom: &InputGeometry, vertex: usize, axis: &str) {
    let e = refusal_before_rasterizing(geom, &BuildSettings::default());
    let m = e.to_string();
    assert!(matches!(e, Error::Geometry(_)), "{e:?}");
    assert!(
        m.contains(&format!("OBJ vertex {vertex} ")) && m.contains(&format!("along {axis}")),
        "{m}"
    );
    assert!(m.contains("allow_stray_vertices"), "{m}");
    // Tiled builds and tile caches refuse the same, before building any tile (a cancelled
    // budget would stop them at the first tile's rasterizing).
    for b in [
        NavMeshBuilder::new(geom),
        NavMeshBuilder::new(geom).budget(cancelled()),
    ] {
        assert!(matches!(b.tiled(), Err(Error::Geometry(_))));
        assert!(matches!(b.tile_cache(), Err(Error::Geometry(_))));
    }
    assert!(
        NavMeshBuilder::new(geom)
            .estimate()
            .unwrap()
            .stray
            .unwrap()
            .refused()
    );
}

#[test]
fn stray_vertices_inside_the_axis_limit_are_refused_along_every_axis_and_side() {
    // The reproducers' far vertex, moved to distances the axis check lets through (these built
    // for 0.3 to 12 s, and minutes with some partitions).
    for d in ["2000", "5000", "19000"] {
        let g = moved(
            "far_vertex_small_level.obj",
            "v -99999 ",
            &format!("v -{d} "),
        );
        stray_refused(&g, 57, "x");
        let g = moved(
            "far_vertex_small_level.obj",
            "v -99999 ",
            &format!("v {d} "),
        );
        stray_refused(&g, 57, "x");
        let g = moved("far_vertex_demo_level.obj", "-99999", &format!("-{d}"));
        stray_refused(&g, 28, "z");
        let g = moved("far_vertex_demo_level.obj", "-99999", d);
        stray_refused(&g, 28, "z");
        let g = moved("sliver.obj", "v 65536 ", &format!("v {d} "));
        stray_refused(&g, 4, "x");
    }
    // A quad with one stray vertex along each axis and side.
    for (stray, axis) in [
        (Vec3::new(3000.0, 0.0, 5.0), "x"),
        (Vec3::new(-3000.0, 0.0, 5.0), "x"),
        (Vec3::new(5.0, 0.0, 3000.0), "z"),
        (Vec3::new(5.0, 0.0, -3000.0), "z"),
    ] {
        stray_refused(&quad_with(stray), 5, axis);
    }
}

#[test]
fn stray_vertices_at_both_ends_are_found_together() {
    // The demo level with two vertices moved, one far north and one far south.
    let text = std::fs::read_to_string(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("meshes/demo_level.obj"),
    )
    .unwrap();
    let mut n = 0;
    let text: String = text
        .lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix("v ") {
                n += 1;
                let p: Vec<f32> = rest
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect();
                match n {
                    3 => return format!("v {} {} -4000", p[0], p[1]),
                    9 => return format!("v {} {} 4000", p[0], p[1]),
                    _ => {}
                }
            }
            l.to_string()
        })
        .collect::<Vec<_>>()
        .join("\n");
    let path = common::temp("two-strays.obj");
    std::fs::write(&path, text).unwrap();
    let g = InputGeometry::load(&path).unwrap();
    let stray = NavMeshBuilder::new(&g)
        .estimate()
        .unwrap()
        .stray
        .expect("stray");
    assert_eq!(
        (stray.axis, stray.vertices.clone(), stray.count),
        ('z', vec![3, 9], 2)
    );
    assert!(stray.refused());
    let m = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .solo()
        .unwrap_err()
        .to_string();
    assert!(m.starts_with("invalid geometry: 2 vertices lie far"), "{m}");
}

#[test]
fn allowed_stray_vertices_build_and_bounds_in_the_settings_skip_the_check() {
    let g = moved("sliver.obj", "v 65536 ", "v 2500 ");
    let b = NavMeshBuilder::new(&g)
        .budget(navkit::build::Budget::new().allow_stray_vertices(true))
        .solo()
        .expect("allowed");
    assert_eq!(b.report().grid_width, 8333);
    // Bounds given in the settings are the user's choice: no stray check.
    let s = BuildSettings {
        bounds: Some(Aabb::new(
            Vec3::new(0.0, -1.0, 0.0),
            Vec3::new(20.0, 3.0, 10.0),
        )),
        ..BuildSettings::default()
    };
    let e = navkit::build::estimate(&g, &s).unwrap();
    assert_eq!(e.stray, None);
    assert!(NavMeshBuilder::new(&g).settings(s.clone()).solo().is_ok());
}

#[test]
fn real_levels_have_no_stray_vertices() {
    let mut paths: Vec<std::path::PathBuf> =
        std::fs::read_dir(common::shared().join("meshes/recastdemo"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "obj"))
            .collect();
    paths.push(std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("meshes/demo_level.obj"));
    assert!(paths.len() >= 4);
    for p in paths {
        let g = InputGeometry::load(&p).unwrap();
        let e = NavMeshBuilder::new(&g).estimate().unwrap();
        assert!(
            e.stray.as_ref().is_none_or(|s| !s.refused()),
            "{}: {:?}",
            p.display(),
            e.stray
        );
    }
}

/// A `w` x `w` m floor at each height of `ys`.
fn floors(w: f32, ys: impl Iterator<Item = f32>) -> InputGeometry {
    let (mut verts, mut tris) = (Vec::new(), Vec::new());
    for (k, y) in ys.enumerate() {
        verts.extend([0.0, y, 0.0, w, y, 0.0, w, y, w, 0.0, y, w]);
        let b = 4 * k as i32;
        tris.extend([b, b + 2, b + 1, b, b + 3, b + 2]);
    }
    InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap())
}

#[test]
fn heights_beyond_recasts_13_bits_and_the_bv_trees_16_bits_are_refused() {
    // 2000 m of rise is 10,000 cells of 0.2 m: spans above 8191 cells would be clamped.
    let g = floors(10.0, [0.0, 2000.0].into_iter());
    let e = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .solo()
        .unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, Error::Geometry(_)), "{e:?}");
    assert!(
        m.contains("10000 cells") && m.contains("8191") && m.contains("at least 0.245 m"),
        "{m}"
    );
    for r in [
        NavMeshBuilder::new(&g).tiled().map(|_| ()),
        NavMeshBuilder::new(&g).tile_cache().map(|_| ()),
    ] {
        assert!(
            matches!(r, Err(Error::Geometry(ref m)) if m.contains("8191")),
            "{r:?}"
        );
    }
    // Following the advice builds.
    let s = BuildSettings {
        cell_height: 0.245,
        ..BuildSettings::default()
    };
    assert!(NavMeshBuilder::new(&g).settings(s.clone()).solo().is_ok());
    // Tall cells and thin ones: 6600 m is 6600 cells of 1 m (fine for Recast) but 66,000 cell
    // sizes of 0.1 m plus the agent: past the BV tree's 16 bits.
    let g = floors(3.0, [0.0, 6600.0].into_iter());
    let s = BuildSettings {
        cell_size: 0.1,
        cell_height: 1.0,
        agent_radius: 0.1,
        agent_height: 2.0,
        agent_max_climb: 1.0,
        ..BuildSettings::default()
    };
    let e = NavMeshBuilder::new(&g)
        .settings(s.clone())
        .solo()
        .unwrap_err();
    assert!(e.to_string().contains("16 bits"), "{e}");
}

#[test]
fn more_walkable_floors_in_a_column_than_the_8_bit_count_holds_are_refused() {
    // 300 floors 2.5 m apart, all walkable: 300 spans in every column.
    let g = floors(8.0, (0..300).map(|k| k as f32 * 2.5));
    let e = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .solo()
        .unwrap_err();
    match &e {
        Error::Build {
            stage: navkit::build::Stage::CompactHeightfield,
            message,
        } => assert!(
            message.starts_with("300 walkable spans stacked in the column")
                && message.contains("255"),
            "{message}"
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        NavMeshBuilder::new(&g).tiled(),
        Err(Error::Build {
            stage: navkit::build::Stage::CompactHeightfield,
            ..
        })
    ));
    // 255 floors build, as with Recast itself: a compact span links to neighbours by a 6-bit
    // layer index, so only the lowest 62 floors connect to their neighbours (the rest are
    // eroded away), and Recast's warning about it is in the report.
    let g = floors(8.0, (0..255).map(|k| k as f32 * 2.5));
    let b = NavMeshBuilder::new(&g)
        .settings(BuildSettings::default())
        .solo()
        .expect("255 floors");
    assert_eq!(b.report().polymesh_polys, 63);
    assert!(
        b.report()
            .warnings
            .iter()
            .any(|w| w.contains("too many layers")),
        "{:?}",
        b.report().warnings
    );
}
