//! Moving AI benchmark files: `.map` grids and `.scen` problem lists.
//!
//! `.map`: `type octile`, `height H`, `width W`, `map`, then `H` rows of `W` characters:
//! passable `.` `G` `S`, blocked `@` `O` `T`, water `W` (passable only from water).
//! `.scen`: `version 1` (or `version 1.0`), then one problem per line:
//! `bucket map width height start_x start_y goal_x goal_y optimal_length`.
//! CRLF line endings are accepted. Malformed input gives [`Error::Parse`] with the 1-based
//! line number; parsing never panics.

use super::{Grid, MAX_CELLS, Terrain};
use crate::text::LineReader;
use crate::{Error, Result};
use glam::UVec2;
use std::io::BufRead;
use std::path::Path;

/// The start of `line` for a message ([`crate::text::quote_bytes`]).
fn text(line: &[u8]) -> String {
    crate::text::quote_bytes(line)
}

/// The next line and its number, without its line terminator and trailing whitespace.
fn next<R: BufRead>(lines: &mut LineReader<R>) -> Result<Option<(usize, &[u8])>> {
    Ok(lines.next_line()?.map(|(n, l)| (n, l.trim_ascii_end())))
}

/// Parses a Moving AI `.map` file's contents; `path` is only used in error messages.
///
/// ```
/// use navkit::grid::{movingai::parse_map, Terrain};
/// use glam::UVec2;
/// let grid = parse_map(b"type octile\r\nheight 2\r\nwidth 3\r\nmap\r\n.@W\r\nT.G\r\n", "x.map".as_ref())?;
/// assert_eq!((grid.width(), grid.height()), (3, 2));
/// assert_eq!(grid.terrain(UVec2::new(2, 0)), Terrain::Water);
/// assert_eq!(grid.terrain(UVec2::new(0, 1)), Terrain::Blocked);
/// # Ok::<(), navkit::Error>(())
/// ```
pub fn parse_map(data: &[u8], path: &Path) -> Result<Grid> {
    read_map(data, path)
}

/// The `width` and `height` of a map's header, read up to its `map` line.
fn read_map_header<R: BufRead>(lines: &mut LineReader<R>, path: &Path) -> Result<(u32, u32)> {
    let mut width: Option<u32> = None;
    let mut height: Option<u32> = None;
    loop {
        let Some((n, line)) = next(lines)? else {
            return Err(Error::parse(path, 0, "no `map` line"));
        };
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        let mut words = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|w| !w.is_empty());
        let key = words.next().unwrap_or_default();
        let value = words.next();
        let message = if words.next().is_some() {
            format!("unexpected header line `{}`", text(line))
        } else {
            match (key, value) {
                (b"map", None) => break,
                (b"type", Some(b"octile")) => continue,
                (b"type", Some(t)) => {
                    format!("unsupported map type `{}` (expected octile)", text(t))
                }
                (b"height" | b"width", Some(v)) => {
                    let parsed = std::str::from_utf8(v)
                        .ok()
                        .and_then(|s| s.parse::<u32>().ok())
                        .filter(|&v| v > 0);
                    match (parsed, key) {
                        (Some(v), b"height") => height = Some(v),
                        (Some(v), _) => width = Some(v),
                        (None, _) => {
                            let msg =
                                format!("{} `{}` is not a positive integer", text(key), text(v));
                            return Err(Error::parse(path, n, msg));
                        }
                    }
                    continue;
                }
                _ => format!(
                    "unexpected header line `{}` (expected `type octile`, `height H`, `width W` or `map`)",
                    text(line)
                ),
            }
        };
        return Err(Error::parse(path, n, message));
    }
    let (Some(width), Some(height)) = (width, height) else {
        return Err(lines.error("`map` before both `height` and `width` were given"));
    };
    if width as u64 * height as u64 > MAX_CELLS {
        return Err(lines.error(format!(
            "map {width}x{height} has more than {MAX_CELLS} cells"
        )));
    }
    Ok((width, height))
}

