//! The crowd scenario suite (issue 21): the shared crowd metrics on hand-derived cases, the
//! scenario fields of a suite run (`level`, `seconds`, `random`, `agent`, `arrive_distance`) and
//! their errors, `navkit simulate --suite`'s table and JSON, and the ORCA crowd's floor outline.

#[path = "common/cli.rs"]
mod cli_run;
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use glam::Vec3;
use serde_json::Value;

use navkit::Error;
use navkit::agents::crowd::StuckCause;
use navkit::geometry::LoadOptions;
use navkit::tools::crowd_metrics::{CrowdMetrics, Stuck};
use navkit::tools::crowd_suite::{SuiteScenario, load_suite};
use navkit::tools::simulation::{Scenario, SimSettings};

#[path = "../benches/common/orca_crowd.rs"]
#[allow(dead_code)]
mod orca_crowd;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn navkit(args: &[&str]) -> (i32, String, String) {
    cli_run::navkit_in(repo(), args)
}

const DT: f32 = 0.1;

#[test]
fn overlap_depth_and_separation_of_two_agents_placed_overlapping() {
    // Radii 0.6 and 0.4 with centres 0.7 m apart (3D: 0.6 in x, 0.2 in y, 0.3 in z gives
    // sqrt(0.36 + 0.04 + 0.09) = 0.7): they overlap by 0.6 + 0.4 - 0.7 = 0.3 m.
    let mut m = CrowdMetrics::new(
        vec![Vec3::splat(100.0), Vec3::splat(-100.0)],
        vec![0.6, 0.4],
        1.0,
        DT,
    );
    let pos = [Vec3::new(1.0, 0.0, 1.0), Vec3::new(1.6, 0.2, 1.3)];
    for _ in 0..3 {
        m.frame(&pos, &[Vec3::ZERO; 2], Duration::from_micros(10));
    }
    // Apart by 1.2 m: separation 1.2 is not an overlap (0.6 + 0.4 < 1.2).
    m.frame(
        &[Vec3::ZERO, Vec3::new(0.0, 0.0, 1.2)],
        &[Vec3::ZERO; 2],
        Duration::from_micros(40),
    );
    let r = m.report(&[]);
    assert!((r.deepest_overlap - 0.3).abs() < 1e-5, "{r:?}");
    assert!((r.min_separation - 0.7).abs() < 1e-5, "{r:?}");
    // One pair in each of the first three frames.
    assert_eq!(r.overlaps, 3);
    // Update times 10, 10, 10, 40 us: mean 17.5, max 40.
    assert!((r.update_mean_us - 17.5).abs() < 1e-9, "{r:?}");
    assert!((r.update_max_us - 40.0).abs() < 1e-9, "{r:?}");
    assert_eq!((r.arrived, r.last_arrival, r.frames), (0, None, 4));
}

#[test]
fn last_arrival_time_and_mean_speed_of_agents_walking_at_known_speeds() {
    // Agent 0 walks +x at 1 m/s from x = 0 towards x = 5, arrival distance 1: within 1 m of
    // its goal once at x = 4, at the end of frame 40 (4 s at dt 0.1). Agent 1 walks at 2 m/s
    // from 0 towards 10: x = 9 at the end of frame 45 (4.5 s). Both stop there.
    let goals = vec![Vec3::new(5.0, 0.0, 0.0), Vec3::new(10.0, 0.0, 20.0)];
    let mut m = CrowdMetrics::new(goals, vec![0.5; 2], 1.0, DT);
    for f in 1..=60 {
        let t = f as f32 * DT;
        let x0 = t.min(4.0);
        let x1 = (2.0 * t).min(9.0);
        let v0 = if f <= 40 { 1.0 } else { 0.0 };
        let v1 = if f <= 45 { 2.0 } else { 0.0 };
        m.frame(
            &[Vec3::new(x0, 0.0, 0.0), Vec3::new(x1, 0.0, 20.0)],
            &[Vec3::new(v0, 0.0, 0.0), Vec3::new(v1, 0.0, 0.0)],
            Duration::ZERO,
        );
    }
    let r = m.report(&[]);
    assert_eq!(r.arrived, 2);
    assert!((m.arrived_at(0).unwrap() - 4.0).abs() < 1e-4, "{r:?}");
    let last = r.last_arrival.unwrap();
    assert!((last - 4.5).abs() < 1e-4, "{r:?}");
    // Speeds of agents on their way, arrival frames included: 40 frames at 1 and 45 at 2, so
    // (40 + 90) / 85.
    assert!((r.mean_speed - 130.0 / 85.0).abs() < 1e-4, "{r:?}");
    // 20 m apart in z all along.
    assert!((r.min_separation - 20.0).abs() < 1e-3, "{r:?}");
    assert_eq!(r.stuck.total(), 0);
}

