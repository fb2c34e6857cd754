//! Errors that tell the truth (issue 20, finding 7, and finding 3's `path --batch`), end to
//! end through the library and the `navkit` program: each reproduction of the issue, refused
//! promptly with an error naming the line (or the vertex), or handled.

#[path = "common/cli.rs"]
mod cli_run;
mod common;
use cli_run::navkit_in;

use navkit::geometry::LoadOptions;
use navkit::{Error, InputGeometry, NavMeshBuilder};
use std::path::{Path, PathBuf};

/// A fresh folder for one test.
fn folder(tag: &str) -> PathBuf {
    let dir = common::temp(&format!("input-errors-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A 10 m square floor at the origin, two triangles facing up.
const FLOOR: &str = "v 0 0 0\nv 10 0 0\nv 10 0 10\nv 0 0 10\nf 1 3 2\nf 1 4 3\n";

/// The finding: a vertex at x = 3e38 was reported as `invalid setting `cell_size` = 0.3: gives
/// a 9223372036854775807 x 33 grid`. No cell size builds it (a level must lie within +-5e8 m
/// of the origin), so the geometry is blamed: the vertex, its line, how far from the rest.
#[test]
fn a_vertex_no_cell_size_can_grid_is_named() {
    let dir = folder("far");
    std::fs::write(dir.join("far.obj"), format!("{FLOOR}v 3e38 0 5\n")).unwrap();
    let geom = InputGeometry::load(dir.join("far.obj")).unwrap();
    let want = "OBJ vertex 5 (line 7) at (3e38, 0, 5) lies beyond +-5e8 m of the origin, 3e38 m \
                from the rest of the level, whose vertices lie within (0, 0, 0) .. (10, 0, 10)";
    let b = NavMeshBuilder::new(&geom);
    for r in [
        b.solo().map(drop),
        b.tiled().map(drop),
        b.tile_cache().map(drop),
        b.estimate().map(drop),
    ] {
        match r {
            Err(Error::Geometry(m)) => {
                assert!(m.contains(want), "{m}");
                assert!(m.contains("whatever the cell size"), "{m}");
            }
            other => panic!("{other:?}"),
        }
    }
    // Two far vertices, one unreferenced: the farthest is named, the other counted; a mesh
    // made in code has no line to name.
    let mut mesh = geom.mesh.clone();
    mesh.verts.extend([0.0, -6e8, 0.0]);
    mesh.source = None;
    mesh.validate().unwrap();
    let m = InputGeometry::from_mesh(mesh)
        .validate()
        .unwrap_err()
        .to_string();
    assert!(
        m.contains("OBJ vertex 5 at (3e38, 0, 5) and 1 other vertices lies beyond"),
        "{m}"
    );
    // Just inside the limit the build goes on (to a cell-size check of its own).
    let near = format!("{FLOOR}v 4e8 0 5\n");
    let mesh = navkit::TriMesh::from_obj_str(&near, "n.obj".as_ref()).unwrap();
    InputGeometry::from_mesh(mesh).validate().unwrap();
    let (code, _, err) = navkit_in(&dir, &["build", "far.obj", "-o", "far.navmesh"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(want) && !err.contains("cell_size"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The finding: a face of more than 32 vertices was cut short without a word (RecastDemo's
/// loader does the same), losing part of the floor. Now triangulated whole, with a warning.
#[test]
fn a_face_of_40_vertices_is_built_whole_with_a_warning() {
    let dir = folder("face");
    let mut obj = String::new();
    for i in 0..40 {
        let a = std::f64::consts::TAU * i as f64 / 40.0;
        obj += &format!("v {} 0 {}\n", 10.0 * a.cos(), 10.0 * a.sin());
    }
    obj += "f";
    // Wound clockwise seen from above (+y), so that its triangles face up.
    for i in (1..=40).rev() {
        obj += &format!(" {i}");
    }
    obj += "\n";
    std::fs::write(dir.join("disc.obj"), &obj).unwrap();
    let (code, out, err) = navkit_in(&dir, &["build", "disc.obj", "--json"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains(
            "navkit: warning: disc.obj:41: a face of 40 vertices, more than RecastDemo reads (32)"
        ),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    // 40 - 2 triangles, where the first 32 vertices gave 30.
    assert_eq!(v["input_tris"], 38, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The finding: `--batch /dev/zero` aborted, and a 200 MB line came back as 400 MB of error
/// output. Lines are read with a bounded reader: refused once longer than 1 MiB, quoted clipped.
#[test]
fn batch_lines_are_bounded_and_named() {
    let dir = folder("batch");
    std::fs::write(dir.join("floor.obj"), FLOOR).unwrap();
    // 3 MB of one line, after a good query.
    let mut long = b"1 0 1 9 0 9\n".to_vec();
    long.extend(std::iter::repeat_n(b'7', 3_000_000));
    std::fs::write(dir.join("long.batch"), &long).unwrap();
    let mut sources = vec!["long.batch".to_string()];
    if Path::new("/dev/zero").exists() {
        sources.push("/dev/zero".into());
    }
    for src in &sources {
        let (code, out, err) = navkit_in(&dir, &["path", "floor.obj", "--batch", src]);
        assert_eq!(code, 1, "{src}: {err}");
        let line = if src == "long.batch" { 2 } else { 1 };
        assert!(
            err.contains(&format!(
                "{src}:{line}: line longer than 1048576 bytes (the limit): `"
            )),
            "{src}: {err:.300}"
        );
        // The error quotes 80 characters (NULs as `\u{0}`), not the line.
        assert!(
            err.len() + out.len() < 3000,
            "{src}: {} bytes",
            err.len() + out.len()
        );
    }
    // A byte-order mark is skipped; invalid UTF-8 names its line; invisible characters show.
    std::fs::write(
        dir.join("bom.batch"),
        "\u{feff}1 0 1 9 0 9\n# c\n2 0 2 8 0 8\n",
    )
    .unwrap();
    let (code, out, err) = navkit_in(&dir, &["path", "floor.obj", "--batch", "bom.batch"]);
    assert_eq!((code, out.lines().count()), (0, 2), "{err}");
    std::fs::write(dir.join("utf.batch"), b"1 0 1 9 0 9\n\n1 0 \xff 9 0 9\n").unwrap();
    let (code, _, err) = navkit_in(&dir, &["path", "floor.obj", "--batch", "utf.batch"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("utf.batch:3: not valid UTF-8 (at byte 5 of the line): `1 0 \u{fffd} 9 0 9`"),
        "{err}"
    );
    std::fs::write(dir.join("zw.batch"), "1 0 1 9 0\u{200b} 9\n").unwrap();
    let (code, _, err) = navkit_in(&dir, &["path", "floor.obj", "--batch", "zw.batch"]);
    assert_eq!(code, 1);
    assert!(err.contains("got `1 0 1 9 0\\u{200b} 9`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The finding: a byte-order mark was accepted in OBJ (where it cost the first vertex) but
/// refused in `.gset`, Moving AI files and `--batch` with messages that printed it invisibly
/// (`expected `version 1`, found `version 1``). Every text reader now skips it.
#[test]
fn byte_order_marks_are_accepted_everywhere() {
    let dir = folder("bom");
    let bom = "\u{feff}";
    std::fs::write(dir.join("floor.obj"), format!("{bom}{FLOOR}")).unwrap();
    std::fs::write(dir.join("level.gset"), format!("{bom}f floor.obj\n")).unwrap();
    for input in ["floor.obj", "level.gset"] {
        let (code, out, err) = navkit_in(&dir, &["build", input, "--json"]);
        assert_eq!(code, 0, "{input}: {err}");
        let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
        assert_eq!(
            (v["input_verts"].as_u64(), v["input_tris"].as_u64()),
            (Some(4), Some(2))
        );
    }
    std::fs::write(
        dir.join("a.map"),
        format!("{bom}type octile\r\nheight 2\r\nwidth 2\r\nmap\r\n..\r\n..\r\n"),
    )
    .unwrap();
    std::fs::write(
        dir.join("a.scen"),
        format!("{bom}version 1\n0\ta.map\t2\t2\t0\t0\t1\t1\t1.41421356\n"),
    )
    .unwrap();
    let (code, out, err) = navkit_in(&dir, &["grid-bench", "a.map", "a.scen", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["total"]["solved"], 1, "{out}");
    let case = format!("{bom}s Solo Mesh\nf floor.obj\npf 1 0 1 9 0 9 0x3 0x0\n");
    std::fs::write(dir.join("case.txt"), case).unwrap();
    let (code, out, err) = navkit_in(&dir, &["testcase", "case.txt"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Test Results:"), "{out}");
    // A scenario file (JSON) with a BOM.
    let scenario = format!(r#"{bom}{{"agents": [{{"start": [1, 0, 1], "goal": [9, 0, 9]}}]}}"#);
    std::fs::write(dir.join("s.json"), scenario).unwrap();
    let (code, _, err) = navkit_in(
        &dir,
        &[
            "simulate",
            "floor.obj",
            "--scenario",
            "s.json",
            "--seconds",
            "1",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The finding: `.gset` and test-case `f` lines read meshes by absolute and `..` paths (glTF
/// buffers, rightly, may not). Now confined to the file's folder unless allowed.
#[test]
fn gset_and_testcase_meshes_stay_in_their_folder_unless_allowed() {
    let dir = folder("confined");
    std::fs::create_dir_all(dir.join("level")).unwrap();
    std::fs::write(dir.join("outside.obj"), FLOOR).unwrap();
    let outside = dir.join("outside.obj").canonicalize().unwrap();
    let level = dir.join("level");
    let abs = format!("f {}\n", outside.display());
    std::fs::write(level.join("up.gset"), "# up\nf ../outside.obj\n").unwrap();
    std::fs::write(level.join("abs.gset"), &abs).unwrap();
    std::fs::write(level.join("case.txt"), format!("s Solo Mesh\n{abs}")).unwrap();
    let cases = [
        ("up.gset", "up.gset:2: ", "goes up a folder (`..`)"),
        ("abs.gset", "abs.gset:1: ", "is absolute"),
    ];
    for (file, at, what) in cases {
        let (code, _, err) = navkit_in(&level, &["build", file, "-o", "x.navmesh"]);
        assert_eq!(code, 1, "{file}: {err}");
        assert!(err.contains(at) && err.contains(what), "{file}: {err}");
        assert!(err.contains("--allow-outside-paths"), "{err}");
        let g = InputGeometry::load(level.join(file));
        assert!(matches!(g, Err(Error::Parse { .. })), "{g:?}");
        let allowed = LoadOptions {
            allow_outside_paths: true,
        };
        let g = InputGeometry::load_with(level.join(file), &allowed).unwrap();
        assert_eq!(g.mesh.tri_count(), 2);
        let (code, _, err) = navkit_in(
            &level,
            &["build", file, "-o", "x.navmesh", "--allow-outside-paths"],
        );
        assert_eq!(code, 0, "{file}: {err}");
    }
    let (code, _, err) = navkit_in(&level, &["testcase", "case.txt"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("case.txt:2: ") && err.contains("is absolute"),
        "{err}"
    );
    let (code, out, err) = navkit_in(&level, &["testcase", "case.txt", "--allow-outside-paths"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Test Results:"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
