//! The Wavefront OBJ reader behind [`TriMesh::from_obj`]: one pass over the text, streamed from
//! the file in chunks (no copy of the whole file), giving RecastDemo's `rcMeshLoaderObj` arrays
//! (every `v` line in file order, faces fan-triangulated as `(f[0], f[i-1], f[i])`) and naming
//! the file and line of anything malformed. Unlike RecastDemo, faces of more than
//! [`MAX_FACE_VERTS`] vertices are triangulated whole (with a warning), a byte-order mark is
//! skipped, and a line longer than [`MAX_LINE_BYTES`] is an error.
//!
//! A line is split into words at whitespace exactly as [`str::split_whitespace`] splits it
//! (lines holding non-ASCII bytes go through [`String::from_utf8_lossy`] first), numbers are
//! read as [`str::parse`] reads them (a short decimal such as `12.375` takes an exact fast path,
//! anything else goes to `parse::<f32>`), so the result does not depend on how the file is cut
//! into chunks.

use super::TrianglePicker;
use super::mesh::{MAX_FACE_VERTS, TriMesh};
use crate::text::{BOM, MAX_LINE_BYTES, quote_bytes};
use crate::{Error, Result};
use std::io::Read;
use std::path::Path;

/// Bytes read from the file at a time (a line longer than this grows the buffer).
const CHUNK: usize = 1 << 18;

/// Reads OBJ text from `reader` chunk by chunk; `path` names it in errors. `size_hint` (the
/// file's length, if known) keeps the buffer of a small file small.
pub(super) fn parse_obj_reader(
    reader: impl Read,
    path: &Path,
    size_hint: Option<u64>,
) -> Result<TriMesh> {
    parse_obj_picked(reader, path, size_hint, None)
}

/// [`parse_obj_reader`], showing every vertex and triangle to `picker` (if given), which picks
/// the triangles kept; with a picker a mesh may keep no triangle.
pub(super) fn parse_obj_picked<'p>(
    mut reader: impl Read,
    path: &'p Path,
    size_hint: Option<u64>,
    picker: Option<&'p mut dyn TrianglePicker>,
) -> Result<TriMesh> {
    let mut parser = ObjParser::new(path);
    parser.picker = picker;
    let first = size_hint.map_or(CHUNK, |n| (n as usize).saturating_add(1).clamp(64, CHUNK));
    let mut buf = vec![0u8; first];
    // `buf[..filled]` holds bytes not yet parsed: the start of a line, at most.
    let mut filled = 0;
    loop {
        if filled == buf.len() {
            // One line fills the buffer: make room for more of it.
            buf.resize(buf.len() * 2, 0);
        }
        let n = match reader.read(&mut buf[filled..]) {
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(path, e)),
        };
        if n == 0 {
            parser.line(&buf[..filled])?;
            break;
        }
        let end = filled + n;
        // Complete lines end at the last newline; the rest waits for the next read.
        let Some(last) = buf[filled..end].iter().rposition(|&b| b == b'\n') else {
            filled = end;
            if filled > MAX_LINE_BYTES + 1 {
                parser.line += 1;
                return Err(parser.too_long(&buf[..filled]));
            }
            continue;
        };
        let cut = filled + last + 1;
        parser.lines(&buf[..cut])?;
        buf.copy_within(cut..end, 0);
        filled = end - cut;
        // What is left is the start of a line: refuse it once it is longer than any line may
        // be (with a `\r`), before the buffer grows further.
        if filled > MAX_LINE_BYTES + 1 {
            parser.line += 1;
            return Err(parser.too_long(&buf[..filled]));
        }
    }
    parser.finish()
}

/// Reads OBJ text held in memory; `path` names it in errors.
pub(super) fn parse_obj_bytes(text: &[u8], path: &Path) -> Result<TriMesh> {
    let mut parser = ObjParser::new(path);
    parser.lines(text)?;
    parser.finish()
}

/// The arrays read so far and the number of the last line read.
struct ObjParser<'p> {
    path: &'p Path,
    /// Sees every vertex and triangle, and picks the triangles kept.
    picker: Option<&'p mut dyn TrianglePicker>,
    verts: Vec<f32>,
    tris: Vec<i32>,
    line: usize,
    /// The vertex indices of the face being read (reused from face to face).
    face: Vec<i32>,
    /// Faces of more than [`MAX_FACE_VERTS`] vertices: how many, and the line and vertex count
    /// of the first.
    big_faces: usize,
    first_big_face: (usize, usize),
}

