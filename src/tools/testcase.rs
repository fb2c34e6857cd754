//! RecastDemo test-case files (`TestCase.cpp`): `s` (sample), `f` (mesh), `pf` (path query) and
//! `rc` (raycast query) lines.

use std::path::{Path as FsPath, PathBuf};
use std::time::Instant;

use glam::Vec3;

use crate::geometry::{LoadOptions, folder_of, resolve_named_file};
use crate::query::{
    DEFAULT_HALF_EXTENTS, DEFAULT_MAX_PATH, NavMeshQuery, QueryFilter, RaycastOptions,
    StraightPathOptions,
};
use crate::text::{LineReader, quote};
use crate::{Error, Result};

/// The kind of a test query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum TestKind {
    /// `pf`: findNearestPoly, findPath, findStraightPath.
    Pathfind,
    /// `rc`: findNearestPoly, raycast.
    Raycast,
}

/// One query of a test-case file.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TestQuery {
    /// `pf` or `rc`.
    pub kind: TestKind,
    /// Start point.
    pub start: Vec3,
    /// End point.
    pub end: Vec3,
    /// Include flags.
    pub include: u16,
    /// Exclude flags.
    pub exclude: u16,
    /// 1-based line in the file.
    pub line: usize,
}

/// A parsed test-case file.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TestCase {
    /// The sample (`Solo Mesh`, `Tile Mesh`, ...).
    pub sample: String,
    /// The mesh file, resolved against the test file's directory and then its parent's
    /// `Meshes` folder (RecastDemo's layout: `TestCases/` beside `Meshes/`), and inside the
    /// folder it was found in unless [`LoadOptions::allow_outside_paths`].
    pub mesh: PathBuf,
    /// The queries, in file order (RecastDemo keeps them in reverse).
    pub queries: Vec<TestQuery>,
}

fn parse_flags(s: &str) -> Option<u16> {
    let t = s.trim_start_matches("0x").trim_start_matches("0X");
    u16::from_str_radix(t, 16).ok()
}

/// One `pf` or `rc` line's fields after the tag, or a message for that line.
fn parse_query(tag: &str, rest: &str, line: usize) -> std::result::Result<TestQuery, String> {
    let parts: Vec<&str> = rest.split_whitespace().collect();
    if parts.len() != 8 {
        return Err(format!(
            "`{tag}` needs 6 coordinates and 2 hex flag words, found {} fields",
            parts.len()
        ));
    }
    let mut c = [0f32; 6];
    for (k, p) in parts[..6].iter().enumerate() {
        c[k] = p
            .parse::<f32>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| format!("bad coordinate `{}`", quote(p)))?;
    }
    let include =
        parse_flags(parts[6]).ok_or_else(|| format!("bad include flags `{}`", quote(parts[6])))?;
    let exclude =
        parse_flags(parts[7]).ok_or_else(|| format!("bad exclude flags `{}`", quote(parts[7])))?;
    Ok(TestQuery {
        kind: if tag == "pf" {
            TestKind::Pathfind
        } else {
            TestKind::Raycast
        },
        start: Vec3::new(c[0], c[1], c[2]),
        end: Vec3::new(c[3], c[4], c[5]),
        include,
        exclude,
        line,
    })
}

impl TestCase {
    /// Parses a test-case file; its mesh must lie inside the file's folder or RecastDemo's
    /// `../Meshes` beside it ([`TestCase::load_with`] allows more).
    pub fn load(path: impl AsRef<FsPath>) -> Result<TestCase> {
        Self::load_with(path, &LoadOptions::default())
    }

    /// [`TestCase::load`] with `options` saying where the mesh may lie. The file is read a
    /// line at a time; a line longer than [`crate::text::MAX_LINE_BYTES`] is an error.
    pub fn load_with(path: impl AsRef<FsPath>, options: &LoadOptions) -> Result<TestCase> {
        let path = path.as_ref();
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        Self::read(std::io::BufReader::new(file), path, options)
    }

    /// Parses test-case text; `path` locates the mesh and names errors. A byte-order mark at
    /// the start is skipped; every error names its line.
    pub fn parse(text: &str, path: &FsPath) -> Result<TestCase> {
        Self::parse_with(text, path, &LoadOptions::default())
    }

    /// [`TestCase::parse`] with `options` saying where the mesh may lie.
    pub fn parse_with(text: &str, path: &FsPath, options: &LoadOptions) -> Result<TestCase> {
        Self::read(text.as_bytes(), path, options)
    }

