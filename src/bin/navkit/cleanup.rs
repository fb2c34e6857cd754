//! What the process must undo on every way out, even those that do not unwind (`--timeout`'s
//! watchdog, SIGINT, SIGTERM): child processes to end, temporary folders to remove, and the
//! library's live temporary files (`navkit::atomic_file::remove_temp_files`).

use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, ChildStdout, Command};
use std::sync::{Mutex, MutexGuard};

/// Live child processes (by a key their owner takes them back with) and temporary folders.
struct Registry {
    children: Vec<(u64, Child)>,
    dirs: Vec<PathBuf>,
    next_key: u64,
    /// [`end_all`] has run: the process is ending, no child may start.
    ending: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    children: Vec::new(),
    dirs: Vec::new(),
    next_key: 0,
    ending: false,
});

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A child's key in the registry and its output pipes.
pub type Spawned = (u64, Option<ChildStdout>, Option<ChildStderr>);

/// Starts `cmd` and registers the child (ended by [`end_all`]; [`take_child`] gives it back)
/// in one step under the registry's lock, so that an [`end_all`] on another thread (a signal,
/// the watchdog) either ends it or comes first: then nothing is started and the result is
/// `Ok(None)` (the process is ending). Before, a signal between the start and the registration
/// left the child running after the process had gone.
pub fn spawn_child(cmd: &mut Command) -> std::io::Result<Option<Spawned>> {
    let mut r = registry();
    if r.ending {
        return Ok(None);
    }
    let mut child = cmd.spawn()?;
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    r.next_key += 1;
    let key = r.next_key;
    r.children.push((key, child));
    Ok(Some((key, stdout, stderr)))
}

/// The child registered under `key`, or `None` if [`end_all`] has ended it.
pub fn take_child(key: u64) -> Option<Child> {
    let mut r = registry();
    let i = r.children.iter().position(|(k, _)| *k == key)?;
    Some(r.children.swap_remove(i).1)
}

/// Registers a temporary folder for [`end_all`] to remove.
pub fn add_dir(dir: &Path) {
    registry().dirs.push(dir.to_path_buf());
}

/// Forgets a folder its owner has removed (or keeps).
pub fn remove_dir(dir: &Path) {
    registry().dirs.retain(|d| d != dir);
}

/// Ends every registered child (killed, then waited for), removes the registered folders and
/// the library's live temporary files. The registry stays locked while it works, so no child
/// registered by another thread escapes.
pub fn end_all() {
    let mut r = registry();
    r.ending = true;
    end_children(&mut r);
    for dir in r.dirs.drain(..) {
        let _ = std::fs::remove_dir_all(dir);
    }
    navkit::atomic_file::remove_temp_files();
}

/// Ends what is registered when dropped: for the unwinding ways out (errors, panics) of a
/// command that registers children or folders.
pub struct EndOnDrop;

impl Drop for EndOnDrop {
    fn drop(&mut self) {
        end_children(&mut registry());
    }
}

/// Kills every registered child and waits for it (so that none is left, not even a zombie).
fn end_children(r: &mut Registry) {
    for (_, mut child) in r.children.drain(..) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// On Unix, a thread that waits for SIGINT and SIGTERM, cleans up ([`end_all`]) and ends the
/// process with the conventional code (128 + the signal: 130, 143).
#[cfg(unix)]
pub fn handle_signals() {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(sig) = signals.forever().next() {
            end_all();
            std::process::exit(128 + sig);
        }
    });
}

/// Elsewhere the default handling stays (saves still remove their temporary file on errors).
#[cfg(not(unix))]
pub fn handle_signals() {}
