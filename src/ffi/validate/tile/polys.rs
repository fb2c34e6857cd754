//! Vertices and polygons: types, vertex indices, and neighbours (mutual, across the same edge).

use super::offsets::{h, p};
use super::{Header, NVP, POLYTYPE_GROUND, POLYTYPE_OFFMESH, PolyRec, TileInfo};
use crate::ffi::bytes::{u8_at, u16_at, vec3_at};
use crate::{Error, Result};
use recastnavigation_sys::{DT_EXT_LINK, dtPoly};
use std::mem::size_of;

/// Every vertex finite and within the coordinate bound.
pub(super) fn check_verts(data: &[u8], hd: &Header) -> Result<()> {
    let Header {
        info: TileInfo { vert_count, .. },
        layout,
        ..
    } = *hd;
    for v in 0..vert_count {
        vec3_at(data, layout.verts + 12 * v, &|| format!("vertex {v}"))?;
    }
    Ok(())
}

/// Every polygon: type by position, vertex count, vertex indices and neighbour codes.
pub(super) fn check_polys(data: &[u8], hd: &Header) -> Result<Vec<PolyRec>> {
    (0..hd.info.poly_count)
        .map(|i| check_poly(data, hd, i))
        .collect()
}

/// Polygon `i` (ground below `offMeshBase`, an off-mesh connection from there).
fn check_poly(data: &[u8], hd: &Header, i: usize) -> Result<PolyRec> {
    let ground = i < hd.ground_count;
    let rec = read_poly(data, hd, i, ground)?;
    for j in 0..rec.vert_count {
        check_vert_index(&rec, hd, i, j, ground)?;
    }
    for j in 0..rec.vert_count {
        check_neighbour_code(&rec, hd, i, j, ground)?;
    }
    Ok(rec)
}

/// Polygon `i`'s record, after checking its type and vertex count.
fn read_poly(data: &[u8], hd: &Header, i: usize, ground: bool) -> Result<PolyRec> {
    let base = hd.layout.polys + i * size_of::<dtPoly>();
    let nv = usize::from(u8_at(data, base + p::VERT_COUNT)?);
    let ty = u8_at(data, base + p::AREA_AND_TYPE)? >> 6;
    let expect = if ground {
        POLYTYPE_GROUND
    } else {
        POLYTYPE_OFFMESH
    };
    if ty != expect {
        return Err(Error::data(
            base + p::AREA_AND_TYPE,
            format!(
                "poly {i} has type {ty}, expected {expect} ({}; offMeshBase is {})",
                if ground {
                    "ground"
                } else {
                    "off-mesh connection"
                },
                hd.off_mesh_base
            ),
        ));
    }
    if ground && !(3..=NVP).contains(&nv) {
        return Err(Error::data(
            base + p::VERT_COUNT,
            format!("ground poly {i} has vertCount {nv}, must be in 3..={NVP}"),
        ));
    }
    if !ground && nv != 2 {
        return Err(Error::data(
            base + p::VERT_COUNT,
            format!("off-mesh poly {i} has vertCount {nv}, must be 2"),
        ));
    }
    let mut rec = PolyRec {
        verts: [0; NVP],
        neis: [0; NVP],
        vert_count: nv,
        offset: base,
    };
    for j in 0..NVP {
        rec.verts[j] = u16_at(data, base + p::VERTS + 2 * j)?;
        rec.neis[j] = u16_at(data, base + p::NEIS + 2 * j)?;
    }
    Ok(rec)
}

/// Vertex `j` of polygon `i`: a ground vertex for a ground poly, the connection's own end point
/// for an off-mesh poly.
fn check_vert_index(rec: &PolyRec, hd: &Header, i: usize, j: usize, ground: bool) -> Result<()> {
    let Header {
        info: TileInfo { vert_count, .. },
        ground_count,
        ground_vert_count,
        off_mesh_verts,
        ..
    } = *hd;
    let v = usize::from(rec.verts[j]);
    let off = rec.offset + p::VERTS + 2 * j;
    if ground && v >= ground_vert_count {
        return Err(Error::data(
            off,
            format!(
                "poly {i} vertex {j} index {v} >= {ground_vert_count} (vertCount {vert_count} \
                 minus the {off_mesh_verts} off-mesh connection vertices)"
            ),
        ));
    }
    if !ground {
        let want = ground_vert_count + 2 * (i - ground_count) + j;
        if v != want {
            return Err(Error::data(
                off,
                format!(
                    "off-mesh poly {i} vertex {j} index {v}, expected its own vertex {want} \
                     (vertCount {vert_count})"
                ),
            ));
        }
    }
    Ok(())
}

