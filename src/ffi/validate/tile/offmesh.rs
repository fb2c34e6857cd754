//! Off-mesh connections: end points, radius, poly index, flags and side.

use super::offsets::om;
use super::{Header, TileInfo};
use crate::ffi::bytes::{coord_at, u8_at, u16_at, vec3_at};
use crate::{Error, Result};
use recastnavigation_sys::{DT_OFFMESH_CON_BIDIR, dtOffMeshConnection};
use std::mem::size_of;

/// Each connection's fields, as `dtCreateNavMeshData` writes them.
pub(super) fn check(data: &[u8], hd: &Header) -> Result<()> {
    let Header {
        info:
            TileInfo {
                poly_count,
                off_mesh_con_count,
                ..
            },
        layout,
        off_mesh_base,
        ..
    } = *hd;
    for c in 0..off_mesh_con_count {
        let base = layout.off_mesh_cons + c * size_of::<dtOffMeshConnection>();
        for e in 0..2 {
            vec3_at(data, base + om::POS + 12 * e, &|| {
                format!("off-mesh connection {c} end point {e}")
            })?;
        }
        let rad = coord_at(data, base + om::RAD, || {
            format!("off-mesh connection {c} radius")
        })?;
        if rad < 0.0 {
            return Err(Error::data(
                base + om::RAD,
                format!("off-mesh connection {c} radius is {rad}, must be >= 0"),
            ));
        }
        let poly = usize::from(u16_at(data, base + om::POLY)?);
        if poly != off_mesh_base + c {
            return Err(Error::data(
                base + om::POLY,
                format!(
                    "off-mesh connection {c} poly index {poly}, expected offMeshBase {off_mesh_base} \
                     + {c} = {} (polyCount {poly_count})",
                    off_mesh_base + c
                ),
            ));
        }
        let flags = u8_at(data, base + om::FLAGS)?;
        if u32::from(flags) & !DT_OFFMESH_CON_BIDIR != 0 {
            return Err(Error::data(
                base + om::FLAGS,
                format!(
                    "off-mesh connection {c} flags 0x{flags:02x}: only DT_OFFMESH_CON_BIDIR \
                     (0x{DT_OFFMESH_CON_BIDIR:02x}) is defined"
                ),
            ));
        }
        let side = u8_at(data, base + om::SIDE)?;
        if side > 7 && side != 0xff {
            return Err(Error::data(
                base + om::SIDE,
                format!("off-mesh connection {c} side {side}, must be 0..=7 or 0xff"),
            ));
        }
    }
    Ok(())
}
