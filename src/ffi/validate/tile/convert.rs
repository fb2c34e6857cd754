//! Tile data between the two widths of Detour poly refs.
//!
//! Tile data built with 32-bit refs and with 64-bit refs (`DT_POLYREF64`) differ only in their
//! links section: a `dtLink` starts with a `dtPolyRef`, so it is 12 bytes (ref 4, next 4, edge,
//! side, bmin, bmax) or 16 bytes (ref 8, next 4, the same four bytes). Every other section
//! (`dtMeshHeader`, vertices, `dtPoly`, detail meshes, BV tree, off-mesh connections) holds no
//! ref and has the same bytes. `addTile` rebuilds the links, so their stored contents do not
//! matter to Detour; they are converted all the same (refs re-encoded for the target layout,
//! 0 where a ref does not fit), so that a file converted there and back has its bytes again.

use super::header;
use crate::poly_ref::{RefLayout, RefWidth};
use crate::{Error, Result};

// The native `dtLink` must have the layout assumed here.
const _: () = {
    use recastnavigation_sys::dtLink;
    use std::mem::{offset_of, size_of};
    let w = RefWidth::NATIVE;
    assert!(size_of::<dtLink>() == w.link_size());
    assert!(offset_of!(dtLink, ref_) == 0);
    assert!(offset_of!(dtLink, next) == w.bytes());
    assert!(offset_of!(dtLink, edge) == w.bytes() + 4);
    assert!(offset_of!(dtLink, side) == w.bytes() + 5);
    assert!(offset_of!(dtLink, bmin) == w.bytes() + 6);
    assert!(offset_of!(dtLink, bmax) == w.bytes() + 7);
};

/// Converts tile `data` built with refs of width `from` (split by `from_layout`) to the
/// layout of a Detour with refs of width `to` (split by `to_layout`). The data is validated
/// for `from` first ([`super::validate_tile_data_for`]'s header and layout checks; the caller
/// validates the result fully before Detour sees it). Returns the data unchanged when the
/// widths are equal.
pub fn convert_tile_data(
    data: &[u8],
    from: RefWidth,
    from_layout: &RefLayout,
    to: RefWidth,
    to_layout: &RefLayout,
) -> Result<Vec<u8>> {
    let hd = header::check(data, from)?;
    if from == to {
        return Ok(data.to_vec());
    }
    let links = hd.layout.links;
    let n = hd.info.max_link_count;
    let (src_size, dst_size) = (from.link_size(), to.link_size());
    let links_end = links + n * src_size;
    let too_big = || {
        Error::data(
            links,
            format!("tile with {n} links is too large to convert to {to} refs"),
        )
    };
    let out_len = (data.len() - n * src_size)
        .checked_add(n.checked_mul(dst_size).ok_or_else(too_big)?)
        .filter(|&l| l <= i32::MAX as usize)
        .ok_or_else(too_big)?;
    let mut out = Vec::with_capacity(out_len);
    out.extend_from_slice(&data[..links]);
    let (src_ref, dst_ref) = (from.bytes(), to.bytes());
    for l in data[links..links_end].chunks_exact(src_size) {
        let r = match src_ref {
            4 => u64::from(u32::from_le_bytes(l[..4].try_into().expect("4 bytes"))),
            _ => u64::from_le_bytes(l[..8].try_into().expect("8 bytes")),
        };
        let r = if r == 0 {
            0
        } else {
            let (salt, tile, poly) = from_layout.decode(r);
            to_layout.encode(salt, tile, poly).unwrap_or(0)
        };
        match dst_ref {
            4 => out.extend_from_slice(&u32::try_from(r).unwrap_or(0).to_le_bytes()),
            _ => out.extend_from_slice(&r.to_le_bytes()),
        }
        // next, edge, side, bmin, bmax: the same 8 bytes after the ref.
        out.extend_from_slice(&l[src_ref..src_ref + 8]);
    }
    out.extend_from_slice(&data[links_end..]);
    debug_assert_eq!(out.len(), out_len);
    Ok(out)
}
