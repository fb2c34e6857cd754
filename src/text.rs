//! Text input read a line at a time in bounded memory, and quoted in messages.
//!
//! Every navkit reader of line-based text (`.gset` files, RecastDemo test cases, Moving AI maps
//! and scenarios, the CLI's `path --batch` files; the OBJ reader has its own chunked loop with
//! the same limit) goes through [`LineReader`]: a line longer than its limit is refused as soon
//! as the limit is passed, with an [`Error::Parse`] naming the line and quoting its start, so a
//! file of one endless line (`/dev/zero`) costs at most the limit in memory. A byte-order mark
//! at the start of the text is skipped, as text editors write one.
//!
//! Messages that quote input go through [`quote`] (or [`quote_bytes`]): at most
//! [`QUOTE_CHARS`] characters and `…`, with invisible characters (controls, format characters
//! such as the byte-order mark, unusual spaces) written as escapes (`\u{feff}`), so that two
//! words that differ only invisibly do not print the same.
//!
//! ```
//! use navkit::text::{LineReader, quote};
//! let text = "\u{feff}version 1\r\n\n0 a.map\n";
//! let mut lines = LineReader::new(text.as_bytes(), "a.scen".as_ref());
//! assert_eq!(lines.next_str()?, Some((1, "version 1"))); // the BOM and the CR are gone
//! assert_eq!(lines.next_str()?, Some((2, "")));
//! assert_eq!(lines.next_str()?, Some((3, "0 a.map")));
//! assert_eq!(lines.next_str()?, None);
//! assert_eq!(quote("a\u{feff}b\tc"), "a\\u{feff}b\\tc");
//! # Ok::<(), navkit::Error>(())
//! ```

use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The longest line (in bytes, without its line ending) navkit's text readers accept by
/// default: 1 MiB. No legal line of the formats read line by line comes near it (RecastDemo
/// reads OBJ and `.gset` lines into buffers of 512 and 4096 bytes; a batch query is six
/// numbers); Moving AI map rows may be longer, as wide as the map, and are allowed that.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// How many characters of input a message quotes at most (then `…`).
pub const QUOTE_CHARS: usize = 80;

/// The byte-order mark (U+FEFF) in UTF-8.
pub const BOM: &[u8] = b"\xef\xbb\xbf";

/// `bytes` without a leading byte-order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// Whether `c` would not be seen, or not be told from another character, when printed: control
/// characters, whitespace other than the space, and what Rust's `escape_debug` escapes
/// (format characters such as U+FEFF and U+200B, unassigned and private-use code points,
/// combining marks).
fn is_invisible(c: char) -> bool {
    if c == ' ' {
        return false;
    }
    c.is_control()
        || c.is_whitespace()
        || (!matches!(c, '\\' | '\'' | '"') && c.escape_debug().nth(1) == Some('u'))
}

/// `s` with its invisible characters escaped: `\t`, `\r` and `\n` as such, others as
/// `\u{feff}` (the form Rust's string literals take); everything else as it is.
pub fn escape_invisible(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\n' => out.push_str("\\n"),
            c if is_invisible(c) => out.extend(c.escape_unicode()),
            c => out.push(c),
        }
    }
    out
}

/// `s` for a message: its first [`QUOTE_CHARS`] characters, then `…` if there were more, with
/// invisible characters escaped ([`escape_invisible`]).
pub fn quote(s: &str) -> String {
    quote_max(s, QUOTE_CHARS)
}

/// [`quote`] keeping at most `max_chars` characters.
pub fn quote_max(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", escape_invisible(&s[..i])),
        None => escape_invisible(s),
    }
}

/// [`quote`] for bytes that may not be UTF-8 (invalid sequences become U+FFFD). Only the
/// start of `bytes` is looked at, so quoting a long line costs little.
pub fn quote_bytes(bytes: &[u8]) -> String {
    // 4 bytes per character at most, and one more to tell that there are more.
    let head = &bytes[..bytes.len().min(4 * QUOTE_CHARS + 4)];
    let text = String::from_utf8_lossy(head);
    let shown = quote(&text);
    if head.len() < bytes.len() && !shown.ends_with('…') {
        format!("{shown}…")
    } else {
        shown
    }
}