#[test]
fn stuck_agents_by_the_crowds_cause_else_by_no_progress() {
    // Four agents far from their goals; agents 0, 1 and 2 stand still for 6 s (over the 5 s
    // window), agent 3 walks 1 m/s (5 m per window, over the 0.5 m of the measure).
    let goals = vec![Vec3::splat(50.0); 4];
    let mut m = CrowdMetrics::new(goals, vec![0.5; 4], 1.0, DT);
    for f in 1..=60 {
        let t = f as f32 * DT;
        let pos = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 3.0),
            Vec3::new(0.0, 0.0, 6.0),
            Vec3::new(t, 0.0, 9.0),
        ];
        m.frame(&pos, &[Vec3::ZERO; 4], Duration::ZERO);
    }
    // No causes: the fallback finds the three that stand still.
    let r = m.report(&[]);
    assert_eq!(
        (r.stuck.no_progress, r.stuck.total()),
        (3, 3),
        "{:?}",
        r.stuck
    );
    // The crowd's causes win where given; the walking agent's cause is counted too.
    let causes = [
        Some(StuckCause::BlockedByAgents),
        None,
        Some(StuckCause::Unreachable),
        Some(StuckCause::BlockedByObstacle),
    ];
    let r = m.report(&causes);
    assert_eq!(
        r.stuck.named(),
        [
            ("blocked_by_agents", 1),
            ("blocked_by_obstacle", 1),
            ("unreachable", 1),
            ("no_progress", 1)
        ]
    );
    // Per agent, the same reasons (what `navkit simulate` draws and writes per agent).
    assert_eq!(
        m.stuck(&causes),
        [
            Some(Stuck::Crowd(StuckCause::BlockedByAgents)),
            Some(Stuck::NoProgress),
            Some(Stuck::Crowd(StuckCause::Unreachable)),
            Some(Stuck::Crowd(StuckCause::BlockedByObstacle)),
        ]
    );
}

