//! The output check every command runs before any work: an output may not be one of the
//! command's inputs (the same file, by identity), nor anything but a regular file or a new
//! name (a device, FIFO, socket, folder or symlink is refused), its folder must be writable,
//! and an existing file that does not look like the output's own kind is replaced only with
//! `--force`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::exit::CliError;

/// `--force`, set once by `main`.
static FORCE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

/// Sets `--force` for this run.
pub fn set_force(force: bool) {
    let _ = FORCE.set(force);
}

fn force() -> bool {
    FORCE.get().copied().unwrap_or(false)
}

/// What an output holds, to tell whether an existing file may be replaced without `--force`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Navmesh or tile-cache bytes (MSET, TSET, a Detour tile).
    Navmesh,
    /// A PNG or SVG picture, by the output's extension.
    Picture,
    /// JSON.
    Json,
    /// An OBJ mesh (and the `.gset` written beside it).
    Obj,
}

/// What the first bytes of a file seem to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Seen {
    Empty,
    Navmesh,
    Png,
    Svg,
    Json,
    Obj,
    Gset,
    Text,
    Binary,
}

impl Seen {
    fn describe(self) -> &'static str {
        match self {
            Seen::Empty => "empty",
            Seen::Navmesh => "a navmesh (MSET/TSET)",
            Seen::Png => "a PNG picture",
            Seen::Svg => "an SVG/XML document",
            Seen::Json => "JSON",
            Seen::Obj => "an OBJ mesh",
            Seen::Gset => "a RecastDemo .gset",
            Seen::Text => "a text file",
            Seen::Binary => "a binary file",
        }
    }
}

/// Looks at the first bytes of a file's content.
fn sniff(head: &[u8]) -> Seen {
    if head.is_empty() {
        return Seen::Empty;
    }
    let magics: [&[u8]; 6] = [b"MSET", b"TESM", b"TSET", b"TEST", b"DNAV", b"VAND"];
    if magics.iter().any(|m| head.starts_with(m)) {
        return Seen::Navmesh;
    }
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Seen::Png;
    }
    let Ok(text) = std::str::from_utf8(head).or_else(|e| {
        // The head may end inside a character.
        std::str::from_utf8(&head[..e.valid_up_to()]).map_err(|_| ())
    }) else {
        return Seen::Binary;
    };
    if text.len() + 4 < head.len() || text.contains('\0') {
        return Seen::Binary;
    }
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with("<?xml") || t.starts_with("<svg") || t.starts_with("<!--") {
        return Seen::Svg;
    }
    if t.starts_with('{') || t.starts_with('[') {
        return Seen::Json;
    }
    let first_words = || {
        t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .take(8)
            .map(|l| l.split_whitespace().next().unwrap_or(""))
    };
    // A .gset's `f` line names a mesh file; an OBJ's lists vertex numbers.
    let gset_f = t
        .lines()
        .find_map(|l| l.trim().strip_prefix("f "))
        .is_some_and(|a| {
            !a.trim_start()
                .starts_with(|c: char| c.is_ascii_digit() || c == '-')
        });
    if gset_f && first_words().all(|w| ["f", "s", "c"].contains(&w)) {
        return Seen::Gset;
    }
    let obj = ["v", "vn", "vt", "f", "o", "g", "s", "l", "usemtl", "mtllib"];
    if first_words().next().is_some() && first_words().all(|w| obj.contains(&w)) {
        return Seen::Obj;
    }
    Seen::Text
}

/// Whether a file that seems `seen` may be replaced by an output of `kind` written to `path`.
fn replaceable(seen: Seen, kind: Kind, path: &Path) -> bool {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match (kind, seen) {
        (_, Seen::Empty) => true,
        (Kind::Navmesh, Seen::Navmesh) | (Kind::Json, Seen::Json) | (Kind::Obj, Seen::Obj) => true,
        (Kind::Obj, Seen::Gset) => ext.as_deref() == Some("gset"),
        (Kind::Picture, Seen::Png) => ext.as_deref() != Some("svg"),
        (Kind::Picture, Seen::Svg) => ext.as_deref() == Some("svg"),
        _ => false,
    }
}

