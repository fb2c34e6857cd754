//! The tile header: size, magic, version, position, counts and what they must agree on, and
//! the header's floats. The section layout the counts imply is checked in `layout`.

use super::layout::{HEADER_SIZE, layout};
use super::offsets::h;
use super::{Header, TileInfo};
use crate::ffi::bytes::{coord_at, expect_i32_at, f32_at, i32_at, vec3_at};
use crate::poly_ref::RefWidth;
use crate::{Error, Result};
use recastnavigation_sys::{DT_NAVMESH_MAGIC, DT_NAVMESH_VERSION};

/// The header's counts, each checked `>= 0`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Counts {
    pub(super) poly: usize,
    pub(super) vert: usize,
    pub(super) max_link: usize,
    pub(super) detail_mesh: usize,
    pub(super) detail_vert: usize,
    pub(super) detail_tri: usize,
    pub(super) bv_node: usize,
    pub(super) off_mesh_con: usize,
    pub(super) off_mesh_base: usize,
}

/// The header's floats: agent dimensions and bounds.
struct Floats {
    walkable_height: f32,
    walkable_radius: f32,
    walkable_climb: f32,
    bmin: [f32; 3],
    bmax: [f32; 3],
}

/// Checks the header, the counts and the layout they give (see [`super::validate_tile_data`]).
pub(super) fn check(data: &[u8], width: RefWidth) -> Result<Header> {
    check_size(data)?;
    check_identity(data)?;
    let (x, y, layer) = position(data)?;
    let c = counts(data)?;
    let layout = layout(data, &c, width)?;
    debug_assert_eq!(layout.end, data.len());
    check_structure(&c)?;
    let f = floats(data, c.bv_node)?;
    Ok(Header {
        info: TileInfo {
            x,
            y,
            layer,
            poly_count: c.poly,
            vert_count: c.vert,
            detail_mesh_count: c.detail_mesh,
            detail_vert_count: c.detail_vert,
            detail_tri_count: c.detail_tri,
            bv_node_count: c.bv_node,
            off_mesh_con_count: c.off_mesh_con,
            max_link_count: c.max_link,
            bmin: f.bmin,
            bmax: f.bmax,
            walkable_height: f.walkable_height,
            walkable_radius: f.walkable_radius,
            walkable_climb: f.walkable_climb,
        },
        layout,
        off_mesh_base: c.off_mesh_base,
        ground_count: c.off_mesh_base,
        ground_vert_count: c.vert - 2 * c.off_mesh_con,
        off_mesh_verts: 2 * c.off_mesh_con,
    })
}

