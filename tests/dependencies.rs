//! What a program that depends on navkit gets: with the default features no command-line,
//! rendering, JSON or thread-pool crates, and every dependency builds with navkit's declared
//! `rust-version` (clippy's `incompatible_msrv` lint checks navkit's own use of std against it).

use std::process::Command;

/// Runs cargo in the repository. Not `--offline`: after a build with every feature (as
/// scripts/test.sh runs) nothing is downloaded; after a narrower one cargo fetches the rest.
fn cargo(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("running cargo");
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The names of the crates `cargo tree -e normal` lists for navkit with `features` (none: the
/// default features), as a dependent program gets them.
fn normal_dependencies(features: Option<&str>) -> Vec<String> {
    let mut args = vec![
        "tree", "-p", "navkit", "-e", "normal", "--prefix", "none", "--format", "{p}",
    ];
    if let Some(f) = features {
        args.extend(["--features", f]);
    }
    let mut names: Vec<String> = cargo(&args)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

const NOT_BY_DEFAULT: [&str; 7] = [
    "clap",
    "indicatif",
    "tiny-skia",
    "font8x8",
    "rayon",
    "serde_json",
    "serde",
];

#[test]
fn default_features_pull_no_cli_render_json_or_thread_pool_crates() {
    let default = normal_dependencies(None);
    for name in NOT_BY_DEFAULT {
        assert!(
            !default.contains(&name.to_string()),
            "{name} is a dependency with the default features: {default:?}"
        );
    }
    for name in [
        "navkit",
        "recastnavigation-sys",
        "glam",
        "thiserror",
        "lz4_flex",
    ] {
        assert!(
            default.contains(&name.to_string()),
            "{name} missing: {default:?}"
        );
    }
    // The same check sees them when they are asked for.
    let cli = normal_dependencies(Some("cli"));
    for name in NOT_BY_DEFAULT {
        assert!(
            cli.contains(&name.to_string()),
            "{name} missing with cli: {cli:?}"
        );
    }
}

fn version(v: &str) -> (u32, u32, u32) {
    let mut parts = v.split('.').map(|p| p.parse::<u32>().unwrap());
    let mut next = || parts.next().unwrap_or(0);
    (next(), next(), next())
}

#[test]
fn rust_version_is_at_least_every_dependencys() {
    let ours = env!("CARGO_PKG_RUST_VERSION");
    assert!(!ours.is_empty(), "Cargo.toml declares no rust-version");
    let host = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("running rustc");
    let host = String::from_utf8(host.stdout).unwrap();
    let host = host
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc -vV prints the host");
    // Every feature's dependencies for this platform.
    let meta = cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--all-features",
        "--filter-platform",
        host,
    ]);
    let meta: serde_json::Value = serde_json::from_str(&meta).unwrap();
    // What a dependent compiles: navkit's normal and build dependencies, and all of theirs.
    // Dev-dependencies are ours alone (the grid benchmark's `pathfinding` 4.16 needs 1.88).
    let nodes = meta["resolve"]["nodes"].as_array().unwrap();
    let node = |id: &str| nodes.iter().find(|n| n["id"] == id).unwrap();
    let root = meta["resolve"]["root"].as_str().unwrap();
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = vec![root.to_string()];
    while let Some(id) = todo.pop() {
        for d in node(&id)["deps"].as_array().unwrap() {
            let not_dev = d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"] != "dev");
            let pkg = d["pkg"].as_str().unwrap();
            if not_dev && seen.insert(pkg.to_string()) {
                todo.push(pkg.to_string());
            }
        }
    }
    assert!(seen.len() > 20, "{seen:?}");
    let too_new: Vec<String> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| seen.contains(p["id"].as_str().unwrap()))
        .filter_map(|p| {
            let rv = p["rust_version"].as_str()?;
            (version(rv) > version(ours))
                .then(|| format!("{} {} needs {rv}", p["name"], p["version"]))
        })
        .collect();
    assert!(
        too_new.is_empty(),
        "rust-version is {ours}, but {too_new:?} (pin an older version in Cargo.lock or raise rust-version)"
    );
}
