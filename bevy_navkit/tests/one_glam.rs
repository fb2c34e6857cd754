//! bevy_navkit's dependency tree (what a game links): exactly one glam, the one navkit's `Vec3`
//! comes from, so a `Vec3` flows between Bevy and navkit with no conversion; and, without
//! features, no renderer, no windowing, no audio or gamepads: the plugin needs none.

use std::process::Command;

/// The packages (`name vX.Y.Z`) of bevy_navkit's normal dependency tree, without features.
fn tree() -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "tree",
            "-p",
            "bevy_navkit",
            "-e",
            "normal",
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
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn no_renderer_or_windowing_in_the_plugins_tree() {
    let tree = tree();
    assert!(
        tree.iter().any(|l| l.starts_with("bevy_ecs v")),
        "the tree was read"
    );
    for heavy in [
        "bevy_render ",
        "bevy_winit ",
        "winit ",
        "wgpu ",
        "bevy_pbr ",
        "bevy_audio ",
        "gilrs ",
    ] {
        assert!(
            !tree.iter().any(|l| l.starts_with(heavy)),
            "{heavy}is in the tree"
        );
    }
}

#[test]
fn one_glam_in_bevy_navkits_tree() {
    let tree = tree();
    let glams: std::collections::BTreeSet<&str> = tree
        .iter()
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