/// Reads a `.map` a line at a time: header lines of at most
/// [`MAX_LINE_BYTES`](crate::text::MAX_LINE_BYTES), map rows of at most twice the map's width
/// and 256 bytes (a row is as wide as the map; what follows is trailing whitespace).
fn read_map(reader: impl BufRead, path: &Path) -> Result<Grid> {
    let mut lines = LineReader::new(reader, path);
    let (width, height) = read_map_header(&mut lines, path)?;
    let mut grid = Grid::new(width, height).map_err(|e| lines.error(e.to_string()))?;
    // A row is `width` characters; trailing whitespace is ignored, a CR is not counted.
    lines.set_max_len(2 * width as usize + 256, "map row");
    for y in 0..height {
        let Some((n, row)) = next(&mut lines)? else {
            return Err(lines.error(format!("expected {height} map rows, found {y}")));
        };
        if row.len() != width as usize {
            let cells = row.len();
            let msg = format!("map row {y} has {cells} cells, expected {width}");
            return Err(Error::parse(path, n, msg));
        }
        for (x, &c) in row.iter().enumerate() {
            let Some(t) = Terrain::from_movingai(c) else {
                let msg = format!(
                    "column {}: `{}` is not a map character (expected one of . G S @ O T W)",
                    x + 1,
                    c.escape_ascii()
                );
                return Err(Error::parse(path, n, msg));
            };
            if t != Terrain::Ground {
                grid.set_terrain(UVec2::new(x as u32, y), t);
            }
        }
    }
    lines.set_max_len(crate::text::MAX_LINE_BYTES, "line");
    while let Some((_, line)) = next(&mut lines)? {
        if !line.trim_ascii().is_empty() {
            return Err(lines.error(format!("unexpected data after the {height} map rows")));
        }
    }
    Ok(grid)
}

/// Reads and parses a `.map` file, a line at a time (see [`parse_map`]).
pub fn load_map(path: impl AsRef<Path>) -> Result<Grid> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    read_map(std::io::BufReader::new(file), path)
}

/// One problem of a scenario file.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Problem {
    /// The bucket (roughly the optimal length / 4).
    pub bucket: u32,
    /// The map file named on the line.
    pub map: String,
    /// The map width the line declares.
    pub map_width: u32,
    /// The map height the line declares.
    pub map_height: u32,
    /// Start cell.
    pub start: UVec2,
    /// Goal cell.
    pub goal: UVec2,
    /// The optimal path length (straight 1, diagonal sqrt(2), no corner cutting).
    pub optimal_length: f64,
    /// The 1-based line of the problem in its file.
    pub line: usize,
}

/// The problems of a `.scen` file, in file order.
#[derive(Clone, Debug, PartialEq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Scenario {
    /// The problems.
    pub problems: Vec<Problem>,
}

/// Parses a Moving AI `.scen` file's contents; `path` is only used in error messages.
/// Start and goal must lie inside the map size the line declares.
///
/// ```
/// use navkit::grid::movingai::parse_scen;
/// let scen = parse_scen(b"version 1\n0\tarena.map\t49\t49\t1\t11\t1\t12\t1\n", "a.scen".as_ref())?;
/// assert_eq!(scen.problems.len(), 1);
/// assert_eq!(scen.problems[0].optimal_length, 1.0);
/// # Ok::<(), navkit::Error>(())
/// ```
pub fn parse_scen(data: &[u8], path: &Path) -> Result<Scenario> {
    read_scen(data, path)
}

