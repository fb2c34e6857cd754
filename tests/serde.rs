//! The `serde` feature: every type that derives both `Serialize` and `Deserialize` reads back
//! what it writes (JSON, every field set away from its default, every enum variant), and a few
//! have their JSON form pinned (the CLI's JSON, scenario files and `.gset` settings use it).
#![cfg(feature = "serde")]

use std::fmt::Debug;

use glam::Vec3;
use navkit::grid::runner::{BucketReport, Stats};
use navkit::grid::{Algorithm, CornerCutting, CostModel, SearchOptions, Terrain};
use navkit::navmesh::params::{NavMeshParams, RefWidth};
use navkit::query::{SliceState, SlicedOptions, SmoothPathOptions, StraightPathOptions};
use navkit::tilecache::{LayerCompression, ObstacleRef, TileCacheParams, TileCacheSettings};
use navkit::{
    Aabb, BuildSettings, ConvexVolume, ObstacleShape, OffMeshConnection, Partition, PathOptions,
    PathStatus, PolyRef, TileCoord,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// Serializes `v` to JSON and back: the same value.
fn round_trip<T: Serialize + DeserializeOwned + PartialEq + Debug>(v: &T) {
    let text = serde_json::to_string(v).unwrap();
    let back: T = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} from {text}: {e}", std::any::type_name::<T>()));
    assert_eq!(&back, v, "{text}");
}

/// `v` as a JSON value.
fn json_of<T: Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap()
}

#[test]
fn every_enum_variant_round_trips() {
    for v in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
        round_trip(&v);
    }
    for v in [PathStatus::Complete, PathStatus::Partial] {
        round_trip(&v);
    }
    for v in [RefWidth::Bits32, RefWidth::Bits64] {
        round_trip(&v);
    }
    for v in [LayerCompression::FastLz, LayerCompression::Lz4] {
        round_trip(&v);
    }
    for v in [Terrain::Blocked, Terrain::Ground, Terrain::Water] {
        round_trip(&v);
    }
    for v in [CostModel::Octile, CostModel::Integer] {
        round_trip(&v);
    }
    for v in [
        CornerCutting::Never,
        CornerCutting::IfOneSideFree,
        CornerCutting::Always,
    ] {
        round_trip(&v);
    }
    for v in [Algorithm::AStar, Algorithm::Jps] {
        round_trip(&v);
    }
    for v in [
        SliceState::InProgress,
        SliceState::Finished { reached_goal: true },
        SliceState::Finished {
            reached_goal: false,
        },
    ] {
        round_trip(&v);
    }
    for v in shapes() {
        round_trip(&v);
    }
    #[cfg(feature = "render")]
    for v in [
        navkit::render::PolyColors::Auto,
        navkit::render::PolyColors::Area,
        navkit::render::PolyColors::Height,
    ] {
        round_trip(&v);
    }
    #[cfg(feature = "tools")]
    for v in [
        navkit::tools::simulation::AgentBehaviour::Direct,
        navkit::tools::simulation::AgentBehaviour::Wander,
    ] {
        round_trip(&v);
    }
}

/// One obstacle of each shape.
fn shapes() -> [ObstacleShape; 3] {
    [
        ObstacleShape::Cylinder {
            pos: Vec3::new(1.5, -2.25, 3.125),
            radius: 0.75,
            height: 2.0,
        },
        ObstacleShape::Box {
            bmin: Vec3::new(-1.0, 0.0, -2.0),
            bmax: Vec3::new(1.0, 2.5, 2.0),
        },
        ObstacleShape::OrientedBox {
            center: Vec3::new(4.0, 1.0, -4.0),
            half_extents: Vec3::new(1.0, 1.0, 0.5),
            y_angle: 0.7,
        },
    ]
}

