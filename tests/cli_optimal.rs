//! The optimal path in the command line (issue 22, item 4): `navkit path --optimal` (text,
//! JSON, batch), `navkit compare`'s yardstick, `navkit render --paths optimal`.

#[path = "common/cli.rs"]
mod cli_run;
mod common;
use cli_run::navkit_in;

use navkit::query::{OptimalOptions, PathOptions, QueryFilter};
use navkit::{InputGeometry, NavMeshBuilder};
use serde_json::Value;

fn navkit_code(args: &[&str]) -> (i32, String, String) {
    navkit_in(env!("CARGO_MANIFEST_DIR"), args)
}

fn s(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// The pillar room as an `.obj` file (written once per test).
fn pillar_obj(name: &str) -> String {
    let path = common::temp(name);
    common::write_pillar_room_obj(&path);
    s(&path)
}

/// The library's optimal path between the pillar room's two ends, built as the CLI builds
/// an `.obj` (default settings).
fn library_optimal(obj: &str) -> navkit::query::OptimalPath {
    let geom = InputGeometry::load(obj).unwrap();
    let built = NavMeshBuilder::new(&geom).solo().unwrap();
    let mut q = built.navmesh().query().unwrap();
    let opts = PathOptions {
        optimal: Some(OptimalOptions::default()),
        ..PathOptions::default()
    };
    let p = q
        .path(
            glam::Vec3::new(10.0, 0.0, 2.0),
            glam::Vec3::new(10.0, 0.0, 18.0),
            &QueryFilter::default(),
            &opts,
        )
        .unwrap();
    p.optimal.unwrap()
}

const ENDS: [&str; 4] = ["--from", "10,0,2", "--to", "10,0,18"];

#[test]
fn path_optimal_text_json_and_batch() {
    let obj = pillar_obj("pillar-path.obj");
    let lib = library_optimal(&obj);
    let mut args = vec!["path", obj.as_str()];
    args.extend(ENDS);
    args.extend(["--optimal", "--json"]);
    let (code, stdout, stderr) = navkit_code(&args);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    let o = &v["optimal"];
    // The library's path for the same pair, to the bit.
    // (JSON writes an f32 in its shortest form: read back as f32, the same bits.)
    assert_eq!(o["length_xz_m"].as_f64().unwrap() as f32, lib.length_xz);
    assert_eq!(o["length_m"].as_f64().unwrap() as f32, lib.length);
    assert_eq!(o["expanded"].as_u64().unwrap(), lib.expanded as u64);
    assert_eq!(o["points"].as_array().unwrap().len(), lib.points.len());
    assert_eq!(o["points"][0].as_array().unwrap().len(), 3);
    assert_eq!(
        (&o["exact"], &o["status"]),
        (&Value::Bool(true), &"complete".into())
    );
    assert!(o["time_us"].as_f64().unwrap() >= 0.0);
    // Hand derivation: round the pillar (x in [8, 12], z in [6, 14]) from (10, 2) to
    // (10, 18), the taut string touches two corners on one side: round the bare pillar
    // 2 sqrt(2^2 + 4^2) + 8 = 16.944; round it grown by the agent's 0.6 m radius and at most
    // one 0.3 m cell more (Recast erodes whole cells off a 0.3 m grid the pillar's sides are
    // not all on), 2 sqrt(2.9^2 + 3.1^2) + 9.8 = 18.29. (Measured: 17.841, round corners
    // (7.2, 5.7) and (7.2, 14.1): sqrt(2.8^2 + 3.7^2) + 8.4 + sqrt(2.8^2 + 3.9^2).)
    let len = o["length_xz_m"].as_f64().unwrap();
    assert!(len > 16.944 && len < 18.29, "{len}");
    // Never longer than the straight path (flat floor: its 3D length is its xz length).
    assert!(
        len <= v["straight_length_m"].as_f64().unwrap() + 1e-3,
        "{v}"
    );

    // Without --optimal, no `optimal` key: the old output unchanged.
    let (_, plain, _) = navkit_code(
        &args[..args.len() - 2]
            .iter()
            .chain(&["--json"])
            .copied()
            .collect::<Vec<_>>(),
    );
    let p: Value = serde_json::from_str(plain.trim()).unwrap();
    assert!(p.get("optimal").is_none());
    assert_eq!(p["straight"], v["straight"]);

    // Text: one line with the numbers, then the points.
    let (code, text, _) = navkit_code(&args[..args.len() - 1]);
    assert_eq!(code, 0);
    let line = text
        .lines()
        .find(|l| l.starts_with("Optimal:"))
        .expect(&text);
    assert_eq!(
        line,
        format!(
            "Optimal:   {} points, length {:.3}, length_xz {:.3}, expanded {}, exact true",
            lib.points.len(),
            lib.length,
            lib.length_xz,
            lib.expanded
        )
    );

    // Batch: every line has its optimal path (partial where the path is; null where it
    // failed), exit code 3 as without.
    let mesh = s(&common::mesh("nav_test.obj"));
    let batch = common::temp("optimal-batch.txt");
    std::fs::write(
        &batch,
        "18.13855 -2.370003 -21.319118 -19.20618 -2.369133 24.802742\n\
         20.161 -2.27 -18.1 -0.629 8.33 -7.66\n\
         1000 0 1000 0 0 0\n",
    )
    .unwrap();
    let (code, stdout, stderr) = navkit_code(&["path", &mesh, "--batch", &s(&batch), "--optimal"]);
    assert_eq!(code, 3, "{stderr}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    for (l, status) in lines.iter().zip(["complete", "partial"]) {
        assert_eq!(l["status"], status);
        assert_eq!(l["optimal"]["status"], status, "{l}");
        let (opt, straight) = (
            l["optimal"]["length_xz_m"].as_f64().unwrap(),
            l["straight"].as_array().unwrap(),
        );
        // Detour's straight path on the xz-plane is never shorter.
        let sxz: f64 = straight
            .windows(2)
            .map(|w| {
                let d = |i: usize| w[1][i].as_f64().unwrap() - w[0][i].as_f64().unwrap();
                (d(0) * d(0) + d(2) * d(2)).sqrt()
            })
            .sum();
        assert!(opt > 1.0 && opt <= sxz + 1e-3, "{opt} {sxz}");
    }
    assert_eq!(lines[2]["status"], "failed");
    assert!(lines[2]["optimal"].is_null() && lines[2]["error"].is_object());

    // Errors as without --optimal: a NaN point is a usage error (2).
    let (code, _, _) = navkit_code(&[
        "path",
        &obj,
        "--from",
        "nan,0,0",
        "--to",
        "1,1,1",
        "--optimal",
    ]);
    assert_eq!(code, 2);
}

#[test]
fn compare_and_render_use_the_optimal_path() {
    let obj = pillar_obj("pillar-compare.obj");
    let lib = library_optimal(&obj);
    let mut args = vec!["compare", obj.as_str()];
    args.extend(ENDS);
    let json_args: Vec<&str> = args.iter().copied().chain(["--json"]).collect();
    let (code, stdout, stderr) = navkit_code(&json_args);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    let q = &v["queries"][0];
    assert_eq!(
        q["optimal"]["length_xz_m"].as_f64().unwrap() as f32,
        lib.length_xz,
        "{q}"
    );
    // Each kind's xz length over the optimum's. The straight path's: at most its 3D length
    // over it, never below 1; here Detour's straight path bends round the same two corners
    // as the optimum ((7.2, 5.7), (7.2, 14.1): `navkit path`'s text), so 1 to float precision.
    let straight = q["navmesh"]["straight_length_m"].as_f64().unwrap();
    let r = &q["over_optimal"];
    let rs = r["straight"].as_f64().unwrap();
    assert!(rs <= straight / f64::from(lib.length_xz) + 1e-5, "{r}");
    assert!((1.0 - 1e-5..1.0 + 1e-5).contains(&rs), "{r}");
    for k in [
        "smooth",
        "spline",
        "grid",
        "follower_straight",
        "follower_grid",
    ] {
        let x = r[k].as_f64().unwrap_or(0.0);
        assert!((0.95..1.3).contains(&x), "{k}: {r}");
    }
    let sum = &v["summary"]["over_optimal"];
    assert_eq!(sum["queries"], 1);
    assert_eq!(sum["straight"]["mean"].as_f64().unwrap(), rs);

    // The table says what the ratio means; a row per query as before.
    let (code, text, _) = navkit_code(&args);
    assert_eq!(code, 0);
    assert!(
        text.contains("over the optimal (shortest) path's"),
        "{text}"
    );
    assert!(text.lines().any(|l| l.contains("str/opt")));
    assert_eq!(
        text.lines().filter(|l| l.contains(" | ")).count(),
        2,
        "{text}"
    );
    assert!(text.contains(&format!("{rs:.3}")), "{text}");

    // The picture of compare and render --paths optimal: the optimal path in the legend.
    for (cmd, extra) in [("compare", vec![]), ("render", vec!["--paths", "optimal"])] {
        let svg = common::temp(&format!("optimal-{cmd}.svg"));
        let mut a = vec![cmd, obj.as_str()];
        a.extend(ENDS);
        let out = s(&svg);
        a.extend(["-o", out.as_str()]);
        a.extend(extra);
        let (code, _, stderr) = navkit_code(&a);
        assert_eq!(code, 0, "{cmd}: {stderr}");
        let text = std::fs::read_to_string(&svg).unwrap();
        let label = format!(
            "optimal (shortest) path ({} points, {:.2} long",
            lib.points.len(),
            lib.length_xz
        );
        assert!(text.contains(&label), "{cmd}: no {label}");
    }
    // render's default draws only the straight path.
    let svg = common::temp("optimal-render-default.svg");
    let out = s(&svg);
    let mut a = vec!["render", obj.as_str()];
    a.extend(ENDS);
    a.extend(["-o", out.as_str()]);
    assert_eq!(navkit_code(&a).0, 0);
    assert!(
        !std::fs::read_to_string(&svg)
            .unwrap()
            .contains("optimal (shortest)")
    );
}