/// Reads a `.scen` a line at a time, lines of at most
/// [`MAX_LINE_BYTES`](crate::text::MAX_LINE_BYTES).
fn read_scen(reader: impl BufRead, path: &Path) -> Result<Scenario> {
    let err = |line: usize, msg: String| Error::parse(path, line, msg);
    let mut lines = LineReader::new(reader, path);
    loop {
        match next(&mut lines)? {
            Some((_, l)) if l.trim_ascii().is_empty() => continue,
            Some((_, l)) if matches!(l.trim_ascii(), b"version 1" | b"version 1.0") => break,
            Some((n, l)) => {
                let msg = format!("expected `version 1`, found `{}`", text(l));
                return Err(err(n, msg));
            }
            None => return Err(err(1, "empty scenario file (expected `version 1`)".into())),
        }
    }
    let mut problems = Vec::new();
    while let Some((n, line)) = lines.next_str()? {
        if line.trim_ascii().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.len() != 9 {
            return Err(err(
                n,
                format!(
                    "expected 9 fields (bucket map width height start_x start_y goal_x goal_y optimal_length), found {}",
                    fields.len()
                ),
            ));
        }
        const NAMES: [&str; 9] = [
            "bucket",
            "map",
            "width",
            "height",
            "start_x",
            "start_y",
            "goal_x",
            "goal_y",
            "optimal_length",
        ];
        let int = |i: usize| -> Result<u32> {
            fields[i].parse::<u32>().map_err(|_| {
                err(
                    n,
                    format!("{} `{}` is not a non-negative integer", NAMES[i], fields[i]),
                )
            })
        };
        let bucket = int(0)?;
        let (map_width, map_height) = (int(2)?, int(3)?);
        let start = UVec2::new(int(4)?, int(5)?);
        let goal = UVec2::new(int(6)?, int(7)?);
        let optimal_length = fields[8]
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite() && *v >= 0.0)
            .ok_or_else(|| {
                err(
                    n,
                    format!(
                        "optimal_length `{}` is not a finite non-negative number",
                        fields[8]
                    ),
                )
            })?;
        if map_width == 0 || map_height == 0 {
            return Err(err(
                n,
                format!("map size {map_width}x{map_height} is empty"),
            ));
        }
        for (what, c) in [("start", start), ("goal", goal)] {
            if c.x >= map_width || c.y >= map_height {
                return Err(err(
                    n,
                    format!(
                        "{what} ({}, {}) is outside the {map_width}x{map_height} map",
                        c.x, c.y
                    ),
                ));
            }
        }
        problems.push(Problem {
            bucket,
            map: fields[1].to_string(),
            map_width,
            map_height,
            start,
            goal,
            optimal_length,
            line: n,
        });
    }
    Ok(Scenario { problems })
}