/// Reads text a line at a time, each line at most a set length, numbering lines from 1.
///
/// Lines end at `\n`; the `\n` and a `\r` before it are not part of the line. A byte-order
/// mark at the start of the first line is skipped. A line longer than the limit
/// ([`MAX_LINE_BYTES`] unless set otherwise) is an [`Error::Parse`] naming its number and
/// quoting its start, returned as soon as the limit is passed: the reader never holds more
/// than the limit (and two bytes) of a line. Read errors are [`Error::Io`].
#[derive(Debug)]
pub struct LineReader<R> {
    reader: R,
    path: PathBuf,
    buf: Vec<u8>,
    line: usize,
    max: usize,
    what: &'static str,
}

impl<R: BufRead> LineReader<R> {
    /// Reads `reader`; `path` names it in errors.
    pub fn new(reader: R, path: &Path) -> Self {
        LineReader {
            reader,
            path: path.to_path_buf(),
            buf: Vec::new(),
            line: 0,
            max: MAX_LINE_BYTES,
            what: "line",
        }
    }

    /// Sets the longest line accepted from now on, in bytes (at least 1), and what such a line
    /// is called in the error (`line`, `map row` ...).
    pub fn set_max_len(&mut self, max: usize, what: &'static str) {
        self.max = max.max(1);
        self.what = what;
    }

    /// The number of the last line returned (0 before the first).
    pub fn line_number(&self) -> usize {
        self.line
    }

    /// The file named in errors.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// An [`Error::Parse`] for the last line returned.
    pub fn error(&self, message: impl Into<String>) -> Error {
        Error::parse(&self.path, self.line, message)
    }