/// At least a whole `dtMeshHeader`, at most what Detour's `int` sizes can say.
fn check_size(data: &[u8]) -> Result<()> {
    if data.len() < HEADER_SIZE {
        return Err(Error::data(
            data.len(),
            format!(
                "tile data is {} bytes, shorter than the {HEADER_SIZE}-byte dtMeshHeader",
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
    Ok(())
}

/// Magic and version, as addTile checks them.
fn check_identity(data: &[u8]) -> Result<()> {
    expect_i32_at(data, h::MAGIC, DT_NAVMESH_MAGIC, |magic| {
        format!(
            "tile magic is 0x{magic:08x}, expected DT_NAVMESH_MAGIC 0x{DT_NAVMESH_MAGIC:08x} ('DNAV')"
        )
    })?;
    expect_i32_at(data, h::VERSION, DT_NAVMESH_VERSION, |version| {
        format!("tile version is {version}, expected DT_NAVMESH_VERSION {DT_NAVMESH_VERSION}")
    })
}

/// Tile position (x, y, layer): Detour computes x +- 1 and y +- 1 for neighbour lookups.
fn position(data: &[u8]) -> Result<(i32, i32, i32)> {
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
    Ok((x, y, layer))
}

/// Every count, `>= 0`.
fn counts(data: &[u8]) -> Result<Counts> {
    let count = |name: &str, off: usize| -> Result<usize> {
        let v = i32_at(data, off)?;
        usize::try_from(v)
            .map_err(|_| Error::data(off, format!("tile {name} is {v}, must be >= 0")))
    };
    Ok(Counts {
        poly: count("polyCount", h::POLY_COUNT)?,
        vert: count("vertCount", h::VERT_COUNT)?,
        max_link: count("maxLinkCount", h::MAX_LINK_COUNT)?,
        detail_mesh: count("detailMeshCount", h::DETAIL_MESH_COUNT)?,
        detail_vert: count("detailVertCount", h::DETAIL_VERT_COUNT)?,
        detail_tri: count("detailTriCount", h::DETAIL_TRI_COUNT)?,
        bv_node: count("bvNodeCount", h::BV_NODE_COUNT)?,
        off_mesh_con: count("offMeshConCount", h::OFF_MESH_CON_COUNT)?,
        off_mesh_base: count("offMeshBase", h::OFF_MESH_BASE)?,
    })
}

/// What the counts must agree on, as dtCreateNavMeshData lays the tile out: ground polys
/// first (at least one), one off-mesh poly per connection after them, one detail mesh per
/// ground poly, a link slot at least, and two vertices per connection at the end.
fn check_structure(c: &Counts) -> Result<()> {
    let (poly_count, off_mesh_base) = (c.poly, c.off_mesh_base);
    if off_mesh_base < 1 || off_mesh_base > poly_count {
        return Err(Error::data(
            h::OFF_MESH_BASE,
            format!(
                "tile offMeshBase is {off_mesh_base}, must be in 1..=polyCount ({poly_count}): \
                 polys [0, offMeshBase) are ground polys, and a tile has at least one"
            ),
        ));
    }
    if c.off_mesh_con != poly_count - off_mesh_base {
        return Err(Error::data(
            h::OFF_MESH_CON_COUNT,
            format!(
                "tile offMeshConCount is {}, but polyCount {poly_count} - offMeshBase \
                 {off_mesh_base} = {} off-mesh polys",
                c.off_mesh_con,
                poly_count - off_mesh_base
            ),
        ));
    }
    if c.detail_mesh != off_mesh_base {
        return Err(Error::data(
            h::DETAIL_MESH_COUNT,
            format!(
                "tile detailMeshCount is {}, must equal the number of ground polys (offMeshBase \
                 {off_mesh_base})",
                c.detail_mesh
            ),
        ));
    }
    if c.max_link < 1 {
        return Err(Error::data(
            h::MAX_LINK_COUNT,
            "tile maxLinkCount is 0; addTile writes links[maxLinkCount - 1]",
        ));
    }
    let off_mesh_verts = c.off_mesh_con * 2;
    if c.vert < off_mesh_verts {
        return Err(Error::data(
            h::VERT_COUNT,
            format!(
                "tile vertCount is {}, fewer than the {off_mesh_verts} vertices of its {} \
                 off-mesh connections",
                c.vert, c.off_mesh_con
            ),
        ));
    }
    Ok(())
}

/// The header's floats: finite, bounded, walkable values `>= 0`, `bmin <= bmax`, and a BV
/// quantisation factor the tree's 16-bit coordinates can take.
fn floats(data: &[u8], bv_node_count: usize) -> Result<Floats> {
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
    check_quant_factor(data, bv_node_count, bmin, bmax)?;
    Ok(Floats {
        walkable_height,
        walkable_radius,
        walkable_climb,
        bmin,
        bmax,
    })
}

/// `bvQuantFactor` finite and `> 0`, and (with a BV tree) small enough that the quantised
/// tile extent fits 16 bits: queryPolygonsInTile converts qfac * (clamped query - bmin) + 1 to
/// unsigned short.
fn check_quant_factor(
    data: &[u8],
    bv_node_count: usize,
    bmin: [f32; 3],
    bmax: [f32; 3],
) -> Result<()> {
    let qfac = f32_at(data, h::BV_QUANT_FACTOR)?;
    if !(qfac.is_finite() && qfac > 0.0) {
        return Err(Error::data(
            h::BV_QUANT_FACTOR,
            format!("tile bvQuantFactor is {qfac}, must be finite and > 0"),
        ));
    }
    if bv_node_count == 0 {
        return Ok(());
    }
    for a in 0..3 {
        let q = f64::from(qfac) * (f64::from(bmax[a]) - f64::from(bmin[a])) + 1.0;
        if q >= 65535.0 {
            return Err(Error::data(
                h::BV_QUANT_FACTOR,
                format!(
                    "tile bvQuantFactor {qfac} x extent {} on axis {a} does not fit the 16-bit \
                     BV tree coordinates",
                    bmax[a] - bmin[a]
                ),
            ));
        }
    }
    Ok(())
}
