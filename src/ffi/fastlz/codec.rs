//! FastLZ, the compressor of RecastDemo's tile cache layers (its `FastLZCompressor`, so its
//! `TSET` files): compression by RecastDemo's own `fastlz.c` (compiled from the
//! recastnavigation-sys sources), decompression by navkit's decoder, which checks every read
//! and every write and says what is wrong with a corrupt stream.
//!
//! The format (fastlz.c 0.1.0): the top 3 bits of the first byte hold the level minus one (0
//! for level 1, 1 for level 2); the stream is a sequence of instructions, the first always a
//! literal run. A control byte below 32 is a literal run of `ctrl + 1` bytes that follow. A
//! control byte `ctrl >= 32` is a match: length `(ctrl >> 5) + 2` (when `ctrl >> 5` is 7, more
//! length follows: one byte at level 1, bytes up to and including the first that is not 255 at
//! level 2), then a distance byte `d`; the match copies its length from
//! `((ctrl & 31) << 8) + d + 1` bytes back in the output, byte by byte (overlapping copies repeat). At level 2, a
//! distance byte of 255 with `ctrl & 31 == 31` is followed by a 16-bit big-endian far distance
//! `f`, and the copy starts `f + 8192` bytes back. The stream ends at its last byte; nothing
//! may follow the last instruction.
//!
//! ```
//! use navkit::tilecache::fastlz;
//! let data: Vec<u8> = (0..5000u32).map(|i| (i % 13) as u8).collect();
//! let packed = fastlz::compress(&data)?;
//! assert!(packed.len() < data.len() / 10);
//! assert_eq!(packed[0] >> 5, 0, "level 1 below 64 KiB, as RecastDemo");
//! assert_eq!(fastlz::decompress(&packed, data.len())?, data);
//! // Corrupt streams are errors, never reads or writes out of bounds.
//! assert!(fastlz::decompress(&packed[..packed.len() - 1], data.len()).is_err());
//! assert!(fastlz::decompress(&packed, data.len() - 1).is_err());
//! # Ok::<(), navkit::Error>(())
//! ```

use super as ffi;
use crate::{Error, Result};

/// Level 2's far distances start this far back (fastlz.c's level-2 `MAX_DISTANCE`).
const FAR_BASE: usize = 8191;

/// Compresses `data` as RecastDemo's `FastLZCompressor` does (`fastlz_compress`: level 1 for
/// less than 64 KiB, level 2 from there).
///
/// # Errors
/// [`Error::InvalidArgument`] if `data` is larger than fastlz.c can take (about 2 GB).
pub fn compress(data: &[u8]) -> Result<Vec<u8>> {
    compress_with(data, None)
}

/// Compresses `data` at FastLZ `level` 1 or 2 (`fastlz_compress_level`).
///
/// # Errors
/// [`Error::InvalidArgument`] for another level or data larger than fastlz.c can take.
pub fn compress_level(level: u8, data: &[u8]) -> Result<Vec<u8>> {
    if !matches!(level, 1 | 2) {
        return Err(Error::InvalidArgument(format!(
            "FastLZ level {level}: only levels 1 and 2 exist"
        )));
    }
    compress_with(data, Some(level))
}

fn compress_with(data: &[u8], level: Option<u8>) -> Result<Vec<u8>> {
    let mut out = vec![0u8; ffi::max_compressed_size(data.len())];
    let n = ffi::compress_into(data, &mut out, level).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "{} bytes are too many for FastLZ (at most about 2 GB)",
            data.len()
        ))
    })?;
    out.truncate(n);
    Ok(out)
}

/// Decompresses a FastLZ stream of at most `max_out` bytes: the decompressed bytes.
///
/// # Errors
/// [`Error::NavMeshData`] with the offset in `stream` of the instruction at fault: a level
/// other than 1 or 2, a literal run or match that runs past the end of the
/// stream, a match reaching back before the start of the output, or output longer than
/// `max_out`.
pub fn decompress(stream: &[u8], max_out: usize) -> Result<Vec<u8>> {
    // Never more than the stream can expand to (each byte adds at most 255 to a level-2 match
    // length), so an absurd `max_out` allocates nothing absurd.
    let cap = max_out.min(stream.len().saturating_mul(256).saturating_add(32));
    let mut out = vec![0u8; cap];
    let n = decompress_into(stream, &mut out).map_err(|e| match e {
        Error::NavMeshData {
            offset, message, ..
        } if cap < max_out => Error::data(
            offset,
            format!(
                "{message} (no FastLZ stream of {} bytes decodes to more than {cap})",
                stream.len()
            ),
        ),
        other => other,
    })?;
    out.truncate(n);
    Ok(out)
}