    /// The next line as bytes with its number, `None` at the end of the text.
    pub fn next_line(&mut self) -> Result<Option<(usize, &[u8])>> {
        self.buf.clear();
        // Room for the longest line, a `\r` and the `\n` (and a byte-order mark before the
        // first): reading one more byte than that tells a line over the limit.
        let bom = if self.line == 0 { BOM.len() } else { 0 };
        let room = (self.max + 2 + bom) as u64;
        let n = (&mut self.reader)
            .take(room)
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| Error::io(&self.path, e))?;
        if n == 0 {
            return Ok(None);
        }
        self.line += 1;
        let mut end = self.buf.len();
        if self.buf[end - 1] == b'\n' {
            end -= 1;
            if end > 0 && self.buf[end - 1] == b'\r' {
                end -= 1;
            }
        }
        let start = if self.line == 1 && self.buf.starts_with(BOM) {
            BOM.len()
        } else {
            0
        };
        if end - start > self.max {
            let head = &self.buf[start..end];
            return Err(self.error(format!(
                "{} longer than {} bytes (the limit): `{}`",
                self.what,
                self.max,
                quote_bytes(head)
            )));
        }
        Ok(Some((self.line, &self.buf[start..end])))
    }

    /// The next line as text with its number, `None` at the end; a line that is not UTF-8 is
    /// an [`Error::Parse`] naming it and the byte where the bad sequence starts.
    pub fn next_str(&mut self) -> Result<Option<(usize, &str)>> {
        let path = self.path.clone();
        match self.next_line()? {
            None => Ok(None),
            Some((line, bytes)) => match std::str::from_utf8(bytes) {
                Ok(s) => Ok(Some((line, s))),
                Err(e) => Err(Error::parse(
                    path,
                    line,
                    format!(
                        "not valid UTF-8 (at byte {} of the line): `{}`",
                        e.valid_up_to() + 1,
                        quote_bytes(bytes)
                    ),
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader of `n` zero bytes and nothing else (`/dev/zero` cut short), counting what was
    /// read from it.
    struct Zeros {
        left: u64,
        read: u64,
    }

    impl Read for Zeros {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = (out.len() as u64).min(self.left) as usize;
            out[..n].fill(0);
            self.left -= n as u64;
            self.read += n as u64;
            Ok(n)
        }
    }

    #[test]
    fn a_line_over_the_limit_is_refused_after_reading_the_limit() {
        // 200 MB of zeros without a newline: refused after the limit (and the reader's one
        // buffer of 8 KiB), not after reading it all.
        let mut zeros = Zeros {
            left: 200_000_000,
            read: 0,
        };
        let mut r = LineReader::new(std::io::BufReader::new(&mut zeros), "z".as_ref());
        let err = r.next_line().unwrap_err();
        let Error::Parse { line, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*line, 1);
        // 80 NULs, escaped as `\u{0}` (5 characters each), then `…`.
        let quoted = format!("`{}…`", "\\u{0}".repeat(QUOTE_CHARS));
        assert!(message.ends_with(&quoted), "{message}");
        assert!(message.contains("longer than 1048576 bytes"), "{message}");
        assert!(message.len() < 600, "{}", message.len());
        drop(r);
        assert!(
            zeros.read <= MAX_LINE_BYTES as u64 + 2 + 8192,
            "{}",
            zeros.read
        );
    }

    #[test]
    fn lines_at_the_limit_pass_and_one_byte_more_fails() {
        let max = 10;
        let ok = format!(
            "\u{feff}{}\r\n{}\n{}",
            "a".repeat(10),
            "b".repeat(10),
            "c".repeat(10)
        );
        let mut r = LineReader::new(ok.as_bytes(), "t".as_ref());
        r.set_max_len(max, "row");
        assert_eq!(r.next_line().unwrap(), Some((1, &b"aaaaaaaaaa"[..])));
        assert_eq!(r.next_line().unwrap(), Some((2, &b"bbbbbbbbbb"[..])));
        assert_eq!(r.next_line().unwrap(), Some((3, &b"cccccccccc"[..])));
        assert_eq!(r.next_line().unwrap(), None);
        for bad in ["x\naaaaaaaaaaa\n", "x\naaaaaaaaaaa", "x\naaaaaaaaaa\r\r\n"] {
            let mut r = LineReader::new(bad.as_bytes(), "t".as_ref());
            r.set_max_len(max, "row");
            r.next_line().unwrap();
            match r.next_line() {
                Err(Error::Parse {
                    line: 2, message, ..
                }) => {
                    assert!(message.starts_with("row longer than 10 bytes"), "{message}")
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        // A BOM only counts at the very start.
        let mut r = LineReader::new("a\n\u{feff}b".as_bytes(), "t".as_ref());
        r.next_line().unwrap();
        assert_eq!(r.next_str().unwrap(), Some((2, "\u{feff}b")));
    }

    #[test]
    fn invalid_utf8_names_the_line_and_byte() {
        let mut r = LineReader::new(&b"1 2 3\n4 \xff 6\n"[..], "b".as_ref());
        r.next_str().unwrap();
        let err = r.next_str().unwrap_err();
        assert_eq!(
            err.to_string(),
            "b:2: not valid UTF-8 (at byte 3 of the line): `4 \u{fffd} 6`"
        );
    }

    #[test]
    fn quotes_show_invisible_characters_and_clip() {
        // The finding's message: a BOM before `version 1` printed as if it were not there.
        assert_eq!(quote("\u{feff}version 1"), "\\u{feff}version 1");
        assert_eq!(
            quote("a\u{200b}b\u{a0}c\u{7f}d\u{301}e\r"),
            "a\\u{200b}b\\u{a0}c\\u{7f}d\\u{301}e\\r"
        );
        assert_eq!(
            quote("caf\u{e9} \\ \"x\" 'y' ü €"),
            "caf\u{e9} \\ \"x\" 'y' ü €"
        );
        let long = "é".repeat(100);
        assert_eq!(quote(&long), format!("{}…", "é".repeat(80)));
        assert_eq!(quote(&"é".repeat(80)), "é".repeat(80));
        assert_eq!(quote_bytes(&[b'x'; 1000]), format!("{}…", "x".repeat(80)));
        assert_eq!(quote_bytes(b"\xffab"), "\u{fffd}ab");
        assert_eq!(strip_bom(b"\xef\xbb\xbfv 1"), b"v 1");
    }
}