/// Whitespace as [`char::is_whitespace`] sees it, for ASCII bytes: tab, line feed, vertical
/// tab, form feed, carriage return and space.
fn is_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ')
}

impl<'p> ObjParser<'p> {
    fn new(path: &'p Path) -> Self {
        ObjParser {
            path,
            picker: None,
            verts: Vec::new(),
            tris: Vec::new(),
            line: 0,
            face: Vec::new(),
            big_faces: 0,
            first_big_face: (0, 0),
        }
    }

    fn err(&self, message: String) -> Error {
        Error::parse(self.path, self.line, message)
    }

    /// The error for the current line, of which `start` is the start, being too long.
    fn too_long(&self, start: &[u8]) -> Error {
        self.err(format!(
            "line longer than {MAX_LINE_BYTES} bytes (the limit): `{}`",
            quote_bytes(start)
        ))
    }

    /// Parses `text` as whole lines separated by `\n` (a last line without one included).
    fn lines(&mut self, text: &[u8]) -> Result<()> {
        let mut rest = text;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            self.line(&rest[..nl])?;
            rest = &rest[nl + 1..];
        }
        if !rest.is_empty() {
            self.line(rest)?;
        }
        Ok(())
    }

    /// Parses one line (without its `\n`).
    fn line(&mut self, raw: &[u8]) -> Result<()> {
        self.line += 1;
        let raw = match self.line {
            1 => raw.strip_prefix(BOM).unwrap_or(raw),
            _ => raw,
        };
        if raw.strip_suffix(b"\r").unwrap_or(raw).len() > MAX_LINE_BYTES {
            return Err(self.too_long(raw));
        }
        if raw.is_ascii() {
            self.words(raw.split(|&b| is_space(b)).filter(|w| !w.is_empty()))
        } else {
            let text = String::from_utf8_lossy(raw);
            self.words(text.split_whitespace().map(str::as_bytes))
        }
    }

    /// Reads the statement made of `words`.
    fn words<'a>(&mut self, mut words: impl Iterator<Item = &'a [u8]> + Clone) -> Result<()> {
        let Some(kw) = words.next() else {
            return Ok(());
        };
        if kw.starts_with(b"#") || kw.starts_with(b"vt") || kw.starts_with(b"vn") {
            return Ok(());
        }
        if kw == b"v" {
            let mut xyz = [0f32; 3];
            for (k, slot) in xyz.iter_mut().enumerate() {
                let w = words
                    .next()
                    .ok_or_else(|| self.err(format!("vertex has {k} coordinates, expected 3")))?;
                match parse_f32(w) {
                    Some(x) if x.is_finite() => *slot = x,
                    Some(_) => {
                        let w = quote_bytes(w);
                        return Err(self.err(format!("vertex coordinate `{w}` is not finite")));
                    }
                    None => {
                        let w = quote_bytes(w);
                        return Err(self.err(format!("vertex coordinate `{w}` is not a number")));
                    }
                }
            }
            // `w` and colour components are ignored.
            self.verts.extend_from_slice(&xyz);
            if let Some(p) = self.picker.as_deref_mut() {
                p.vertex(xyz);
            }
        } else if kw == b"f" {
            self.face(words)?;
        } else if kw.starts_with(b"v") || kw.starts_with(b"f") {
            let what = if kw.starts_with(b"v") {
                "vertex"
            } else {
                "face"
            };
            let kw = quote_bytes(kw);
            return Err(self.err(format!(
                "unsupported statement `{kw}` (RecastDemo would read it as a {what})"
            )));
        }
        // o, g, usemtl, mtllib, s, l, p ...: ignored, as RecastDemo does.
        Ok(())
    }

    /// Reads the words of an `f` line after the `f` and appends its fan of triangles: all of
    /// them (RecastDemo reads only the first [`MAX_FACE_VERTS`] vertices of a face and drops
    /// the rest of it; here such faces are counted for a warning).
    fn face<'a>(&mut self, words: impl Iterator<Item = &'a [u8]> + Clone) -> Result<()> {
        // A `#` ends the face. RecastDemo reads it as an invalid index, which drops the
        // triangles that use it but not later ones, so numbers after it are an error (found
        // before the indices are read, as the reader before this one found it).
        let is_comment = |w: &&[u8]| w.starts_with(b"#");
        let atoi_reads_a_number = |w: &[u8]| {
            let w = w.strip_prefix(b"+").or(w.strip_prefix(b"-")).unwrap_or(w);
            w.first().is_some_and(u8::is_ascii_digit)
        };
        if words
            .clone()
            .skip_while(|w| !is_comment(w))
            .any(atoi_reads_a_number)
        {
            return Err(self.err("vertex indices after a `#` in a face".into()));
        }
        let nverts = self.verts.len() / 3;
        if nverts > i32::MAX as usize {
            return Err(self.err(format!(
                "{nverts} vertices: at most {} are supported",
                i32::MAX
            )));
        }
        let mut face = std::mem::take(&mut self.face);
        face.clear();
        for w in words.take_while(|w| !is_comment(w)) {
            face.push(self.face_index(w, nverts)?);
        }
        if face.len() > MAX_FACE_VERTS {
            if self.big_faces == 0 {
                self.first_big_face = (self.line, face.len());
            }
            self.big_faces += 1;
        }
        for i in 2..face.len() {
            let tri = [face[0], face[i - 1], face[i]];
            let keep = match self.picker.as_deref_mut() {
                Some(p) => p.triangle(&self.verts, tri),
                None => true,
            };
            if keep {
                self.tris.extend_from_slice(&tri);
            }
        }
        self.face = face;
        Ok(())
    }

    /// The 0-based vertex a face word (`v`, `v/vt`, `v//vn`, `v/vt/vn`) names, with `nverts`
    /// vertices read so far (at most `i32::MAX`).
    fn face_index(&self, w: &[u8], nverts: usize) -> Result<i32> {
        let pos = w.split(|&b| b == b'/').next().unwrap_or(&[]);
        match parse_i64(pos) {
            Some(0) => Err(self.err("vertex index 0 (OBJ indices start at 1)".into())),
            // `nverts` fits an i32 (checked by the caller), so both do.
            Some(v) if v > 0 && v as u64 <= nverts as u64 => Ok((v - 1) as i32),
            Some(v) if v < 0 && v.unsigned_abs() <= nverts as u64 => Ok((nverts as i64 + v) as i32),
            Some(v) => Err(self.err(format!(
                "face refers to vertex {v} but only {nverts} vertices are defined before this line"
            ))),
            None => Err(self.err(format!("invalid face vertex `{}`", quote_bytes(w)))),
        }
    }

    /// The warning for faces of more than [`MAX_FACE_VERTS`] vertices, if there were any.
    fn big_face_warning(&self) -> Option<String> {
        let (line, n) = self.first_big_face;
        let path = self.path.display();
        match self.big_faces {
            0 => None,
            1 => Some(format!(
                "{path}:{line}: a face of {n} vertices, more than RecastDemo reads \
                 ({MAX_FACE_VERTS}); all are triangulated (as a fan from its first vertex)"
            )),
            k => Some(format!(
                "{path}: {k} faces have more than {MAX_FACE_VERTS} vertices, which RecastDemo \
                 reads (the first at line {line}, {n} vertices); all are triangulated (as fans \
                 from their first vertices)"
            )),
        }
    }

    /// The mesh, or the error for a mesh without vertices or triangles.
    fn finish(self) -> Result<TriMesh> {
        let empty = |what: &str| {
            Err(Error::Geometry(format!(
                "{}: empty mesh: no {what}",
                self.path.display()
            )))
        };
        if self.verts.is_empty() {
            return empty("vertices");
        }
        if self.tris.is_empty() && self.picker.is_none() {
            return empty("triangles");
        }
        let warnings = self.big_face_warning().into_iter().collect();
        let (mut verts, mut tris) = (self.verts, self.tris);
        verts.shrink_to_fit();
        tris.shrink_to_fit();
        Ok(TriMesh {
            verts,
            tris,
            source: None,
            warnings,
        })
    }
}