/// Build settings with every field away from its default.
fn odd_build_settings() -> BuildSettings {
    let s = BuildSettings {
        cell_size: 0.25,
        cell_height: 0.1,
        agent_height: 1.8,
        agent_radius: 0.4,
        agent_max_climb: 0.5,
        agent_max_slope: 40.0,
        region_min_size: 6.0,
        region_merge_size: 15.0,
        edge_max_len: 10.0,
        edge_max_error: 1.1,
        verts_per_poly: 5,
        detail_sample_dist: 5.0,
        detail_sample_max_error: 0.8,
        partition: Partition::Layers,
        bounds: Some(Aabb::new(
            Vec3::new(-10.0, -1.0, -10.0),
            Vec3::new(10.0, 5.0, 10.0),
        )),
        tile_size: 48,
        filter_low_hanging_obstacles: false,
        filter_ledge_spans: false,
        filter_walkable_low_height_spans: false,
    };
    // Every field differs from the default: a field the round trip lost would come back as its
    // default and fail the comparison.
    let (o, d) = (json_of(&s), json_of(&BuildSettings::default()));
    for (k, v) in o.as_object().unwrap() {
        assert_ne!(v, &d[k], "{k}");
    }
    s
}

#[test]
fn every_struct_round_trips() {
    round_trip(&odd_build_settings());
    round_trip(&BuildSettings::default());
    round_trip(&Aabb::new(
        Vec3::new(-1.5, 0.0, 2.0),
        Vec3::new(3.0, 4.25, 5.0),
    ));
    round_trip(&TileCoord::new(3, -2).with_layer(1));
    round_trip(&PolyRef(0x0012_3456));
    round_trip(&ObstacleRef(77));
    round_trip(&NavMeshParams {
        origin: [-1.5, 2.0, 3.25],
        tile_width: 9.6,
        tile_height: 9.6,
        max_tiles: 64,
        max_polys: 1024,
    });
    round_trip(&TileCacheSettings {
        tile_size: 64,
        expected_layers_per_tile: 2,
        max_obstacles: 32,
        layer_compression: LayerCompression::Lz4,
    });
    round_trip(&TileCacheParams {
        origin: [1.0, 2.0, 3.0],
        cell_size: 0.3,
        cell_height: 0.2,
        width: 48,
        height: 48,
        walkable_height: 2.0,
        walkable_radius: 0.6,
        walkable_climb: 0.9,
        max_simplification_error: 1.3,
        max_tiles: 128,
        max_obstacles: 64,
    });
    let straight = StraightPathOptions {
        area_crossings: true,
        all_crossings: true,
        max_points: 64,
    };
    let smooth = SmoothPathOptions {
        step_size: 0.25,
        slop: 0.02,
        max_points: 512,
        max_polys: 128,
    };
    round_trip(&straight);
    round_trip(&smooth);
    round_trip(&PathOptions {
        half_extents: Vec3::new(1.0, 2.0, 1.0),
        max_polys: 128,
        straight: Some(straight),
        smooth: Some(smooth),
        optimal: Some(navkit::query::OptimalOptions {
            max_nodes: 5000,
            crossings: false,
        }),
    });
    round_trip(&PathOptions::corridor_only());
    round_trip(&SlicedOptions { any_angle: true });
    round_trip(&OffMeshConnection {
        start: Vec3::new(-0.6, -2.27, -15.5),
        end: Vec3::new(-0.63, 8.33, -12.5),
        radius: 0.6,
        bidirectional: false,
        area: navkit::area::JUMP,
        flags: navkit::flags::JUMP,
        user_id: 9,
    });
    round_trip(&ConvexVolume {
        verts: vec![
            Vec3::new(5.0, -2.27, 5.0),
            Vec3::new(15.0, -2.27, 5.0),
            Vec3::new(15.0, -2.27, 15.0),
        ],
        hmin: -5.0,
        hmax: 5.0,
        area: navkit::area::WATER,
    });
    round_trip(&SearchOptions {
        cost_model: CostModel::Integer,
        corner_cutting: CornerCutting::IfOneSideFree,
    });
    let stats = Stats {
        problems: 120,
        solved: 119,
        mismatches: 1,
        max_abs_error: 0.125,
        expanded: 45_678,
        us_per_query: 12.5,
    };
    round_trip(&stats);
    round_trip(&BucketReport { bucket: 7, stats });
}

