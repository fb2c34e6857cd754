//! Saving files so that a crash or a full disk mid-write never destroys the previous good file:
//! the bytes go to a temporary file beside the target, are flushed to disk, and only then
//! renamed over it (an atomic replace on POSIX file systems and on NTFS). navkit saves every
//! file this way; use it for your own files too.
//!
//! ```no_run
//! navkit::atomic_file::write("level.json".as_ref(), b"{}")?;
//! # Ok::<(), navkit::Error>(())
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The temporary file beside `path`: same folder (so the rename stays on one file system),
/// hidden, unique to this process and call.
fn temp_beside(path: &Path) -> Result<PathBuf> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let name = path.file_name().ok_or_else(|| {
        Error::InvalidArgument(format!("`{}` does not name a file", path.display()))
    })?;
    let mut tmp = std::ffi::OsString::from(".");
    tmp.push(name);
    tmp.push(format!(
        ".tmp-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    Ok(path.with_file_name(tmp))
}

/// Writes what `fill` writes to `path`, atomically: either the whole new file is there
/// afterwards, or the old one (if any) is untouched. Errors name `path`.
pub fn write_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<()> {
    let tmp = temp_beside(path)?;
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
        fill(&mut w)?;
        w.flush()?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
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