/// Exact powers of ten in `f32` (10^10 = 2^10 * 5^10 and 5^10 < 2^24).
const POW10: [f32; 11] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10];

/// `w` read as `str::parse::<f32>` reads it (`None` where that fails).
///
/// Words of the form `[+-]digits[.digits]` whose digits form an integer up to 2^24 with at most
/// 10 after the point are the integer (exact in `f32`) divided by an exact power of ten: one
/// correctly rounded operation, so the correctly rounded value `parse` gives (Rust's own fast
/// path, in fact). Everything else is handed to `parse`.
pub(crate) fn parse_f32(w: &[u8]) -> Option<f32> {
    let (neg, digits) = match w.first() {
        Some(b'-') => (true, &w[1..]),
        Some(b'+') => (false, &w[1..]),
        _ => (false, w),
    };
    let mut mantissa: u32 = 0;
    let mut frac: Option<usize> = None;
    let mut seen_digit = false;
    for (i, &b) in digits.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                seen_digit = true;
                mantissa = match mantissa
                    .checked_mul(10)
                    .and_then(|m| m.checked_add((b - b'0') as u32))
                {
                    Some(m) if m <= 1 << 24 => m,
                    _ => return parse_f32_slow(w),
                };
            }
            b'.' if frac.is_none() => frac = Some(i),
            _ => return parse_f32_slow(w),
        }
    }
    let frac_digits = frac.map_or(0, |p| digits.len() - p - 1);
    if !seen_digit || frac_digits >= POW10.len() {
        return parse_f32_slow(w);
    }
    let x = mantissa as f32 / POW10[frac_digits];
    Some(if neg { -x } else { x })
}

