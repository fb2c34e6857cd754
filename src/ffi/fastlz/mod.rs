//! RecastDemo's FastLZ (`RecastDemo/Contrib/fastlz/fastlz.c` in the recastnavigation-sys
//! sources, compiled in place by build.rs): the compressor of RecastDemo's tile cache layers.
//!
//! Compression calls fastlz.c (so navkit writes the very bytes RecastDemo writes). Decompression
//! is navkit's own bounds-checked decoder ([`crate::ffi::fastlz::codec::decompress_into`]):
//! fastlz.c's `fastlz_decompress`, although built with `FASTLZ_SAFE`, reads the level byte of
//! an empty input and the length and distance bytes of a match without checking the end of its
//! input (and, at level 2, keeps reading while they are 255), so a truncated or hostile stream
//! makes it read past its buffer. [`reference_decompress`] calls it only on streams navkit's
//! decoder accepted, for comparisons.

pub mod codec;

use std::ffi::c_void;
use std::os::raw::c_int;

unsafe extern "C" {
    fn fastlz_compress(input: *const c_void, length: c_int, output: *mut c_void) -> c_int;
    fn fastlz_compress_level(
        level: c_int,
        input: *const c_void,
        length: c_int,
        output: *mut c_void,
    ) -> c_int;
    fn fastlz_decompress(
        input: *const c_void,
        length: c_int,
        output: *mut c_void,
        maxout: c_int,
    ) -> c_int;
}

/// Zero bytes after the input that fastlz.c's compressors may read (they hash a few bytes past
/// a match at the end of the input: its hash reads 3 bytes from where the match ends).
const READ_PAST_END: usize = 16;

/// The most bytes fastlz.c's compressor writes for `n` input bytes, with room to spare: a
/// literal run costs one control byte per 32 bytes (matches cost less than they cover), plus
/// one byte it may reserve and take back; fastlz.h asks for 5% more and at least 66 bytes.
pub(crate) fn max_compressed_size(n: usize) -> usize {
    n.saturating_add(n / 16).saturating_add(66)
}

/// Compresses `input` into `out` as RecastDemo's `FastLZCompressor` does (`fastlz_compress`:
/// level 1 below 64 KiB, level 2 from there), or at `level` (1 or 2); the bytes written, or
/// `None` if `out` is smaller than [`max_compressed_size`], the input too large for an `int`,
/// or the level not 1 or 2.
pub(crate) fn compress_into(input: &[u8], out: &mut [u8], level: Option<u8>) -> Option<usize> {
    let bound = max_compressed_size(input.len());
    if out.len() < bound || c_int::try_from(bound).is_err() {
        return None;
    }
    let n = input.len() as c_int; // below `bound`, which fits
    if !matches!(level, None | Some(1) | Some(2)) {
        return None;
    }
    // fastlz.c's compressors hash the bytes after a match that ends at the last bytes of the
    // input, reading a few bytes past its end (found by the tset fuzz target under ASan, in
    // `fastlz2_compress`). So they get a copy with zero padding: those reads land in it, and
    // since the loop ends there they do not change the output (the same bytes RecastDemo
    // writes; tests/tset.rs checks its file saves back identical).
    let mut padded = Vec::with_capacity(input.len() + READ_PAST_END);
    padded.extend_from_slice(input);
    padded.resize(input.len() + READ_PAST_END, 0);
    let input = &padded[..];
    let written = match level {
        // SAFETY: fastlz.c reads the `n` bytes of `input` and a few past them, within the
        // `READ_PAST_END` bytes of padding, and, per its worst case, writes
        // at most `max_compressed_size(n)` bytes to `out`, which is at least that long (checked
        // above); the buffers are distinct Rust borrows, so they do not overlap.
        None => unsafe { fastlz_compress(input.as_ptr().cast(), n, out.as_mut_ptr().cast()) },
        // SAFETY: as above; the level is 1 or 2 (checked), the two fastlz.c compresses.
        Some(l) => unsafe {
            fastlz_compress_level(
                c_int::from(l),
                input.as_ptr().cast(),
                n,
                out.as_mut_ptr().cast(),
            )
        },
    };
    usize::try_from(written).ok().filter(|&w| w <= bound)
}

/// fastlz.c's own `fastlz_decompress` of `input` into at most `max_out` bytes, for comparing
/// with navkit's decoder: called only if [`crate::ffi::fastlz::codec::decompress_into`] accepts
/// the stream (then fastlz.c takes exactly the same steps, every read inside `input` and every
/// write inside the `max_out` bytes). `None` if navkit's decoder refuses the stream (fastlz.c is
/// not called), or if either size does not fit in an `int`; otherwise what fastlz.c returned
/// (its return value, 0 meaning failure, and its output cut to that length).
pub(crate) fn reference_decompress(input: &[u8], max_out: usize) -> Option<(i32, Vec<u8>)> {
    let (n, cap) = (
        c_int::try_from(input.len()).ok()?,
        c_int::try_from(max_out).ok()?,
    );
    let mut ours = vec![0u8; max_out];
    crate::ffi::fastlz::codec::decompress_into(input, &mut ours).ok()?;
    let mut out = vec![0u8; max_out];
    // SAFETY: navkit's decoder, which checks every read against the input's end and every write
    // against the output's, accepted this stream with an output of `max_out` bytes; fastlz.c
    // decodes it with the same steps (the same control bytes, lengths and distances, its own
    // output-bound and back-reference checks), so it reads only `input`'s `n` bytes and writes
    // only `out`'s `cap` bytes. The buffers are distinct.
    let r = unsafe { fastlz_decompress(input.as_ptr().cast(), n, out.as_mut_ptr().cast(), cap) };
    out.truncate(usize::try_from(r).unwrap_or(0).min(max_out));
    Some((r, out))
}