/// Decompresses a FastLZ stream into `out`: the number of bytes written. Reads only `stream`
/// and writes only `out`, whatever the stream holds; see [`decompress`] for the errors.
///
/// This is the decoder of fastlz.c's `fastlz_decompress` (same instructions, same result on
/// every stream fastlz.c decodes without reading past its input), with the end of the input
/// checked before every read.
pub fn decompress_into(stream: &[u8], out: &mut [u8]) -> Result<usize> {
    // Nothing compresses to nothing (`fastlz_compress` writes 0 bytes for 0), and decodes back
    // to nothing; fastlz.c's own decoder would read a first byte that is not there.
    let Some(&first) = stream.first() else {
        return Ok(0);
    };
    let level = (first >> 5) + 1;
    if level > 2 {
        return Err(level_error(first, level));
    }
    let mut ip = 1;
    let mut op = 0;
    let mut ctrl = usize::from(first & 31);
    let mut start = 0;
    loop {
        if ctrl >= 32 {
            let (n, back, next) = read_match(stream, ip, ctrl, level, start)?;
            copy_match(out, op, n, back, start)?;
            ip = next;
            op += n;
        } else {
            let n = ctrl + 1;
            copy_literal(stream, ip, out, op, n, start)?;
            ip += n;
            op += n;
        }
        match stream.get(ip) {
            Some(&c) => {
                start = ip;
                ctrl = usize::from(c);
                ip += 1;
            }
            None => return Ok(op),
        }
    }
}

/// The rest of the match instruction at `start` whose control byte `ctrl` (`>= 32`) came before
/// `ip`: its length and distance bytes. Returns the bytes it copies, how far back the copy
/// starts in the output, and where the next instruction starts.
#[inline(always)]
fn read_match(
    stream: &[u8],
    mut ip: usize,
    ctrl: usize,
    level: u8,
    start: usize,
) -> Result<(usize, usize, usize)> {
    let byte = |at: usize, what: &'static str| -> Result<usize> {
        match stream.get(at) {
            Some(&b) => Ok(usize::from(b)),
            None => Err(match_cut_short(stream.len(), what, start)),
        }
    };
    let mut len = (ctrl >> 5) - 1;
    let ofs = (ctrl & 31) << 8;
    if len == 6 {
        if level == 1 {
            len += byte(ip, "length")?;
            ip += 1;
        } else {
            loop {
                let code = byte(ip, "length")?;
                ip += 1;
                len += code;
                if code != 255 {
                    break;
                }
            }
        }
    }
    let code = byte(ip, "distance")?;
    ip += 1;
    // The copy starts `back` bytes before the output position.
    let mut back = ofs + code + 1;
    if level == 2 && code == 255 && ofs == 31 << 8 {
        let far = (byte(ip, "far distance")? << 8) | byte(ip + 1, "far distance")?;
        ip += 2;
        back = far + FAR_BASE + 1;
    }
    Ok((len + 3, back, ip))
}

/// Copies the `n` bytes of the match at `start` from `back` bytes before output position `op`.
#[inline(always)]
fn copy_match(out: &mut [u8], op: usize, n: usize, back: usize, start: usize) -> Result<()> {
    if n > out.len() - op {
        return Err(past_output("match", start, n, op, out.len()));
    }
    if back > op {
        return Err(match_before_output(start, back, op));
    }
    // Byte by byte: an overlapping copy repeats the bytes it has just written.
    for i in op..op + n {
        out[i] = out[i - back];
    }
    Ok(())
}

/// Copies the `n` bytes of the literal run at `start` from stream position `ip` to output
/// position `op`.
#[inline(always)]
fn copy_literal(
    stream: &[u8],
    ip: usize,
    out: &mut [u8],
    op: usize,
    n: usize,
    start: usize,
) -> Result<()> {
    if n > out.len() - op {
        return Err(past_output("literal run", start, n, op, out.len()));
    }
    if n > stream.len() - ip {
        return Err(Error::data(
            start,
            format!(
                "FastLZ literal run at byte {start} of {n} bytes runs past the end of the \
                 {}-byte stream",
                stream.len()
            ),
        ));
    }
    out[op..op + n].copy_from_slice(&stream[ip..ip + n]);
    Ok(())
}

