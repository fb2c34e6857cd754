//! Nothing left behind on the ways out that do not unwind (issue 20, findings 2 and 4): a save
//! interrupted by SIGTERM, SIGINT or `--timeout` leaves no temporary file, and `bench-tiled`
//! ends its child builds and removes its temporary folder. No timings are asserted: the tests
//! poll for the state they wait for (a temporary file, a child process) and count files and
//! processes.

#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A fresh, empty folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navkit-exit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Whether a save's temporary file (`.world.obj.…`, hidden, beside the target) is in `dir`.
fn has_temp(dir: &Path) -> bool {
    entries(dir).iter().any(|n| n.starts_with(".world.obj."))
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .arg(format!("-{sig}"))
        .arg(child.id().to_string())
        .status()
        .unwrap()
        .success();
    assert!(ok, "kill -{sig}");
}

/// Polls `cond` every 2 ms while `child` runs; true once `cond` holds, false if the child ended
/// first (or after a bound of polls, so that a hang fails the test instead of stalling it).
fn wait_for(child: &mut Child, mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..150_000 {
        if cond() {
            return true;
        }
        if child.try_wait().unwrap().is_some() {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    false
}

/// `navkit [pre] gen --tris N -o DIR/world.obj`, quiet.
fn spawn_gen(dir: &Path, pre: &[&str], tris: &str) -> Child {
    Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(pre)
        .args(["gen", "--tris", tris, "-o"])
        .arg(dir.join("world.obj"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A signal while `gen` writes its world (a few hundred MB, long enough to be caught in the
/// act): the process ends with 128 + the signal and removes its temporary file (navkit 0.3 was
/// killed by the signal and left it: 837-991 MB after `gen --tris 50M`).
fn signal_mid_save(sig: &str, code: i32) {
    let dir = folder(sig);
    let mut caught = false;
    // The save is caught by polling; a run that finishes before the poll sees it is repeated.
    for _ in 0..5 {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut child = spawn_gen(&dir, &[], "3M");
        if !wait_for(&mut child, || has_temp(&dir)) {
            let _ = child.wait();
            continue;
        }
        signal(&child, sig);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(code), "{status:?}");
        caught = true;
        break;
    }
    assert!(caught, "no run was caught mid-save");
    // Nothing at all: the world was not finished, its temporary file is gone.
    assert_eq!(entries(&dir), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn sigterm_mid_save_leaves_no_temporary_file() {
    signal_mid_save("TERM", 143);
}

#[test]
fn sigint_mid_save_leaves_no_temporary_file() {
    signal_mid_save("INT", 130);
}

/// When, in seconds after its start, a run of `gen --tris 3M` into `dir` was first and last
/// seen writing its temporary file (polled; `None` if no poll caught it).
fn save_window(dir: &Path) -> Option<(f64, f64)> {
    let start = std::time::Instant::now();
    let mut child = spawn_gen(dir, &[], "3M");
    let mut seen: Option<(f64, f64)> = None;
    while child.try_wait().unwrap().is_none() {
        if has_temp(dir) {
            let t = start.elapsed().as_secs_f64();
            seen = Some(seen.map_or((t, t), |(first, _)| (first, t)));
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    seen
}

#[test]
fn timeout_mid_save_leaves_no_temporary_file() {
    // `--timeout T` ends the process at T + 0.5 s. Which T falls inside the save is measured
    // first (a run without a limit, polled), then aimed at the middle of the save and moved
    // after each miss: later if the limit struck before the save, earlier if the run finished.
    // Only the run seen to be cut mid-save is asserted on; every run must leave no temporary.
    let dir = folder("timeout");
    let window = (0..5).find_map(|_| {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        save_window(&dir)
    });
    let (first, last) = window.expect("no run of gen was seen saving");
    let mut t = ((first + last) / 2.0 - 0.5).max(0.05);
    let mut struck_mid_save = false;
    for _ in 0..8 {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut child = spawn_gen(&dir, &["--timeout", &format!("{t:.3}")], "3M");
        let saw_temp = wait_for(&mut child, || has_temp(&dir));
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let finished = dir.join("world.obj").exists();
        // Whatever the timing: no temporary file is left.
        assert!(!has_temp(&dir), "--timeout {t}: {:?}", entries(&dir));
        if saw_temp && stderr.contains("timed out") && !finished {
            assert_eq!(out.status.code(), Some(1), "{stderr}");
            struck_mid_save = true;
            break;
        }
        let step = ((last - first) / 4.0).max(0.01);
        t = if finished {
            (t - step).max(0.05)
        } else {
            t + step
        };
    }
    assert!(struck_mid_save, "no timeout struck during the save");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The pids of processes whose command line contains `marker` (from /proc).
fn processes_with(marker: &str) -> Vec<u32> {
    let mut pids = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            pids.push(pid);
        }
    }
    pids
}

/// `bench-tiled` with its own TMPDIR (its folder, and so its children's command lines, which
/// name the world in it, carry the TMPDIR's unique name), stopped by `stop` once a child build
/// runs; then no child and no folder may remain.
fn bench_tiled_stopped(name: &str, pre: &[&str], stop: impl FnOnce(&Child)) -> i32 {
    let tmp = folder(name);
    let marker = tmp.to_string_lossy().into_owned();
    let mut bench = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(pre)
        .args([
            "bench-tiled",
            "--tris",
            "100k",
            "--rounds",
            "100000",
            "--paths",
            "1",
        ])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let parent = bench.id();
    let child_seen = wait_for(&mut bench, || {
        processes_with(&marker).iter().any(|&p| p != parent)
    });
    assert!(child_seen, "no child build was seen");
    stop(&bench);
    let status = bench.wait().unwrap();
    // The children were killed and waited for before the parent ended: none is left, not
    // even reparented to init (navkit 0.3's ran on for 20 s), and the folder is gone.
    let left = processes_with(&marker);
    assert_eq!(left, Vec::<u32>::new(), "children left running");
    assert_eq!(entries(&tmp), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&tmp);
    status.code().unwrap_or(-1)
}

#[test]
fn bench_tiled_timeout_ends_children_and_removes_its_folder() {
    // The timeout strikes during the 200,000 rounds of child builds (a 100k-triangle world is
    // generated long before; the wait above sees a child running first).
    let code = bench_tiled_stopped("bench-timeout", &["--timeout", "4"], |_| {});
    assert_eq!(code, 1);
}

#[test]
fn bench_tiled_sigterm_ends_children_and_removes_its_folder() {
    let code = bench_tiled_stopped("bench-term", &[], |b| signal(b, "TERM"));
    assert_eq!(code, 143);
}