/// Reads and parses a `.scen` file, a line at a time (see [`parse_scen`]).
pub fn load_scen(path: impl AsRef<Path>) -> Result<Scenario> {
    let path = path.as_ref();
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    read_scen(std::io::BufReader::new(file), path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(s: &str) -> Result<Grid> {
        parse_map(s.as_bytes(), Path::new("t.map"))
    }

    fn scen(s: &str) -> Result<Scenario> {
        parse_scen(s.as_bytes(), Path::new("t.scen"))
    }

    fn line_of(e: Error) -> (usize, String) {
        match e {
            Error::Parse { line, message, .. } => (line, message),
            other => panic!("expected a parse error, got {other}"),
        }
    }

    #[test]
    fn map_ok_with_crlf_and_all_characters() {
        let g =
            map("type octile\r\nheight 2\r\nwidth 7\r\nmap\r\n.GS@OTW\r\n.......\r\n\r\n").unwrap();
        assert_eq!((g.width(), g.height()), (7, 2));
        let t: Vec<_> = (0..7).map(|x| g.terrain(UVec2::new(x, 0))).collect();
        use Terrain::*;
        assert_eq!(
            t,
            vec![Ground, Ground, Ground, Blocked, Blocked, Blocked, Water]
        );
        assert_eq!(g.passable_count(), 11);
    }

    #[test]
    fn map_errors_have_line_numbers() {
        let cases: &[(&str, usize, &str)] = &[
            ("", 0, "no `map`"),
            (
                "type hex\nheight 1\nwidth 1\nmap\n.\n",
                1,
                "unsupported map type",
            ),
            (
                "type octile\nheight x\nwidth 1\nmap\n.\n",
                2,
                "not a positive integer",
            ),
            (
                "type octile\nheight 0\nwidth 1\nmap\n.\n",
                2,
                "not a positive integer",
            ),
            (
                "type octile\nheight -3\nwidth 1\nmap\n.\n",
                2,
                "not a positive integer",
            ),
            ("type octile\nheight 1\nmap\n.\n", 3, "before both"),
            (
                "type octile\nheight 2\nwidth 2\nmap\n..\n.\n",
                6,
                "has 1 cells, expected 2",
            ),
            (
                "type octile\nheight 2\nwidth 2\nmap\n..\n",
                5,
                "expected 2 map rows, found 1",
            ),
            ("type octile\nheight 1\nwidth 2\nmap\n.x\n", 5, "column 2"),
            (
                "type octile\nheight 1\nwidth 2\nmap\n..\n..\n",
                6,
                "unexpected data",
            ),
            (
                "type octile\nheight 1\nwidth 2\nfoo 3\nmap\n..\n",
                4,
                "unexpected header",
            ),
            (
                "type octile\nheight 100000\nwidth 100000\nmap\n",
                4,
                "more than",
            ),
            (
                "type octile\nheight 99999999999\nwidth 1\nmap\n",
                2,
                "not a positive integer",
            ),
        ];
        for &(text, line, msg) in cases {
            let (l, m) = line_of(map(text).unwrap_err());
            assert_eq!(l, line, "{text:?}: {m}");
            assert!(m.contains(msg), "{text:?}: `{m}` lacks `{msg}`");
        }
        // Non-UTF-8 bytes in a row are just bad characters.
        let e = parse_map(
            b"type octile\nheight 1\nwidth 1\nmap\n\xff\n",
            Path::new("t"),
        )
        .unwrap_err();
        assert_eq!(line_of(e).0, 5);
    }

    #[test]
    fn scen_ok_and_versions() {
        let s = scen("version 1.0\r\n3\tm.map\t4\t5\t0\t0\t3\t4\t5.24264\r\n\r\n").unwrap();
        assert_eq!(s.problems.len(), 1);
        let p = &s.problems[0];
        assert_eq!(
            (p.bucket, p.map.as_str(), p.map_width, p.map_height),
            (3, "m.map", 4, 5)
        );
        assert_eq!(
            (p.start, p.goal, p.line),
            (UVec2::new(0, 0), UVec2::new(3, 4), 2)
        );
        assert!(scen("version 1\n").unwrap().problems.is_empty());
    }

    #[test]
    fn scen_errors_have_line_numbers() {
        let ok = "0 m.map 4 4 0 0 1 1 1.41421";
        let cases: Vec<(String, usize, &str)> = vec![
            (String::new(), 1, "empty scenario"),
            ("version 2\n".into(), 1, "expected `version 1`"),
            (format!("{ok}\n"), 1, "expected `version 1`"),
            (
                format!("version 1\n{ok}\n0 m.map 4 4 0 0 1\n"),
                3,
                "expected 9 fields",
            ),
            (
                format!("version 1\n{ok}\n0 m.map 4 4 0 0 1 1 1 9\n"),
                3,
                "expected 9 fields",
            ),
            ("version 1\nx m.map 4 4 0 0 1 1 1\n".into(), 2, "bucket `x`"),
            (
                "version 1\n0 m.map 4 4 -1 0 1 1 1\n".into(),
                2,
                "start_x `-1`",
            ),
            (
                "version 1\n0 m.map 4 4 0 0 1 1 abc\n".into(),
                2,
                "optimal_length `abc`",
            ),
            (
                "version 1\n0 m.map 4 4 0 0 1 1 NaN\n".into(),
                2,
                "optimal_length `NaN`",
            ),
            (
                "version 1\n0 m.map 4 4 0 0 4 1 1\n".into(),
                2,
                "goal (4, 1) is outside",
            ),
            (
                "version 1\n0 m.map 4 4 9 0 1 1 1\n".into(),
                2,
                "start (9, 0) is outside",
            ),
            ("version 1\n0 m.map 0 4 0 0 0 0 0\n".into(), 2, "empty"),
        ];
        for (text, line, msg) in cases {
            let (l, m) = line_of(scen(&text).unwrap_err());
            assert_eq!(l, line, "{text:?}: {m}");
            assert!(m.contains(msg), "{text:?}: `{m}` lacks `{msg}`");
        }
    }

    #[test]
    fn missing_files_are_io_errors() {
        assert!(matches!(
            load_map("/nonexistent/x.map"),
            Err(Error::Io { .. })
        ));
        assert!(matches!(
            load_scen("/nonexistent/x.scen"),
            Err(Error::Io { .. })
        ));
    }

    #[test]
    fn byte_order_marks_are_skipped_and_invisible_characters_shown() {
        // The finding: `expected `version 1`, found `version 1`` (a BOM before it).
        let s = parse_scen(
            b"\xef\xbb\xbfversion 1\n0 m.map 4 4 0 0 1 1 1.41421\n",
            "b".as_ref(),
        );
        assert_eq!(s.unwrap().problems.len(), 1);
        let g = map("\u{feff}type octile\nheight 1\nwidth 2\nmap\n.@\n").unwrap();
        assert_eq!(g.passable_count(), 1);
        // A zero-width space is a character like another: refused, and shown escaped.
        let (l, m) = line_of(scen("\u{200b}version 1\n").unwrap_err());
        assert_eq!(
            (l, m.as_str()),
            (1, "expected `version 1`, found `\\u{200b}version 1`")
        );
        let (l, m) = line_of(map("type octile\nheight\u{a0}1\nwidth 2\nmap\n..\n").unwrap_err());
        assert_eq!(l, 2);
        assert!(m.contains("`height\\u{a0}1`"), "{m}");
    }

    /// An endless stream of one byte, counting what was read.
    struct Endless(u8, u64);

    impl std::io::Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            out.fill(self.0);
            self.1 += out.len() as u64;
            Ok(out.len())
        }
    }

    #[test]
    fn long_lines_are_refused_after_reading_the_limit() {
        use crate::text::MAX_LINE_BYTES;
        // `/dev/zero` as a map or a scenario: one endless line.
        for scenario in [false, true] {
            let mut src = Endless(0, 0);
            let reader = std::io::BufReader::new(&mut src);
            let p = Path::new("zero");
            let e = if scenario {
                read_scen(reader, p).unwrap_err()
            } else {
                read_map(reader, p).unwrap_err()
            };
            let (l, m) = line_of(e);
            assert_eq!(l, 1);
            assert!(m.starts_with("line longer than 1048576 bytes"), "{m}");
            assert!(m.ends_with(&format!("`{}…`", "\\u{0}".repeat(80))), "{m}");
            assert!(src.1 <= MAX_LINE_BYTES as u64 + 3 + 8192, "{}", src.1);
        }
        // A row may be as long as the map is wide (a 2,000,000-wide map: rows beyond the
        // header lines' limit), and not much longer.
        let w = 2 * MAX_LINE_BYTES;
        let head = format!("type octile\nheight 1\nwidth {w}\nmap\n");
        let ok = format!("{head}{}\n", ".".repeat(w));
        assert_eq!(map(&ok).unwrap().width() as usize, w);
        let mut src = Endless(b'.', 0);
        let endless = std::io::Read::chain(head.as_bytes(), &mut src);
        let (l, m) = line_of(read_map(std::io::BufReader::new(endless), "e".as_ref()).unwrap_err());
        assert_eq!(l, 5);
        assert!(
            m.starts_with(&format!("map row longer than {} bytes", 2 * w + 256)),
            "{m}"
        );
        assert!(src.1 <= 2 * w as u64 + 256 + 3 + 8192, "{}", src.1);
        // Scenario lines, past the limit.
        let long = format!(
            "version 1\n0 {} 4 4 0 0 1 1 1\n",
            "m".repeat(MAX_LINE_BYTES)
        );
        let (l, m) = line_of(scen(&long).unwrap_err());
        assert_eq!(l, 2);
        assert!(m.ends_with(&format!("`0 {}…`", "m".repeat(78))), "{m}");
        // Invalid UTF-8 in a problem names its line.
        let (l, m) =
            line_of(parse_scen(b"version 1\n\n0 \xff 4 4 0 0 1 1 1\n", "u".as_ref()).unwrap_err());
        assert_eq!(l, 3);
        assert!(m.starts_with("not valid UTF-8"), "{m}");
    }
}
