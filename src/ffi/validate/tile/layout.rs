//! The tile's section layout: the `dtAlign4` section sizes `addTile` computes from the header
//! counts, which must add up to exactly the data's length.

use super::Layout;
use super::header::Counts;
use super::offsets::h;
use crate::ffi::bytes::align4;
use crate::poly_ref::RefWidth;
use crate::{Error, Result};
use recastnavigation_sys::{dtBVNode, dtMeshHeader, dtOffMeshConnection, dtPoly, dtPolyDetail};
use std::mem::size_of;

/// `dtMeshHeader`'s size, `dtAlign4`ed: where the first section starts.
pub(super) const HEADER_SIZE: usize = (size_of::<dtMeshHeader>() + 3) & !3;

/// One section of the tile: its name, the header count that sizes it, the count and the size
/// of one element.
struct Section {
    name: &'static str,
    field: &'static str,
    count: usize,
    elem: usize,
}

/// The sections in the order `addTile` lays them out (links sized for refs of `width`).
fn sections(c: &Counts, width: RefWidth) -> [Section; 8] {
    let s = |name, field, count, elem| Section {
        name,
        field,
        count,
        elem,
    };
    [
        s("verts", "vertCount", c.vert, 3 * size_of::<f32>()),
        s("polys", "polyCount", c.poly, size_of::<dtPoly>()),
        s("links", "maxLinkCount", c.max_link, width.link_size()),
        s(
            "detailMeshes",
            "detailMeshCount",
            c.detail_mesh,
            size_of::<dtPolyDetail>(),
        ),
        s(
            "detailVerts",
            "detailVertCount",
            c.detail_vert,
            3 * size_of::<f32>(),
        ),
        s("detailTris", "detailTriCount", c.detail_tri, 4),
        s("bvTree", "bvNodeCount", c.bv_node, size_of::<dtBVNode>()),
        s(
            "offMeshCons",
            "offMeshConCount",
            c.off_mesh_con,
            size_of::<dtOffMeshConnection>(),
        ),
    ]
}

/// Where each section starts, from the counts of a tile built with refs of `width`; the
/// sections must end exactly at the end of `data`.
pub(super) fn layout(data: &[u8], c: &Counts, width: RefWidth) -> Result<Layout> {
    let sections = sections(c, width);
    check_ref_width(data, &sections, c.max_link, width)?;
    let mut starts = [0usize; 8];
    let mut at = HEADER_SIZE;
    for (start, s) in starts.iter_mut().zip(&sections) {
        *start = at;
        at = section_end(data, at, s)?;
    }
    if at != data.len() {
        return Err(Error::data(
            at.min(data.len()),
            format!(
                "tile layout from the header counts is {at} bytes but the tile data is {} \
                 bytes ({} trailing bytes)",
                data.len(),
                data.len() - at
            ),
        ));
    }
    let [
        verts,
        polys,
        links,
        detail_meshes,
        detail_verts,
        detail_tris,
        bv_tree,
        off_mesh_cons,
    ] = starts;
    Ok(Layout {
        verts,
        polys,
        links,
        detail_meshes,
        detail_verts,
        detail_tris,
        bv_tree,
        off_mesh_cons,
        end: at,
    })
}

/// Where section `s`, starting at `at`, ends: inside `data`, or an error.
fn section_end(data: &[u8], at: usize, s: &Section) -> Result<usize> {
    let size = s.count.checked_mul(s.elem).and_then(align4);
    match size.and_then(|size| at.checked_add(size)) {
        Some(end) if end <= data.len() => Ok(end),
        _ => Err(Error::data(
            at.min(data.len()),
            format!(
                "tile {} section ({} {} x {} bytes at byte {at}) runs past the end of the {}-byte \
                 tile data (counts in the header are too large)",
                s.name,
                s.field,
                s.count,
                s.elem,
                data.len()
            ),
        )),
    }
}

/// Tile data built with refs of the other width differs in the size of its links only: say so
/// rather than which section seems too long or short.
fn check_ref_width(
    data: &[u8],
    sections: &[Section],
    max_link_count: usize,
    width: RefWidth,
) -> Result<()> {
    let other = match width {
        RefWidth::Bits32 => RefWidth::Bits64,
        RefWidth::Bits64 => RefWidth::Bits32,
    };
    let total = |link: usize| {
        sections.iter().try_fold(HEADER_SIZE, |at: usize, s| {
            let elem = if s.name == "links" { link } else { s.elem };
            s.count
                .checked_mul(elem)
                .and_then(align4)
                .and_then(|size| at.checked_add(size))
        })
    };
    if total(width.link_size()) != Some(data.len()) && total(other.link_size()) == Some(data.len())
    {
        return Err(Error::data(
            h::MAX_LINK_COUNT,
            format!(
                "tile data is {} bytes, the size of its {max_link_count} links at {} bytes each: \
                 the tile was built by a Detour with {other} poly refs, not {width} ({}-byte \
                 links)",
                data.len(),
                other.link_size(),
                width.link_size()
            ),
        ));
    }
    Ok(())
}