/// What the output kind is called in messages.
fn kind_name(kind: Kind, path: &Path) -> &'static str {
    match kind {
        Kind::Navmesh => "a navmesh",
        Kind::Json => "JSON",
        Kind::Obj => "an OBJ mesh",
        Kind::Picture => {
            let svg = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
            if svg {
                "an SVG picture"
            } else {
                "a PNG picture"
            }
        }
    }
}

/// The first bytes of a regular file (opened only after its type was checked).
fn head(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut buf = Vec::with_capacity(4096);
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

/// A file's identity: device and inode on Unix, the canonical path elsewhere.
#[cfg(unix)]
fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path).ok()?;
    Some((m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn identity(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}

/// Whether `a` and `b` are one existing file (by identity: hard links and other names too).
pub fn same_file(a: &Path, b: &Path) -> bool {
    identity(a).is_some_and(|id| identity(b) == Some(id))
}

/// Whether `path`'s extension, in lower case, is one of `exts`.
pub fn has_extension(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .is_some_and(|e| exts.contains(&e.as_str()))
}

/// The inputs a level names that an output could overwrite: the level itself and, for a
/// `.gset`, the mesh its `f` line names (where RecastDemo's rule may find it).
pub fn level_inputs(level: &Path) -> Vec<PathBuf> {
    let mut inputs = vec![level.to_path_buf()];
    let is_gset = level
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gset"));
    if !is_gset || !std::fs::metadata(level).is_ok_and(|m| m.is_file()) {
        return inputs;
    }
    let Ok(bytes) = std::fs::File::open(level).and_then(|f| {
        let mut buf = Vec::new();
        f.take(1 << 16).read_to_end(&mut buf).map(|_| buf)
    }) else {
        return inputs;
    };
    let text = String::from_utf8_lossy(&bytes);
    let dir = level.parent().unwrap_or(Path::new(""));
    for line in text.lines() {
        if let Some(name) = line.trim_start_matches('\u{feff}').strip_prefix("f ") {
            let name = Path::new(name.trim());
            inputs.push(dir.join(name));
            if let Some(up) = dir.parent() {
                inputs.push(up.join(name));
            }
        }
    }
    inputs
}

/// A command's inputs: the level's ([`level_inputs`]) and the given other files.
pub fn inputs(level: &Path, others: Option<&Path>) -> Vec<PathBuf> {
    let mut all = level_inputs(level);
    all.extend(others.map(Path::to_path_buf));
    all
}

/// Refuses two outputs of one command that name the same file.
pub fn check_distinct(a: &Path, b: &Path, what_a: &str, what_b: &str) -> Result<(), CliError> {
    let same = a == b || same_file(a, b);
    if same {
        return Err(CliError::Usage(format!(
            "{what_a} and {what_b} name the same file `{}`; choose two names",
            a.display()
        )));
    }
    Ok(())
}

/// What a non-regular file is, for the message.
fn special_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    let _ = t;
    "not a regular file"
}

/// The folder a file goes into (`.` for a bare name).
fn folder_of(path: &Path) -> &Path {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    }
}

