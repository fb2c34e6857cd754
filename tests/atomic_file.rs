//! Saves that cannot be redirected (issue 20, finding 2): `navkit::atomic_file` creates its
//! temporary file exclusively under a random name (a symlink planted at a predictable name is
//! never written through), replaces a symlink target rather than its file, keeps a replaced
//! file's permissions, and leaves no temporary file on an error or a panic.

use std::io::Write;
use std::path::{Path, PathBuf};

use navkit::atomic_file;

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("navkit-atomic-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in a folder, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[cfg(unix)]
#[test]
fn symlinks_planted_at_predictable_names_are_not_followed() {
    // The reproduction: navkit 0.3 wrote `.NAME.tmp-PID-N` (N counting saves from 0) with
    // File::create, which follows a symlink there into another file.
    let dir = folder("planted");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    for n in 0..256 {
        let name = format!(".out.navmesh.tmp-{}-{n}", std::process::id());
        std::os::unix::fs::symlink(&victim, dir.join(name)).unwrap();
    }
    let out = dir.join("out.navmesh");
    atomic_file::write(&out, b"navmesh bytes").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    let meta = std::fs::symlink_metadata(&out).unwrap();
    assert!(
        meta.file_type().is_file(),
        "out.navmesh is not a regular file"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"navmesh bytes");
    // Nothing left but the victim, the planted links and the output.
    assert_eq!(names(&dir).len(), 1 + 256 + 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_symlink_target_is_replaced_not_written_through() {
    let dir = folder("target-link");
    let victim = dir.join("victim.txt");
    std::fs::write(&victim, b"precious").unwrap();
    let out = dir.join("out.navmesh");
    std::os::unix::fs::symlink(&victim, &out).unwrap();
    atomic_file::write(&out, b"new").unwrap();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&out).unwrap().is_file());
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_replaced_file_keeps_its_permissions_and_a_new_one_gets_the_usual() {
    use std::os::unix::fs::PermissionsExt;
    let dir = folder("perms");
    let p = dir.join("secret.navmesh");
    std::fs::write(&p, b"old").unwrap();
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o600)).unwrap();
    atomic_file::write(&p, b"new").unwrap();
    let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o7777;
    // navkit 0.3 left `-rw-r--r--` (0644 from the umask) here.
    assert_eq!(mode, 0o600, "{mode:o}");
    assert_eq!(std::fs::read(&p).unwrap(), b"new");
    // A new file: the mode File::create gives in the same folder (0666 less the umask), not
    // the 0600 a temporary file is made with.
    let reference = dir.join("reference");
    std::fs::File::create(&reference).unwrap();
    let usual = std::fs::metadata(&reference).unwrap().permissions().mode() & 0o7777;
    let fresh = dir.join("fresh.navmesh");
    atomic_file::write(&fresh, b"x").unwrap();
    let mode = std::fs::metadata(&fresh).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode, usual, "{mode:o} vs {usual:o}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_error_or_a_panic_mid_write_leaves_no_temporary_file() {
    let dir = folder("mid-write");
    let p = dir.join("a.bin");
    atomic_file::write(&p, b"old").unwrap();
    // While the writer runs, its temporary file is registered (for the CLI's exit paths).
    let e = atomic_file::write_with(&p, |w| {
        w.write_all(b"new, partly")?;
        let live: Vec<PathBuf> = atomic_file::temp_files()
            .into_iter()
            .filter(|t| t.parent() == Some(dir.as_path()))
            .collect();
        assert_eq!(live.len(), 1, "{live:?}");
        assert!(live[0].exists());
        Err(std::io::Error::other("disk full"))
    })
    .unwrap_err();
    assert!(e.to_string().contains("disk full"), "{e}");
    assert_eq!(names(&dir), ["a.bin"]);
    assert_eq!(std::fs::read(&p).unwrap(), b"old");
    // A panic in the writer unwinds through the save: the temporary file goes too.
    let panicked = std::panic::catch_unwind(|| {
        let _ = atomic_file::write_with(&p, |w| {
            w.write_all(b"new, partly")?;
            w.flush()?;
            panic!("writer panics");
        });
    });
    assert!(panicked.is_err());
    assert_eq!(names(&dir), ["a.bin"]);
    assert_eq!(std::fs::read(&p).unwrap(), b"old");
    assert!(
        !atomic_file::temp_files()
            .iter()
            .any(|t| t.parent() == Some(dir.as_path()))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(unix)]
#[test]
fn a_fifo_or_folder_target_is_refused_not_replaced() {
    use std::os::unix::fs::FileTypeExt;
    let dir = folder("special");
    let fifo = dir.join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let e = atomic_file::write(&fifo, b"x").unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let sub = dir.join("sub");
    std::fs::create_dir(&sub).unwrap();
    assert!(atomic_file::write(&sub, b"x").is_err());
    assert!(sub.is_dir());
    assert_eq!(names(&dir), ["pipe", "sub"]);
    let _ = std::fs::remove_dir_all(&dir);
}
