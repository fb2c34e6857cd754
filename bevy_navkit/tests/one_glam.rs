//! One glam: bevy_navkit's dependency tree (what a game links) holds exactly one glam, the one
//! navkit's `Vec3` comes from, so a `Vec3` flows between Bevy and navkit with no conversion.

use std::process::Command;

#[test]
fn one_glam_in_bevy_navkits_tree() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "bevy_navkit",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(["--format", "{p}"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let glams: std::collections::BTreeSet<&str> = text
        .lines()
        .filter(|l| l.starts_with("glam v"))
        .map(|l| l.split_whitespace().nth(1).unwrap_or(""))
        .collect();
    assert_eq!(
        glams.len(),
        1,
        "glam versions in bevy_navkit's tree: {glams:?}"
    );
    let v = glams.iter().next().unwrap();
    assert!(v.starts_with("v0.33."), "{v}");
    // And it is navkit's and Bevy's: the same type.
    let v: bevy::math::Vec3 = navkit::glam::Vec3::new(1.0, 2.0, 3.0);
    assert_eq!(v, bevy::math::Vec3::new(1.0, 2.0, 3.0));
}