/// Neighbour code of edge `j` of polygon `i`: 0 (a wall, and always for off-mesh polys),
/// `DT_EXT_LINK | side` with side 0, 2, 4 or 6, or another ground poly (1-based).
fn check_neighbour_code(
    rec: &PolyRec,
    hd: &Header,
    i: usize,
    j: usize,
    ground: bool,
) -> Result<()> {
    let n = rec.neis[j];
    let off = rec.offset + p::NEIS + 2 * j;
    if n == 0 {
        return Ok(());
    }
    if !ground {
        return Err(Error::data(
            off,
            format!("off-mesh poly {i} edge {j} has neighbour 0x{n:04x}, must be 0"),
        ));
    }
    if n & DT_EXT_LINK != 0 {
        let dir = n & !DT_EXT_LINK;
        if !matches!(dir, 0 | 2 | 4 | 6) {
            return Err(Error::data(
                off,
                format!(
                    "poly {i} edge {j} neighbour 0x{n:04x}: an external link must be DT_EXT_LINK \
                     | side with side 0, 2, 4 or 6"
                ),
            ));
        }
        return Ok(());
    }
    let b = usize::from(n) - 1;
    if b >= hd.ground_count {
        return Err(Error::data(
            off,
            format!(
                "poly {i} edge {j} neighbour index {b} >= ground poly count {}",
                hd.ground_count
            ),
        ));
    }
    if b == i {
        return Err(Error::data(
            off,
            format!("poly {i} edge {j} is its own neighbour"),
        ));
    }
    Ok(())
}

/// Internal neighbours must be mutual and share the edge (as Recast's adjacency builds them);
/// one-sided or mismatched adjacency sends raycast/moveAlongSurface in circles.
pub(super) fn check_neighbours(polys: &[PolyRec], ground_count: usize) -> Result<()> {
    for (a, pa) in polys.iter().enumerate().take(ground_count) {
        for j in 0..pa.vert_count {
            let n = pa.neis[j];
            if n == 0 || n & DT_EXT_LINK != 0 {
                continue;
            }
            let b = usize::from(n) - 1;
            let pb = &polys[b];
            let va = pa.verts[j];
            let vb = pa.verts[(j + 1) % pa.vert_count];
            let back = (0..pb.vert_count).any(|k| {
                usize::from(pb.neis[k]) == a + 1
                    && pb.verts[k] == vb
                    && pb.verts[(k + 1) % pb.vert_count] == va
            });
            if !back {
                return Err(Error::data(
                    pa.offset + p::NEIS + 2 * j,
                    format!(
                        "poly {a} edge {j} ({va}, {vb}) has neighbour poly {b}, but poly {b} has \
                         no edge ({vb}, {va}) with neighbour poly {a}"
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// `maxLinkCount` must cover the links `dtCreateNavMeshData` reserves for the tile's polygons:
/// one per ground polygon edge, two more per portal edge, and two per off-mesh connection
/// (one for each end that lands in the tile; the start always does). With fewer, Detour's
/// link allocation runs dry and `addTile` silently leaves edges and connections unlinked.
pub(super) fn check_link_budget(polys: &[PolyRec], hd: &Header) -> Result<()> {
    let Header {
        info:
            TileInfo {
                max_link_count,
                off_mesh_con_count,
                ..
            },
        ground_count,
        ..
    } = *hd;
    let ground = &polys[..ground_count.min(polys.len())];
    let edges: usize = ground.iter().map(|p| p.vert_count).sum();
    let portals: usize = ground
        .iter()
        .map(|p| {
            p.neis[..p.vert_count]
                .iter()
                .filter(|&&n| n & DT_EXT_LINK != 0)
                .count()
        })
        .sum();
    let need = edges + 2 * portals + 2 * off_mesh_con_count;
    if max_link_count < need {
        return Err(Error::data(
            h::MAX_LINK_COUNT,
            format!(
                "tile maxLinkCount is {max_link_count}, fewer than the {need} links \
                 dtCreateNavMeshData reserves ({edges} polygon edges + 2 x {portals} portal \
                 edges + 2 x {off_mesh_con_count} off-mesh connections); addTile would run out \
                 of links and silently drop connections"
            ),
        ));
    }
    Ok(())
}
