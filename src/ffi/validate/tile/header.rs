//! The tile header: magic, version, position, counts, the section layout they imply, and the
//! header's floats.

use super::offsets::h;
use super::{Header, Layout, TileInfo};
use crate::ffi::bytes::{align4, coord_at, expect_i32_at, f32_at, i32_at, vec3_at};
use crate::poly_ref::RefWidth;
use crate::{Error, Result};
use recastnavigation_sys::{
    DT_NAVMESH_MAGIC, DT_NAVMESH_VERSION, dtBVNode, dtMeshHeader, dtOffMeshConnection, dtPoly,
    dtPolyDetail,
};
use std::mem::size_of;

/// Checks the header, the counts and the layout they give (see [`super::validate_tile_data`]).
pub(super) fn check(data: &[u8], width: RefWidth) -> Result<Header> {
    let link_size = width.link_size();
    let header_size = align4(size_of::<dtMeshHeader>()).unwrap_or(usize::MAX);
    if data.len() < header_size {
        return Err(Error::data(
            data.len(),
            format!(
                "tile data is {} bytes, shorter than the {header_size}-byte dtMeshHeader",
                data.len()
            ),
        ));
    }
    if data.len() > i32::MAX as usize {
        return Err(Error::data(
            0,
            format!(
                "tile data is {} bytes; Detour sizes are `int`, at most {}",
                data.len(),
                i32::MAX
            ),
        ));
    }

    // Magic and version, as addTile checks them.
    expect_i32_at(data, h::MAGIC, DT_NAVMESH_MAGIC, |magic| {
        format!(
            "tile magic is 0x{magic:08x}, expected DT_NAVMESH_MAGIC 0x{DT_NAVMESH_MAGIC:08x} ('DNAV')"
        )
    })?;
    expect_i32_at(data, h::VERSION, DT_NAVMESH_VERSION, |version| {
        format!("tile version is {version}, expected DT_NAVMESH_VERSION {DT_NAVMESH_VERSION}")
    })?;

    // Tile position: Detour computes x +- 1 and y +- 1 for neighbour lookups.
    let x = i32_at(data, h::X)?;
    let y = i32_at(data, h::Y)?;
    let layer = i32_at(data, h::LAYER)?;
    for (name, v, off) in [("x", x, h::X), ("y", y, h::Y)] {
        if v == i32::MIN || v == i32::MAX {
            return Err(Error::data(
                off,
                format!("tile {name} is {v}; neighbour lookups would overflow"),
            ));
        }
    }
    if layer < 0 {
        return Err(Error::data(
            h::LAYER,
            format!("tile layer is {layer}, must be >= 0"),
        ));
    }

    // Counts.
    let count = |name: &str, off: usize| -> Result<usize> {
        let v = i32_at(data, off)?;
        usize::try_from(v)
            .map_err(|_| Error::data(off, format!("tile {name} is {v}, must be >= 0")))
    };
    let poly_count = count("polyCount", h::POLY_COUNT)?;
    let vert_count = count("vertCount", h::VERT_COUNT)?;
    let max_link_count = count("maxLinkCount", h::MAX_LINK_COUNT)?;
    let detail_mesh_count = count("detailMeshCount", h::DETAIL_MESH_COUNT)?;
    let detail_vert_count = count("detailVertCount", h::DETAIL_VERT_COUNT)?;
    let detail_tri_count = count("detailTriCount", h::DETAIL_TRI_COUNT)?;
    let bv_node_count = count("bvNodeCount", h::BV_NODE_COUNT)?;
    let off_mesh_con_count = count("offMeshConCount", h::OFF_MESH_CON_COUNT)?;
    let off_mesh_base = count("offMeshBase", h::OFF_MESH_BASE)?;

    // Layout: the exact section sizes addTile computes; their sum must be the data size.
    let layout = {
        // (section, the header count that sizes it, the count, the element size)
        let sections = [
            ("verts", "vertCount", vert_count, 3 * size_of::<f32>()),
            ("polys", "polyCount", poly_count, size_of::<dtPoly>()),
            ("links", "maxLinkCount", max_link_count, link_size),
            (
                "detailMeshes",
                "detailMeshCount",
                detail_mesh_count,
                size_of::<dtPolyDetail>(),
            ),
            (
                "detailVerts",
                "detailVertCount",
                detail_vert_count,
                3 * size_of::<f32>(),
            ),
            ("detailTris", "detailTriCount", detail_tri_count, 4),
            (
                "bvTree",
                "bvNodeCount",
                bv_node_count,
                size_of::<dtBVNode>(),
            ),
            (
                "offMeshCons",
                "offMeshConCount",
                off_mesh_con_count,
                size_of::<dtOffMeshConnection>(),
            ),
        ];
        // Tile data built with refs of the other width differs in the size of its links only:
        // say so rather than which section seems too long or short.
        let other = match width {
            RefWidth::Bits32 => RefWidth::Bits64,
            RefWidth::Bits64 => RefWidth::Bits32,
        };
        let total = |link: usize| {
            sections
                .iter()
                .try_fold(header_size, |at: usize, (name, _, n, elem)| {
                    let elem = if *name == "links" { link } else { *elem };
                    n.checked_mul(elem)
                        .and_then(align4)
                        .and_then(|s| at.checked_add(s))
                })
        };
        if total(link_size) != Some(data.len()) && total(other.link_size()) == Some(data.len()) {
            return Err(Error::data(
                h::MAX_LINK_COUNT,
                format!(
                    "tile data is {} bytes, the size of its {max_link_count} links at {} bytes \
                     each: the tile was built by a Detour with {other} poly refs, not {width} \
                     ({}-byte links)",
                    data.len(),
                    other.link_size(),
                    link_size
                ),
            ));
        }
        let mut starts = [0usize; 8];
        let mut at = header_size;
        for (k, (name, field, n, elem)) in sections.iter().enumerate() {
            starts[k] = at;
            let size = n.checked_mul(*elem).and_then(align4);
            at = match size.and_then(|s| at.checked_add(s)) {
                Some(end) if end <= data.len() => end,
                _ => {
                    return Err(Error::data(
                        at.min(data.len()),
                        format!(
                            "tile {name} section ({field} {n} x {elem} bytes at byte {at}) runs \
                             past the end of the {}-byte tile data (counts in the header are too \
                             large)",
                            data.len()
                        ),
                    ));
                }
            };
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
        Layout {
            verts: starts[0],
            polys: starts[1],
            links: starts[2],
            detail_meshes: starts[3],
            detail_verts: starts[4],
            detail_tris: starts[5],
            bv_tree: starts[6],
            off_mesh_cons: starts[7],
            end: at,
        }
    };
    debug_assert_eq!(layout.end, data.len());

    // Structural counts (as dtCreateNavMeshData lays them out).
    if off_mesh_base < 1 || off_mesh_base > poly_count {
        return Err(Error::data(
            h::OFF_MESH_BASE,
            format!(
                "tile offMeshBase is {off_mesh_base}, must be in 1..=polyCount ({poly_count}): \
                 polys [0, offMeshBase) are ground polys, and a tile has at least one"
            ),
        ));
    }
    let ground_count = off_mesh_base;
    if off_mesh_con_count != poly_count - off_mesh_base {
        return Err(Error::data(
            h::OFF_MESH_CON_COUNT,
            format!(
                "tile offMeshConCount is {off_mesh_con_count}, but polyCount {poly_count} - \
                 offMeshBase {off_mesh_base} = {} off-mesh polys",
                poly_count - off_mesh_base
            ),
        ));
    }
    if detail_mesh_count != ground_count {
        return Err(Error::data(
            h::DETAIL_MESH_COUNT,
            format!(
                "tile detailMeshCount is {detail_mesh_count}, must equal the number of ground \
                 polys (offMeshBase {off_mesh_base})"
            ),
        ));
    }
    if max_link_count < 1 {
        return Err(Error::data(
            h::MAX_LINK_COUNT,
            "tile maxLinkCount is 0; addTile writes links[maxLinkCount - 1]",
        ));
    }
    let off_mesh_verts = off_mesh_con_count * 2;
    if vert_count < off_mesh_verts {
        return Err(Error::data(
            h::VERT_COUNT,
            format!(
                "tile vertCount is {vert_count}, fewer than the {off_mesh_verts} vertices of \
                 its {off_mesh_con_count} off-mesh connections"
            ),
        ));
    }
    let ground_vert_count = vert_count - off_mesh_verts;

    // Header floats.
    let walkable = |name: &str, off: usize| -> Result<f32> {
        let v = coord_at(data, off, || format!("tile {name}"))?;
        if v < 0.0 {
            return Err(Error::data(
                off,
                format!("tile {name} is {v}, must be >= 0"),
            ));
        }
        Ok(v)
    };
    let walkable_height = walkable("walkableHeight", h::WALKABLE_HEIGHT)?;
    let walkable_radius = walkable("walkableRadius", h::WALKABLE_RADIUS)?;
    let walkable_climb = walkable("walkableClimb", h::WALKABLE_CLIMB)?;
    let bmin = vec3_at(data, h::BMIN, &|| "tile bmin".to_string())?;
    let bmax = vec3_at(data, h::BMAX, &|| "tile bmax".to_string())?;
    for a in 0..3 {
        if bmin[a] > bmax[a] {
            return Err(Error::data(
                h::BMAX + 4 * a,
                format!("tile bmax[{a}] {} < bmin[{a}] {}", bmax[a], bmin[a]),
            ));
        }
    }
    let qfac = f32_at(data, h::BV_QUANT_FACTOR)?;
    if !(qfac.is_finite() && qfac > 0.0) {
        return Err(Error::data(
            h::BV_QUANT_FACTOR,
            format!("tile bvQuantFactor is {qfac}, must be finite and > 0"),
        ));
    }
    if bv_node_count > 0 {
        // queryPolygonsInTile converts qfac * (clamped query - bmin) + 1 to unsigned short.
        for a in 0..3 {
            let q = f64::from(qfac) * (f64::from(bmax[a]) - f64::from(bmin[a])) + 1.0;
            if q >= 65535.0 {
                return Err(Error::data(
                    h::BV_QUANT_FACTOR,
                    format!(
                        "tile bvQuantFactor {qfac} x extent {} on axis {a} does not fit the \
                         16-bit BV tree coordinates",
                        bmax[a] - bmin[a]
                    ),
                ));
            }
        }
    }

    Ok(Header {
        info: TileInfo {
            x,
            y,
            layer,
            poly_count,
            vert_count,
            detail_mesh_count,
            detail_vert_count,
            detail_tri_count,
            bv_node_count,
            off_mesh_con_count,
            max_link_count,
            bmin,
            bmax,
            walkable_height,
            walkable_radius,
            walkable_climb,
        },
        layout,
        off_mesh_base,
        ground_count,
        ground_vert_count,
        off_mesh_verts,
    })
}