/// Checks, before any work starts, that `path` may be written as an output of `kind`: not `-`
/// (a command that writes to standard output handles `-` before calling this), an extension
/// among `exts` (any if empty), not one of `inputs` (by identity), a regular file or a new name
/// in an existing folder that can be written (probed with a file created there and removed),
/// and, if the file exists and does not look like `kind`, `--force` given. `what` names the
/// output in the message (`-o`, `--trajectories` ...).
pub fn check_output(
    path: &Path,
    exts: &[&str],
    what: &str,
    kind: Kind,
    inputs: &[PathBuf],
) -> Result<(), CliError> {
    let fail = |message: String| {
        Err(CliError::OutputPath {
            path: path.to_path_buf(),
            message,
        })
    };
    if path.as_os_str() == "-" {
        return Err(CliError::Usage(format!(
            "{what} -: this output cannot go to standard output; give a file name"
        )));
    }
    if path.is_dir() {
        return fail(format!("{what} is a directory; give a file name"));
    }
    if !exts.is_empty() && !has_extension(path, exts) {
        let list: Vec<String> = exts.iter().map(|e| format!(".{e}")).collect();
        return fail(format!(
            "{what} must end in {} (the format is chosen by the extension)",
            list.join(" or ")
        ));
    }
    let existing = match std::fs::symlink_metadata(path) {
        Ok(m) => Some(m),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return fail(format!("{what}: the path cannot be examined ({e})")),
    };
    if let Some(m) = &existing {
        let t = m.file_type();
        if t.is_symlink() {
            return fail(format!(
                "{what} is a symbolic link; name the file itself (navkit never writes through a link)"
            ));
        }
        if !t.is_file() {
            return fail(format!(
                "{what} is {}; navkit writes only regular files",
                special_kind(t)
            ));
        }
        let id = identity(path);
        if let Some(input) = inputs.iter().find(|i| id.is_some() && identity(i) == id) {
            return fail(format!(
                "{what} names the input `{}`; choose another name",
                input.display()
            ));
        }
    }
    let dir = folder_of(path);
    if !dir.is_dir() {
        return fail(format!(
            "{what}: the directory {} does not exist",
            dir.display()
        ));
    }
    // Saves write a file beside the target and rename it: the folder must be writable, even
    // when the file exists and is writable itself.
    if let Err(e) = tempfile::Builder::new()
        .prefix(".navkit-write-check-")
        .tempfile_in(dir)
    {
        return fail(format!(
            "{what}: the directory {} is not writable ({e})",
            dir.display()
        ));
    }
    if existing.is_some() {
        if let Err(e) = std::fs::OpenOptions::new().append(true).open(path) {
            return fail(format!("{what}: the file cannot be written ({e})"));
        }
        let seen = sniff(&head(path).map_err(|e| CliError::OutputPath {
            path: path.to_path_buf(),
            message: format!("{what}: the file cannot be read ({e})"),
        })?);
        if !force() && !replaceable(seen, kind, path) {
            return fail(format!(
                "{what}: the file exists and seems to be {}, not {}; give --force to replace it",
                seen.describe(),
                kind_name(kind, path)
            ));
        }
    }
    Ok(())
}

/// [`check_output`] for an optional path.
pub fn check_output_opt(
    path: Option<&Path>,
    exts: &[&str],
    what: &str,
    kind: Kind,
    inputs: &[PathBuf],
) -> Result<(), CliError> {
    path.map_or(Ok(()), |p| check_output(p, exts, what, kind, inputs))
}

/// Whether an output path is `-`, standard output.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_what_files_seem_to_be() {
        assert_eq!(sniff(b""), Seen::Empty);
        assert_eq!(sniff(b"TESM\x01\0\0\0"), Seen::Navmesh);
        assert_eq!(sniff(b"\x89PNG\r\n\x1a\n\0\0"), Seen::Png);
        assert_eq!(sniff(b"<?xml version=\"1.0\"?><svg"), Seen::Svg);
        assert_eq!(sniff(b"  {\"a\": 1}"), Seen::Json);
        assert_eq!(
            sniff(b"# made by hand\nv 0 0 0\nv 1 0 0\nf 1 2 3\n"),
            Seen::Obj
        );
        assert_eq!(sniff(b"f level.obj\ns 0.3 0.2\n"), Seen::Gset);
        assert_eq!(sniff(b"my notes\n"), Seen::Text);
        assert_eq!(sniff(b"\0\x01\x02\xff\xfe"), Seen::Binary);
        assert!(replaceable(Seen::Empty, Kind::Navmesh, Path::new("a")));
        assert!(!replaceable(Seen::Obj, Kind::Navmesh, Path::new("a")));
        assert!(!replaceable(Seen::Png, Kind::Picture, Path::new("a.svg")));
        assert!(replaceable(Seen::Svg, Kind::Picture, Path::new("a.svg")));
    }
}
