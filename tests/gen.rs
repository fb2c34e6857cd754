//! The world generator: reproducible files, sizes, bad specs, and a small world whose navmesh
//! has every feature the generator claims (decks, roofs and platforms reached by ramps and
//! stairs, building interiors through their doorways, ground under bridges, water, steep
//! patches, jump links).

use std::path::PathBuf;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter, StraightPathOptions, straight_flags};
use navkit::tools::worldgen::{
    FeatureKind, MAX_TRIS, MIN_TRIS, WorldSpec, generate, gset_path, write_world,
};
use navkit::{Error, InputGeometry, TriMesh, area, flags};

/// A fresh temporary directory for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navkit-gen-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(spec: &WorldSpec, dir: &std::path::Path) -> (Vec<u8>, Vec<u8>) {
    let (geom, _) = generate(spec).unwrap();
    let obj = dir.join("world.obj");
    write_world(&geom, &obj).unwrap();
    (
        std::fs::read(&obj).unwrap(),
        std::fs::read(gset_path(&obj)).unwrap(),
    )
}

#[test]
fn same_seed_same_bytes_and_files_load_back() {
    let spec = WorldSpec::new(12_000, 3);
    let (a, b, c) = (temp_dir("a"), temp_dir("b"), temp_dir("c"));
    let (obj1, gset1) = write(&spec, &a);
    let (obj2, gset2) = write(&spec, &b);
    assert!(obj1 == obj2, "same seed, different OBJ bytes");
    assert_eq!(gset1, gset2);
    let (obj3, gset3) = write(&WorldSpec::new(12_000, 4), &c);
    assert!(obj1 != obj3, "different seeds, same OBJ");
    assert_ne!(gset1, gset3);
    let gset_text = String::from_utf8(gset1).unwrap();
    assert!(gset_text.starts_with("f world.obj\ns "), "{gset_text:.80}");

    // The OBJ and the .gset read back to the very same mesh, links and volumes.
    let (geom, stats) = generate(&spec).unwrap();
    let mesh = TriMesh::from_obj(a.join("world.obj")).unwrap();
    assert_eq!(
        (mesh.tri_count(), mesh.vert_count()),
        (stats.tris, stats.verts)
    );
    assert!(mesh.verts == geom.mesh.verts && mesh.tris == geom.mesh.tris);
    let back = InputGeometry::load(a.join("world.gset")).unwrap();
    assert!(back.mesh.verts == geom.mesh.verts && back.mesh.tris == geom.mesh.tris);
    assert_eq!(back.off_mesh_connections, geom.off_mesh_connections);
    assert_eq!(back.convex_volumes, geom.convex_volumes);
    let s = back.settings.unwrap();
    assert_eq!((s.cell_size, s.agent_radius, s.tile_size), (0.3, 0.6, 32));
    assert_eq!(s.bounds, Some(geom.mesh.bounds()));
    for d in [a, b, c] {
        let _ = std::fs::remove_dir_all(d);
    }
}

#[test]
fn triangle_counts_follow_the_target() {
    let mut sides = Vec::new();
    for target in [10_000, 200_000] {
        let (geom, stats) = generate(&WorldSpec::new(target, 9)).unwrap();
        assert_eq!(geom.mesh.tri_count(), stats.tris);
        assert_eq!(geom.mesh.vert_count(), stats.verts);
        let err = stats.tris.abs_diff(target) as f64 / target as f64;
        assert!(err < 0.02, "{target}: {} triangles", stats.tris);
        // Terrain about its share; the features and clutter the rest.
        let terrain = stats.terrain_tris as f64 / stats.tris as f64;
        assert!(
            (0.4..0.65).contains(&terrain),
            "{target}: terrain {terrain}"
        );
        assert!(stats.buildings >= 1 && stats.bridges >= 1 && stats.platforms >= 1);
        assert!(stats.water_volumes >= 1 && stats.steep_patches >= 1 && stats.jump_links >= 3);
        assert_eq!(geom.off_mesh_connections.len(), stats.jump_links);
        assert_eq!(geom.convex_volumes.len(), stats.water_volumes);
        assert!(stats.doorways >= stats.buildings && stats.clutter > 0);
        let (lo, hi) = stats.extent.into();
        sides.push(hi.x - lo.x);
        geom.validate().unwrap();
    }
    assert!(sides[1] > 2.0 * sides[0], "{sides:?}");
}