    fn read(
        reader: impl std::io::BufRead,
        path: &FsPath,
        options: &LoadOptions,
    ) -> Result<TestCase> {
        let dir = folder_of(path);
        let meshes = dir.join("../Meshes");
        let candidates = [(dir.clone(), dir), (meshes.clone(), meshes)];
        let mut sample = String::new();
        let mut mesh = None;
        let mut queries = Vec::new();
        let mut lines = LineReader::new(reader, path);
        while let Some((line, raw)) = lines.next_str()? {
            let l = raw.trim();
            if l.is_empty() || l.starts_with('#') {
                continue;
            }
            let err = |message: String| Error::parse(path, line, message);
            let (tag, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            match tag {
                "s" => sample = rest.trim().to_string(),
                "f" => {
                    let name = rest.trim();
                    if name.is_empty() {
                        return Err(err("`f` needs a mesh file name".into()));
                    }
                    mesh = Some(resolve_named_file(name, &candidates, options).map_err(err)?);
                }
                "pf" | "rc" => queries.push(parse_query(tag, rest, line).map_err(err)?),
                other => {
                    return Err(err(format!(
                        "unknown record `{}` (expected s, f, pf or rc)",
                        quote(other)
                    )));
                }
            }
        }
        let mesh = mesh.ok_or_else(|| Error::parse(path, 0, "no `f` line names a mesh"))?;
        Ok(TestCase {
            sample,
            mesh,
            queries,
        })
    }
}

/// The result of one test query.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TestResult {
    /// The query.
    pub query: TestQuery,
    /// Start polygon (0 if none within (2, 4, 2)).
    pub start_ref: crate::query::PolyRefBits,
    /// End polygon (0 if none).
    pub end_ref: crate::query::PolyRefBits,
    /// Corridor (pf) or raycast polygons (rc).
    pub polys: Vec<crate::query::PolyRefBits>,
    /// True if the path reaches the end polygon (pf), or the ray reached its end (rc).
    pub complete: bool,
    /// Straight path corners (pf), or ray start and hit point (rc: the end if nothing was hit),
    /// the hit point at the height of the last polygon crossed, as RecastDemo reports it.
    pub straight: Vec<Vec3>,
    /// Microseconds in findNearestPoly.
    pub nearest_us: f64,
    /// Microseconds in findPath or raycast.
    pub path_us: f64,
    /// Microseconds in findStraightPath.
    pub straight_us: f64,
}

