//! `navkit view`'s server against malformed, oversized, hostile and concurrent requests: every
//! request is answered (a 4xx with a message where it is bad), and the server keeps serving.

mod common;
#[path = "common/viewer.rs"]
mod viewer;

use navkit::NavMeshBuilder;
use std::io::Write;
use std::net::TcpStream;
use std::process::Command;

use serde_json::Value;
use viewer::{Viewer, assert_refused};

fn dungeon() -> Viewer {
    Viewer::start(&common::mesh("dungeon.obj"))
}

#[test]
fn hostile_requests_get_a_4xx_with_a_message_and_the_server_keeps_serving() {
    let v = dungeon();
    // A client that connects and sends nothing must not hold the others up.
    let idle = TcpStream::connect(v.addr).unwrap();

    let (status, page) = v.get("/");
    assert_eq!(status, 200);
    assert!(page.contains("<canvas"), "the page has a canvas");

    let bad_json = [
        ("not JSON", "{start: [1,2,3]"),
        ("NaN", r#"{"start": [NaN, 0, 0], "end": [0, 0, 0]}"#),
        (
            "overflowing number",
            r#"{"start": [1e400, 0, 0], "end": [0, 0, 0]}"#,
        ),
        (
            "huge number",
            r#"{"start": [1e30, 0, 0], "end": [0, 0, 0]}"#,
        ),
        ("two coordinates", r#"{"start": [1, 2], "end": [0, 0, 0]}"#),
        ("strings", r#"{"start": ["1", "2", "3"], "end": [0, 0, 0]}"#),
        ("no end", r#"{"start": [1, 2, 3]}"#),
        ("an array", "[1, 2, 3]"),
        (
            "unknown field",
            r#"{"start": [0,0,0], "end": [0,0,0], "x": 1}"#,
        ),
        ("empty", ""),
    ];
    for (what, body) in bad_json {
        assert_refused(what, v.post("/api/path", body), 400);
    }
    let bad_settings = [
        ("NaN", r#"{"cell_size": NaN}"#),
        ("negative", r#"{"cell_size": -1}"#),
        ("too small a cell", r#"{"cell_size": 0.0001}"#),
        ("huge count", r#"{"verts_per_poly": 1e12}"#),
        ("fractional count", r#"{"verts_per_poly": 4.5}"#),
        ("string", r#"{"cell_size": "0.3"}"#),
        ("unknown setting", r#"{"cells": 0.3}"#),
        ("huge region", r#"{"region_min_size": 1e300}"#),
        ("slope past 90", r#"{"agent_max_slope": 91}"#),
    ];
    for (what, body) in bad_settings {
        assert_refused(what, v.post("/api/build", body), 400);
    }

    assert_refused("unknown route", v.get("/api/nothing"), 404);
    let (status, body) = v.get("/../../etc/passwd");
    assert_eq!(status, 404, "{body}");
    assert!(!body.contains("root:"), "no file is served: {body}");
    assert_refused("encoded traversal", v.get("/%2e%2e/%2e%2e/etc/passwd"), 404);
    assert_refused(
        "absolute target",
        v.raw(b"GET http://evil/etc/passwd HTTP/1.1\r\n\r\n"),
        400,
    );
    assert_refused(
        "wrong method",
        v.raw(
            format!(
                "DELETE /api/path HTTP/1.1\r\n{}Content-Type: application/json\r\n\r\n",
                v.auth()
            )
            .as_bytes(),
        ),
        405,
    );
    assert_refused("GET on a POST route", v.get("/api/build"), 405);
    assert_refused("garbage request line", v.raw(b"HELLO\r\n\r\n"), 400);
    assert_refused(
        "binary garbage",
        v.raw(&[0xff, 0xfe, 0, 1, 2, b'\r', b'\n', b'\r', b'\n']),
        400,
    );
    assert_refused("HTTP/2", v.raw(b"GET / HTTP/2.0\r\n\r\n"), 505);
    assert_refused("cut-off head", v.raw(b"GET / HTTP/1.1\r\nHost: x\r\n"), 400);
    let long_header = format!(
        "GET / HTTP/1.1\r\nX-Long: {}\r\n\r\n",
        "a".repeat(64 * 1024)
    );
    assert_refused("very long header", v.raw(long_header.as_bytes()), 431);
    let long_target = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(64 * 1024));
    assert_refused("very long target", v.raw(long_target.as_bytes()), 431);
    let many = format!("GET / HTTP/1.1\r\n{}\r\n", "X-A: b\r\n".repeat(200));
    assert_refused("too many headers", v.raw(many.as_bytes()), 431);
    assert_refused(
        "huge Content-Length",
        v.raw(b"POST /api/path HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n{}"),
        413,
    );
    assert_refused(
        "Content-Length past the limit",
        v.raw(b"POST /api/path HTTP/1.1\r\nContent-Length: 2000000\r\n\r\n{}"),
        413,
    );
    assert_refused(
        "non-numeric Content-Length",
        v.raw(b"POST /api/path HTTP/1.1\r\nContent-Length: -5\r\n\r\n"),
        400,
    );
    assert_refused(
        "two Content-Lengths",
        v.raw(b"POST /api/path HTTP/1.1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"),
        400,
    );
    assert_refused(
        "body shorter than its length",
        v.raw(b"POST /api/path HTTP/1.1\r\nContent-Length: 100\r\n\r\n{\"start\""),
        400,
    );
    assert_refused(
        "chunked body",
        v.raw(b"POST /api/path HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
        501,
    );
    assert_refused(
        "POST without a length",
        v.raw(b"POST /api/path HTTP/1.1\r\n\r\n"),
        411,
    );
    assert_refused(
        "header without a colon",
        v.raw(b"GET / HTTP/1.1\r\nno colon here\r\n\r\n"),
        400,
    );
    // A big body within the limit, deeply nested: refused as JSON, not a crash.
    let nested = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert_refused("deeply nested JSON", v.post("/api/path", &nested), 400);

    drop(idle);
    let (status, _) = v.get("/api/layers");
    assert_eq!(status, 200, "still serving after all that");
}

#[test]
fn the_path_equals_navkit_path_and_a_rebuild_changes_the_counts() {
    let mesh = common::mesh("dungeon.obj");
    let v = dungeon();
    let (status, body) = v.get("/api/layers");
    assert_eq!(status, 200);
    let scene: Value = serde_json::from_str(&body).unwrap();
    let nav = viewer::entries(&scene, "navmesh.polys")[0];
    let pos: Vec<f64> = viewer::entry_positions(nav)
        .into_iter()
        .map(f64::from)
        .collect();
    let tris = pos.len() / 9;
    assert_eq!(nav["refs"].as_array().unwrap().len(), tris);
    assert_eq!(scene["counts"]["detail_tris"], tris);
    let polys = scene["counts"]["polys"].as_u64().unwrap();
    assert!(polys > 50, "dungeon has polys: {polys}");
    // Refs are decimal strings.
    assert!(
        nav["refs"][0]
            .as_str()
            .unwrap()
            .parse::<u64>()
            .is_ok_and(|r| r > 0)
    );
    let centroid = |t: usize| -> [f64; 3] {
        let c = &pos[t * 9..t * 9 + 9];
        [
            (c[0] + c[3] + c[6]) / 3.0,
            (c[1] + c[4] + c[7]) / 3.0,
            (c[2] + c[5] + c[8]) / 3.0,
        ]
    };
    let (a, b) = (centroid(0), centroid(tris / 2));
    let answer = v.post_json(
        "/api/path",
        &serde_json::json!({"start": a, "end": b}).to_string(),
    );
    let fmt = |p: [f64; 3]| format!("{},{},{}", p[0], p[1], p[2]);
    let out = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(["path", &mesh.display().to_string(), "--json"])
        .arg(format!("--from={}", fmt(a)))
        .arg(format!("--to={}", fmt(b)))
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(answer["status"], cli["status"]);
    assert_eq!(answer["straight_length_m"], cli["straight_length_m"]);
    assert_eq!(answer["smooth_length_m"], cli["smooth_length_m"]);
    assert!(answer["straight_length_m"].as_f64().unwrap() > 1.0);
    let corridor: Vec<u64> = answer["corridor"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().parse().unwrap())
        .collect();
    let cli_polys: Vec<u64> = cli["polys"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_u64().unwrap())
        .collect();
    assert_eq!(corridor, cli_polys);

    let rebuilt = v.post_json("/api/build", r#"{"cell_size": 0.6}"#);
    let after = rebuilt["counts"]["polys"].as_u64().unwrap();
    assert_ne!(after, polys, "a coarser cell changes the poly count");
    assert_eq!(rebuilt["settings"]["cell_size"], 0.6);
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(scene["counts"]["polys"], after);
}

#[test]
fn concurrent_clients_are_all_answered() {
    let v = std::sync::Arc::new(dungeon());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let v = std::sync::Arc::clone(&v);
            std::thread::spawn(move || {
                let mut ok = 0;
                for i in 0..12 {
                    match (t + i) % 4 {
                        0 => assert_eq!(v.get("/api/layers").0, 200),
                        1 => assert_eq!(
                            v.post("/api/path", r#"{"start":[0,0,0],"end":[1,0,1]}"#).0,
                            200
                        ),
                        2 => assert_eq!(v.post("/api/path", "{bad").0, 400),
                        _ => {
                            // Half a request, then gone.
                            let mut s = TcpStream::connect(v.addr).unwrap();
                            let _ = s.write_all(b"POST /api/build HTTP/1.1\r\nContent-Le");
                        }
                    }
                    ok += 1;
                }
                ok
            })
        })
        .collect();
    let total: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(total, 96);
    assert_eq!(v.get("/").0, 200, "still serving");
}

#[test]
fn the_new_endpoints_refuse_hostile_input_with_a_message() {
    let v = dungeon();
    let start = "[22.6, 10.2, -45.6]";
    let end = "[44.0, 10.2, 0.0]";
    let with_filter = |f: &str| format!(r#"{{"start": {start}, "end": {end}, "filter": {f}}}"#);
    let bad_filters = [
        ("filter not an object", with_filter("[1, 2]")),
        ("NaN cost", with_filter(r#"{"area_costs": {"0": NaN}}"#)),
        ("negative cost", with_filter(r#"{"area_costs": {"0": -1}}"#)),
        ("huge cost", with_filter(r#"{"area_costs": {"0": 1e300}}"#)),
        ("string cost", with_filter(r#"{"area_costs": {"0": "1"}}"#)),
        ("area 64", with_filter(r#"{"area_costs": {"64": 1}}"#)),
        (
            "area not a number",
            with_filter(r#"{"area_costs": {"water": 1}}"#),
        ),
        (
            "costs not an object",
            with_filter(r#"{"area_costs": [1, 2]}"#),
        ),
        ("negative flags", with_filter(r#"{"include_flags": -1}"#)),
        (
            "flags past 16 bits",
            with_filter(r#"{"exclude_flags": 65536}"#),
        ),
        ("fractional flags", with_filter(r#"{"include_flags": 1.5}"#)),
        (
            "string flags",
            with_filter(r#"{"include_flags": "0xffff"}"#),
        ),
        ("unknown filter key", with_filter(r#"{"include": 1}"#)),
    ];
    for (what, body) in &bad_filters {
        assert_refused(what, v.post("/api/path", body), 400);
    }
    let many_costs: Vec<String> = (0..100).map(|i| format!("\"{i}\": 1")).collect();
    assert_refused(
        "more costs than areas",
        v.post(
            "/api/path",
            &with_filter(&format!("{{\"area_costs\": {{{}}}}}", many_costs.join(","))),
        ),
        400,
    );

    let bad_builds = [
        ("unknown partition", r#"{"partition": "voronoi"}"#),
        ("partition as a number", r#"{"partition": 1}"#),
        ("unknown mode", r#"{"mode": "chunked"}"#),
        ("mode as a bool", r#"{"mode": true}"#),
        ("fractional tile size", r#"{"tile_size": 32.5}"#),
        ("huge tile size", r#"{"tile_size": 1e9}"#),
        ("tile size 0", r#"{"tile_size": 0}"#),
        ("null setting", r#"{"cell_height": null}"#),
        ("nested setting", r#"{"cell_height": {"value": 0.2}}"#),
        ("settings as an array", r#"[0.3, 0.2]"#),
        ("agent taller than 255 cells", r#"{"agent_height": 900}"#),
    ];
    for (what, body) in bad_builds {
        assert_refused(what, v.post("/api/build", body), 400);
    }

    let bad_stages = [
        ("not JSON", "{layers"),
        ("not an object", r#"["stage.regions"]"#),
        ("layers not an array", r#"{"layers": "stage.regions"}"#),
        ("layer names not strings", r#"{"layers": [1, 2]}"#),
        ("unknown layer", r#"{"layers": ["stage.everything"]}"#),
        ("unknown key", r#"{"layers": [], "all": true}"#),
        ("empty body", ""),
    ];
    for (what, body) in bad_stages {
        assert_refused(what, v.post("/api/stages", body), 400);
    }
    let huge = format!(
        r#"{{"layers": [{}]}}"#,
        vec!["\"stage.regions\""; 10_000].join(",")
    );
    assert_refused("ten thousand layers", v.post("/api/stages", &huge), 400);
    assert_refused(
        "PUT on stages",
        v.raw(
            format!(
                "PUT /api/stages HTTP/1.1\r\n{}Content-Type: application/json\r\n                 Content-Length: 0\r\n\r\n",
                v.auth()
            )
            .as_bytes(),
        ),
        405,
    );
    assert_refused("GET on path", v.get("/api/path"), 405);

    // Still serving, and the settings unchanged by the refused builds.
    let (status, body) = v.get("/api/layers");
    assert_eq!(status, 200);
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(scene["settings"]["cell_size"], 0.3);
    assert_eq!(scene["settings"]["mode"], "solo");
}

/// The stage layers asked for, as one scene.
fn stage_layers(v: &Viewer, names: &[&str]) -> Value {
    v.post_json(
        "/api/stages",
        &serde_json::json!({ "layers": names }).to_string(),
    )
}

#[test]
fn the_layers_are_debug_draw_layers_with_the_counts_of_the_build() {
    let v = dungeon();
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    let counts = &scene["build"]["counts"];
    // The navmesh: one triangle per detail triangle, each with its poly's ref; the poly table
    // holds every ground poly; RecastDemo's defaults shown.
    let detail_tris = scene["counts"]["detail_tris"].as_u64().unwrap();
    assert_eq!(detail_tris, counts["detail_tris"].as_u64().unwrap());
    assert_eq!(
        viewer::vertex_count(&scene, "navmesh.polys", Some("tris")),
        3 * detail_tris
    );
    assert_eq!(
        scene["polys"].as_object().unwrap().len() as u64,
        scene["counts"]["polys"].as_u64().unwrap()
    );
    let polys = viewer::entries(&scene, "navmesh.polys")[0];
    for alt in ["flags", "tile"] {
        assert!(polys["alt_colors_b64"][alt].is_string(), "{alt} colouring");
    }
    // Every poly vertex once (RecastDemo draws the poly mesh's vertices).
    assert_eq!(
        viewer::vertex_count(&scene, "navmesh.vertices", Some("points")),
        counts["polymesh_verts"].as_u64().unwrap()
    );
    // One solo tile: its bounds are the 12 edges of a box.
    assert_eq!(viewer::vertex_count(&scene, "navmesh.tiles", None), 24);
    // The geometry: one triangle per input triangle.
    assert_eq!(
        viewer::vertex_count(&scene, "geometry.mesh", Some("tris")),
        3 * scene["counts"]["input_tris"].as_u64().unwrap()
    );
    let shown = |name: &str| viewer::entries(&scene, name)[0]["shown"].clone();
    assert_eq!(shown("geometry.mesh"), true);
    assert_eq!(shown("navmesh.polys"), true);
    assert_eq!(shown("navmesh.outlines"), true);
    assert_eq!(shown("navmesh.bv_tree"), false);
    // Outlines: walls 2.5 pixels, inner edges 1.5 (RecastDemo's).
    let widths: Vec<f64> = viewer::entries(&scene, "navmesh.outlines")
        .iter()
        .map(|e| e["size"].as_f64().unwrap())
        .collect();
    assert!(widths.contains(&2.5) && widths.contains(&1.5), "{widths:?}");

    // The limits the page states are the ones the server applies.
    assert_eq!(scene["limits"]["stages_max_spans"], 400_000);
    assert_eq!(scene["limits"]["max_layer_vertices"], 1_500_000);
    // The settings panel: RecastDemo's 13 sliders and the tile size, with its ranges.
    let fields = scene["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 14);
    assert_eq!(fields[0]["name"], "cell_size");
    assert_eq!(fields[0]["label"], "Cell Size");
    assert_eq!(fields[0]["slider"], serde_json::json!([0.1, 1.0, 0.01]));
    assert_eq!(fields[13]["name"], "tile_size");

    // The stages: listed without data, then sent as asked, with the build's counts.
    let (status, body) = v.get("/api/stages");
    assert_eq!(status, 200, "{body}");
    let list: Value = serde_json::from_str(&body).unwrap();
    let names: Vec<&str> = list["layers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "stage.heightfield",
            "stage.walkable",
            "stage.compact",
            "stage.distance",
            "stage.regions",
            "stage.raw_contours",
            "stage.contours",
            "stage.poly_mesh",
            "stage.detail_mesh"
        ]
    );
    let spans = counts["spans"].as_u64().unwrap();
    let compact = counts["compact_spans"].as_u64().unwrap();
    let st = stage_layers(
        &v,
        &["stage.regions", "stage.walkable", "stage.detail_mesh"],
    );
    // A quad (two triangles) per compact span; a box (12 triangles) per walkable span; the
    // detail mesh's triangles are the navmesh's.
    assert_eq!(
        viewer::vertex_count(&st, "stage.regions", None),
        6 * compact
    );
    assert_eq!(
        viewer::vertex_count(&st, "stage.walkable", None),
        36 * spans
    );
    assert_eq!(
        viewer::vertex_count(&st, "stage.detail_mesh", Some("tris")),
        3 * detail_tris
    );
    for e in st["layers"].as_array().unwrap() {
        let n = viewer::entry_positions(e).len() as u64;
        assert_eq!(n, 3 * e["count"].as_u64().unwrap(), "{}", e["name"]);
    }
    // Every span of the heightfield (walkable or not) is 36 vertices, more than one layer may
    // send: only the tops and bottoms come, and the entry says so.
    let hf_spans = list["layers"][0]["vertices"].as_u64().unwrap() / 36;
    assert!(hf_spans > spans, "{hf_spans} spans, {spans} walkable");
    let hf = stage_layers(&v, &["stage.heightfield"]);
    let e = viewer::entries(&hf, "stage.heightfield")[0];
    assert!(
        e["decimated"].as_str().unwrap().contains("horizontal"),
        "{}",
        e["decimated"]
    );
    assert_eq!(e["count"].as_u64().unwrap(), 12 * hf_spans);
}

#[test]
fn every_kind_of_path_and_the_filter() {
    let v = dungeon();
    let body = |filter: &str| {
        format!(r#"{{"start": [20, 12.93, -60], "end": [44, 10.2, 0], "filter": {filter}}}"#)
    };
    let p = v.post_json("/api/path", &body("{}"));
    assert_eq!(p["status"], "complete", "{p}");
    let straight = p["straight"].as_array().unwrap().len() as u64;
    // Each kind is its own layer; the straight path has a segment between corners and a point
    // at each.
    let layers = serde_json::json!({"layers": p["layers"]});
    assert_eq!(
        viewer::vertex_count(&layers, "path.straight", Some("lines")),
        2 * (straight - 1)
    );
    assert_eq!(
        viewer::vertex_count(&layers, "path.straight", Some("points")),
        straight
    );
    let smooth = p["smooth"].as_array().unwrap().len() as u64;
    assert_eq!(
        viewer::vertex_count(&layers, "path.smooth", None),
        2 * (smooth - 1)
    );
    let dash = |name: &str| viewer::entries(&layers, name)[0]["dash"].clone();
    assert_eq!(dash("path.smooth"), "dotted");
    assert_eq!(dash("path.spline"), "dashed");
    assert_eq!(dash("path.grid"), "dotted");
    // The grid path: found, no shorter than the navmesh's straight path less a cell per turn
    // (both keep off walls by the agent radius), and the follower got there on both.
    let grid = &p["grid"];
    assert_eq!(grid["status"], "complete", "{grid}");
    let (g, s) = (
        grid["length_m"].as_f64().unwrap(),
        p["straight_length_m"].as_f64().unwrap(),
    );
    assert!(g > 0.9 * s && g < 1.5 * s, "grid {g} m, straight {s} m");
    assert_eq!(p["follower"]["arrived"], true, "{}", p["follower"]);
    assert_eq!(grid["follower"]["arrived"], true);
    let end = p["follower"]["trajectory"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    let goal = p["goal"].as_array().unwrap();
    let d = (0..3)
        .map(|i| (end[i].as_f64().unwrap() - goal[i].as_f64().unwrap()).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(d < 2.5, "the follower ends {d} m from the goal");

    // Every poly walks: excluding walking leaves no path.
    let none = v.post_json("/api/path", &body(r#"{"exclude_flags": 1}"#));
    assert_eq!(none["status"], "failed", "{none}");
    assert!(none["error"].as_str().unwrap().len() > 5);
    // The dungeon is all ground: doubling its cost doubles nothing but the cost.
    let twice = v.post_json("/api/path", &body(r#"{"area_costs": {"0": 2}}"#));
    assert_eq!(twice["corridor"], p["corridor"]);
    assert_eq!(twice["straight_length_m"], p["straight_length_m"]);
}

#[test]
fn rebuilds_report_stage_timings_and_counts_solo_and_tiled() {
    let v = dungeon();
    let solo = v.post_json("/api/build", r#"{"partition": "monotone"}"#);
    let stages: Vec<&str> = solo["build"]["stages_ms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["stage"].as_str().unwrap())
        .collect();
    assert_eq!(stages.len(), 12, "{stages:?}");
    assert_eq!(stages[0], "rasterize");
    assert_eq!(stages[11], "detour_data");
    assert!(solo["build"]["total_ms"].as_f64().unwrap() > 0.0);
    assert!(solo["build"]["warnings"].is_array());
    assert_eq!(solo["settings"]["partition"], "monotone");
    assert_eq!(
        solo["counts"]["polys"],
        solo["build"]["counts"]["polymesh_polys"]
    );

    let tiled = v.post_json("/api/build", r#"{"mode": "tiled", "tile_size": 32}"#);
    assert_eq!(tiled["settings"]["mode"], "tiled");
    assert_eq!(tiled["build"]["mode"], "tiled");
    let tiles = tiled["counts"]["tiles"].as_u64().unwrap();
    let g = &tiled["build"]["grid"];
    assert_eq!(tiles, g["tiles_non_empty"].as_u64().unwrap());
    assert!(tiles > 1, "{tiled}");
    assert_eq!(
        tiled["counts"]["polys"],
        tiled["build"]["counts"]["polymesh_polys"]
    );
    // The stages of a tiled navmesh are a tile's, and say which.
    let (status, body) = v.get("/api/stages");
    assert_eq!(status, 200);
    assert!(body.contains("the stages of tile ("), "{body}");
}

#[test]
fn the_stages_of_a_tiled_navmesh_are_those_of_the_tile_asked_for() {
    use navkit::build::Budget;
    use navkit::build::tiled::TileGrid;
    use navkit::{BuildSettings, InputGeometry, TileCoord};

    let v = dungeon();
    let built = v.post_json("/api/build", r#"{"mode": "tiled", "tile_size": 32}"#);
    assert_eq!(built["settings"]["cell_size"], 0.3, "{built}");
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    let (bmin, bmax) = geom.mesh.bounds().into();
    let grid = TileGrid::new(bmin, bmax, &settings).unwrap();
    let (nx, nz) = (grid.tiles_x, grid.tiles_z);
    assert_eq!(built["build"]["grid"]["tiles_x"], nx);
    assert_eq!(built["build"]["grid"]["tiles_z"], nz);

    // Without a tile: the centre one.
    let (status, body) = v.get("/api/stages");
    assert_eq!(status, 200, "{body}");
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list["tile"]["x"], nx / 2, "{list}");
    assert_eq!(list["tile"]["z"], nz / 2, "{list}");
    let centre = format!(
        "the stages of tile ({}, {}) of the {nx} x {nz} tiled build",
        nx / 2,
        nz / 2
    );
    assert!(
        list["note"].as_str().unwrap().starts_with(&centre),
        "{list}"
    );

    // Each of a few tiles with polygons: the counts and layers of the library's snapshot.
    let tiled = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let lib = |t: TileCoord| tiled.tile_stages(t, &Budget::default()).unwrap();
    let tiles: Vec<TileCoord> = grid
        .all_tiles()
        .into_iter()
        .filter(|&t| lib(t).data.is_some())
        .step_by(7)
        .take(3)
        .collect();
    assert_eq!(tiles.len(), 3);
    for t in tiles {
        let at = format!("tile {t}");
        let want = lib(t);
        let list = v.post_json("/api/stages", &format!(r#"{{"tile": [{}, {}]}}"#, t.x, t.z));
        let info = &list["tile"];
        assert_eq!(
            (info["x"].as_i64(), info["z"].as_i64()),
            (Some(t.x.into()), Some(t.z.into()))
        );
        for (k, n) in want.counts.named() {
            assert_eq!(info["counts"][k], n, "{at}: {k}");
        }
        assert_eq!(info["has_polys"], true, "{at}");
        assert_eq!(info["border_cells"], want.config.border_size, "{at}");
        let b = grid.tile_bounds(t);
        let corner = |i: usize, j: usize| info["bounds"][i][j].as_f64().unwrap() as f32;
        assert_eq!(
            [corner(0, 0), corner(0, 2), corner(1, 0), corner(1, 2)],
            [b.min.x, b.min.z, b.max.x, b.max.z],
            "{at}"
        );
        let names = [
            "stage.heightfield",
            "stage.walkable",
            "stage.regions",
            "stage.detail_mesh",
        ];
        let st = v.post_json(
            "/api/stages",
            &serde_json::json!({"layers": names, "tile": [t.x, t.z]}).to_string(),
        );
        assert_eq!(st["tile"]["x"], t.x, "{at}");
        let s = &want.stages;
        let walkable = s.heightfield.spans.iter().filter(|p| p.area != 0).count() as u64;
        // A box (12 triangles) per span, a quad per compact span, the detail triangles.
        assert_eq!(
            viewer::vertex_count(&st, "stage.heightfield", None),
            36 * s.heightfield.spans.len() as u64,
            "{at}"
        );
        assert_eq!(
            viewer::vertex_count(&st, "stage.walkable", None),
            36 * walkable,
            "{at}"
        );
        assert_eq!(
            viewer::vertex_count(&st, "stage.regions", None),
            6 * s.compact.spans.len() as u64,
            "{at}"
        );
        assert_eq!(
            viewer::vertex_count(&st, "stage.detail_mesh", Some("tris")),
            3 * s.detail_mesh.tris.len() as u64,
            "{at}"
        );
        // The regions cover the tile and its border: x from the border's minimum.
        let xs: Vec<f32> = viewer::entries(&st, "stage.regions")
            .iter()
            .flat_map(|e| {
                viewer::entry_positions(e)
                    .into_iter()
                    .step_by(3)
                    .collect::<Vec<_>>()
            })
            .collect();
        let lo = xs.iter().copied().fold(f32::INFINITY, f32::min);
        assert!(
            (lo - want.config.bmin[0]).abs() < 1e-3 || lo > want.config.bmin[0],
            "{at}: {lo}"
        );
    }

    // The tile under a point: the centre of tile (1, 2)'s bounds.
    let b = grid.tile_bounds(TileCoord::new(1, 2));
    let mid = (b.min + b.max) * 0.5;
    let list = v.post_json(
        "/api/stages",
        &format!(r#"{{"at": [{}, {}, {}]}}"#, mid.x, mid.y, mid.z),
    );
    assert_eq!(
        (list["tile"]["x"].clone(), list["tile"]["z"].clone()),
        (Value::from(1), Value::from(2))
    );
    // Asked again without a tile: the last one shown.
    let (_, body) = v.get("/api/stages");
    assert!(body.contains("the stages of tile (1, 2)"), "{body}");

    // Bad tiles: 400 with a message, and the server keeps serving.
    let bad = [
        ("tile left of the grid", r#"{"tile": [-1, 0]}"#.to_string()),
        ("tile past the grid", format!(r#"{{"tile": [{nx}, 0]}}"#)),
        ("tile below the grid", format!(r#"{{"tile": [0, {nz}]}}"#)),
        (
            "tile beyond i32",
            r#"{"tile": [2147483648, 0]}"#.to_string(),
        ),
        (
            "huge tile",
            r#"{"tile": [-9223372036854775808, 1e300]}"#.to_string(),
        ),
        ("fractional tile", r#"{"tile": [1.5, 0]}"#.to_string()),
        ("tile as strings", r#"{"tile": ["1", "0"]}"#.to_string()),
        ("one coordinate", r#"{"tile": [1]}"#.to_string()),
        ("three coordinates", r#"{"tile": [1, 0, 0]}"#.to_string()),
        (
            "tile as an object",
            r#"{"tile": {"x": 1, "z": 0}}"#.to_string(),
        ),
        ("null tile", r#"{"tile": null}"#.to_string()),
        ("point outside", r#"{"at": [1e30, 0, 0]}"#.to_string()),
        ("point of two numbers", r#"{"at": [1, 0]}"#.to_string()),
        ("point as a string", r#"{"at": "middle"}"#.to_string()),
        (
            "tile and point",
            r#"{"tile": [0, 0], "at": [0, 0, 0]}"#.to_string(),
        ),
        (
            "layers of a bad tile",
            r#"{"layers": ["stage.regions"], "tile": [0, 99999]}"#.to_string(),
        ),
    ];
    for (what, body) in &bad {
        assert_refused(what, v.post("/api/stages", body), 400);
    }
    assert_eq!(v.get("/api/stages").0, 200);

    // A solo navmesh has no tiles to ask for.
    v.post_json("/api/build", r#"{"mode": "solo"}"#);
    assert_refused(
        "a tile of a solo navmesh",
        v.post("/api/stages", r#"{"tile": [0, 0]}"#),
        400,
    );
    let (status, body) = v.get("/api/stages");
    assert_eq!(status, 200);
    assert!(body.contains("the stages of the solo build"), "{body}");
}

#[test]
fn area_costs_and_flags_change_the_path_through_water() {
    // demo_level.gset marks a water square (area 1, flag swim) at x 8..16, z 4..12.
    let gset = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/demo_level.gset");
    let v = Viewer::start(&gset);
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert!(
        viewer::vertex_count(&scene, "geometry.convex_volumes", None) > 0,
        "the volume is drawn"
    );
    let water_polys = scene["polys"]
        .as_object()
        .unwrap()
        .values()
        .filter(|p| p[0] == 1 && p[1] == 2)
        .count();
    assert!(water_polys > 0, "water polys that swim");
    let ask = |filter: &str| {
        v.post_json(
            "/api/path",
            &format!(r#"{{"start": [6, 0, 8], "end": [18, 0, 8], "filter": {filter}}}"#),
        )
    };
    let length = |p: &Value| p["straight_length_m"].as_f64().unwrap();
    let through = ask(r#"{"area_costs": {"1": 1}}"#);
    let around = ask("{}"); // RecastDemo's water cost, 10
    let no_swim = ask(r#"{"exclude_flags": 2}"#);
    for p in [&through, &around, &no_swim] {
        assert_eq!(p["status"], "complete", "{p}");
    }
    // Straight through is the 12 m between the points.
    assert!((length(&through) - 12.0).abs() < 0.1, "{through}");
    assert!(length(&around) > 13.0, "{around}");
    assert!(length(&no_swim) > 13.0, "{no_swim}");
    // Excluding swimming is navkit path --exclude 2.
    let out = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(["path", &gset.display().to_string(), "--json"])
        .args(["--from=6,0,8", "--to=18,0,8", "--exclude=2"])
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(no_swim["straight_length_m"], cli["straight_length_m"]);
    // The grid path pays the same costs: through the water only when it is cheap.
    let g = |p: &Value| p["grid"]["length_m"].as_f64().unwrap();
    assert!(
        g(&through) < g(&around),
        "{} vs {}",
        g(&through),
        g(&around)
    );
}

#[test]
fn the_stages_of_a_big_heightfield_are_refused_saying_why() {
    let v = dungeon();
    // 0.08 m cells: 14 times the cells of the default, about 730,000 spans (330,000 walkable).
    let built = v.post_json("/api/build", r#"{"cell_size": 0.08}"#);
    assert!(built["build"]["counts"]["spans"].as_u64().unwrap() > 300_000);
    let (status, body) = v.get("/api/stages");
    assert_eq!(status, 422, "{body}");
    assert!(body.contains("spans, more than the 400000"), "{body}");
    assert_refused(
        "stages of a big heightfield",
        v.post("/api/stages", r#"{"layers": ["stage.regions"]}"#),
        422,
    );
    // Back to a coarser cell, the stages come.
    v.post_json("/api/build", r#"{"cell_size": 0.3}"#);
    assert_eq!(v.get("/api/stages").0, 200);
}

#[test]
fn a_saved_navmesh_is_shown_and_queried_but_not_rebuilt() {
    let file = common::temp("view-saved-dungeon.bin");
    let out = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(["build", "--tiled", "-o"])
        .arg(&file)
        .arg(common::mesh("dungeon.obj"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = Viewer::start(&file);
    let (status, body) = v.get("/api/layers");
    assert_eq!(status, 200);
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(scene["can_rebuild"], false);
    assert!(viewer::entries(&scene, "geometry.mesh").is_empty());
    let tiles = scene["counts"]["tiles"].as_u64().unwrap();
    assert!(tiles > 1, "a tiled navmesh: {tiles} tiles");
    // Tile bounds: 12 edges each.
    assert_eq!(
        viewer::vertex_count(&scene, "navmesh.tiles", None),
        24 * tiles
    );
    assert_eq!(
        viewer::vertex_count(&scene, "navmesh.polys", Some("tris")),
        3 * scene["counts"]["detail_tris"].as_u64().unwrap()
    );
    assert_refused(
        "rebuild",
        v.post("/api/build", r#"{"cell_size": 0.4}"#),
        422,
    );
    assert_refused("stages", v.get("/api/stages"), 422);
    assert_refused("grid", v.get("/api/grid"), 422);
    // Paths on the navmesh; no grid without geometry, saying so.
    let p = v.post_json(
        "/api/path",
        r#"{"start": [20, 12.93, -60], "end": [44, 10.2, 0]}"#,
    );
    assert_eq!(p["status"], "complete", "{p}");
    assert_eq!(p["grid"]["status"], "failed");
    assert!(
        p["grid"]["error"].as_str().unwrap().contains("geometry"),
        "{}",
        p["grid"]
    );
    assert_eq!(p["follower"]["arrived"], true);
}

#[test]
fn how_a_path_was_found_search_nodes_grid_search_turn_boundaries_and_grid_cells() {
    use glam::Vec3;

    use navkit::grid::{SearchContext, SearchOptions};
    use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
    use navkit::tools::compare::{CompareSettings, Comparer};

    let v = dungeon();
    let (start, end) = (Vec3::new(20.0, 12.93, -60.0), Vec3::new(44.0, 10.2, 0.0));
    let p = v.post_json(
        "/api/path",
        r#"{"start": [20, 12.93, -60], "end": [44, 10.2, 0]}"#,
    );
    assert_eq!(p["status"], "complete", "{p}");
    let layers = serde_json::json!({"layers": p["layers"]});
    // The same level, built and searched here with the library.
    let geom = navkit::InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let settings = geom.settings.clone().unwrap_or_default();
    let nav = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .solo()
        .unwrap()
        .into_navmesh();
    let filter = QueryFilter::default();

    // Detour's search nodes after findPath: a point per node, 0.5 above where the search
    // entered its poly, in pool order; a parent link per node but the start.
    let mut q = NavMeshQuery::new(&nav, 2048).unwrap();
    let path = q
        .path(start, end, &filter, &PathOptions::corridor_only())
        .unwrap()
        .corridor;
    assert_eq!(p["corridor"].as_array().unwrap().len(), path.polys.len());
    let nodes = q.search_nodes();
    assert!(nodes.len() > path.polys.len(), "{} nodes", nodes.len());
    let closed = nodes.iter().filter(|n| n.closed).count();
    assert_eq!(p["search_nodes"]["count"], nodes.len());
    assert_eq!(p["search_nodes"]["closed"], closed);
    assert_eq!(p["search_nodes"]["open"], nodes.len() - closed);
    let name = "path.search_nodes";
    assert_eq!(
        viewer::vertex_count(&layers, name, Some("points")),
        nodes.len() as u64
    );
    let links = nodes.iter().filter(|n| n.parent.is_some()).count() as u64;
    assert_eq!(links, nodes.len() as u64 - 1, "one start node");
    assert_eq!(
        viewer::vertex_count(&layers, name, Some("lines")),
        2 * links
    );
    let pts = viewer::entry_positions(
        viewer::entries(&layers, name)
            .into_iter()
            .find(|e| e["kind"] == "points")
            .unwrap(),
    );
    for (n, xyz) in nodes.iter().zip(pts.chunks_exact(3)) {
        assert_eq!(Vec3::from_slice(xyz), n.pos + Vec3::Y * 0.5);
    }

    // The grid A*'s search: a point per cell it reached, a line to each one's parent.
    let mut grid = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .grid()
        .unwrap();
    grid.set_area_costs(&filter);
    let mut ctx = SearchContext::new();
    let gp = grid
        .find_path(&mut ctx, start, end, &SearchOptions::default())
        .unwrap();
    let visited = ctx.visited().count();
    let expanded = ctx.visited().filter(|v| v.closed).count();
    assert_eq!(expanded, gp.result.expanded as usize);
    assert_eq!(p["grid"]["expanded"], gp.result.expanded);
    assert_eq!(p["grid"]["search"]["visited"], visited);
    assert_eq!(p["grid"]["search"]["closed"], expanded);
    assert_eq!(
        viewer::vertex_count(&layers, "grid.search", Some("points")),
        visited as u64
    );
    assert_eq!(
        viewer::vertex_count(&layers, "grid.search", Some("lines")),
        2 * (visited as u64 - 1)
    );

    // The followers' turn boundaries (straight path, then grid path): a line and a look point
    // each.
    let c = Comparer::new(&nav, Some(&grid), CompareSettings::default())
        .unwrap()
        .compare(start, end)
        .unwrap();
    let n = c.navmesh.unwrap().follower.unwrap().path.boundaries.len()
        + c.grid.unwrap().follower.unwrap().path.boundaries.len();
    assert!(n >= 4, "{n} boundaries");
    let b = "follower.boundaries";
    assert_eq!(
        viewer::vertex_count(&layers, b, Some("lines")),
        2 * n as u64
    );
    assert_eq!(viewer::vertex_count(&layers, b, Some("points")), n as u64);

    // These three are off by default; the paths themselves on.
    for name in [name, "grid.search", b] {
        for e in viewer::entries(&layers, name) {
            assert_eq!(e["shown"], false, "{name}");
        }
    }
    assert_eq!(viewer::entries(&layers, "path.straight")[0]["shown"], true);

    // The grid's cells: a quad (2 triangles) per walkable span, and per blocked one, off by
    // default.
    let (status, body) = v.get("/api/grid");
    assert_eq!(status, 200, "{body}");
    let g: Value = serde_json::from_str(&body).unwrap();
    let walkable = grid.walkable_count();
    let blocked = grid.spans().spans.len() - walkable;
    assert!(
        blocked > 0 && walkable > 1000,
        "{walkable} walkable, {blocked} blocked"
    );
    assert_eq!(g["walkable"], walkable);
    assert_eq!(g["blocked"], blocked);
    assert_eq!(
        viewer::vertex_count(&g, "grid.cells", Some("tris")),
        6 * walkable as u64
    );
    assert_eq!(
        viewer::vertex_count(&g, "grid.blocked", Some("tris")),
        6 * blocked as u64
    );
    for e in g["layers"].as_array().unwrap() {
        assert_eq!(e["shown"], false);
    }
    assert_refused("POST /api/grid", v.post("/api/grid", "{}"), 405);
}
