//! `navkit view` under abuse (issue 20, finding 6), each reproduction refused: a request that a
//! page of another site (or a name rebound to 127.0.0.1) can send changes and reads nothing
//! (no token, a foreign `Host`, a foreign `Origin`, a text/plain POST), a save never lands on a
//! file that is not navkit's (a text file, the level viewed, `.git/config`), slow clients
//! cannot take every slot or stall the listener, and a long build leaves the viewer answering
//! (it is shown in flight and the next build replaces it).

mod common;
#[path = "common/viewer.rs"]
mod viewer;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use serde_json::Value;
use viewer::{Viewer, assert_refused};

/// The server's whole-request deadline (`REQUEST_DEADLINE` in src/bin/navkit/view/http.rs).
const REQUEST_DEADLINE: Duration = Duration::from_secs(5);

/// A request with `headers` (each line ending in CRLF) and a body, as raw bytes.
fn request(method: &str, path: &str, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "{method} {path} HTTP/1.1\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// The scene's settings (`/api/layers`), to see that a refused request changed nothing.
fn settings(v: &Viewer) -> Value {
    let (status, body) = v.get("/api/layers");
    assert_eq!(status, 200, "{body}");
    serde_json::from_str::<Value>(&body).unwrap()["settings"].clone()
}

#[test]
fn without_the_token_of_the_printed_url_nothing_is_answered_but_a_note() {
    let v = Viewer::start(&common::mesh("dungeon.obj"));
    // 128 bits in hex (src/bin/navkit/view/mod.rs, new_token).
    assert_eq!(v.token.len(), 32, "{}", v.url);
    assert!(v.token.bytes().all(|b| b.is_ascii_hexdigit()), "{}", v.url);
    let host = format!("Host: {}\r\n", v.addr);
    let json = "Content-Type: application/json\r\n";
    let before = settings(&v);

    // The API without a token, or with another one of the same length: 403.
    for token in ["", "X-Navkit-Token: 00000000000000000000000000000000\r\n"] {
        let h = format!("{host}{token}");
        assert_refused("layers", v.raw(&request("GET", "/api/layers", &h, "")), 403);
        assert_refused(
            "save",
            v.raw(&request(
                "POST",
                "/api/save",
                &format!("{h}{json}"),
                r#"{"what": "scenario", "path": "target/view-artifacts/no-token.json"}"#,
            )),
            403,
        );
        assert_refused(
            "build",
            v.raw(&request(
                "POST",
                "/api/build",
                &format!("{h}{json}"),
                r#"{"cell_size": 0.05}"#,
            )),
            403,
        );
        assert_refused(
            "navmesh download",
            v.raw(&request("GET", "/api/navmesh.mset", &h, "")),
            403,
        );
    }
    assert!(
        !Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("target/view-artifacts/no-token.json")
            .exists()
    );
    assert_eq!(settings(&v), before, "the refused build changed nothing");

    // The page without it: a note saying where the token is, not the page.
    let (status, note) = v.raw(&request("GET", "/", &host, ""));
    assert_eq!(status, 403, "{note}");
    assert!(
        note.contains("token") && !note.contains("<canvas"),
        "{note}"
    );
    // With it, in the URL as printed (the page reads it there) or in the header: answered.
    let (status, page) = v.raw(&request("GET", &format!("/?token={}", v.token), &host, ""));
    assert_eq!(status, 200);
    assert!(page.contains("<canvas") && page.contains("X-Navkit-Token"));
    let (status, _) = v.raw(&request(
        "GET",
        &format!("/api/layers?token={}", v.token),
        &host,
        "",
    ));
    assert_eq!(status, 200, "the token as a query parameter");
    // The page's script holds no data: served without it.
    assert_eq!(v.raw(&request("GET", "/dynamic.js", &host, "")).0, 200);
}

#[test]
fn a_foreign_host_or_origin_and_a_post_that_is_not_json_change_nothing() {
    let v = Viewer::start(&common::mesh("dungeon.obj"));
    let token = format!("X-Navkit-Token: {}\r\n", v.token);
    let json = "Content-Type: application/json\r\n";
    let port = v.addr.port();
    let before = settings(&v);
    let build = r#"{"cell_size": 0.05}"#;

    // The finding: a cross-origin build at cell size 0.05, as a page of another site sends it
    // (no token, text/plain needs no preflight), or with every other header right.
    let finding = format!(
        "Host: {}\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\n",
        v.addr
    );
    assert_refused(
        "the finding's build",
        v.raw(&request("POST", "/api/build", &finding, build)),
        403,
    );

    // A name rebound to 127.0.0.1 (DNS rebinding), another port, no Host: refused.
    for host in [
        format!("evil.example:{port}"),
        "evil.example".to_string(),
        format!("127.0.0.1:{}", port.wrapping_add(1)),
        format!("localhost.evil.example:{port}"),
        format!("127.0.0.1:{port}@evil.example"),
        format!("10.1.2.3:{port}"),
    ] {
        let h = format!("Host: {host}\r\n{token}{json}");
        assert_refused(&host, v.raw(&request("POST", "/api/build", &h, build)), 403);
        assert_refused(&host, v.raw(&request("GET", "/api/layers", &h, "")), 403);
    }
    assert_refused(
        "no Host",
        v.raw(&request(
            "POST",
            "/api/build",
            &format!("{token}{json}"),
            build,
        )),
        400,
    );

    // Another origin, with the right Host and token: refused (a browser sends Origin).
    let host = format!("Host: {}\r\n", v.addr);
    for origin in [
        "http://evil.example".to_string(),
        "null".to_string(),
        format!("https://127.0.0.1:{port}"),
        format!("http://evil.example:{port}"),
    ] {
        let h = format!("{host}{token}{json}Origin: {origin}\r\n");
        assert_refused(
            &origin,
            v.raw(&request("POST", "/api/build", &h, build)),
            403,
        );
    }

    // Not JSON: text/plain, a form, none at all (the requests a page may send unasked): 415.
    for ct in [
        "Content-Type: text/plain\r\n",
        "Content-Type: application/x-www-form-urlencoded\r\n",
        "Content-Type: multipart/form-data; boundary=x\r\n",
        "",
    ] {
        let h = format!("{host}{token}{ct}");
        assert_refused(ct, v.raw(&request("POST", "/api/build", &h, build)), 415);
    }
    assert_eq!(settings(&v), before, "nothing was built");

    // The page's own requests: its Host under any of its names, its own Origin, JSON.
    for (name, origin) in [
        (v.addr.to_string(), format!("http://{}", v.addr)),
        (
            format!("localhost:{port}"),
            format!("http://localhost:{port}"),
        ),
        (format!("[::1]:{port}"), format!("http://[::1]:{port}")),
    ] {
        let h = format!(
            "Host: {name}\r\n{token}Origin: {origin}\r\nContent-Type: application/json; charset=utf-8\r\n"
        );
        let (status, body) = v.raw(&request(
            "POST",
            "/api/path",
            &h,
            r#"{"start": [0,0,0], "end": [1,0,1]}"#,
        ));
        assert_eq!(status, 200, "{name}: {body}");
    }
}

/// A folder for a viewer's saves: the level viewed (`level.bin`, RecastDemo's navmesh, and a
/// hard link to it), a text file, a `.git/config`, a JSON file that is not a scenario, a text
/// file named like a navmesh, a navmesh and a scenario that may be saved over.
fn save_folder() -> PathBuf {
    let dir = common::temp("view-abuse-saves");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let mset = common::shared().join("meshes/recastdemo-files/dungeon_all_tiles_navmesh.bin");
    std::fs::copy(&mset, dir.join("level.bin")).unwrap();
    std::fs::hard_link(dir.join("level.bin"), dir.join("level-link.bin")).unwrap();
    std::fs::copy(&mset, dir.join("old.bin")).unwrap();
    std::fs::write(dir.join("notes.txt"), "my notes\n").unwrap();
    std::fs::write(dir.join(".git/config"), "[core]\n\tbare = false\n").unwrap();
    std::fs::write(dir.join("package.json"), "{\"name\": \"x\"}\n").unwrap();
    std::fs::write(dir.join("notes.bin"), "not a navmesh\n").unwrap();
    std::fs::write(dir.join("old.json"), "{}\n").unwrap();
    std::os::unix::fs::symlink(dir.join("old.bin"), dir.join("link.bin")).unwrap();
    dir
}

#[test]
fn saves_never_land_on_a_text_file_the_level_or_git_config() {
    let dir = save_folder();
    let v = Viewer::start_in(&dir.join("level.bin"), &dir, &[]);
    let snapshot = |name: &str| std::fs::read(dir.join(name)).unwrap();
    let kept = [
        "level.bin",
        "notes.txt",
        ".git/config",
        "package.json",
        "notes.bin",
        "old.bin",
    ]
    .map(|n| (n, snapshot(n)));

    // The finding's request, as a page of another site sends it: refused.
    let evil = format!(
        "Host: {}\r\nOrigin: http://evil.example\r\nContent-Type: text/plain\r\n",
        v.addr
    );
    let (status, _) = v.raw(&request(
        "POST",
        "/api/save",
        &evil,
        r#"{"what": "scenario", "path": "notes.txt"}"#,
    ));
    assert_eq!(status, 403);

    // The page's own saves that would lose a file: refused, whatever the kind.
    let refused = [
        ("a text file", "scenario", "notes.txt"),
        ("the level viewed", "navmesh", "level.bin"),
        ("the level by another name", "navmesh", "level-link.bin"),
        ("git's config", "scenario", ".git/config"),
        ("inside .git", "scenario", ".git/x.json"),
        ("inside .git by ./", "navmesh", "./.git/objects.bin"),
        ("a hidden file", "scenario", ".scenario.json"),
        ("JSON that is not a scenario", "scenario", "package.json"),
        ("a text file named .bin", "navmesh", "notes.bin"),
        ("a navmesh as a scenario", "scenario", "old.bin"),
        ("a navmesh over a scenario", "navmesh", "old.json"),
        ("a link", "navmesh", "link.bin"),
        ("another extension", "navmesh", "sub/x.txt"),
        ("no extension", "scenario", "sub/scenario"),
    ];
    for (what, kind, path) in refused {
        let body = format!(r#"{{"what": "{kind}", "path": "{path}"}}"#);
        assert_refused(what, v.post("/api/save", &body), 400);
    }
    for (name, bytes) in &kept {
        assert_eq!(&snapshot(name), bytes, "{name} unchanged");
    }
    assert!(!dir.join(".git/x.json").exists() && !dir.join("sub/x.txt").exists());
    assert!(
        std::fs::symlink_metadata(dir.join("link.bin"))
            .unwrap()
            .is_symlink()
    );

    // What may be saved: a new file of each kind, a navmesh over a navmesh, a scenario over a
    // scenario.
    for (kind, path) in [
        ("navmesh", "sub/new.navmesh"),
        ("navmesh", "old.bin"),
        ("scenario", "old.json"),
        ("scenario", "sub/new.json"),
    ] {
        let body = format!(r#"{{"what": "{kind}", "path": "{path}"}}"#);
        let saved = v.post_json("/api/save", &body);
        assert_eq!(saved["what"], kind);
    }
    let nav = navkit::navmesh::NavMesh::load(dir.join("sub/new.navmesh")).unwrap();
    assert_eq!(
        nav.tile_count(),
        navkit::navmesh::NavMesh::load(dir.join("level.bin"))
            .unwrap()
            .tile_count()
    );
    navkit::tools::simulation::Scenario::load(dir.join("old.json")).unwrap();
}

/// A client that sends a request a byte every 200 ms until the server stops it or `stop`.
fn trickle(v: &Viewer, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    let mut s = TcpStream::connect(v.addr).unwrap();
    let head = format!("GET /api/layers HTTP/1.1\r\n{}X-Slow: ", v.auth());
    s.write_all(head.as_bytes()).unwrap();
    std::thread::spawn(move || {
        while !stop.load(Ordering::SeqCst) {
            if s.write_all(b"a").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
    })
}

#[test]
fn slow_clients_take_no_slot_for_long_and_never_stall_the_listener() {
    let v = Viewer::start(&common::mesh("dungeon.obj"));
    let stop = Arc::new(AtomicBool::new(false));
    // As many trickling clients as the server serves at once (MAX_CONNECTIONS in
    // src/bin/navkit/view/http.rs), and one more, which used to stall the listening thread.
    let slow: Vec<_> = (0..65).map(|_| trickle(&v, Arc::clone(&stop))).collect();
    // All of them connected and sending (a pause so the server has accepted them).
    std::thread::sleep(Duration::from_millis(500));

    // A normal request is answered: once the slow ones' deadline has passed at the latest.
    let mut s = TcpStream::connect(v.addr).unwrap();
    s.set_read_timeout(Some(REQUEST_DEADLINE * 3)).unwrap();
    s.write_all(format!("GET /api/layers HTTP/1.1\r\n{}\r\n", v.auth()).as_bytes())
        .unwrap();
    let mut answer = Vec::new();
    let _ = s.read_to_end(&mut answer);
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "answered within 3 deadlines while 65 clients trickle: {}",
        answer.lines().next().unwrap_or("(nothing)")
    );
    // And the page too, while they still trickle.
    assert_eq!(v.get("/").0, 200);
    stop.store(true, Ordering::SeqCst);
    for t in slow {
        t.join().unwrap();
    }
}

/// The scene (`/api/layers`) once it shows a build in flight, polled while `request` (the one
/// that started it) runs: it is answered while the build runs, and says so.
fn seen_in_flight(v: &Viewer, request: &std::thread::JoinHandle<(u16, String)>) -> Value {
    loop {
        let (status, body) = v.get("/api/layers");
        assert_eq!(status, 200);
        let scene: Value = serde_json::from_str(&body).unwrap();
        if !scene["building"].is_null() {
            return scene;
        }
        assert!(
            !request.is_finished(),
            "the build ended before it was seen in flight"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// While `building` (as `/api/layers` showed it) runs: a path on dungeon.obj and the dynamic
/// state are answered, and it is still the build in flight after them. Returns the dynamic
/// state.
fn answered_meanwhile(v: &Viewer, building: &Value) -> Value {
    // Two points of dungeon.obj's upper floor joined at cell size 0.3 (RecastDemo's default).
    let p = v.post_json(
        "/api/path",
        r#"{"start": [22.6, 10.2, -45.6], "end": [44.0, 10.2, 0.0]}"#,
    );
    assert!(
        p["straight"].as_array().is_some_and(|a| a.len() >= 2),
        "{p}"
    );
    let (status, dynamic) = v.get("/api/dynamic");
    assert_eq!(status, 200);
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(scene["building"]["id"], building["id"], "still in flight");
    serde_json::from_str(&dynamic).unwrap()
}

#[test]
fn a_long_build_leaves_the_viewer_answering_and_the_next_build_replaces_it() {
    let v = Arc::new(Viewer::start(&common::mesh("dungeon.obj")));
    // A tiled build of dungeon.obj at cell size 0.015 (within the viewer's limits of 50M
    // cells and 60 s): 4,000 tiles, about 20 s on two loaded cores; each tile checks its token.
    let slow = r#"{"cell_size": 0.015, "mode": "tiled"}"#;
    let first = {
        let v = Arc::clone(&v);
        std::thread::spawn(move || v.post("/api/build", slow))
    };
    let scene = seen_in_flight(&v, &first);
    // The navmesh shown is still the one before the build.
    assert_eq!(scene["settings"]["mode"], "solo");
    let building = &scene["building"];
    assert_eq!(building["kind"], "navmesh", "{building}");
    assert_eq!(building["settings"]["cell_size"], 0.015, "{building}");
    // A path and the dynamic state are answered from the current navmesh meanwhile.
    answered_meanwhile(&v, building);

    // The next build cancels and replaces it: the first answers 409, the second its result.
    let second = v.post_json("/api/build", r#"{"cell_size": 0.25, "mode": "solo"}"#);
    assert_eq!(second["settings"]["cell_size"], 0.25);
    assert_refused("the replaced build", first.join().unwrap(), 409);
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert!(scene["building"].is_null(), "none in flight");
    assert_eq!(scene["settings"]["cell_size"], 0.25);
    assert_eq!(scene["counts"], second["counts"]);
}

/// A cell size whose tile cache of 8-cell tiles is slow and whose solo navmesh is not: on
/// dungeon.obj (74.3 x 98.9 m), 310 x 413 tile positions; measured on two loaded cores, the
/// navmesh 1.1 s and the tile cache 9.7 s (0.5 s and 0.1 s at cell size 0.1).
const SLOW_CELL: f64 = 0.03;

/// A cylinder on dungeon.obj's upper floor, in the corridor the path of [`answered_meanwhile`]
/// takes (it goes round it: the path stays complete, measured).
const OBSTACLE: &str =
    r#"{"kind": "cylinder", "pos": [2.5, 9.7, -20.0], "radius": 1.0, "height": 2.0}"#;

#[test]
fn tile_cache_builds_leave_the_viewer_answering_and_the_next_build_replaces_them() {
    let v = Arc::new(Viewer::start(&common::mesh("dungeon.obj")));
    // Dynamic mode with tiles of 8 cells at cell size 0.3 (quick), an obstacle in it.
    let on = v.post_json("/api/dynamic", r#"{"enabled": true, "tile_size": 8}"#);
    assert_eq!(on["dynamic"], true);
    v.post_json("/api/obstacles/add", OBSTACLE);
    // A rebuild at cell size SLOW_CELL in dynamic mode: a quick solo navmesh, then its slow
    // tile cache of 8-cell tiles, each tile checking the build's token.
    let slow = format!(r#"{{"cell_size": {SLOW_CELL}}}"#);
    let first = {
        let (v, slow) = (Arc::clone(&v), slow.clone());
        std::thread::spawn(move || v.post("/api/build", &slow))
    };
    let scene = seen_in_flight(&v, &first);
    let building = &scene["building"];
    assert_eq!(building["kind"], "navmesh", "{building}");
    assert_eq!(building["settings"]["cell_size"], SLOW_CELL, "{building}");
    let dynamic = answered_meanwhile(&v, building);
    assert_eq!(
        dynamic["dynamic"], true,
        "the tile cache before the build is served"
    );
    assert_eq!(dynamic["obstacles"].as_array().map(Vec::len), Some(1));
    // The next build replaces it: the first answers 409, the second made dynamic mode again
    // with the obstacle carried over.
    let second = v.post_json("/api/build", r#"{"cell_size": 0.3}"#);
    assert_refused("the replaced build", first.join().unwrap(), 409);
    assert_eq!(second["dynamic"]["dynamic"], true, "{}", second["dynamic"]);
    assert_eq!(second["dynamic"]["obstacles"], 1);

    // Out of dynamic mode, at cell size SLOW_CELL (a quick solo build): the first obstacle
    // enters dynamic mode again, its tile cache (8-cell tiles kept) built off the lock.
    let off = v.post_json("/api/dynamic", r#"{"enabled": false}"#);
    assert_eq!(off["dynamic"], false);
    v.post_json("/api/build", &slow);
    let first = {
        let v = Arc::clone(&v);
        std::thread::spawn(move || v.post("/api/obstacles/add", OBSTACLE))
    };
    let scene = seen_in_flight(&v, &first);
    let building = &scene["building"];
    assert_eq!(building["kind"], "tile_cache", "{building}");
    assert_eq!(building["settings"]["tile_size"], 8, "{building}");
    let dynamic = answered_meanwhile(&v, building);
    assert_eq!(
        dynamic["dynamic"], false,
        "not in dynamic mode until it is built"
    );
    // Leaving dynamic mode cancels it: the obstacle is refused with 409, nothing changed.
    let off = v.post_json("/api/dynamic", r#"{"enabled": false}"#);
    assert_eq!(off["dynamic"], false);
    assert_refused("the cancelled obstacle", first.join().unwrap(), 409);
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    assert!(scene["building"].is_null(), "none in flight");
    let (_, body) = v.get("/api/dynamic");
    let dynamic: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(dynamic["dynamic"], false);
    assert_eq!(dynamic["obstacles"].as_array().map(Vec::len), Some(0));
}
