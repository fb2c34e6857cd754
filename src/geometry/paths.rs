//! Files that name other files (a `.gset`'s `f` line, a RecastDemo test case's): where the
//! named file may lie. By default inside the folder of the file that names it, as a glTF
//! level's buffers must lie inside the level's folder, so that a geometry set from elsewhere
//! cannot make navkit read (and report on) any file it likes; [`LoadOptions`] allows more.

use std::path::{Component, Path, PathBuf};

/// How files that name other files are read: `.gset` geometry sets
/// ([`super::InputGeometry::load_with`]) and RecastDemo test cases
/// (`navkit::tools::testcase::TestCase::load_with`, feature `tools`).
///
/// ```
/// use navkit::geometry::LoadOptions;
/// use navkit::InputGeometry;
/// let dir = std::env::temp_dir().join(format!("navkit-doc-load-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// std::fs::write(dir.join("level.gset"), "f /etc/hostname\n")?;
/// // By default a `.gset` names only files inside its folder ...
/// let err = InputGeometry::load(dir.join("level.gset")).unwrap_err();
/// assert!(err.to_string().contains("is absolute"), "{err}");
/// // ... unless the caller trusts it further.
/// let anywhere = LoadOptions { allow_outside_paths: true };
/// let err = InputGeometry::load_with(dir.join("level.gset"), &anywhere).unwrap_err();
/// assert!(!err.to_string().contains("is absolute"), "{err}");
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Let a file name a mesh anywhere: by an absolute path, through `..`, or through a
    /// symbolic link that leads out of its folder. Off by default: the mesh must be a relative
    /// path without `..` that resolves (symbolic links followed) to a file inside the folder of
    /// the file that names it. The CLI's `--allow-outside-paths`.
    pub allow_outside_paths: bool,
}

/// The error's ending that says how to allow more.
const HOW_TO_ALLOW: &str =
    "allow_outside_paths (the CLI's --allow-outside-paths) lets a file name meshes anywhere";

/// The folder of `file`, or `.` for a bare file name.
pub(crate) fn folder_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Where the file `name` (as another file names it) is: the first of `candidates`
/// (each a folder to look in and the folder the result must then lie inside) where
/// `folder.join(name)` exists, or the first candidate's if none does (for the caller's "not
/// found"). Unless `options` allow more, `name` must be relative without `..`, and the file
/// found must resolve inside its folder; the error is a message for the naming line.
pub(crate) fn resolve_named_file(
    name: &str,
    candidates: &[(PathBuf, PathBuf)],
    options: &LoadOptions,
) -> Result<PathBuf, String> {
    let p = Path::new(name);
    if options.allow_outside_paths && p.is_absolute() {
        return Ok(p.to_path_buf());
    }
    let shown = crate::text::quote(name);
    if !options.allow_outside_paths {
        if p.has_root() || p.components().any(|c| matches!(c, Component::Prefix(_))) {
            return Err(format!(
                "the path `{shown}` is absolute: only files inside the folder may be named; \
                 {HOW_TO_ALLOW}"
            ));
        }
        if p.components().any(|c| c == Component::ParentDir) {
            return Err(format!(
                "the path `{shown}` goes up a folder (`..`): only files inside the folder may be \
                 named; {HOW_TO_ALLOW}"
            ));
        }
    }
    let found = candidates
        .iter()
        .map(|(look_in, root)| (look_in.join(p), root))
        .find(|(file, _)| file.exists());
    let Some((file, root)) = found else {
        return Ok(candidates.first().map_or(p.to_path_buf(), |c| c.0.join(p)));
    };
    if options.allow_outside_paths {
        return Ok(file);
    }
    // Through symbolic links too: the file must resolve to somewhere inside the folder.
    let real_root = root
        .canonicalize()
        .map_err(|e| format!("the folder `{}` cannot be resolved: {e}", root.display()))?;
    let real = file
        .canonicalize()
        .map_err(|e| format!("the path `{shown}` cannot be resolved: {e}"))?;
    if !real.starts_with(&real_root) {
        return Err(format!(
            "the path `{shown}` resolves to `{}`, outside the folder `{}`; {HOW_TO_ALLOW}",
            real.display(),
            real_root.display()
        ));
    }
    Ok(file)
}
