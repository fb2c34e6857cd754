//! Little-endian field readers for navmesh and tile cache data: they never panic, and report
//! the byte offset of a short read or a bad coordinate.

use super::validate::MAX_COORDINATE;
use crate::{Error, Result};

/// Detour's `dtAlign4`, on `usize` with overflow checking.
pub(crate) fn align4(x: usize) -> Option<usize> {
    x.checked_add(3).map(|x| x & !3)
}

fn bytes_at<const N: usize>(data: &[u8], off: usize) -> Result<[u8; N]> {
    off.checked_add(N)
        .and_then(|end| data.get(off..end))
        .and_then(|s| <[u8; N]>::try_from(s).ok())
        .ok_or_else(|| {
            Error::data(
                off.min(data.len()),
                format!(
                    "unexpected end of data: need {N} bytes at byte {off}, only {} bytes available",
                    data.len()
                ),
            )
        })
}

pub(crate) fn u8_at(data: &[u8], off: usize) -> Result<u8> {
    Ok(bytes_at::<1>(data, off)?[0])
}

pub(crate) fn u16_at(data: &[u8], off: usize) -> Result<u16> {
    Ok(u16::from_le_bytes(bytes_at(data, off)?))
}

pub(crate) fn u32_at(data: &[u8], off: usize) -> Result<u32> {
    Ok(u32::from_le_bytes(bytes_at(data, off)?))
}

pub(crate) fn i32_at(data: &[u8], off: usize) -> Result<i32> {
    Ok(i32::from_le_bytes(bytes_at(data, off)?))
}

pub(crate) fn f32_at(data: &[u8], off: usize) -> Result<f32> {
    Ok(f32::from_le_bytes(bytes_at(data, off)?))
}

/// Reads the `i32` at `off`, which must be `want` (a magic number or version): otherwise an
/// error at `off` with `message(value)`.
pub(crate) fn expect_i32_at(
    data: &[u8],
    off: usize,
    want: i32,
    message: impl FnOnce(i32) -> String,
) -> Result<()> {
    let v = i32_at(data, off)?;
    if v != want {
        return Err(Error::data(off, message(v)));
    }
    Ok(())
}

/// Checks that `v` (found at `off`) is finite and within [`MAX_COORDINATE`].
pub(crate) fn check_coord(v: f32, off: usize, what: impl FnOnce() -> String) -> Result<f32> {
    if !v.is_finite() {
        return Err(Error::data(off, format!("{} is {v}, not finite", what())));
    }
    if v.abs() > MAX_COORDINATE {
        return Err(Error::data(
            off,
            format!("{} is {v}, beyond +-{MAX_COORDINATE:e}", what()),
        ));
    }
    Ok(v)
}

/// Reads a float at `off` and checks it with [`check_coord`].
pub(crate) fn coord_at(data: &[u8], off: usize, what: impl FnOnce() -> String) -> Result<f32> {
    check_coord(f32_at(data, off)?, off, what)
}

/// Reads three floats at `off` and checks each with [`check_coord`].
pub(crate) fn vec3_at(data: &[u8], off: usize, what: &dyn Fn() -> String) -> Result<[f32; 3]> {
    let mut v = [0.0; 3];
    for (a, out) in v.iter_mut().enumerate() {
        let o = off + 4 * a;
        *out = coord_at(data, o, || format!("{}[{a}]", what()))?;
    }
    Ok(v)
}

/// A finite float within [`MAX_COORDINATE`], or an error naming it and its offset.
pub(crate) fn coord(v: f32, off: usize, what: &str) -> Result<f32> {
    if !v.is_finite() || v.abs() > MAX_COORDINATE {
        return Err(Error::data(
            off,
            format!("{what} is {v}, must be finite and within +-{MAX_COORDINATE:e}"),
        ));
    }
    Ok(v)
}