#[cfg(feature = "tools")]
#[test]
fn scenario_types_round_trip() {
    use navkit::tools::simulation::{
        AgentBehaviour, AgentSpec, ObstacleEvent, Scenario, ViewState,
    };
    let agent = AgentSpec {
        start: Vec3::new(18.13855, -2.370003, -21.319118),
        goal: Vec3::new(-19.20618, -2.369133, 24.802742),
        behaviour: AgentBehaviour::Wander,
        seed: 5,
    };
    let [cylinder, boxed, _] = shapes();
    let event = ObstacleEvent {
        at: 2.5,
        add: Some(boxed),
        remove: Some("door".into()),
        name: Some("gate".into()),
    };
    let view = ViewState {
        start: Some(Vec3::new(1.0, 2.0, 3.0)),
        goal: Some(Vec3::new(4.0, 5.0, 6.0)),
        settings: Some(odd_build_settings()),
        tile_size: Some(32),
    };
    round_trip(&agent);
    round_trip(&event);
    round_trip(&view);
    round_trip(&ViewState::default());
    round_trip(&Scenario {
        agents: vec![agent],
        obstacles: vec![cylinder],
        events: vec![event],
        view: Some(view),
        ..Scenario::default()
    });
    round_trip(&Scenario::default());
}

#[test]
fn json_forms() {
    // Unit variants are lower-case words (kebab-case for corner cutting), ids bare numbers,
    // vectors [x, y, z] arrays (glam's serde form).
    assert_eq!(json_of(&PathStatus::Complete), json!("complete"));
    assert_eq!(json_of(&Partition::Monotone), json!("monotone"));
    assert_eq!(json_of(&LayerCompression::FastLz), json!("fastlz"));
    assert_eq!(
        json_of(&CornerCutting::IfOneSideFree),
        json!("if-one-side-free")
    );
    assert_eq!(json_of(&Algorithm::AStar), json!("astar"));
    assert_eq!(json_of(&SliceState::InProgress), json!("in_progress"));
    assert_eq!(
        json_of(&SliceState::Finished { reached_goal: true }),
        json!({"finished": {"reached_goal": true}})
    );
    assert_eq!(json_of(&PolyRef(42)), json!(42));
    assert_eq!(json_of(&ObstacleRef(3)), json!(3));
    assert_eq!(
        json_of(&Aabb::new(
            Vec3::new(0.0, -1.0, 0.5),
            Vec3::new(2.0, 3.0, 4.5)
        )),
        json!({"min": [0.0, -1.0, 0.5], "max": [2.0, 3.0, 4.5]})
    );
    assert_eq!(
        json_of(&TileCoord::new(3, -2)),
        json!({"x": 3, "z": -2, "layer": 0})
    );
    // Obstacles are tagged by `kind` (the scenario files' form).
    let [cylinder, _, oriented] = shapes();
    assert_eq!(
        json_of(&cylinder),
        json!({"kind": "cylinder", "pos": [1.5, -2.25, 3.125], "radius": 0.75, "height": 2.0})
    );
    assert_eq!(json_of(&oriented)["kind"], "oriented_box");
    // A grid bucket's stats sit beside its number, not under a key.
    let b = BucketReport {
        bucket: 7,
        stats: Stats::default(),
    };
    assert_eq!(
        json_of(&b),
        json!({"bucket": 7, "problems": 0, "solved": 0, "mismatches": 0,
               "max_abs_error": 0.0, "expanded": 0, "us_per_query": 0.0})
    );
    // Settings: every field by name; missing fields take their defaults.
    let d = json_of(&BuildSettings::default());
    assert_eq!(d["cell_size"], json!(0.3f32));
    assert_eq!(d["partition"], "watershed");
    assert_eq!(d["bounds"], Value::Null);
    assert_eq!(d.as_object().unwrap().len(), 19);
    let s: BuildSettings = serde_json::from_str(r#"{"agent_radius": 0.5}"#).unwrap();
    assert_eq!(
        s,
        BuildSettings {
            agent_radius: 0.5,
            ..BuildSettings::default()
        }
    );
    let p: PathOptions = serde_json::from_str("{}").unwrap();
    assert_eq!(p, PathOptions::default());
    // Unknown fields are refused where the type says so (obstacle shapes).
    assert!(
        serde_json::from_str::<ObstacleShape>(
            r#"{"kind": "box", "bmin": [0,0,0], "bmax": [1,1,1], "extra": 1}"#
        )
        .is_err()
    );
    assert!(serde_json::from_str::<ObstacleShape>(r#"{"kind": "sphere"}"#).is_err());
}
