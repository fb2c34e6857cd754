//! Saving files so that a crash or a full disk mid-write never destroys the previous good file:
//! the bytes go to a temporary file beside the target, are flushed to disk, and only then
//! renamed over it (an atomic replace on POSIX file systems and on NTFS). navkit saves every
//! file this way; use it for your own files too.
//!
//! The temporary file is created exclusively (never through a symlink planted at its name),
//! with a random name that cannot be guessed, and is removed on every way out: an error, a
//! panic (when the writer unwinds), and — for a program that calls [`remove_temp_files`] from
//! its exit paths, as the `navkit` command does on `--timeout`, SIGINT and SIGTERM — an
//! interrupted run. A file that is replaced keeps its permissions; a new file gets the usual
//! ones (`0666` less the umask on Unix). When the target is a symlink, the link itself is
//! replaced by the new file: the file it pointed to is never written.
//!
//! ```no_run
//! navkit::atomic_file::write("level.json".as_ref(), b"{}")?;
//! # Ok::<(), navkit::Error>(())
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::{Error, Result};

/// The temporary files being written now, and whether [`remove_temp_files`] has closed the
/// registry (the process is ending: no new temporary file may start).
static LIVE: Mutex<(Vec<PathBuf>, bool)> = Mutex::new((Vec::new(), false));

/// The registry, even if a thread panicked while holding it (its data stays consistent: each
/// change is a single push or remove).
fn live() -> std::sync::MutexGuard<'static, (Vec<PathBuf>, bool)> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A temporary file's place in the registry, left when dropped.
struct Registered(PathBuf);

impl Registered {
    /// A new temporary file beside `path` ([`temp_beside`]), created and registered under the
    /// registry's lock: [`remove_temp_files`] either runs before (and the file is never
    /// created) or after (and finds it registered), never between. Keep the `Registered`
    /// alive until the file is renamed or removed, so that it is never unregistered while it
    /// still exists.
    fn create(path: &Path) -> std::io::Result<(Registered, tempfile::NamedTempFile)> {
        let mut live = live();
        if live.1 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                "the program is ending; no new file is saved",
            ));
        }
        let tmp = temp_beside(path)?;
        live.0.push(tmp.path().to_path_buf());
        Ok((Registered(tmp.path().to_path_buf()), tmp))
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut live = live();
        if let Some(i) = live.0.iter().position(|p| p == &self.0) {
            live.0.swap_remove(i);
        }
    }
}

/// Removes every temporary file a save of this process is writing now, and makes saves that
/// start afterwards fail (with an `Interrupted` I/O error) instead of leaving a new one. For a
/// program's exit paths that end the process without unwinding (`std::process::exit` on a
/// timeout, a SIGINT or SIGTERM handler): call it just before exiting. Saves already writing
/// then fail at their rename, and no target is touched. Returns how many files it removed.
pub fn remove_temp_files() -> usize {
    let mut live = live();
    live.1 = true;
    live.0
        .drain(..)
        .filter(|p| std::fs::remove_file(p).is_ok())
        .count()
}

/// The temporary files saves of this process are writing now (for tests and diagnostics).
pub fn temp_files() -> Vec<PathBuf> {
    live().0.clone()
}

/// A new temporary file beside `path`: same folder (so the rename stays on one file system),
/// hidden, named `.NAME.` plus random characters, created exclusively. On Unix it is created
/// with mode `0666` (less the umask), as a new file would be.
fn temp_beside(path: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let name = path.file_name().ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path names no file")
    })?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    prefix.push(".");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp").rand_bytes(12);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

/// Refuses a target that exists and is neither a regular file nor a symlink: a rename over a
/// device node (`/dev/null` as root), a FIFO or a socket would replace it with a regular file.
fn refuse_special(path: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if !m.is_file() && !m.file_type().is_symlink() => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a device, FIFO, socket or folder); navkit saves only regular files",
        )),
        _ => Ok(()),
    }
}

/// Writes what `fill` writes to `path`, atomically: either the whole new file is there
/// afterwards, or the old one (if any) is untouched. Errors name `path`.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<()> {
    let result = (|| {
        refuse_special(path)?;
        let made = Registered::create(path)?;
        // Declared before `tmp`, so dropped after it: on an error or a panic `tmp` removes the
        // file first, and only then is it unregistered (a signal in between finds it listed).
        let _registered = made.0;
        let (file, tmp) = made.1.into_parts();
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut w)?;
        w.flush()?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        // A file replaced keeps its permissions (a symlink's are not its target's: not kept).
        if let Ok(old) = std::fs::symlink_metadata(path) {
            if old.is_file() {
                file.set_permissions(old.permissions())?;
            }
        }
        file.sync_all()?;
        drop(file);
        tmp.persist(path).map_err(|e| e.error)
    })();
    result.map_err(|e| Error::io(path, e))
}

/// Writes `bytes` to `path` atomically ([`write_with`]).
pub fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    write_with(path, |w| w.write_all(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_whole_or_keeps_the_old_file() {
        let dir = std::env::temp_dir().join(format!("navkit-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("a.bin");
        write(&p, b"old").unwrap();
        // A writer that fails half-way leaves the old file and no temporary behind.
        let e = write_with(&p, |w| {
            w.write_all(b"new, partly")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(matches!(&e, Error::Io { path, .. } if path == &p), "{e}");
        assert_eq!(std::fs::read(&p).unwrap(), b"old");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        write(&p, b"new").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
        // A folder that does not exist: an Io error naming the target.
        let missing = dir.join("no/such/dir/x.bin");
        assert!(matches!(write(&missing, b"x"), Err(Error::Io { path, .. }) if path == missing));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
