//! How `navkit` ends: exit codes, and errors as text or as JSON.
//!
//! | code | meaning |
//! |---:|---|
//! | 0 | success |
//! | 1 | error: an input missing or malformed, a build failed, an output not writable |
//! | 2 | usage: the command line is wrong (unknown option, missing or malformed value) |
//! | 3 | incomplete: the command ran and printed its results, but a path asked for is partial or failed (`path`), problems are unsolved or not optimal (`grid-bench`), or builds differ (`bench-tiled`) |
//! | 130, 143 | interrupted by SIGINT, SIGTERM (`crate::cleanup` removes temporary files and child processes first) |

use std::fmt;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::json;

/// Success.
pub const EXIT_OK: u8 = 0;
/// A runtime error.
pub const EXIT_ERROR: u8 = 1;
/// A usage error (clap's code too).
pub const EXIT_USAGE: u8 = 2;
/// The command ran, but what it looked for was not (all) found.
pub const EXIT_INCOMPLETE: u8 = 3;

/// How a command that did not fail ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Everything asked for was done: exit 0.
    Success,
    /// The results are printed, but a path is partial or failed (or the like): exit 3.
    Incomplete,
}

impl Outcome {
    /// `Incomplete` if `incomplete`, else `Success`.
    pub fn incomplete_if(incomplete: bool) -> Outcome {
        if incomplete {
            Outcome::Incomplete
        } else {
            Outcome::Success
        }
    }
}

/// A command's error.
#[derive(Debug)]
pub enum CliError {
    /// From the library.
    Navkit(navkit::Error),
    /// The command line is wrong.
    Usage(String),
    /// Something needed was not found (e.g. the demo's sample level).
    NotFound(String),
    /// An output path that cannot be written (checked before the work starts).
    OutputPath { path: PathBuf, message: String },
    /// `--timeout` ran out while the command was inside work with no check of its own.
    TimedOut(String),
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Navkit(e) => write!(f, "{e}"),
            CliError::Usage(m) | CliError::NotFound(m) | CliError::TimedOut(m) => {
                write!(f, "{m}")
            }
            CliError::OutputPath { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl From<navkit::Error> for CliError {
    fn from(e: navkit::Error) -> Self {
        CliError::Navkit(e)
    }
}

impl CliError {
    /// The `kind` in JSON: the library error's variant in snake case, `usage`, `not_found` or
    /// `output_path`.
    pub fn kind(&self) -> String {
        match self {
            CliError::Navkit(e) => crate::json::error_kind(e),
            CliError::Usage(_) => "usage".into(),
            CliError::NotFound(_) => "not_found".into(),
            CliError::OutputPath { .. } => "output_path".into(),
            CliError::TimedOut(_) => "timed_out".into(),
        }
    }

    /// The exit code.
    pub fn code(&self) -> u8 {
        match self {
            CliError::Usage(_) => EXIT_USAGE,
            _ => EXIT_ERROR,
        }
    }

    /// Prints the error (always on stderr; with `json` also as `{"error": {...}}` on stdout) and
    /// gives the exit code.
    pub fn report(&self, json: bool) -> ExitCode {
        eprintln!("navkit: error: {self}");
        if json {
            println!(
                "{}",
                json!({ "error": { "kind": self.kind(), "message": self.to_string() } })
            );
        }
        ExitCode::from(self.code())
    }
}

/// What a command returns.
pub type CliResult = Result<Outcome, CliError>;
