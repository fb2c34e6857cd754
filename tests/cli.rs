//! The `navkit` command line, end to end: JSON keys, batch mode, test cases, the demo, errors.

#[path = "common/cli.rs"]
mod cli_run;
mod common;
use cli_run::navkit_in;

use navkit::build::Stage;
use navkit::navmesh::mset::{RefWidth, tile_record_size};

use serde_json::Value;

fn navkit(args: &[&str]) -> (bool, String, String) {
    let (code, stdout, stderr) = navkit_code(args);
    (code == 0, stdout, stderr)
}

/// The exit code (documented: 0 success, 1 error, 2 usage, 3 partial or failed path), stdout
/// and stderr.
fn navkit_code(args: &[&str]) -> (i32, String, String) {
    navkit_in(env!("CARGO_MANIFEST_DIR"), args)
}

fn s(p: &std::path::Path) -> String {
    p.display().to_string()
}

#[test]
fn build_json_has_the_documented_keys_and_saves() {
    let out_file = common::temp("cli-dungeon.navmesh");
    let mesh = s(&common::mesh("dungeon.obj"));
    let (ok, stdout, stderr) = navkit(&["build", &mesh, "--json", "-o", &s(&out_file)]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    for key in [
        "grid",
        "polymesh_verts",
        "polymesh_polys",
        "detail_verts",
        "detail_tris",
        "navmesh_bytes",
        "timings_ms",
        "warnings",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    for key in [
        "bmin",
        "bmax",
        "cell_size_m",
        "cell_height_m",
        "cells_x",
        "cells_z",
    ] {
        assert!(v["grid"].get(key).is_some(), "missing grid.{key}: {v}");
    }
    assert_eq!(v["grid"]["bmin"].as_array().unwrap().len(), 3);
    assert_eq!(v["polymesh_verts"], 223);
    assert_eq!(v["polymesh_polys"], 118);
    assert_eq!(v["detail_verts"], 513);
    assert_eq!(v["detail_tris"], 291);
    assert!(v["timings_ms"]["rasterize"].as_f64().unwrap() > 0.0);
    assert_eq!(
        std::fs::metadata(&out_file).unwrap().len() as u64,
        40 + tile_record_size(RefWidth::NATIVE) as u64 + v["navmesh_bytes"].as_u64().unwrap()
    );

    for p in ["watershed", "monotone", "layers"] {
        let (ok, stdout, stderr) = navkit(&["build", &mesh, "--json", "--partition", p]);
        assert!(ok, "{p}: {stderr}");
        let v: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert!(v["polymesh_polys"].as_u64().unwrap() > 50);
    }
}

#[test]
fn path_json_single_and_batch() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let (ok, stdout, stderr) = navkit(&[
        "path",
        &mesh,
        "--from",
        "18.13855,-2.370003,-21.319118",
        "--to",
        "-19.20618,-2.369133,24.802742",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    for key in [
        "status",
        "start_ref",
        "goal_ref",
        "polys",
        "straight",
        "smooth",
        "smooth_stuck",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["status"], "complete");
    assert_eq!(v["smooth_stuck"], false);
    assert!(v["straight"].as_array().unwrap().len() >= 2);
    assert_eq!(v["straight"][0].as_array().unwrap().len(), 3);

    // Batch: one object per line; an unreachable goal is partial, a point off the mesh failed.
    let batch = common::temp("batch.txt");
    std::fs::write(
        &batch,
        "18.13855 -2.370003 -21.319118 -19.20618 -2.369133 24.802742\n\
         # a comment\n\
         20.161 -2.27 -18.1 -0.629 8.33 -7.66\n\
         1000 0 1000 0 0 0\n",
    )
    .unwrap();
    // A partial or failed path makes exit code 3 (the lines are printed all the same).
    let (code, stdout, stderr) = navkit_code(&["path", &mesh, "--batch", &s(&batch)]);
    assert_eq!(code, 3, "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["status"], "complete");
    assert_eq!(lines[1]["status"], "partial");
    assert_eq!(lines[2]["status"], "failed");

    // A saved navmesh answers the same.
    let saved = common::temp("cli-nav_test.navmesh");
    assert!(navkit(&["build", &mesh, "-o", &s(&saved)]).0);
    let (code, stdout2, _) = navkit_code(&["path", &s(&saved), "--batch", &s(&batch)]);
    assert_eq!(code, 3);
    assert_eq!(stdout, stdout2);

    // Flags: excluding walking leaves nothing to stand on.
    let (_, stdout, _) = navkit(&[
        "path",
        &mesh,
        "--from",
        "18.13855,-2.370003,-21.319118",
        "--to",
        "-19.20618,-2.369133,24.802742",
        "--include",
        "0x2",
        "--json",
    ]);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "failed");
}

#[test]
fn testcase_and_demo_run() {
    let tc = s(&common::shared().join("meshes/recastdemo/nav_mesh_test.txt"));
    let (ok, stdout, stderr) = navkit(&["testcase", &tc]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("Test Results:"));
    assert!(stdout.contains("- poly:"));
    assert!(!stdout.contains("PARTIAL"), "{stdout}");
    let (ok, stdout, _) = navkit(&["testcase", &tc, "--json"]);
    assert!(ok);
    assert!(stdout.lines().count() >= 18);

    let (ok, stdout, stderr) = navkit(&["demo"]);
    assert!(ok, "{stderr}");
    assert!(stdout.contains("1 off-mesh jumps"), "{stdout}");
    assert!(stdout.contains("Path:      complete"), "{stdout}");
}

#[test]
fn errors_exit_nonzero_with_a_message() {
    let (ok, _, stderr) = navkit(&["build", "nowhere.obj"]);
    assert!(!ok);
    assert!(stderr.contains("nowhere.obj"), "{stderr}");
    let bad = common::temp("garbage.navmesh");
    std::fs::write(&bad, b"MSETgarbage").unwrap();
    let (ok, _, stderr) = navkit(&["path", &s(&bad), "--from", "0,0,0", "--to", "1,1,1"]);
    assert!(!ok);
    assert!(stderr.contains("invalid navmesh data"), "{stderr}");
    let (ok, _, _) = navkit(&["path", &s(&bad), "--from", "nan,0,0", "--to", "1,1,1"]);
    assert!(!ok);
    let (ok, _, stderr) = navkit(&[
        "build",
        &s(&common::mesh("dungeon.obj")),
        "--partition",
        "voronoi",
    ]);
    assert!(!ok);
    assert!(stderr.contains("voronoi"), "{stderr}");
}

#[test]
fn render_writes_png_and_svg() {
    let png = common::temp("demo.png");
    let svg = common::temp("demo.svg");
    for out in [&png, &svg] {
        let (ok, _, stderr) = navkit(&[
            "render",
            "meshes/demo_level.gset",
            "--from",
            "2,0,2",
            "--to",
            "33,2.5,6",
            "-o",
            &s(out),
            "--width",
            "800",
        ]);
        assert!(ok, "{stderr}");
    }
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    assert_eq!(width, 800);
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.matches("<polygon").count() > 20);
    // One path kind by default: the straight path, with start and goal.
    assert!(text.contains("navmesh straight path") && text.contains("start (2.00"));
    assert!(!text.contains("smooth path") && !text.contains("follower"));
    assert!(
        text.contains("off-mesh links (1;"),
        "the demo level's jump is drawn and listed"
    );
    // --paths all: every kind.
    let (ok, _, stderr) = navkit(&[
        "render",
        "meshes/demo_level.gset",
        "--from",
        "2,0,2",
        "--to",
        "33,2.5,6",
        "--paths",
        "all",
        "-o",
        &s(&svg),
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "navmesh straight path",
        "navmesh smooth path",
        "spline through the corners",
        "follower on the straight path",
        "grid A* path",
    ] {
        assert!(text.contains(label), "missing {label}");
    }
}

#[test]
fn grid_bench_json_totals_and_errors() {
    let dir = common::shared().join("movingai");
    let map = s(&dir.join("maps/dao/arena.map"));
    let scen = s(&dir.join("scenarios/dao/arena.map.scen"));
    for algo in ["astar", "jps"] {
        let (ok, stdout, stderr) = navkit(&["grid-bench", &map, &scen, "--algo", algo, "--json"]);
        assert!(ok, "{algo}: {stderr}");
        let v: Value = serde_json::from_str(stdout.trim()).unwrap();
        for key in [
            "problems",
            "solved",
            "mismatches",
            "max_abs_error_cells",
            "expanded",
            "mean_query_us",
        ] {
            assert!(v.get(key).is_some(), "{algo}: missing {key}: {v}");
        }
        assert_eq!(v["problems"], 160);
        assert_eq!(v["solved"], 160);
        assert_eq!(v["mismatches"], 0);
        assert!(v["max_abs_error_cells"].as_f64().unwrap() < 5e-3);
        assert!(v["expanded"].as_u64().unwrap() > 160);
        assert_eq!(v["algo"], algo);
        assert!(v["buckets"].as_array().unwrap().len() > 5);
    }
    let (ok, stdout, _) = navkit(&["grid-bench", &map, &scen]);
    assert!(ok);
    assert!(
        stdout.contains("bucket") && stdout.contains("total"),
        "{stdout}"
    );

    // Malformed map and scenario files: an error naming the file and line, no panic.
    let bad_map = common::temp("bad.map");
    std::fs::write(&bad_map, "type octile\nheight 2\nwidth 2\nmap\n..\n.#\n").unwrap();
    let (ok, _, stderr) = navkit(&["grid-bench", &s(&bad_map), &scen]);
    assert!(!ok);
    assert!(stderr.contains("bad.map:6:"), "{stderr}");
    let bad_scen = common::temp("bad.scen");
    std::fs::write(&bad_scen, "version 1\n0 arena.map 49 49 1 2 3\n").unwrap();
    let (ok, _, stderr) = navkit(&["grid-bench", &map, &s(&bad_scen)]);
    assert!(!ok);
    assert!(stderr.contains("bad.scen:2:"), "{stderr}");
    // A problem whose start is blocked or whose map size differs is reported, not a crash.
    let odd = common::temp("odd.scen");
    std::fs::write(
        &odd,
        "version 1\n0 arena.map 49 49 0 0 1 11 5\n0 arena.map 50 50 1 11 1 12 1\n",
    )
    .unwrap();
    let (ok, stdout, stderr) = navkit(&["grid-bench", &map, &s(&odd), "--json"]);
    assert!(!ok, "unsolved problems make a non-zero exit");
    assert!(stderr.contains("2 of 2"), "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["solved"], 0);
    let reasons: Vec<&str> = v["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["reason"].as_str().unwrap())
        .collect();
    assert!(
        reasons[0].contains("start cell (0, 0) is blocked") && reasons[1].contains("50x50"),
        "{reasons:?}"
    );
}

#[test]
fn compare_single_random_json_and_pictures() {
    let gset = "meshes/demo_level.gset";
    let (ok, stdout, stderr) = navkit(&[
        "compare", gset, "--from", "2,0,2", "--to", "33,2.5,6", "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    let q = &v["queries"][0];
    assert_eq!(q["grid"]["status"], "complete");
    assert_eq!(q["navmesh"]["status"], "complete");
    for key in ["length_m", "cells", "waypoints", "expanded", "time_us"] {
        assert!(q["grid"][key].as_f64().unwrap() > 0.0, "grid {key}: {q}");
    }
    for key in [
        "straight_length_m",
        "corners",
        "smooth_length_m",
        "time_us",
        "smooth_time_us",
        "spline_length_m",
    ] {
        assert!(
            q["navmesh"][key].as_f64().unwrap() > 0.0,
            "navmesh {key}: {q}"
        );
    }
    for side in ["grid", "navmesh"] {
        let f = &q[side]["follower"];
        assert_eq!(f["arrived"], true, "{side}: {f}");
        assert!(f["travelled_m"].as_f64().unwrap() > 10.0 && f["time_s"].as_f64().unwrap() > 1.0);
    }
    let (g, n) = (
        q["grid"]["length_m"].as_f64().unwrap(),
        q["navmesh"]["straight_length_m"].as_f64().unwrap(),
    );
    assert!(g >= n * 0.95 && g <= n * 1.2, "grid {g} straight {n}");

    // Random pairs are reproducible from the seed; the text table has a row per query.
    let run = |seed: &str| {
        let (ok, stdout, stderr) =
            navkit(&["compare", gset, "--random", "12", "--seed", seed, "--json"]);
        assert!(ok, "{stderr}");
        serde_json::from_str::<Value>(stdout.trim()).unwrap()
    };
    let (a, b, c) = (run("7"), run("7"), run("8"));
    let ends = |v: &Value| {
        v["queries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| (q["start"].to_string(), q["goal"].to_string()))
            .collect::<Vec<_>>()
    };
    assert_eq!(ends(&a), ends(&b));
    assert_ne!(ends(&a), ends(&c));
    assert_eq!(a["summary"]["queries"], 12);
    let (ok, stdout, _) = navkit(&["compare", gset, "--random", "3", "--seed", "1"]);
    assert!(ok);
    assert_eq!(
        stdout.lines().filter(|l| l.contains(" | ")).count(),
        4,
        "{stdout}"
    );

    // The picture, as SVG so its content can be read.
    let svg = common::temp("compare.svg");
    let (ok, _, stderr) = navkit(&[
        "compare",
        gset,
        "--from",
        "2,0,2",
        "--to",
        "33,2.5,6",
        "-o",
        &s(&svg),
    ]);
    assert!(ok, "{stderr}");
    let text = std::fs::read_to_string(&svg).unwrap();
    for label in [
        "grid A* path",
        "grid waypoints",
        "follower on the grid path",
        "navmesh straight path",
        "navmesh smooth path",
        "spline through the corners",
        "follower on the straight path",
        "turn boundaries",
    ] {
        assert!(text.contains(label), "missing {label}");
    }
    // Grid cells only when asked for: they hide the polys.
    assert!(!text.contains("walkable grid cells"));
    let (ok, _, stderr) = navkit(&[
        "compare",
        gset,
        "--from",
        "2,0,2",
        "--to",
        "33,2.5,6",
        "--grid-cells",
        "-o",
        &s(&svg),
    ]);
    assert!(ok, "{stderr}");
    assert!(
        std::fs::read_to_string(&svg)
            .unwrap()
            .contains("walkable grid cells")
    );

    // --zoom frames the paths: the picture of a short query on a big level is taller per unit.
    let zoomed = common::temp("compare-zoom.png");
    let (ok, _, stderr) = navkit(&[
        "compare",
        gset,
        "--from",
        "2,0,2",
        "--to",
        "8,0,3",
        "-o",
        &s(&zoomed),
        "--zoom",
        "--width",
        "600",
    ]);
    assert!(ok, "{stderr}");
    let bytes = std::fs::read(&zoomed).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 600);

    // Bad input: a saved navmesh has no geometry for the grid; NaN points; zero random pairs.
    let (ok, _, stderr) = navkit(&["compare", "nowhere.navmesh", "--random", "3"]);
    assert!(!ok && stderr.contains("geometry"), "{stderr}");
    let (ok, _, _) = navkit(&["compare", gset, "--from", "nan,0,0", "--to", "1,1,1"]);
    assert!(!ok);
    let (ok, _, stderr) = navkit(&["compare", gset, "--random", "0"]);
    assert!(!ok && stderr.contains("--random"), "{stderr}");
    // A point far off the mesh: both sides report why, the command still succeeds.
    let (ok, stdout, stderr) = navkit(&[
        "compare",
        gset,
        "--from",
        "500,0,500",
        "--to",
        "2,0,2",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(
        v["queries"][0]["grid_error"].is_string() && v["queries"][0]["navmesh_error"].is_string(),
        "{v}"
    );
}

#[test]
fn simulate_json_trajectories_and_picture() {
    let mesh = s(&common::mesh("dungeon.obj"));
    let traj = common::temp("sim-traj.json");
    let pic = common::temp("sim.svg");
    let (ok, stdout, stderr) = navkit(&[
        "simulate",
        &mesh,
        "--agents",
        "30",
        "--seconds",
        "40",
        "--seed",
        "4",
        "--json",
        "--trajectories",
        &s(&traj),
        "-o",
        &s(&pic),
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    for key in [
        "agents",
        "arrived",
        "stuck",
        "mean_speed_m_per_s",
        "min_separation_m",
        "update_us",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["agents"], 30);
    // Measured: 27 of 30 arrive within 40 s on this seed (2 stuck).
    assert!(v["arrived"].as_u64().unwrap() >= 25, "{v}");
    let speed = v["mean_speed_m_per_s"].as_f64().unwrap();
    assert!(speed > 0.5 && speed <= 3.5 + 1e-3, "{v}");
    // DetourCrowd's collision handling keeps agents' centres about two radii (1.2 m) apart:
    // measured minimum 1.19981 m, with 10 pair-frames closer than 1.2 m (all by under 0.2 mm,
    // as the minimum shows).
    assert!(v["min_separation_m"].as_f64().unwrap() > 1.199, "{v}");
    assert!(v["collisions"].as_u64().unwrap() <= 10, "{v}");
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&traj).unwrap()).unwrap();
    assert_eq!(t.as_array().unwrap().len(), 30);
    assert!(t[0]["trajectory"].as_array().unwrap().len() > 100);
    assert!(
        std::fs::read_to_string(&pic)
            .unwrap()
            .contains("agent trajectories (30, one colour per agent")
    );
    // The same seed gives the same run.
    let (_, again, _) = navkit(&[
        "simulate",
        &mesh,
        "--agents",
        "30",
        "--seconds",
        "40",
        "--seed",
        "4",
        "--json",
    ]);
    let w: Value = serde_json::from_str(again.trim()).unwrap();
    assert_eq!(
        (w["arrived"].clone(), w["min_separation_m"].clone()),
        (v["arrived"].clone(), v["min_separation_m"].clone())
    );
    // Bad input.
    for args in [
        ["--agents", "0"],
        ["--seconds", "nan"],
        ["--seconds", "-1"],
        ["--agents", "20000"],
    ] {
        let (ok, _, stderr) = navkit(&["simulate", &mesh, args[0], args[1]]);
        assert!(!ok, "{args:?}");
        assert!(!stderr.is_empty());
    }
}

#[test]
fn simulate_a_scenario_file_with_behaviours() {
    use navkit::tools::compare::{CompareSettings, Comparer};
    let b = common::build("dungeon.obj");
    let pairs = Comparer::new(b.navmesh(), None, CompareSettings::default())
        .unwrap()
        .random_pairs(4, 21)
        .unwrap();
    let agents: Vec<Value> = pairs
        .iter()
        .enumerate()
        .map(|(i, (a, g))| {
            serde_json::json!({
                "start": [a.x, a.y, a.z], "goal": [g.x, g.y, g.z],
                "behaviour": if i % 2 == 0 { "direct" } else { "wander" }, "seed": i,
            })
        })
        .collect();
    let file = common::temp("scenario.json");
    std::fs::write(&file, serde_json::json!({ "agents": agents }).to_string()).unwrap();
    let mesh = s(&common::mesh("dungeon.obj"));
    let traj = common::temp("scenario-traj.json");
    let (ok, stdout, stderr) = navkit(&[
        "simulate",
        &mesh,
        "--scenario",
        &s(&file),
        "--seconds",
        "90",
        "--json",
        "--trajectories",
        &s(&traj),
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["agents"], 4);
    assert_eq!(v["arrived"], 4, "{v}");
    // Every agent, direct or wandering, arrived.
    let t: Value = serde_json::from_str(&std::fs::read_to_string(&traj).unwrap()).unwrap();
    assert!(
        t.as_array()
            .unwrap()
            .iter()
            .all(|a| a["arrived_at_s"].is_number())
    );
    // Malformed scenario files: errors naming the file.
    for bad in [
        "{",
        "{\"agents\": [{\"start\": [0,0], \"goal\": [1,1,1]}]}",
        "{\"agents\": [], \"x\": 1}",
        "{\"agents\": []}",
    ] {
        std::fs::write(&file, bad).unwrap();
        let (ok, _, stderr) = navkit(&["simulate", &mesh, "--scenario", &s(&file)]);
        assert!(!ok, "{bad}");
        assert!(
            stderr.contains("scenario.json") || stderr.contains("agents"),
            "{bad}: {stderr}"
        );
    }
}

#[test]
fn build_tiled_json_hash_is_the_same_for_any_thread_count() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let out_file = common::temp("cli-nav-test-tiled.navmesh");
    let mut hashes = Vec::new();
    for threads in ["1", "2", "5"] {
        let (ok, stdout, stderr) = navkit(&[
            "build",
            &mesh,
            "--tiled",
            "--threads",
            threads,
            "--json",
            "-o",
            &s(&out_file),
        ]);
        assert!(ok, "{stderr}");
        let v: Value = serde_json::from_str(stdout.trim()).unwrap();
        assert_eq!(v["threads"].as_u64().unwrap().to_string(), threads);
        assert!(v["tile_count"].as_u64().unwrap() > 10);
        for key in ["tiles_ms", "index_ms", "total_ms", "peak_rss_bytes", "grid"] {
            assert!(!v[key].is_null(), "{key} missing");
        }
        hashes.push(v["data_hash"].as_str().unwrap().to_string());
    }
    assert!(hashes.windows(2).all(|w| w[0] == w[1]), "{hashes:?}");
    // The saved tiled navmesh answers paths; tile sizes are checked.
    let (ok, stdout, _) = navkit(&[
        "path",
        &s(&out_file),
        "--from",
        "18.138550,-2.370003,-21.319118",
        "--to",
        "-19.206181,-2.369133,24.802742",
        "--json",
    ]);
    assert!(ok);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "complete", "{v}");
    let (ok, _, stderr) = navkit(&["build", &mesh, "--tile-size", "3"]);
    assert!(!ok && stderr.contains("tile_size"), "{stderr}");
}

#[test]
fn gen_then_tiled_build_render_and_bench() {
    let dir = common::temp("cli-gen");
    std::fs::create_dir_all(&dir).unwrap();
    let obj = dir.join("w.obj");
    let (ok, stdout, stderr) = navkit(&[
        "gen",
        "--tris",
        "20k",
        "--seed",
        "4",
        "-o",
        &s(&obj),
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(v["tris"].as_u64().unwrap() > 19_000);
    let gset = s(&obj.with_extension("gset"));
    let (ok, stdout, stderr) = navkit(&["build", &gset, "--tiled", "--json"]);
    assert!(ok, "{stderr}");
    let b: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(b["tile_count"].as_u64().unwrap() > 50);
    let png = dir.join("w.png");
    let (ok, _, stderr) = navkit(&["render", &gset, "--tiled", "--no-grid", "-o", &s(&png)]);
    assert!(ok, "{stderr}");
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
    // The benchmark command runs end to end on a tiny world (its figures are not checked here:
    // timings belong in benchmarks).
    let (ok, stdout, stderr) = navkit(&[
        "bench-tiled",
        "--tris",
        "10k",
        "--rounds",
        "1",
        "--paths",
        "3",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    for key in [
        "world_tris",
        "extent_m",
        "tiles",
        "cores",
        "runs",
        "median_1_thread_ms",
        "median_all_cores_ms",
        "speedup",
        "median_tile_phase_1_thread_ms",
        "median_tile_phase_all_cores_ms",
        "long_paths",
    ] {
        assert!(v.get(key).is_some(), "bench-tiled: missing {key}: {v}");
    }
    assert!(
        v["long_paths"]["mean_straight_distance_m"].is_number(),
        "{v}"
    );
    assert_eq!(v["same_data_hash"], true);
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
}

#[test]
fn path_and_render_with_scenario_obstacles() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let (from, to) = (
        "18.138550,-2.370003,-21.319118",
        "-19.206181,-2.369133,24.802742",
    );
    let path_len = |extra: &[&str]| {
        let mut args = vec!["path", mesh.as_str(), "--from", from, "--to", to, "--json"];
        args.extend_from_slice(extra);
        let (code, stdout, stderr) = navkit_code(&args);
        let v: Value = serde_json::from_str(stdout.trim()).unwrap();
        let expected = if v["status"] == "complete" { 0 } else { 3 };
        assert_eq!(code, expected, "{stderr}");
        let pts: Vec<[f64; 3]> = v["straight"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| [0, 1, 2].map(|k| p[k].as_f64().unwrap()))
            .collect();
        let len: f64 = pts
            .windows(2)
            .map(|w| {
                (0..3)
                    .map(|k| (w[0][k] - w[1][k]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .sum();
        (v["status"].as_str().unwrap().to_string(), len)
    };
    // Baseline on the tile cache: one obstacle far from the path.
    let far = common::temp("cli-obstacles-far.json");
    std::fs::write(
        &far,
        r#"{"obstacles": [{"kind": "box", "bmin": [40, -3, 40], "bmax": [41, 0, 41]}]}"#,
    )
    .unwrap();
    let (st0, len0) = path_len(&["--scenario", &s(&far)]);
    assert_eq!(st0, "complete");
    // A wide cylinder across the path.
    let scenario = common::temp("cli-obstacles.json");
    std::fs::write(
        &scenario,
        r#"{"obstacles": [{"kind": "cylinder", "pos": [3.21, -3.3, 2.75], "radius": 1.6, "height": 4.0}]}"#,
    )
    .unwrap();
    let (st1, len1) = path_len(&["--scenario", &s(&scenario)]);
    assert!(
        st1 != "complete" || len1 > len0 + 0.1,
        "{st1} {len1} vs {len0}"
    );
    let png = common::temp("cli-obstacles.svg");
    let (ok, _, stderr) = navkit(&[
        "render",
        &mesh,
        "--scenario",
        &s(&scenario),
        "--from",
        from,
        "--to",
        to,
        "-o",
        &s(&png),
    ]);
    assert!(ok, "{stderr}");
    let svg = std::fs::read_to_string(&png).unwrap();
    assert!(svg.contains("obstacles (1)"));
    // Obstacles need geometry; a bad scenario is an error.
    std::fs::write(&scenario, r#"{"obstacles": [{"kind": "cone"}]}"#).unwrap();
    let (ok, _, stderr) = navkit(&[
        "path",
        &mesh,
        "--from",
        from,
        "--to",
        to,
        "--scenario",
        &s(&scenario),
    ]);
    assert!(!ok && stderr.contains("cone"), "{stderr}");
}

#[test]
fn simulate_with_timed_obstacle_events() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let scenario = common::temp("cli-events.json");
    std::fs::write(
        &scenario,
        r#"{"agents": [{"start": [18.138550, -2.370003, -21.319118], "goal": [-19.206181, -2.369133, 24.802742]}],
            "events": [{"at": 2.0, "add": {"kind": "cylinder", "pos": [3.21, -3.27, 2.75], "radius": 1.6, "height": 3.0}, "name": "pillar"},
                       {"at": 30.0, "remove": "pillar"}]}"#,
    )
    .unwrap();
    let png = common::temp("cli-events.png");
    let (ok, stdout, stderr) = navkit(&[
        "simulate",
        &mesh,
        "--scenario",
        &s(&scenario),
        "--seconds",
        "35",
        "--json",
        "-o",
        &s(&png),
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["arrived"], 1);
    assert_eq!(v["obstacle_events"], 2);
    assert!(v["tiles_rebuilt"].as_u64().unwrap() >= 2);
    assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
    std::fs::write(&scenario, r#"{"events": [{"at": 1.0, "remove": "ghost"}]}"#).unwrap();
    let (ok, _, stderr) = navkit(&["simulate", &mesh, "--scenario", &s(&scenario)]);
    assert!(!ok && stderr.contains("removes an obstacle"), "{stderr}");
}

#[test]
fn exit_codes_and_errors_as_json() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let path = |from: &str, to: &str, extra: &[&str]| {
        let mut args = vec!["path", mesh.as_str(), "--from", from, "--to", to];
        args.extend_from_slice(extra);
        navkit_code(&args)
    };
    // 0: a complete path.
    let (code, stdout, _) = path(
        "18.13855,-2.370003,-21.319118",
        "-19.20618,-2.369133,24.802742",
        &["--json"],
    );
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "complete");
    for key in [
        "start",
        "goal",
        "start_ref",
        "goal_ref",
        "straight_length_m",
        "smooth_length_m",
        "off_mesh_jumps",
    ] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    // 3: a partial path (the goal is on a roof), with or without --json.
    let (code, stdout, _) = path("20.161,-2.27,-18.1", "-0.629,8.33,-7.66", &["--json"]);
    assert_eq!(code, 3, "{stdout}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "partial");
    let (code, stdout, _) = path("20.161,-2.27,-18.1", "-0.629,8.33,-7.66", &[]);
    assert_eq!(code, 3);
    assert!(stdout.contains("PARTIAL"), "{stdout}");
    // 3: a failed path (the start is far off the mesh); the error is in the JSON.
    let (code, stdout, _) = path("1000,0,1000", "0,0,0", &["--json"]);
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["error"]["kind"], "point_off_mesh", "{v}");

    // 1: an input that does not exist, as JSON on stdout with --json, as text on stderr.
    let (code, stdout, stderr) = navkit_code(&["build", "nowhere.obj", "--json"]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert!(v["error"]["kind"].is_string(), "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nowhere.obj"),
        "{v}"
    );
    assert!(stderr.contains("nowhere.obj"), "{stderr}");
    let (code, stdout, stderr) = navkit_code(&["build", "nowhere.obj"]);
    assert_eq!(code, 1);
    assert!(stdout.is_empty() && stderr.contains("nowhere.obj"));
    // A malformed batch file: a parse error naming the line.
    let batch = common::temp("bad-batch.txt");
    std::fs::write(&batch, "1 2 3\n").unwrap();
    let (code, stdout, _) = navkit_code(&["path", &mesh, "--batch", &s(&batch)]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "parse", "{v}");
    // A navmesh file of another version: a version mismatch naming the file.
    let saved = common::temp("cli-version-9.navmesh");
    assert!(navkit(&["build", &mesh, "-o", &s(&saved)]).0);
    let mut bytes = std::fs::read(&saved).unwrap();
    bytes[4..8].copy_from_slice(&9i32.to_le_bytes());
    std::fs::write(&saved, bytes).unwrap();
    let (code, stdout, _) = navkit_code(&[
        "path",
        &s(&saved),
        "--from",
        "0,0,0",
        "--to",
        "1,1,1",
        "--json",
    ]);
    assert_eq!(code, 1);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "version_mismatch", "{v}");
    assert_eq!(
        v["error"]["message"],
        format!(
            "{}: MSET file version 9: this navkit reads version 1",
            saved.display()
        ),
        "{v}"
    );

    // 2: usage errors, as JSON with --json.
    let (code, stdout, stderr) =
        navkit_code(&["path", &mesh, "--from", "nan,0,0", "--to", "1,1,1"]);
    assert_eq!(code, 2);
    assert!(stdout.is_empty() && !stderr.is_empty());
    let (code, stdout, _) = navkit_code(&["build", &mesh, "--no-such-option", "--json"]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "usage");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--no-such-option"),
        "{v}"
    );
    let gset = "meshes/demo_level.gset";
    let (code, stdout, _) = navkit_code(&["compare", gset, "--random", "0", "--json"]);
    assert_eq!(code, 2);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "usage");
    // The exit codes are in --help.
    let (code, stdout, _) = navkit_code(&["--help"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("Exit codes") && stdout.contains("3  incomplete"));
}

#[test]
fn output_paths_are_checked_before_the_work() {
    // Every command's input here is one it refuses once it reads or builds it (the sliver
    // reproducer, refused before Recast sees it; `gen --tris 0`): a bad output path is
    // reported instead only if it is checked before the work starts. Each command is also run
    // with a good output path, to see it then fail on its input.
    let hostile = s(&common::shared().join("hostile/sliver.obj"));
    let missing = common::temp("no-such-dir").join("out.png");
    let good = |ext: &str| s(&common::temp(&format!("output-ok.{ext}")));
    // (arguments before the output, the output's flag, a bad output, a good output)
    let cases: Vec<(Vec<&str>, &str, String, String)> = vec![
        (vec!["render", &hostile], "-o", s(&missing), good("png")),
        (
            vec!["render", &hostile],
            "-o",
            s(&common::temp("picture.bmp")),
            good("svg"),
        ),
        (
            vec!["render", &hostile],
            "-o",
            s(&common::temp("")),
            good("png"),
        ),
        (
            vec!["compare", &hostile, "--random", "2"],
            "-o",
            s(&common::temp("picture.bmp")),
            good("png"),
        ),
        (
            vec!["build", &hostile],
            "-o",
            s(&missing.with_extension("navmesh")),
            good("navmesh"),
        ),
        (
            vec!["simulate", &hostile],
            "--trajectories",
            s(&missing.with_extension("json")),
            good("json"),
        ),
        (vec!["simulate", &hostile], "-o", s(&missing), good("png")),
        (
            vec!["gen", "--tris", "0"],
            "-o",
            s(&missing.with_extension("obj")),
            good("obj"),
        ),
        (
            vec!["gen", "--tris", "0"],
            "-o",
            s(&common::temp("w.txt")),
            good("obj"),
        ),
        (
            vec!["demo", "--gset", &hostile],
            "-o",
            s(&missing),
            good("png"),
        ),
        (
            vec!["demo", "--gset", &hostile],
            "-o",
            s(&common::temp("demo.gif")),
            good("png"),
        ),
    ];
    for (before, flag, bad, good) in &cases {
        let json = !matches!(before[0], "render" | "demo"); // these have no --json
        let run = |out: &str| {
            let mut args = before.clone();
            args.extend([*flag, out]);
            if json {
                args.push("--json");
            }
            (navkit_code(&args), args.join(" "))
        };
        let ((code, stdout, stderr), args) = run(bad);
        assert_eq!(code, 1, "{args}: {stderr}");
        assert!(
            stderr.contains("does not exist")
                || stderr.contains("must end in")
                || stderr.contains("is a directory"),
            "{args}: {stderr}"
        );
        if json {
            let v: Value = serde_json::from_str(stdout.trim()).unwrap();
            assert_eq!(v["error"]["kind"], "output_path", "{args}");
        }
        // With a good output, the same command gets to its input and fails on it.
        let ((code, stdout, stderr), args) = run(good);
        assert_eq!(code, 1, "{args}: {stderr}");
        assert!(
            !stderr.contains("does not exist")
                && !stderr.contains("must end in")
                && !stderr.contains("is a directory"),
            "{args}: {stderr}"
        );
        if json {
            let v: Value = serde_json::from_str(stdout.trim()).unwrap();
            let kind = v["error"]["kind"].as_str().unwrap();
            assert!(
                ["geometry", "invalid_argument"].contains(&kind),
                "{args}: {v}"
            );
        }
        assert!(!std::path::Path::new(good).exists(), "{args}: wrote {good}");
    }
}

#[test]
fn every_command_prints_the_documented_keys() {
    let has = |what: &str, v: &Value, keys: &[&str]| {
        for key in keys {
            assert!(v.get(*key).is_some(), "{what}: missing {key}: {v}");
        }
    };
    // build, solo and tiled: the same `grid` object (tiled adds the tiles), and the bounds.
    let gset = "meshes/demo_level.gset";
    let grid_keys = [
        "bmin",
        "bmax",
        "cell_size_m",
        "cell_height_m",
        "cells_x",
        "cells_z",
    ];
    let (ok, stdout, stderr) = navkit(&["build", gset, "--json"]);
    assert!(ok, "{stderr}");
    let solo: Value = serde_json::from_str(stdout.trim()).unwrap();
    has(
        "build",
        &solo,
        &[
            "grid",
            "timings_ms",
            "total_ms",
            "navmesh_bytes",
            "warnings",
        ],
    );
    has("build grid", &solo["grid"], &grid_keys);
    assert_eq!(solo["grid"]["bmin"], serde_json::json!([0.0, 0.0, 0.0]));
    assert_eq!(solo["grid"]["bmax"], serde_json::json!([40.0, 3.0, 30.0]));
    let (ok, stdout, stderr) = navkit(&["build", gset, "--tiled", "--json"]);
    assert!(ok, "{stderr}");
    let tiled: Value = serde_json::from_str(stdout.trim()).unwrap();
    has(
        "build --tiled",
        &tiled,
        &[
            "grid",
            "tiles",
            "data_hash",
            "total_ms",
            "tiles_ms",
            "index_ms",
            "navmesh_bytes",
            "peak_rss_bytes",
        ],
    );
    has("build --tiled grid", &tiled["grid"], &grid_keys);
    has(
        "build --tiled grid",
        &tiled["grid"],
        &["tile_size_cells", "tiles_x", "tiles_z", "tile_width_m"],
    );
    has(
        "build --tiled tiles",
        &tiled["tiles"],
        &[
            "built",
            "sum_ms",
            "mean_ms",
            "max_ms",
            "data_bytes",
            "timings_ms",
        ],
    );
    for key in grid_keys {
        assert_eq!(solo["grid"][key], tiled["grid"][key], "{key}");
    }
    let (ok, stdout, _) = navkit(&["build", gset]);
    assert!(
        ok && stdout.contains("Bounds:        (0.000, 0.000, 0.000) to (40.000, 3.000, 30.000)"),
        "{stdout}"
    );

    // testcase: status and start/goal.
    let tc = s(&common::shared().join("meshes/recastdemo/nav_mesh_test.txt"));
    let (ok, stdout, _) = navkit(&["testcase", &tc, "--json"]);
    assert!(ok);
    for line in stdout.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        has(
            "testcase",
            &v,
            &[
                "query",
                "status",
                "start_ref",
                "goal_ref",
                "polys",
                "straight",
                "nearest_us",
                "path_us",
                "straight_us",
            ],
        );
        has(
            "testcase query",
            &v["query"],
            &["kind", "start", "goal", "line"],
        );
        assert!(["complete", "partial", "failed"].contains(&v["status"].as_str().unwrap()));
    }

    // simulate.
    let mesh = s(&common::mesh("dungeon.obj"));
    let (ok, stdout, stderr) = navkit(&[
        "simulate",
        &mesh,
        "--agents",
        "5",
        "--seconds",
        "5",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    has(
        "simulate",
        &v,
        &[
            "agents",
            "arrived",
            "stuck",
            "mean_speed_m_per_s",
            "min_separation_m",
            "update_us",
            "collisions",
            "simulated_s",
            "obstacle_events",
            "tiles_rebuilt",
            "obstacle_settle_max_s",
        ],
    );
    assert_eq!(v["simulated_s"], 5.0);

    // gen.
    let dir = common::temp("cli-keys");
    std::fs::create_dir_all(&dir).unwrap();
    let obj = s(&dir.join("k.obj"));
    let (ok, stdout, stderr) = navkit(&["gen", "--tris", "5k", "-o", &obj, "--json"]);
    assert!(ok, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    has(
        "gen",
        &v,
        &[
            "seed",
            "tris",
            "verts",
            "side_m",
            "terrain_cell_m",
            "bmin",
            "bmax",
            "features",
            "obj",
            "gset",
            "obj_bytes",
            "generate_ms",
            "write_ms",
        ],
    );
    has(
        "gen feature",
        &v["features"][0],
        &["kind", "point", "radius_m"],
    );

    // compare: start/goal, each side's status, lengths in _m.
    let (ok, stdout, _) = navkit(&[
        "compare", gset, "--from", "2,0,2", "--to", "33,2.5,6", "--json",
    ]);
    assert!(ok);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    has("compare", &v, &["input", "queries", "summary"]);
    has(
        "compare query",
        &v["queries"][0],
        &["start", "goal", "grid", "navmesh"],
    );
    has(
        "compare summary",
        &v["summary"],
        &[
            "both_complete",
            "grid_complete",
            "navmesh_complete",
            "mean_grid_length_m",
            "mean_straight_length_m",
            "mean_follower_time_grid_s",
        ],
    );
}

#[test]
fn path_off_the_mesh_reports_the_nearest_walkable_point() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let goal = "-19.20618,-2.369133,24.802742";
    // (18.1, -2.37, -40) is 6.6 units from the nearest polygon: nothing within (2, 4, 2).
    let (code, stdout, _) = navkit_code(&[
        "path",
        &mesh,
        "--from",
        "18.1,-2.37,-40",
        "--to",
        goal,
        "--json",
    ]);
    assert_eq!(code, 3);
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["status"], "failed");
    assert_eq!(v["error"]["kind"], "point_off_mesh");
    let n = &v["nearest"]["start"];
    assert!(v["nearest"].get("goal").is_none(), "{v}");
    let d = n["distance_m"].as_f64().unwrap();
    assert!(d > 2.0 && d < 8.0, "{n}");
    let point: Vec<f64> = n["point"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let h: Vec<String> = n["half_extents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap().to_string())
        .collect();
    // The text says the same and what to pass.
    let (code, stdout, _) = navkit_code(&["path", &mesh, "--from", "18.1,-2.37,-40", "--to", goal]);
    assert_eq!(code, 3);
    assert!(
        stdout.contains("nearest walkable point")
            && stdout.contains(&format!("--half-extents {}", h.join(","))),
        "{stdout}"
    );
    // With that box the path starts at the nearest point, on its polygon.
    let (code, stdout, stderr) = navkit_code(&[
        "path",
        &mesh,
        "--from",
        "18.1,-2.37,-40",
        "--to",
        goal,
        "--half-extents",
        &h.join(","),
        "--json",
    ]);
    assert_ne!(code, 1, "{stderr}");
    let w: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_ne!(w["status"], "failed", "{w}");
    assert_eq!(w["start_ref"], n["poly_ref"]);
    let first: Vec<f64> = w["straight"][0]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    for k in 0..3 {
        assert!((first[k] - point[k]).abs() < 1e-3, "{first:?} vs {point:?}");
    }
    assert_eq!(code, if w["status"] == "complete" { 0 } else { 3 });
    // Malformed half extents are a usage error.
    let (code, _, _) = navkit_code(&[
        "path",
        &mesh,
        "--from",
        "18.1,-2.37,-40",
        "--to",
        goal,
        "--half-extents",
        "1,2",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn demo_runs_from_any_directory_and_draws_its_path() {
    let cwd = common::temp("demo-cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    let picture = cwd.join("demo.png");
    let (code, stdout, stderr) = navkit_in(&cwd, &["demo", "-o", "demo.png"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Path:      complete"), "{stdout}");
    assert!(stdout.contains("Picture:   demo.png"), "{stdout}");
    let bytes = std::fs::read(&picture).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    // A --gset that does not exist: an error naming it.
    let (code, _, stderr) = navkit_in(&cwd, &["demo", "--gset", "nowhere.gset", "-o", "demo.svg"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("nowhere.gset"), "{stderr}");
}

#[test]
fn timeout_ends_a_long_build_and_stray_vertices_are_refused_or_allowed() {
    // The sliver reproducer with its far vertex at x = 19000: a stray vertex, refused...
    let text = std::fs::read_to_string(common::shared().join("hostile/sliver.obj")).unwrap();
    let obj = common::temp("sliver19000.obj");
    std::fs::write(&obj, text.replace("v 65536 ", "v 19000 ")).unwrap();
    let (code, out, err) = navkit_code(&["build", &s(&obj), "--json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["error"]["kind"], "geometry");
    let m = v["error"]["message"].as_str().unwrap();
    assert!(
        m.contains("OBJ vertex 4 ") && m.contains("--allow-stray-vertices"),
        "{m}"
    );
    // ... allowed, it runs for seconds in one Recast stage (contours, with the monotone
    // partition: 12.6 of 16.6 s on a loaded 2-core machine, the stages before it 0.4 s), and
    // --timeout ends it at the limit, inside that stage or before it: by the build's own
    // check (between stages, and inside the contours) or by the watchdog half a second later.
    let (code, out, err) = navkit_code(&[
        "build",
        &s(&obj),
        "--allow-stray-vertices",
        "--partition",
        "monotone",
        "--timeout",
        "0.5",
        "--json",
    ]);
    assert_eq!(code, 1, "{out}{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["error"]["kind"], "timed_out", "{out}");
    // Either the build's own check (between stages) or the watchdog stopped it.
    assert!(
        err.contains("timed out after 0.5 s") || err.contains("timed out after 500ms at stage"),
        "{err}"
    );
    // Not after the contours ran through (a build that did would stop at `poly_mesh` or later,
    // seconds late).
    let contours = Stage::ALL
        .iter()
        .position(|s| *s == Stage::Contours)
        .unwrap();
    let in_time: Vec<&str> = Stage::ALL[..=contours].iter().map(|s| s.name()).collect();
    let stage = err
        .split("at stage `")
        .nth(1)
        .and_then(|rest| rest.split('`').next());
    assert!(
        err.contains("timed out after 0.5 s") || stage.is_some_and(|s| in_time.contains(&s)),
        "{err}"
    );
    // A timeout that is no time is a usage error.
    for bad in ["0", "-1", "nan", "inf", "soon"] {
        let (code, _, err) = navkit_code(&["build", &s(&obj), "--timeout", bad]);
        assert_eq!(code, 2, "{bad}: {err}");
    }
    // Within its limit, a build with --timeout succeeds as without.
    let (code, out, err) = navkit_code(&["build", "meshes/demo_level.obj", "--timeout", "60"]);
    assert_eq!(code, 0, "{out}{err}");
}

/// `navkit build --json` carries every per-stage count (solo and tiled, per tile and summed),
/// and `navkit info` reads the saved navmesh back through the views with the same counts.
#[test]
fn build_counts_and_info_agree() {
    let gset = s(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes/demo_level.gset"));
    let (ok, stdout, stderr) = navkit(&["build", &gset, "--json"]);
    assert!(ok, "{stderr}");
    let solo: Value = serde_json::from_str(stdout.trim()).unwrap();
    let keys = [
        "rasterized_tris",
        "spans",
        "compact_spans",
        "max_distance",
        "max_regions",
        "contours",
        "polymesh_verts",
        "polymesh_polys",
        "detail_meshes",
        "detail_verts",
        "detail_tris",
        "navmesh_bytes",
    ];
    for k in keys {
        assert!(solo[k].as_u64().is_some(), "solo {k}: {solo}");
    }
    assert_eq!(solo["rasterized_tris"], solo["input_tris"]);
    assert_eq!(solo["detail_meshes"], solo["polymesh_polys"]);

    let saved = common::temp("cli-info-demo.navmesh");
    let (ok, stdout, stderr) = navkit(&["build", &gset, "--tiled", "--json", "-o", &s(&saved)]);
    assert!(ok, "{stderr}");
    let tiled: Value = serde_json::from_str(stdout.trim()).unwrap();
    let c = &tiled["counts"];
    let per_tile = c["per_tile"].as_array().unwrap();
    assert_eq!(
        per_tile.len() as u64,
        tiled["tiles"]["built"].as_u64().unwrap()
    );
    for k in keys {
        let vals: Vec<u64> = per_tile.iter().map(|t| t[k].as_u64().unwrap()).collect();
        let max = *vals.iter().max().unwrap();
        let want = if k.starts_with("max_") {
            max
        } else {
            vals.iter().sum()
        };
        assert_eq!(c["totals"][k], want, "totals.{k}");
        assert_eq!(c["max_per_tile"][k], max, "max_per_tile.{k}");
    }
    assert_eq!(c["totals"]["navmesh_bytes"], tiled["navmesh_bytes"]);
    assert_eq!(c["totals"]["polymesh_polys"], tiled["tiles"]["polys"]);

    let (ok, stdout, stderr) = navkit(&["info", &s(&saved), "--polys", "--json"]);
    assert!(ok, "{stderr}");
    let info: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(info["tile_count"], tiled["tile_count"]);
    assert_eq!(info["navmesh_bytes"], tiled["navmesh_bytes"]);
    assert_eq!(info["ground_polys"], c["totals"]["polymesh_polys"]);
    assert_eq!(info["detail_tris"], c["totals"]["detail_tris"]);
    // The demo level has one off-mesh connection (a jump), two vertices of its own.
    assert_eq!(info["off_mesh_connections"], 1);
    assert_eq!(
        info["verts"].as_u64().unwrap(),
        c["totals"]["polymesh_verts"].as_u64().unwrap() + 2
    );
    assert_eq!(
        info["ref_bits"]["tile"].as_u64().unwrap() + info["ref_bits"]["poly"].as_u64().unwrap(),
        // RecastDemo's 22 bits with 32-bit refs; 28 + 20 with 64-bit ones.
        if RefWidth::NATIVE == RefWidth::Bits64 {
            48
        } else {
            22
        }
    );
    // Links: every ground-to-ground link has its way back, so portal links come in pairs;
    // the per-tile and per-poly lists add up to the totals.
    let tiles = info["tiles"].as_array().unwrap();
    let mut links = std::collections::HashSet::new();
    let mut n_links = 0;
    let mut ground = std::collections::HashSet::new();
    for t in tiles {
        let polys = t["poly_list"].as_array().unwrap();
        assert_eq!(polys.len() as u64, t["polys"].as_u64().unwrap());
        for p in polys {
            let r = p["ref"].as_u64().unwrap();
            if p["type"] == "ground" {
                ground.insert(r);
            }
            for l in p["links"].as_array().unwrap() {
                links.insert((r, l["ref"].as_u64().unwrap()));
                n_links += 1;
            }
        }
    }
    assert_eq!(n_links, info["links"].as_u64().unwrap());
    for &(a, b) in &links {
        if ground.contains(&a) && ground.contains(&b) {
            assert!(links.contains(&(b, a)), "{a:#x} -> {b:#x} has no way back");
        }
    }
    assert_eq!(info["portal_links"].as_u64().unwrap() % 2, 0);
    let cons: Vec<_> = tiles
        .iter()
        .flat_map(|t| t["off_mesh_connections"].as_array().unwrap().clone())
        .collect();
    assert_eq!(cons.len(), 1);
    assert_eq!(cons[0]["start"].as_array().unwrap().len(), 3);

    // The summary, on the same file.
    let (ok, stdout, stderr) = navkit(&["info", &s(&saved), "--tiles"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Links:") && stdout.contains("off-mesh 0 (poly"),
        "{stdout}"
    );
}

/// `build --refs 32|64` saves MSET files of either poly-ref width (RecastDemo built either way
/// reads one of them), whatever this build's width; both load again and give the same navmesh.
#[test]
fn build_saves_either_ref_width() {
    let mesh = s(&common::mesh("dungeon.obj"));
    let mut navmeshes = Vec::new();
    for (refs, width) in [("32", RefWidth::Bits32), ("64", RefWidth::Bits64)] {
        for tiled in [false, true] {
            let out = common::temp(&format!("cli-refs-{refs}-{tiled}.navmesh"));
            let mut args = vec!["build", &mesh, "-o", out.to_str().unwrap(), "--refs", refs];
            if tiled {
                args.push("--tiled");
            }
            let (ok, _, stderr) = navkit(&args);
            assert!(ok, "{stderr}");
            let bytes = std::fs::read(&out).unwrap();
            let set = navkit::navmesh::mset::read_mset(&bytes).unwrap();
            assert_eq!(set.ref_width, width);
            let nav = navkit::navmesh::NavMesh::from_mset_bytes(&bytes).unwrap();
            navmeshes.push((tiled, nav.to_mset_bytes()));
        }
    }
    // The same navmesh whichever width it was saved in.
    assert_eq!(navmeshes[0], navmeshes[2]);
    assert_eq!(navmeshes[1], navmeshes[3]);
    let (ok, _, stderr) = navkit(&["build", &mesh, "--refs", "48"]);
    assert!(!ok && stderr.contains("32 or 64"), "{stderr}");
}

/// `navkit build` lists the off-mesh links paths cannot take: a `.gset` link without area and
/// flags (the 8-value `c` line) has flags 0.
#[test]
fn build_lists_the_links_no_path_can_take() {
    let gset = common::temp("cli-flagless-link.gset");
    std::fs::write(
        &gset,
        format!(
            "f {}\nc -0.6 -2.27 -15.5  -0.63 8.33 -11.0  0.6 1\n",
            common::mesh("nav_test.obj").display()
        ),
    )
    .unwrap();
    // The `.gset` names the shared mesh by its absolute path: allowed by the flag.
    let (ok, stdout, stderr) = navkit(&["build", &s(&gset), "--allow-outside-paths"]);
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("Unusable link: off-mesh link 0 (user id 1000): flags 0"),
        "{stdout}"
    );
    for tiled in [false, true] {
        let mut args = vec![
            "build",
            gset.to_str().unwrap(),
            "--json",
            "--allow-outside-paths",
        ];
        if tiled {
            args.push("--tiled");
        }
        let (ok, stdout, stderr) = navkit(&args);
        assert!(ok, "{stderr}");
        let v: Value = serde_json::from_str(stdout.trim()).unwrap();
        let issues = v["off_mesh_issues"].as_array().unwrap();
        assert_eq!(issues.len(), 1, "{v}");
        assert_eq!(issues[0]["index"], 0);
        assert_eq!(issues[0]["user_id"], 1000);
        assert_eq!(issues[0]["problem"]["kind"], "no_flags");
        assert!(
            issues[0]["message"].as_str().unwrap().contains("flags 0"),
            "{v}"
        );
    }
}

/// `navkit build --shard I/N -o PART` three times, then `navkit merge`: the unsharded build's
/// data hash and file; `--tile-store` twice: the second build builds no tile; bad shards and
/// parts are errors with exit code 1 (2 for a malformed --shard).
#[test]
fn shards_merge_and_the_tile_store_from_the_command_line() {
    let mesh = s(&common::mesh("dungeon.obj"));
    let dir = common::temp("cli-shards");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let whole = dir.join("whole.mset");
    let (ok, out, err) = navkit(&["build", "--tiled", &mesh, "--json", "-o", &s(&whole)]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let hash = v["data_hash"].as_str().unwrap().to_string();
    assert_eq!(
        (v["tiles_built"].as_u64(), v["tiles_reused"].as_u64()),
        (Some(88), Some(0))
    );
    let mut parts = Vec::new();
    for i in 0..3 {
        let part = s(&dir.join(format!("p{i}.part")));
        let shard = format!("{i}/3");
        let (ok, out, err) = navkit(&["build", &mesh, "--shard", &shard, "-o", &part, "--json"]);
        assert!(ok, "{err}");
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["shard"]["index"], i);
        // RecastDemo's README: dungeon.obj has 10,133 triangles; a shard keeps those near it.
        assert_eq!(v["input_tris_read"], 10_133);
        assert!(v["input_tris"].as_u64().unwrap() < 10_133);
        parts.push(part);
    }
    let merged = s(&dir.join("merged.mset"));
    let mut args = vec!["merge"];
    args.extend(parts.iter().map(String::as_str));
    args.extend(["-o", &merged, "--json"]);
    let (ok, out, err) = navkit(&args);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(
        (v["data_hash"].as_str(), v["shards"].as_u64()),
        (Some(hash.as_str()), Some(3))
    );
    assert_eq!(
        std::fs::read(&merged).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // A missing shard, a malformed shard.
    let (code, out, _) = navkit_code(&["merge", &parts[0], &parts[2], "-o", &merged, "--json"]);
    assert_eq!(code, 1);
    assert!(out.contains("missing [1]"), "{out}");
    let (code, _, err) = navkit_code(&["build", &mesh, "--shard", "3/3"]);
    assert_eq!(code, 2, "{err}");
    // The tile store.
    let store = s(&dir.join("store"));
    for (built, reused) in [(88, 0), (0, 88)] {
        let (ok, out, err) = navkit(&["build", &mesh, "--tile-store", &store, "--json"]);
        assert!(ok, "{err}");
        let v: Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(v["data_hash"].as_str(), Some(hash.as_str()));
        assert_eq!(
            (v["tiles_built"].as_u64(), v["tiles_reused"].as_u64()),
            (Some(built), Some(reused))
        );
    }
}
