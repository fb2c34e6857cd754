//! `navkit view`'s server against malformed, oversized, hostile and concurrent requests: every
//! request is answered (a 4xx with a message where it is bad), and the server keeps serving.

mod common;
#[path = "common/viewer.rs"]
mod viewer;

use std::io::Write;
use std::net::TcpStream;
use std::process::Command;

use serde_json::Value;
use viewer::Viewer;

fn dungeon() -> Viewer {
    Viewer::start(&common::mesh("dungeon.obj"))
}

/// A 4xx whose body is `{"error": {"status", "message"}}` with a message.
fn assert_refused(what: &str, (status, body): (u16, String), expected: u16) {
    assert_eq!(status, expected, "{what}: {body}");
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
    let message = v["error"]["message"].as_str().unwrap_or("");
    assert!(message.len() > 10, "{what}: a message: {body}");
    assert_eq!(v["error"]["status"], expected, "{what}");
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
        v.raw(b"DELETE /api/path HTTP/1.1\r\n\r\n"),
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
    let nav = scene["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "navmesh")
        .expect("a navmesh layer");
    let pos: Vec<f64> = nav["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
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