fn parse_f32_slow(w: &[u8]) -> Option<f32> {
    std::str::from_utf8(w).ok()?.parse().ok()
}

/// `w` read as `str::parse::<i64>` reads it: an optional sign and at least one digit, `None` on
/// anything else or overflow.
fn parse_i64(w: &[u8]) -> Option<i64> {
    let (neg, digits) = match w.first() {
        Some(b'-') => (true, &w[1..]),
        Some(b'+') => (false, &w[1..]),
        _ => (false, w),
    };
    if digits.is_empty() {
        return None;
    }
    // Accumulated negatively so that i64::MIN is readable, as parse reads it.
    let mut v: i64 = 0;
    for &b in digits {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v.checked_mul(10)?.checked_sub((b - b'0') as i64)?;
    }
    if neg { Some(v) } else { v.checked_neg() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    #[test]
    fn numbers_read_as_str_parse_reads_them() {
        let fixed = [
            "0",
            "-0",
            "+0",
            "-0.0",
            "1",
            "1.",
            ".5",
            "-.5",
            ".",
            "-",
            "+",
            "",
            "1e3",
            "1E-3",
            "inf",
            "-inf",
            "NaN",
            "infinity",
            "0x10",
            "1_0",
            "16777216",
            "16777217",
            "-16777217",
            "0.1234567891",
            "0.12345678912",
            "123.456",
            "00000000000000000000001.5",
            "1..2",
            "1.2.3",
            "--1",
            "+-1",
            "1 ",
            "3.4028235e38",
            "3.5e38",
            "1e-46",
            "9999999999",
            "0.30000001192092896",
            "12345678901234567890",
        ];
        for w in fixed {
            let want = w.parse::<f32>().ok().map(f32::to_bits);
            assert_eq!(parse_f32(w.as_bytes()).map(f32::to_bits), want, "{w:?}");
            assert_eq!(parse_i64(w.as_bytes()), w.parse::<i64>().ok(), "{w:?}");
        }
        for w in [
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
        ] {
            assert_eq!(parse_i64(w.as_bytes()), w.parse::<i64>().ok(), "{w:?}");
        }
        // Random decimals of every length around the fast path's limits.
        let mut rng = rand_pcg::Pcg64::seed_from_u64(7);
        let alphabet = b"0123456789.-+e";
        for i in 0..400_000 {
            let w: String = if i % 2 == 0 {
                let int = rng.gen_range(0..30_000_000u32);
                let frac = rng.gen_range(0..12u32);
                let sign = ["", "-", "+"][rng.gen_range(0..3)];
                let s = format!("{sign}{int}");
                let p = s.len().saturating_sub(frac as usize).max(sign.len());
                format!("{}.{}", &s[..p], &s[p..])
            } else {
                let len = rng.gen_range(0..12);
                (0..len)
                    .map(|_| alphabet[rng.gen_range(0..alphabet.len())] as char)
                    .collect()
            };
            let want = w.parse::<f32>().ok().map(f32::to_bits);
            assert_eq!(parse_f32(w.as_bytes()).map(f32::to_bits), want, "{w:?}");
            assert_eq!(parse_i64(w.as_bytes()), w.parse::<i64>().ok(), "{w:?}");
        }
    }

    /// Hands out at most a few bytes per read, interrupted now and then.
    struct Trickle<'a> {
        data: &'a [u8],
        rng: rand_pcg::Pcg64,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            if self.rng.gen_bool(0.1) {
                return Err(std::io::ErrorKind::Interrupted.into());
            }
            let n = self.rng.gen_range(1..8).min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn chunking_does_not_change_the_result() {
        let p = Path::new("t.obj");
        let mut text = b"# caf\xc3\xa9\r\nv 0 0 0\nv 1 0 0\r\nv 0\xc2\xa00 1\n\ng \xff\n".to_vec();
        text.extend(b"f 1 2 3\nf -1 -2 -3\t# x\nf 1/2/3 2//1 3");
        let long = format!("f{}\n", " 1 2 3".repeat(100_000));
        for (i, t) in [
            text.clone(),
            [text.clone(), b"\n".to_vec()].concat(),
            [&text[..], b"\n", long.as_bytes()].concat(),
        ]
        .into_iter()
        .enumerate()
        {
            let whole = parse_obj_bytes(&t, p).unwrap();
            for seed in 0..20 {
                let r = Trickle {
                    data: &t,
                    rng: rand_pcg::Pcg64::seed_from_u64(seed),
                };
                assert_eq!(
                    parse_obj_reader(r, p, Some(seed * 7)).unwrap(),
                    whole,
                    "text {i} seed {seed}"
                );
            }
        }
        // An error names the same line however the text arrives.
        let bad = b"v 0 0 0\r\n\nv 1 0 0\nv 0 0 1\nf 1 2 3\nf 1 2 5\n";
        for seed in 0..20 {
            let r = Trickle {
                data: bad,
                rng: rand_pcg::Pcg64::seed_from_u64(seed),
            };
            match parse_obj_reader(r, p, None) {
                Err(Error::Parse { line: 6, .. }) => {}
                other => panic!("{other:?}"),
            }
        }
    }

    /// An endless stream of one byte (`/dev/zero` for 0), counting what was read.
    struct Endless {
        byte: u8,
        read: u64,
    }

    impl Read for Endless {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            out.fill(self.byte);
            self.read += out.len() as u64;
            Ok(out.len())
        }
    }

    #[test]
    fn a_line_over_the_limit_is_refused_in_bounded_memory() {
        let p = Path::new("z.obj");
        // An endless line (`/dev/zero` as a level): refused once it passes the limit, after
        // reading at most the limit and the buffer's growth (the buffer doubles from 256 KiB).
        for byte in [0, b'v', b' '] {
            let mut src = Endless { byte, read: 0 };
            let err = parse_obj_reader(&mut src, p, None).unwrap_err();
            let Error::Parse { line, message, .. } = &err else {
                panic!("{err:?}")
            };
            assert_eq!(*line, 1, "{message}");
            assert!(
                message.starts_with("line longer than 1048576 bytes"),
                "{message}"
            );
            assert!(
                message.chars().count() < 6 * crate::text::QUOTE_CHARS,
                "{message}"
            );
            assert!(src.read <= 2 * MAX_LINE_BYTES as u64 + 2, "{}", src.read);
        }
        // After good lines, the same in memory and streamed: the line is named.
        let mut text = b"v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n# ".to_vec();
        // Line 5 is `# ` and x's: exactly the limit long.
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES - 2));
        let ok = parse_obj_bytes(&text, p).unwrap();
        assert_eq!(ok.tri_count(), 1);
        assert_eq!(parse_obj_reader(&text[..], p, None).unwrap(), ok);
        text.extend(b"\r\n");
        assert_eq!(
            parse_obj_bytes(&text, p).unwrap(),
            ok,
            "a CR does not count"
        );
        assert_eq!(parse_obj_reader(&text[..], p, None).unwrap(), ok);
        // One byte more.
        text.insert(text.len() - 2, b'x');
        for err in [
            parse_obj_bytes(&text, p).unwrap_err(),
            parse_obj_reader(&text[..], p, None).unwrap_err(),
        ] {
            match err {
                Error::Parse {
                    line: 5, message, ..
                } => {
                    assert!(
                        message.ends_with(&format!("`# {}…`", "x".repeat(78))),
                        "{message}"
                    )
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped() {
        // The finding: a BOM before the first `v` made it an unknown statement, so the first
        // vertex was lost and `f 1 2 3` refused (`only 2 vertices are defined`).
        let text = b"\xef\xbb\xbfv 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 3\n";
        let p = Path::new("bom.obj");
        let want = parse_obj_bytes(&text[3..], p).unwrap();
        assert_eq!(parse_obj_bytes(text, p).unwrap(), want);
        assert_eq!(parse_obj_reader(&text[..], p, None).unwrap(), want);
        assert_eq!(want.verts, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
        // Elsewhere, an invisible character in a word is shown escaped.
        let err = parse_obj_bytes("v 0 0 0\nv 1\u{200b} 0 0\n".as_bytes(), p).unwrap_err();
        assert_eq!(
            err.to_string(),
            "bom.obj:2: vertex coordinate `1\\u{200b}` is not a number"
        );
    }

    #[test]
    fn faces_of_more_than_32_vertices_are_triangulated_whole() {
        // A regular 40-gon of circumradius 10 in the xz plane, as one face: RecastDemo (and
        // navkit until now) read its first 32 vertices, silently losing 8 of its 38 triangles.
        let n = 40;
        let mut text = String::new();
        for i in 0..n {
            let a = std::f64::consts::TAU * i as f64 / n as f64;
            text += &format!("v {} 0 {}\n", 10.0 * a.cos(), 10.0 * a.sin());
        }
        text += "f";
        for i in 1..=n {
            text += &format!(" {i}");
        }
        text += "\n";
        let mesh = parse_obj_bytes(text.as_bytes(), Path::new("disc.obj")).unwrap();
        assert_eq!(mesh.tri_count(), n - 2);
        // The area of a regular n-gon of circumradius r: n/2 r^2 sin(2 pi / n) (40 isosceles
        // triangles of apex 9 degrees): 2000 sin(9 deg) = 312.8689...; the fan's triangles
        // cover it exactly once (f32 coordinates: within 1e-3).
        let want = 20.0 * 100.0 * (std::f64::consts::TAU / 40.0).sin();
        let area: f64 = mesh
            .tris
            .chunks(3)
            .map(|t| {
                let v = |i: i32| mesh.vertex(i as usize).as_dvec3();
                let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
                ((b - a).cross(c - a)).length() / 2.0
            })
            .sum();
        assert!((area - want).abs() < 1e-3, "{area} vs {want}");
        assert_eq!(
            mesh.warnings,
            [
                "disc.obj:41: a face of 40 vertices, more than RecastDemo reads (32); all are \
              triangulated (as a fan from its first vertex)"
            ]
        );
        // Two such faces: one warning, counting them; 32 vertices: none.
        let twice = format!("{text}{}", text.lines().last().unwrap());
        let mesh = parse_obj_bytes(twice.as_bytes(), Path::new("d.obj")).unwrap();
        assert_eq!(mesh.tri_count(), 2 * (n - 2));
        assert_eq!(mesh.warnings.len(), 1);
        assert!(
            mesh.warnings[0].starts_with("d.obj: 2 faces have more than 32 vertices")
                && mesh.warnings[0].contains("(the first at line 41, 40 vertices)"),
            "{:?}",
            mesh.warnings
        );
        let f32_face = (1..=32).map(|i| format!(" {i}")).collect::<String>();
        let text32 = format!("{}f{f32_face}\n", text.split("f ").next().unwrap());
        let mesh = parse_obj_bytes(text32.as_bytes(), Path::new("d.obj")).unwrap();
        assert_eq!((mesh.tri_count(), mesh.warnings.len()), (30, 0));
    }
}