#[test]
fn simulate_marks_stuck_agents_by_cause_in_its_picture_and_trajectories() {
    // Plain DetourCrowd on the corridor swap (tests/crowd_behaviours.rs, the suite's table):
    // 8 of 20 arrive in 120 s; the 12 others stand deadlocked in the corridor, no cause from
    // plain DetourCrowd, so navkit's no-progress measure names them all.
    let dir = std::env::temp_dir().join(format!("navkit-stuck-marks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (svg, traj) = (dir.join("run.svg"), dir.join("run.json"));
    let (code, _, err) = navkit(&[
        "simulate",
        "--scenario",
        "scenarios/crowd/corridor_swap.json",
        "--plain-detour",
        "-o",
        svg.to_str().unwrap(),
        "--trajectories",
        traj.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let agents: Value = serde_json::from_str(&std::fs::read_to_string(&traj).unwrap()).unwrap();
    let stuck: Vec<&Value> = agents
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["stuck"])
        .collect();
    assert_eq!(stuck.iter().filter(|s| **s == "no_progress").count(), 12);
    assert_eq!(stuck.iter().filter(|s| s.is_null()).count(), 8);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(
        picture.contains("stuck at the end: no_progress (12)"),
        "legend"
    );
    assert!(
        !picture.contains("blocked_by_agents"),
        "no legend row for absent causes"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn scenario_fields_of_a_suite_run_are_read_and_applied() {
    let dir = common::temp("suite-fields");
    std::fs::create_dir_all(dir.join("levels")).unwrap();
    std::fs::copy(
        repo().join("scenarios/crowd/levels/door.obj"),
        dir.join("levels/door.obj"),
    )
    .unwrap();
    let file = write(
        &dir,
        "random.json",
        r#"{"level": "levels/door.obj", "seconds": 12.5,
            "random": {"agents": 7, "seeds": [4, 9]},
            "agent": {"radius": 0.5, "max_speed": 2.0}, "arrive_distance": 0.75}"#,
    );
    let e = SuiteScenario::load(&file, &LoadOptions::default()).unwrap();
    assert_eq!(e.name, "random");
    assert_eq!(
        e.level.as_deref(),
        Some(dir.join("levels/door.obj").as_path())
    );
    let runs = e.runs(&SimSettings::default());
    assert_eq!(runs.len(), 2);
    for (run, seed) in runs.iter().zip([4, 9]) {
        let s = &run.settings;
        assert_eq!((run.seed, s.seed, s.agents), (Some(seed), seed, 7));
        assert_eq!((s.seconds, s.arrive_radius), (12.5, 0.75));
        // The radius scales the ranges as AgentParams::with_radius does (12 and 30 radii).
        assert_eq!((s.params.radius, s.params.max_speed), (0.5, 2.0));
        assert_eq!(s.params.collision_query_range, 6.0);
        assert_eq!(s.params.path_optimization_range, 15.0);
        // Untouched: RecastDemo's height and acceleration.
        assert_eq!((s.params.height, s.params.max_acceleration), (2.0, 8.0));
    }
    // One seed; none at all gives seed 1.
    let one = write(&dir, "one.json", r#"{"random": {"agents": 3, "seed": 8}}"#);
    assert_eq!(Scenario::load(&one).unwrap().seeds(), vec![8]);
    let none = write(&dir, "none.json", r#"{"random": {"agents": 3}}"#);
    assert_eq!(Scenario::load(&none).unwrap().seeds(), vec![1]);
    // The project's suite: every file parses, names its level, and the RecastDemo ones (outside
    // the folder) load when allowed.
    let trusted = LoadOptions {
        allow_outside_paths: true,
    };
    let suite = load_suite(&[repo().join("scenarios/crowd")], &trusted).unwrap();
    let names: Vec<&str> = suite.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "bottleneck_exit",
            "circle_swap",
            "corridor_swap",
            "crossing",
            "door_oneway",
            "door_swap",
            "dungeon_random",
            "nav_test_random"
        ]
    );
    assert!(
        suite
            .iter()
            .all(|e| e.level.as_ref().is_some_and(|l| l.is_file()))
    );
    let dungeon = &suite[6];
    let runs = dungeon.runs(&SimSettings::default());
    assert_eq!(
        runs.iter().map(|r| r.seed).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5].map(Some)
    );
    assert!(
        runs.iter()
            .all(|r| r.settings.agents == 100 && r.settings.seconds == 60.0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The message of a scenario that fails to load, checked to be a parse error naming the file.
fn load_error(path: &Path, options: &LoadOptions) -> String {
    let err = SuiteScenario::load(path, options).unwrap_err();
    assert!(matches!(err, Error::Parse { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&path.display().to_string()),
        "{message} does not name {}",
        path.display()
    );
    message
}

#[test]
fn bad_scenario_files_give_parse_errors_naming_the_file_and_the_field() {
    let dir = common::temp("suite-bad");
    std::fs::create_dir_all(dir.join("a folder.obj")).unwrap();
    let options = LoadOptions::default();
    for (text, field) in [
        (r#"{"random": {"agents": 5, "seedz": [1]}}"#, "seedz"),
        (r#"{"levle": "x.obj"}"#, "levle"),
        (r#"{"agent": {"speed": 2}}"#, "speed"),
        (r#"{"random": {"agents": 5, "seeds": []}}"#, "random.seeds"),
        (r#"{"random": {"agents": 0}}"#, "random.agents"),
        (r#"{"random": {"agents": 10001}}"#, "random.agents"),
        (
            r#"{"random": {"agents": 5, "seed": 1, "seeds": [2]}}"#,
            "random",
        ),
        (
            r#"{"random": {"agents": 5}, "agents": [{"start": [0,0,0], "goal": [1,0,1]}]}"#,
            "random",
        ),
        // JSON has no NaN: the reader refuses it at its line.
        (r#"{"seconds": NaN}"#, "line 1"),
        // Too large for an f32: infinite, refused.
        (r#"{"seconds": 1e39}"#, "seconds"),
        (r#"{"seconds": 0}"#, "seconds"),
        (r#"{"seconds": 3601}"#, "seconds"),
        (r#"{"arrive_distance": -1}"#, "arrive_distance"),
        (r#"{"agent": {"radius": 0}}"#, "agent.radius"),
        (r#"{"agent": {"max_speed": 1e39}}"#, "agent.max_speed"),
        (r#"{"level": ""}"#, "level"),
        (r#"{"level": "missing.obj"}"#, "not found"),
        (r#"{"level": "a folder.obj"}"#, "is a folder"),
        (r#"{"level": "../outside.obj"}"#, "--allow-outside-paths"),
        (r#"{"level": "/etc/hostname"}"#, "is absolute"),
    ] {
        let file = write(&dir, "bad.json", text);
        let message = load_error(&file, &options);
        assert!(message.contains(field), "{text}: {message}");
    }
    // Allowed outside paths: `..` reaches a level beside the folder, a missing one is still
    // not found.
    std::fs::copy(
        repo().join("scenarios/crowd/levels/door.obj"),
        dir.parent().unwrap().join("suite-bad-outside.obj"),
    )
    .unwrap();
    let trusted = LoadOptions {
        allow_outside_paths: true,
    };
    let file = write(&dir, "out.json", r#"{"level": "../suite-bad-outside.obj"}"#);
    assert!(
        SuiteScenario::load(&file, &trusted)
            .unwrap()
            .level
            .is_some()
    );
    let file = write(&dir, "out.json", r#"{"level": "../no-such-level.obj"}"#);
    assert!(load_error(&file, &trusted).contains("not found"));
    // A folder without scenario files.
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let err = load_suite(&[empty], &options).unwrap_err();
    assert!(err.to_string().contains("no scenario files"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn simulate_suite_prints_a_table_row_per_run_and_a_json_array() {
    let door = "scenarios/crowd/door_swap.json";
    // Measured with plain DetourCrowd (the suite's first commit): all 16 agents of door_swap
    // arrive, the last at 41.9 s. In 2 s none can: the nearest goal is 8.2 m away (start x 8.4,
    // goal 25 - 8.4), 7.2 m short of arriving, more than 2 s at 3.5 m/s.
    let (code, out, err) = navkit(&["simulate", "--suite", door, "--seconds", "2"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(lines[0].starts_with("| scenario | seed | arrived | last arrival s | stuck"));
    assert!(
        lines[2].starts_with("| door_swap | - | 0/16 | - |"),
        "{out}"
    );
    let (code, out, err) = navkit(&["simulate", "--suite", door, "--json", "--plain-detour"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    let rows = v.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    let r = &rows[0];
    assert_eq!(r["scenario"], "door_swap");
    // `seed` is there, null: the scenario lists its agents.
    assert_eq!(r.get("seed"), Some(&Value::Null), "{r}");
    assert_eq!(
        (r["agents"].as_u64(), r["arrived"].as_u64()),
        (Some(16), Some(16))
    );
    assert_eq!(r["simulated_s"], 120.0);
    assert!(
        (r["last_arrival_s"].as_f64().unwrap() - 41.9).abs() < 0.05,
        "{r}"
    );
    for key in [
        "stuck",
        "mean_speed_m_per_s",
        "min_separation_m",
        "collisions",
        "deepest_overlap_m",
        "update_us",
        "update_max_us",
    ] {
        assert!(r[key].is_number(), "{key}: {r}");
    }
    assert_eq!(
        r["stuck_by_cause"],
        serde_json::json!({"blocked_by_agents": 0, "blocked_by_obstacle": 0,
                           "unreachable": 0, "no_progress": 0})
    );
    // A single scenario with its level and no MESH: today's object, with the new keys.
    let (code, out, err) = navkit(&["simulate", "--scenario", door, "--json", "--plain-detour"]);
    assert_eq!(code, 0, "{err}");
    let single: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(single["arrived"], r["arrived"]);
    assert_eq!(single["last_arrival_s"], r["last_arrival_s"]);
    // Without --plain-detour the crowd behaviours run (the default): the door is taken in
    // turns and the last agent is through sooner (measured 23.3 s at fe9b5b6, 29.9 s since
    // held-up agents gain priority (c831e24), against DetourCrowd's 41.9 s).
    let (code, out, err) = navkit(&["simulate", "--scenario", door, "--json"]);
    assert_eq!(code, 0, "{err}");
    let ours: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(ours["arrived"], 16);
    let last = ours["last_arrival_s"].as_f64().unwrap();
    assert!((20.0..36.0).contains(&last), "{ours}");
    // A random scenario: a row per seed (here one, --seed), on a RecastDemo level outside the
    // suite's folder: refused by default, read with --allow-outside-paths.
    let dungeon = "scenarios/crowd/dungeon_random.json";
    let (code, out, _) = navkit(&["simulate", "--suite", dungeon, "--json"]);
    assert_eq!(code, 1);
    let e: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(e["error"]["kind"], "parse");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("--allow-outside-paths")
    );
    let (code, out, err) = navkit(&[
        "simulate",
        "--suite",
        dungeon,
        "--seed",
        "3",
        "--seconds",
        "2",
        "--allow-outside-paths",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    assert_eq!(
        (v[0]["seed"].as_u64(), v[0]["agents"].as_u64()),
        (Some(3), Some(100))
    );
}

#[test]
fn simulate_refuses_bad_levels_as_input_errors() {
    let dir = common::temp("suite-cli-bad");
    std::fs::create_dir_all(dir.join("folder.obj")).unwrap();
    for (level, says) in [
        ("missing.obj", "not found"),
        ("folder.obj", "is a folder"),
        ("../outside.obj", "--allow-outside-paths"),
    ] {
        let file = write(&dir, "s.json", &format!(r#"{{"level": "{level}"}}"#));
        for args in [
            vec!["simulate", "--scenario", file.to_str().unwrap()],
            vec!["simulate", "--suite", file.to_str().unwrap()],
        ] {
            let (code, _, err) = navkit(&args);
            // Exit code 1: an input error, as a missing mesh is.
            assert_eq!(code, 1, "{args:?}: {err}");
            assert!(
                err.contains("s.json") && err.contains("level") && err.contains(says),
                "{err}"
            );
        }
    }
    // No level anywhere: a usage error.
    let file = write(&dir, "s.json", r#"{"random": {"agents": 3}}"#);
    let (code, _, err) = navkit(&["simulate", "--scenario", file.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn floor_outline_of_the_door_level_is_one_loop_around_both_rooms() {
    // scripts/crowd-levels.py's door level: rooms (0,0)-(12,12) and (13,0)-(25,12) joined by a
    // door (12,4.95)-(13,7.05). The union's outline has 12 corners: each room's 4, and the door's
    // 4 where it meets the rooms' walls (T-junctions, which the outline splits at).
    let geom = navkit::InputGeometry::load(repo().join("scenarios/crowd/levels/door.obj")).unwrap();
    let v = &geom.mesh.verts;
    let at = |i: i32| Vec3::from_slice(&v[3 * i as usize..3 * i as usize + 3]);
    let tris: Vec<[Vec3; 3]> = geom
        .mesh
        .tris
        .chunks(3)
        .map(|t| [at(t[0]), at(t[1]), at(t[2])])
        .collect();
    let loops = orca_crowd::floor_outline(&tris);
    assert_eq!(loops.len(), 1);
    let dodgy_2d::Obstacle::Closed { vertices } = &loops[0] else {
        panic!("closed");
    };
    assert_eq!(vertices.len(), 12, "{vertices:?}");
    // Clockwise in (x, z) (negative signed area): the floor inside, dodgy_2d's solid side (the
    // left of each edge) outside. Area 12 * 12 * 2 + 1 * 2.1 = 290.1 m².
    let area: f32 = (0..12)
        .map(|i| vertices[i].perp_dot(vertices[(i + 1) % 12]))
        .sum::<f32>()
        / 2.0;
    assert!((area + 290.1).abs() < 1e-3, "{area}");
}