/// Runs every query as RecastDemo's `TestCase::doTests` does (a filter with the query's flags and
/// Detour's default costs; half extents (2, 4, 2); 256 polys).
pub fn run(case: &TestCase, q: &mut NavMeshQuery<'_>) -> Result<Vec<TestResult>> {
    let mut out = Vec::new();
    for t in &case.queries {
        let filter = QueryFilter::with_flags(t.include, t.exclude);
        let mut r = TestResult {
            query: t.clone(),
            start_ref: 0,
            end_ref: 0,
            polys: Vec::new(),
            complete: false,
            straight: Vec::new(),
            nearest_us: 0.0,
            path_us: 0.0,
            straight_us: 0.0,
        };
        let t0 = Instant::now();
        let s = q
            .find_nearest_poly(t.start, DEFAULT_HALF_EXTENTS, &filter)
            .ok();
        let e = q
            .find_nearest_poly(t.end, DEFAULT_HALF_EXTENTS, &filter)
            .ok();
        r.nearest_us = t0.elapsed().as_secs_f64() * 1e6;
        let (Some(s), Some(e)) = (s, e) else {
            out.push(r);
            continue;
        };
        r.start_ref = s.poly.0;
        r.end_ref = e.poly.0;
        match t.kind {
            TestKind::Pathfind => {
                let t1 = Instant::now();
                let path =
                    q.find_path(s.poly, e.poly, t.start, t.end, &filter, DEFAULT_MAX_PATH)?;
                r.path_us = t1.elapsed().as_secs_f64() * 1e6;
                r.complete = path.is_complete();
                r.polys = path.polys.iter().map(|p| p.0).collect();
                if !path.polys.is_empty() {
                    let t2 = Instant::now();
                    let st = q.find_straight_path(
                        t.start,
                        t.end,
                        &path.polys,
                        &StraightPathOptions::default(),
                    )?;
                    r.straight_us = t2.elapsed().as_secs_f64() * 1e6;
                    r.straight = st.positions();
                }
            }
            TestKind::Raycast => {
                let t1 = Instant::now();
                let hit = q.raycast(s.poly, t.start, t.end, &filter, &RaycastOptions::default())?;
                r.path_us = t1.elapsed().as_secs_f64() * 1e6;
                r.polys = hit.polys.iter().map(|p| p.0).collect();
                r.complete = !hit.hit();
                let mut hit_pos = if hit.hit() {
                    t.start.lerp(t.end, hit.t)
                } else {
                    t.end
                };
                // On the last polygon's surface, hit or not (as RecastDemo adjusts the height).
                if let Some(&last) = hit.polys.last() {
                    if let Ok(h) = q.poly_height(last, hit_pos) {
                        hit_pos.y = h;
                    }
                }
                r.straight = vec![t.start, hit_pos];
            }
        }
        out.push(r);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("navkit-testcase-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn parse_err(text: &str, path: &FsPath) -> (usize, String) {
        match TestCase::parse(text, path) {
            Err(Error::Parse { line, message, .. }) => (line, message),
            other => panic!("{text:.100?}: {other:?}"),
        }
    }

    #[test]
    fn meshes_stay_in_the_folder_or_recastdemos_meshes_folder() {
        // RecastDemo's layout: TestCases/ beside Meshes/; and a file outside both.
        let dir = temp_dir("confined");
        for f in ["TestCases/here.obj", "Meshes/there.obj", "outside.obj"] {
            std::fs::create_dir_all(dir.join(f).parent().unwrap()).unwrap();
            std::fs::write(dir.join(f), "v 0 0 0\n").unwrap();
        }
        let case = dir.join("TestCases/t.txt");
        let ok = TestCase::parse("s Solo Mesh\nf here.obj\n", &case).unwrap();
        assert_eq!(ok.mesh, dir.join("TestCases/here.obj"));
        let ok = TestCase::parse("f there.obj\n", &case).unwrap();
        assert_eq!(ok.mesh, dir.join("TestCases/../Meshes/there.obj"));
        // Nowhere: the first place looked at, for the caller's "not found".
        let none = TestCase::parse("f none.obj\n", &case).unwrap();
        assert_eq!(none.mesh, dir.join("TestCases/none.obj"));
        let outside = dir.join("outside.obj");
        let abs = format!("s x\nf {}\n", outside.display());
        for (text, what, file) in [
            ("f ../outside.obj\n", "goes up a folder", "outside.obj"),
            (
                "f ../Meshes/there.obj\n",
                "goes up a folder",
                "Meshes/there.obj",
            ),
            (abs.as_str(), "is absolute", "outside.obj"),
        ] {
            let (line, message) = parse_err(text, &case);
            assert_eq!(line, text.lines().count(), "{message}");
            assert!(message.contains(what), "{message}");
            let anywhere = LoadOptions {
                allow_outside_paths: true,
            };
            let found = TestCase::parse_with(text, &case, &anywhere).unwrap().mesh;
            assert_eq!(
                found.canonicalize().unwrap(),
                dir.join(file).canonicalize().unwrap()
            );
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, dir.join("TestCases/link.obj")).unwrap();
            let (line, message) = parse_err("\n\nf link.obj\n", &case);
            assert_eq!(line, 3);
            assert!(message.contains("outside the folder"), "{message}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn byte_order_marks_long_lines_and_bad_bytes_name_the_line() {
        let dir = temp_dir("text");
        std::fs::write(dir.join("m.obj"), "v 0 0 0\n").unwrap();
        let case = dir.join("t.txt");
        // A BOM was `unknown record `\u{feff}s`` (printed invisibly).
        let text = "\u{feff}s Solo Mesh\r\nf m.obj\r\npf 0 0 0 1 0 1 0x3 0x0\r\n";
        std::fs::write(&case, text).unwrap();
        for c in [
            TestCase::load(&case).unwrap(),
            TestCase::parse(text, &case).unwrap(),
        ] {
            assert_eq!(
                (c.sample.as_str(), c.queries.len(), c.queries[0].line),
                ("Solo Mesh", 1, 3)
            );
        }
        let (line, message) = parse_err("s x\n\u{200b}pf 0 0 0 1 0 1 0x3 0x0\n", &case);
        assert_eq!(
            (line, message.as_str()),
            (2, "unknown record `\\u{200b}pf` (expected s, f, pf or rc)")
        );
        let long = format!(
            "s x\nf m.obj\n# {}\n",
            "y".repeat(crate::text::MAX_LINE_BYTES)
        );
        let (line, message) = parse_err(&long, &case);
        assert_eq!(line, 3);
        assert!(
            message.ends_with(&format!("`# {}…`", "y".repeat(78))),
            "{message}"
        );
        // Invalid UTF-8 was an I/O error naming no line.
        std::fs::write(&case, b"s x\nf m.obj\npf 0 0 \xff 1 0 1 0x3 0x0\n").unwrap();
        match TestCase::load(&case) {
            Err(Error::Parse {
                line: 3, message, ..
            }) => {
                assert!(
                    message.starts_with("not valid UTF-8 (at byte 8"),
                    "{message}"
                )
            }
            other => panic!("{other:?}"),
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
