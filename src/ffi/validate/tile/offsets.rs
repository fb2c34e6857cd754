//! Byte offsets of the fields of Detour's tile data structs.

use recastnavigation_sys::{dtBVNode, dtMeshHeader, dtOffMeshConnection, dtPoly, dtPolyDetail};
use std::mem::offset_of;

/// Offsets of the `dtMeshHeader` fields.
pub(crate) mod h {
    use super::*;
    pub const MAGIC: usize = offset_of!(dtMeshHeader, magic);
    pub const VERSION: usize = offset_of!(dtMeshHeader, version);
    pub const X: usize = offset_of!(dtMeshHeader, x);
    pub const Y: usize = offset_of!(dtMeshHeader, y);
    pub const LAYER: usize = offset_of!(dtMeshHeader, layer);
    pub const POLY_COUNT: usize = offset_of!(dtMeshHeader, polyCount);
    pub const VERT_COUNT: usize = offset_of!(dtMeshHeader, vertCount);
    pub const MAX_LINK_COUNT: usize = offset_of!(dtMeshHeader, maxLinkCount);
    pub const DETAIL_MESH_COUNT: usize = offset_of!(dtMeshHeader, detailMeshCount);
    pub const DETAIL_VERT_COUNT: usize = offset_of!(dtMeshHeader, detailVertCount);
    pub const DETAIL_TRI_COUNT: usize = offset_of!(dtMeshHeader, detailTriCount);
    pub const BV_NODE_COUNT: usize = offset_of!(dtMeshHeader, bvNodeCount);
    pub const OFF_MESH_CON_COUNT: usize = offset_of!(dtMeshHeader, offMeshConCount);
    pub const OFF_MESH_BASE: usize = offset_of!(dtMeshHeader, offMeshBase);
    pub const WALKABLE_HEIGHT: usize = offset_of!(dtMeshHeader, walkableHeight);
    pub const WALKABLE_RADIUS: usize = offset_of!(dtMeshHeader, walkableRadius);
    pub const WALKABLE_CLIMB: usize = offset_of!(dtMeshHeader, walkableClimb);
    pub const BMIN: usize = offset_of!(dtMeshHeader, bmin);
    pub const BMAX: usize = offset_of!(dtMeshHeader, bmax);
    pub const BV_QUANT_FACTOR: usize = offset_of!(dtMeshHeader, bvQuantFactor);
}

/// Offsets of the `dtPoly` fields.
pub(crate) mod p {
    use super::*;
    pub const VERTS: usize = offset_of!(dtPoly, verts);
    pub const NEIS: usize = offset_of!(dtPoly, neis);
    pub const VERT_COUNT: usize = offset_of!(dtPoly, vertCount);
    pub const AREA_AND_TYPE: usize = offset_of!(dtPoly, areaAndtype);
}

/// Offsets of the `dtPolyDetail` fields.
pub(crate) mod pd {
    use super::*;
    pub const VERT_BASE: usize = offset_of!(dtPolyDetail, vertBase);
    pub const TRI_BASE: usize = offset_of!(dtPolyDetail, triBase);
    pub const VERT_COUNT: usize = offset_of!(dtPolyDetail, vertCount);
    pub const TRI_COUNT: usize = offset_of!(dtPolyDetail, triCount);
}

/// Offsets of the `dtBVNode` fields.
pub(crate) mod bv {
    use super::*;
    pub const BMIN: usize = offset_of!(dtBVNode, bmin);
    pub const BMAX: usize = offset_of!(dtBVNode, bmax);
    pub const I: usize = offset_of!(dtBVNode, i);
}

/// Offsets of the `dtOffMeshConnection` fields.
pub(crate) mod om {
    use super::*;
    pub const POS: usize = offset_of!(dtOffMeshConnection, pos);
    pub const RAD: usize = offset_of!(dtOffMeshConnection, rad);
    pub const POLY: usize = offset_of!(dtOffMeshConnection, poly);
    pub const FLAGS: usize = offset_of!(dtOffMeshConnection, flags);
    pub const SIDE: usize = offset_of!(dtOffMeshConnection, side);
}
