//! Outputs that destroy nothing (issue 20, findings 1, 2 and 7's output check): every command
//! refuses, before any work, an output that is one of its inputs (by identity), a path that is
//! not a regular file or a new name, a folder it cannot write, and an existing file of another
//! kind without `--force`; `build -o -` writes the navmesh to standard output.

#[path = "common/cli.rs"]
mod cli_run;
mod common;
use cli_run::navkit_in_bytes as navkit_in;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh folder holding a copy of the demo level (`level.obj`, and `level.gset` naming it).
fn workspace(name: &str) -> PathBuf {
    let dir = common::temp(&format!("outputs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("meshes");
    std::fs::copy(repo.join("demo_level.obj"), dir.join("level.obj")).unwrap();
    let gset = std::fs::read_to_string(repo.join("demo_level.gset")).unwrap();
    let gset = gset.replacen("f demo_level.obj", "f level.obj", 1);
    assert!(gset.starts_with("f level.obj"));
    std::fs::write(dir.join("level.gset"), gset).unwrap();
    dir
}

#[test]
fn an_output_that_is_an_input_is_refused_by_identity() {
    let dir = workspace("identity");
    let obj = std::fs::read(dir.join("level.obj")).unwrap();
    let gset = std::fs::read(dir.join("level.gset")).unwrap();
    std::fs::hard_link(dir.join("level.obj"), dir.join("alias.obj")).unwrap();
    std::fs::write(dir.join("s.json"), b"{\"agents\": []}").unwrap();
    // (the command line, the input the message must name); --force changes nothing here.
    let cases: [(&[&str], &str); 5] = [
        (&["build", "level.obj", "-o", "level.obj"], "level.obj"),
        (&["build", "level.gset", "-o", "level.gset"], "level.gset"),
        // The mesh the .gset names, under its name and under another (a hard link).
        (&["build", "level.gset", "-o", "level.obj"], "level.obj"),
        (
            &["build", "level.obj", "-o", "alias.obj", "--force"],
            "level.obj",
        ),
        (
            &[
                "simulate",
                "level.obj",
                "--scenario",
                "s.json",
                "--trajectories",
                "s.json",
            ],
            "s.json",
        ),
    ];
    for (args, input) in &cases {
        let (code, _, stderr) = navkit_in(&dir, args);
        assert_eq!(code, 1, "{args:?}: {stderr}");
        assert!(
            stderr.contains("names the input") && stderr.contains(input),
            "{args:?}: {stderr}"
        );
    }
    assert_eq!(std::fs::read(dir.join("level.obj")).unwrap(), obj);
    assert_eq!(std::fs::read(dir.join("level.gset")).unwrap(), gset);
    assert_eq!(
        std::fs::read(dir.join("s.json")).unwrap(),
        b"{\"agents\": []}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn devices_fifos_and_symlinks_are_refused_without_waiting() {
    let dir = workspace("special");
    // A device node: as root navkit 0.3 replaced /dev/null with a regular file. As root the
    // test makes its own null device (char 1,3) in its folder, so that a navkit that replaces
    // devices breaks only that copy; otherwise /dev/null, which a user cannot replace.
    let null = dir.join("null");
    let made = Command::new("mknod")
        .arg(&null)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let device = if made {
        null
    } else {
        PathBuf::from("/dev/null")
    };
    let (code, _, stderr) = navkit_in(
        &dir,
        &["build", "level.obj", "-o", &device.to_string_lossy()],
    );
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("is a device"), "{stderr}");
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(
            std::fs::symlink_metadata(&device)
                .unwrap()
                .file_type()
                .is_char_device()
        );
    }
    // A FIFO: navkit 0.3 opened it to check it and waited for a reader forever. The run is
    // polled (not timed); a hang fails the test after 600 polls instead of stalling it.
    let fifo = dir.join("pipe");
    assert!(
        Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(["build", "level.obj", "-o", "pipe"])
        .current_dir(&dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut status = None;
    for _ in 0..600 {
        status = child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    if status.is_none() {
        let _ = child.kill();
        let _ = child.wait();
        panic!("navkit build -o FIFO did not end");
    }
    assert_eq!(status.unwrap().code(), Some(1));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert!(stderr.contains("FIFO"), "{stderr}");
    // A symlink at the target: refused, the file it points to untouched.
    std::fs::write(dir.join("victim.txt"), b"precious").unwrap();
    std::os::unix::fs::symlink("victim.txt", dir.join("out.navmesh")).unwrap();
    let (code, _, stderr) = navkit_in(&dir, &["build", "level.obj", "-o", "out.navmesh"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("symbolic link"), "{stderr}");
    assert_eq!(std::fs::read(dir.join("victim.txt")).unwrap(), b"precious");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_of_another_kind_needs_force() {
    let dir = workspace("kinds");
    std::fs::write(dir.join("notes.txt"), b"my notes\n").unwrap();
    let (code, _, stderr) = navkit_in(&dir, &["build", "level.obj", "-o", "notes.txt"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("seems to be a text file") && stderr.contains("--force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(dir.join("notes.txt")).unwrap(), b"my notes\n");
    // A picture over an OBJ mesh, JSON over a PNG: refused too.
    std::fs::copy(dir.join("level.obj"), dir.join("mesh.png")).unwrap();
    let (code, _, stderr) = navkit_in(&dir, &["render", "level.obj", "-o", "mesh.png"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("seems to be an OBJ mesh"), "{stderr}");
    // With --force the text file is replaced by the navmesh; a navmesh then replaces a navmesh
    // and an empty file is replaced without --force.
    let (code, _, stderr) = navkit_in(&dir, &["build", "level.obj", "-o", "notes.txt", "--force"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = navkit_in(&dir, &["build", "level.obj", "-o", "notes.txt"]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(dir.join("empty.navmesh"), b"").unwrap();
    let (code, _, stderr) = navkit_in(&dir, &["build", "level.obj", "-o", "empty.navmesh"]);
    assert_eq!(code, 0, "{stderr}");
    // The bytes are the navmesh's: the MSET magic, as RecastDemo writes it (a little-endian int).
    let saved = std::fs::read(dir.join("notes.txt")).unwrap();
    assert_eq!(&saved[..4], b"TESM");
    assert_eq!(std::fs::read(dir.join("empty.navmesh")).unwrap(), saved);
    // `-o -`: the same bytes on standard output; where a command has no stream, a usage error.
    let (code, stdout, stderr) = navkit_in(&dir, &["build", "level.obj", "-o", "-"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, saved);
    let (code, stdout, stderr) = navkit_in(&dir, &["render", "level.obj", "-o", "-"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with(b"\x89PNG\r\n\x1a\n"), "{stderr}");
    let (code, _, stderr) = navkit_in(&dir, &["simulate", "level.obj", "--trajectories", "-"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("standard output"), "{stderr}");
    assert!(!dir.join("-").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The finding: "an output check passes for a writable file in a read-only folder and the
/// build fails after the work" (a save writes beside the target). Run as another user when the
/// tests run as root (root may write any folder).
#[cfg(unix)]
#[test]
fn a_writable_file_in_a_read_only_folder_is_refused_before_the_work() {
    use std::os::unix::fs::PermissionsExt;
    let dir = workspace("read-only");
    let locked = dir.join("locked");
    std::fs::create_dir(&locked).unwrap();
    let target = locked.join("out.navmesh");
    std::fs::write(&target, b"").unwrap();
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"));
    let mut cmd = if root {
        // A copy of the program beside the level: the checkout may lie in a folder that the
        // other user cannot enter.
        let program = dir.join("navkit");
        std::fs::copy(env!("CARGO_BIN_EXE_navkit"), &program).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&program);
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_navkit"))
    };
    let out = cmd
        .args(["build", "level.obj", "--json", "-o", "locked/out.navmesh"])
        .current_dir(&dir)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("is not writable"), "{stderr}");
    let v: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{stderr}"));
    // Refused by the output check (before the build), not by the save after it.
    assert_eq!(v["error"]["kind"], "output_path", "{v}");
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
