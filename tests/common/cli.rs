//! Running the `navkit` program in tests (for test files that need the `cli` feature; include
//! with `#[path = "common/cli.rs"] mod cli_run;`).

#![allow(dead_code)]

use std::path::Path;
use std::process::{Command, Stdio};

/// Exit code, raw stdout and stderr of `navkit args` run in `dir`, with no standard input.
pub fn navkit_in_bytes(dir: impl AsRef<Path>, args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .expect("run navkit");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Exit code, stdout and stderr of `navkit args` run in `dir`, with no standard input.
pub fn navkit_in(dir: impl AsRef<Path>, args: &[&str]) -> (i32, String, String) {
    let (code, stdout, stderr) = navkit_in_bytes(dir, args);
    (code, String::from_utf8_lossy(&stdout).into_owned(), stderr)
}