#[cold]
fn level_error(first: u8, level: u8) -> Error {
    Error::data(
        0,
        format!("FastLZ level byte 0x{first:02x} says level {level}; only levels 1 and 2 exist"),
    )
}

#[cold]
fn match_cut_short(stream_len: usize, what: &str, start: usize) -> Error {
    Error::data(
        start,
        format!(
            "FastLZ stream ends ({stream_len} bytes) inside the {what} of the match at byte \
             {start}"
        ),
    )
}

#[cold]
fn past_output(instruction: &str, start: usize, n: usize, op: usize, out_len: usize) -> Error {
    Error::data(
        start,
        format!(
            "FastLZ {instruction} at byte {start} writes {n} bytes at output byte {op}, past the \
             {out_len}-byte output"
        ),
    )
}

#[cold]
fn match_before_output(start: usize, back: usize, op: usize) -> Error {
    Error::data(
        start,
        format!(
            "FastLZ match at byte {start} copies from {back} bytes back, but only {op} bytes \
             are decoded"
        ),
    )
}

/// fastlz.c's own decoder (`fastlz_decompress`) on `stream`, with an output of `max_out` bytes,
/// for checking streams against RecastDemo's code: what it returned (its byte count, 0 meaning
/// failure) and its output. fastlz.c reads past the input of some corrupt streams, so it runs
/// only on streams [`decompress_into`] accepts.
///
/// # Errors
/// The error [`decompress_into`] gives (fastlz.c is not called), or
/// [`Error::InvalidArgument`] if a size does not fit in a C `int`.
pub fn reference_decompress(stream: &[u8], max_out: usize) -> Result<(i32, Vec<u8>)> {
    let mut check = vec![0u8; max_out];
    decompress_into(stream, &mut check)?;
    if stream.is_empty() {
        // fastlz.c reads the first byte of any stream; the empty one decodes to nothing.
        return Ok((0, Vec::new()));
    }
    ffi::reference_decompress(stream, max_out).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "a {}-byte stream into {max_out} bytes is too large for fastlz.c",
            stream.len()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inputs whose last bytes are a match (repeats to the very end), at both levels: fastlz.c
    /// hashes bytes past such a match, past the end of its input (an ASan heap-buffer-overflow
    /// read the tset fuzz target found; the seed `fuzz/seeds/tset/fastlz2-match-at-end` is its
    /// input). navkit pads the input, so the reads stay inside; the round trip holds.
    #[test]
    fn a_match_at_the_end_of_the_input_round_trips() {
        for period in 1..8usize {
            for len in (4..600).chain([65_535, 65_536, 70_000]) {
                let data: Vec<u8> = (0..len).map(|i| (i % period) as u8 * 37).collect();
                for level in [1, 2] {
                    let packed = compress_level(level, &data).unwrap();
                    assert_eq!(
                        decompress(&packed, len).unwrap(),
                        data,
                        "{period} {len} {level}"
                    );
                }
                let packed = compress(&data).unwrap();
                assert_eq!(decompress(&packed, len).unwrap(), data);
            }
        }
    }

    /// Hand-made streams with known contents.
    #[test]
    fn hand_made_streams_decode_to_known_bytes() {
        // Level 1: literal "abc", then a match of 5 from 3 back ("abcab"), then literal "Z".
        let s = [2, b'a', b'b', b'c', 3 << 5, 2, 0, b'Z'];
        assert_eq!(decompress(&s, 100).unwrap(), b"abcabcabZ");
        // A run: match of 4 from 1 back repeats the last byte.
        let s = [0, b'x', (2 << 5), 0];
        assert_eq!(decompress(&s, 100).unwrap(), b"xxxxx");
        // Level 1 long match: len code 7, extra 10 -> 6 + 10 + 3 = 19 bytes.
        let s = [0, b'q', 7 << 5, 10, 0];
        assert_eq!(decompress(&s, 100).unwrap(), vec![b'q'; 20]);
        // Level 2 long match: extra bytes 255, 1 -> 6 + 256 + 3 = 265 bytes.
        let s = [1 << 5, b'r', 7 << 5, 255, 1, 0];
        assert_eq!(decompress(&s, 1000).unwrap(), vec![b'r'; 266]);
        // Exactly enough output is fine, one byte less is an error.
        assert_eq!(decompress(&s, 266).unwrap().len(), 266);
        assert!(decompress(&s, 265).is_err());
        // fastlz.c decodes the hand-made streams the same.
        for (s, n) in [
            (&[2, b'a', b'b', b'c', 3 << 5, 2, 0, b'Z'][..], 9),
            (&[0, b'x', 2 << 5, 0][..], 5),
            (&[0, b'q', 7 << 5, 10, 0][..], 20),
            (&[1 << 5, b'r', 7 << 5, 255, 1, 0][..], 266),
        ] {
            let (r, out) = reference_decompress(s, n).unwrap();
            assert_eq!((r as usize, out), (n, decompress(s, n).unwrap()));
        }
    }

    fn offset_of(e: Error) -> usize {
        match e {
            Error::NavMeshData { offset, .. } => offset,
            other => panic!("not a data error: {other}"),
        }
    }

    #[test]
    fn corrupt_streams_are_errors_at_their_instruction() {
        // The empty stream (what nothing compresses to) decodes to nothing; levels 3..=8 are
        // errors.
        assert_eq!(decompress(&[], 10).unwrap(), Vec::<u8>::new());
        assert_eq!(reference_decompress(&[], 10).unwrap(), (0, Vec::new()));
        for l in 2u8..8 {
            let e = decompress(&[l << 5, 1], 10).unwrap_err();
            assert!(e.to_string().contains(&format!("level {}", l + 1)), "{e}");
        }
        // Literal run longer than the stream.
        let e = decompress(&[3, 1, 2], 10).unwrap_err();
        assert!(e.to_string().contains("past the end"), "{e}");
        // A match reaching before the output's start (3 bytes decoded, 4 back).
        let e = decompress(&[2, 1, 2, 3, 1 << 5, 3], 10).unwrap_err();
        assert!(e.to_string().contains("4 bytes back"), "{e}");
        assert_eq!(offset_of(e), 4);
        // Streams cut inside a match's length or distance bytes.
        assert_eq!(offset_of(decompress(&[0, 1, 7 << 5], 100).unwrap_err()), 2);
        assert_eq!(offset_of(decompress(&[0, 1, 1 << 5], 100).unwrap_err()), 2);
        assert!(decompress(&[1 << 5, 1, 7 << 5, 255, 255], 10_000).is_err());
        // Level 2 far distance cut short, and reaching back too far.
        assert!(decompress(&[1 << 5, 1, (1 << 5) | 31, 255, 0], 100).is_err());
        let e = decompress(&[1 << 5, 1, (1 << 5) | 31, 255, 0, 0], 100).unwrap_err();
        assert!(e.to_string().contains("8192 bytes back"), "{e}");
        // Output too small for a literal run.
        assert!(decompress(&[3, 1, 2, 3, 4], 3).is_err());
    }

    #[test]
    fn navkit_decoder_agrees_with_fastlz_c() {
        let mut state = 7u32;
        let mut next = || {
            state = state.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (state >> 16) as u8
        };
        let mut inputs: Vec<Vec<u8>> = vec![
            vec![],
            vec![5],
            vec![1, 2, 3],
            vec![0; 100_000],
            (0..70_000u32).map(|i| (i / 300 % 5) as u8).collect(),
        ];
        for len in [4usize, 16, 100, 6912, 20_000] {
            inputs.push((0..len).map(|_| next()).collect());
            inputs.push((0..len).map(|_| next() % 3).collect());
        }
        for data in &inputs {
            for level in [None, Some(1), Some(2)] {
                let packed = match level {
                    None => compress(data).unwrap(),
                    Some(l) => compress_level(l, data).unwrap(),
                };
                if data.is_empty() {
                    assert!(packed.is_empty());
                    assert!(decompress(&packed, 0).unwrap().is_empty());
                    continue;
                }
                // Fewer than 4 bytes are a bare literal run, marked level 1 at either level.
                let expected_level = match level {
                    _ if data.len() < 4 => 1,
                    Some(l) => l,
                    None if data.len() < 65536 => 1,
                    None => 2,
                };
                assert_eq!(packed[0] >> 5, expected_level - 1);
                assert_eq!(decompress(&packed, data.len()).unwrap(), *data);
                let (r, out) = reference_decompress(&packed, data.len()).unwrap();
                assert_eq!((r as usize, &out), (data.len(), data));
                // Every cut of a small stream is refused by navkit's decoder.
                if packed.len() < 300 {
                    for cut in 0..packed.len() {
                        assert!(
                            decompress(&packed[..cut], data.len())
                                .map(|d| d != *data)
                                .unwrap_or(true)
                        );
                    }
                }
            }
        }
    }
}