#[test]
fn bad_specs_are_errors() {
    for tris in [0, 1, MIN_TRIS - 1, MAX_TRIS + 1, usize::MAX] {
        let e = generate(&WorldSpec::new(tris, 1)).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{tris}: {e}");
    }
    for share in [0.0, 0.05, 1.0, f32::NAN] {
        let spec = WorldSpec {
            terrain_share: share,
            ..WorldSpec::new(20_000, 1)
        };
        assert!(matches!(generate(&spec), Err(Error::InvalidArgument(_))));
    }
    let (geom, _) = generate(&WorldSpec::new(MIN_TRIS, 1)).unwrap();
    let dir = temp_dir("bad");
    for name in ["world.txt", "world"] {
        let e = write_world(&geom, &dir.join(name)).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    }
    let e = write_world(&geom, &dir.join("missing/world.obj")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn small_world_navmesh_has_the_features() {
    for seed in [11, 12] {
        check_features(&WorldSpec::new(15_000, seed));
    }
}

/// Many more worlds: 40 seeds, 5,000 to 40,000 triangles (about 5 s in a release build on a
/// loaded 2-core machine).
#[test]
fn many_worlds_have_the_features() {
    for seed in 0..40 {
        let tris = [5_000, 10_000, 20_000, 40_000][seed as usize % 4];
        eprintln!("seed {seed}, {tris} triangles");
        check_features(&WorldSpec::new(tris, seed));
    }
}

/// Builds the world and checks every feature on its navmesh.
fn check_features(spec: &WorldSpec) {
    let (geom, stats) = generate(spec).unwrap();
    let built = NavMeshBuilder::new(&geom)
        .settings(geom.settings.clone().unwrap())
        .solo()
        .unwrap();
    let nav = &built.navmesh();
    let mut q = NavMeshQuery::new(nav, 4096).unwrap();
    let f = QueryFilter::default();
    let count = |k| stats.features_of(k).count();
    for k in [
        FeatureKind::BuildingInterior,
        FeatureKind::Roof,
        FeatureKind::UpperFloor,
        FeatureKind::PlatformTop,
        FeatureKind::BridgeDeck,
        FeatureKind::UnderBridge,
        FeatureKind::Water,
        FeatureKind::SteepSlope,
    ] {
        assert!(count(k) >= 1, "no {k:?} in {:?}", stats.features);
    }
    let off_mesh: Vec<_> = nav.polys().into_iter().filter(|p| p.off_mesh).collect();

    // Decks, roofs, platform tops, interiors and the ground under bridges are on the navmesh,
    // at their height, and reached from the ground nearby without jumping.
    let mut checked = 0;
    for feat in &stats.features {
        let extents = match feat.kind {
            FeatureKind::Water | FeatureKind::SteepSlope => continue,
            _ => Vec3::new(0.5, 0.6, 0.5),
        };
        let what = format!("{:?} at {}", feat.kind, feat.point);
        let near = q
            .find_nearest_poly(feat.point, extents, &f)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        assert!(near.over_poly, "{what}: not over a polygon");
        assert!(
            (near.point.y - feat.point.y).abs() < 0.5,
            "{what}: {near:?}"
        );
        let path = q
            .path(feat.approach, feat.point, &f, &PathOptions::corridor_only())
            .unwrap()
            .corridor;
        assert!(path.is_complete(), "{what}: no path from {}", feat.approach);
        assert!(
            !path
                .polys
                .iter()
                .any(|p| off_mesh.iter().any(|o| o.poly == *p)),
            "{what}: the path jumps"
        );
        if feat.kind == FeatureKind::BuildingInterior {
            // Straight in through the doorway (and the yard's gate).
            let s = q
                .find_straight_path(
                    feat.approach,
                    feat.point,
                    &path.polys,
                    &StraightPathOptions {
                        max_points: 64,
                        ..StraightPathOptions::default()
                    },
                )
                .unwrap();
            let direct = feat.approach.distance(feat.point);
            assert!(s.length() < direct + 0.1, "{what}: {} m", s.length());
        }
        checked += 1;
    }
    assert!(checked >= 7);

    // Water: the pond floor's polygons are water (swimmable).
    for feat in stats.features_of(FeatureKind::Water) {
        let near = q
            .find_nearest_poly(feat.point, Vec3::new(0.5, 1.0, 0.5), &f)
            .unwrap();
        assert_eq!(nav.poly_area(near.poly).unwrap(), area::WATER, "{feat:?}");
        assert_eq!(nav.poly_flags(near.poly).unwrap(), flags::SWIM);
    }
    // Crags: nothing walkable near their summits.
    for feat in stats.features_of(FeatureKind::SteepSlope) {
        let r = q.find_nearest_poly(feat.point, Vec3::new(1.0, 2.0, 1.0), &f);
        assert!(
            matches!(r, Err(Error::PointOffMesh { .. })),
            "{feat:?}: {r:?}"
        );
    }

    // Every jump link is in the navmesh, and taken down from where it starts: the corridor from
    // its start to its end goes through it (walking round would be much longer).
    assert_eq!(off_mesh.len(), geom.off_mesh_connections.len());
    assert!(
        off_mesh
            .iter()
            .all(|p| p.area == area::JUMP && p.flags == flags::JUMP)
    );
    for link in &geom.off_mesh_connections {
        let path = q
            .path(link.start, link.end, &f, &PathOptions::corridor_only())
            .unwrap()
            .corridor;
        assert!(path.is_complete(), "{link:?}");
        assert!(
            path.polys
                .iter()
                .any(|p| off_mesh.iter().any(|o| o.poly == *p)),
            "{link:?}: {:?}",
            path.polys
        );
        // Starting a little back from the edge, the straight path marks the jump.
        let back = link.start + (link.start - link.end).with_y(0.0).normalize() * 0.5;
        let path = q
            .path(back, link.end, &f, &PathOptions::corridor_only())
            .unwrap()
            .corridor;
        let s = q
            .find_straight_path(
                back,
                link.end,
                &path.polys,
                &StraightPathOptions {
                    max_points: 64,
                    ..StraightPathOptions::default()
                },
            )
            .unwrap();
        assert!(
            s.points
                .iter()
                .any(|p| p.flags & straight_flags::OFFMESH_CONNECTION != 0),
            "{link:?}: {:?}",
            s.points
        );
    }
}

#[test]
fn cli_writes_the_pair_and_prints_stats() {
    let dir = temp_dir("cli");
    let obj = dir.join("w.obj");
    let run = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_navkit"))
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&[
        "gen",
        "--tris",
        "12k",
        "--seed",
        "5",
        "-o",
        obj.to_str().unwrap(),
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (geom, stats) = generate(&WorldSpec::new(12_000, 5)).unwrap();
    assert_eq!(v["tris"], stats.tris);
    assert_eq!(v["jump_links"], geom.off_mesh_connections.len());
    assert_eq!(
        v["features"].as_array().unwrap().len(),
        stats.features.len()
    );
    assert_eq!(v["obj_bytes"], std::fs::metadata(&obj).unwrap().len());
    let back = InputGeometry::load(dir.join("w.gset")).unwrap();
    assert_eq!(back.mesh.tri_count(), stats.tris);
    // The text summary, and bad arguments.
    let out = run(&[
        "gen",
        "--tris",
        "12000",
        "--seed",
        "5",
        "-o",
        obj.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("Buildings:"),
        "{text}"
    );
    for bad in [
        &["gen", "--tris", "0", "-o", "x.obj"][..],
        &["gen", "--tris", "lots", "-o", "x.obj"],
    ] {
        let out = run(bad);
        assert!(!out.status.success(), "{bad:?}");
    }
    let _ = std::fs::remove_dir_all(dir);
}
