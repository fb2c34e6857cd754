//! Detail meshes (one per ground polygon), their triangles and the detail vertices.

use super::offsets::pd;
use super::{ANY_BOUNDARY_EDGE, Header, PolyRec, TileInfo};
use crate::ffi::bytes::{u8_at, u32_at, vec3_at};
use crate::{Error, Result};
use recastnavigation_sys::dtPolyDetail;
use std::mem::size_of;

/// Each detail mesh's ranges, triangle indices and boundary edges.
pub(super) fn check_detail_meshes(data: &[u8], hd: &Header, polys: &[PolyRec]) -> Result<()> {
    for (i, poly) in polys.iter().enumerate().take(hd.ground_count) {
        check_detail_mesh(data, hd, i, poly)?;
    }
    Ok(())
}

/// Detail mesh `i` (of ground poly `i`): its vertex and triangle ranges inside the detail
/// arrays, at least one triangle, triangle indices below the poly's and the mesh's vertex
/// counts, and an edge on the poly's boundary.
fn check_detail_mesh(data: &[u8], hd: &Header, i: usize, poly: &PolyRec) -> Result<()> {
    let Header {
        info:
            TileInfo {
                detail_vert_count,
                detail_tri_count,
                ..
            },
        layout,
        ..
    } = *hd;
    let base = layout.detail_meshes + i * size_of::<dtPolyDetail>();
    let vert_base = u32_at(data, base + pd::VERT_BASE)? as usize;
    let tri_base = u32_at(data, base + pd::TRI_BASE)? as usize;
    let dv = usize::from(u8_at(data, base + pd::VERT_COUNT)?);
    let dt = usize::from(u8_at(data, base + pd::TRI_COUNT)?);
    if vert_base
        .checked_add(dv)
        .is_none_or(|e| e > detail_vert_count)
    {
        return Err(Error::data(
            base + pd::VERT_BASE,
            format!(
                "detail mesh {i} vertices {vert_base}..{vert_base}+{dv} exceed detailVertCount \
                 {detail_vert_count}"
            ),
        ));
    }
    if dt == 0 {
        return Err(Error::data(
            base + pd::TRI_COUNT,
            format!("detail mesh {i} has no triangles; ground poly {i} needs at least one"),
        ));
    }
    if tri_base
        .checked_add(dt)
        .is_none_or(|e| e > detail_tri_count)
    {
        return Err(Error::data(
            base + pd::TRI_BASE,
            format!(
                "detail mesh {i} triangles {tri_base}..{tri_base}+{dt} exceed detailTriCount \
                 {detail_tri_count}"
            ),
        ));
    }
    if !check_detail_tris(data, hd, i, poly, (tri_base, dt), dv)? {
        return Err(Error::data(
            base + pd::TRI_BASE,
            format!(
                "detail mesh {i} has no triangle edge flagged DT_DETAIL_EDGE_BOUNDARY; \
                 closestPointOnPoly would dereference a null pointer"
            ),
        ));
    }
    Ok(())
}

/// The `dt` triangles from `tri_base` of detail mesh `i`: every vertex index below the poly's
/// vertex count plus the mesh's `dv`. True if any edge is flagged `DT_DETAIL_EDGE_BOUNDARY`.
fn check_detail_tris(
    data: &[u8],
    hd: &Header,
    i: usize,
    poly: &PolyRec,
    (tri_base, dt): (usize, usize),
    dv: usize,
) -> Result<bool> {
    let limit = poly.vert_count + dv;
    let mut has_boundary = false;
    for t in tri_base..tri_base + dt {
        let toff = hd.layout.detail_tris + 4 * t;
        for k in 0..3 {
            let idx = usize::from(u8_at(data, toff + k)?);
            if idx >= limit {
                return Err(Error::data(
                    toff + k,
                    format!(
                        "detail mesh {i} triangle {t} vertex {k} index {idx} >= {limit} (poly \
                         vertCount {} + detail vertCount {dv})",
                        poly.vert_count
                    ),
                ));
            }
        }
        has_boundary |= u8_at(data, toff + 3)? & ANY_BOUNDARY_EDGE != 0;
    }
    Ok(has_boundary)
}

/// Every detail vertex finite and within the coordinate bound.
pub(super) fn check_detail_verts(data: &[u8], hd: &Header) -> Result<()> {
    let Header {
        info: TileInfo {
            detail_vert_count, ..
        },
        layout,
        ..
    } = *hd;
    for v in 0..detail_vert_count {
        vec3_at(data, layout.detail_verts + 12 * v, &|| {
            format!("detail vertex {v}")
        })?;
    }
    Ok(())
}
