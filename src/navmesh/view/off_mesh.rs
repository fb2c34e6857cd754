//! [`TileOffMeshConnection`]: an off-mesh connection as a tile stores it.

use glam::Vec3;
use recastnavigation_sys::{DT_OFFMESH_CON_BIDIR, dtOffMeshConnection};

use super::TileView;
use crate::ffi::{PolyRef, RawPolyRef};

/// An off-mesh connection of a tile (`dtOffMeshConnection`), copied out.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileOffMeshConnection {
    /// Index among the tile's connections.
    pub index: usize,
    /// Index of its poly in the tile (`offMeshBase + index`).
    pub poly: usize,
    /// Its poly's ref.
    pub poly_ref: PolyRef,
    /// Start point.
    pub start: Vec3,
    /// End point.
    pub end: Vec3,
    /// Radius of the end points, within which they snap to the ground.
    pub radius: f32,
    /// The flags as stored (`DT_OFFMESH_CON_BIDIR`).
    pub flags: u8,
    /// True if it may be travelled from end to start too.
    pub bidirectional: bool,
    /// The side of the tile its end lies beyond (0..=7), or 0xff if it ends in its own tile.
    pub side: u8,
    /// The user id it was built with.
    pub user_id: u32,
}

impl TileOffMeshConnection {
    pub(super) fn new(tile: &TileView<'_>, index: usize, c: &dtOffMeshConnection) -> Self {
        let poly = usize::from(c.poly);
        TileOffMeshConnection {
            index,
            poly,
            poly_ref: PolyRef(tile.raw().poly_ref_base | poly as RawPolyRef),
            start: Vec3::new(c.pos[0], c.pos[1], c.pos[2]),
            end: Vec3::new(c.pos[3], c.pos[4], c.pos[5]),
            radius: c.rad,
            flags: c.flags,
            bidirectional: u32::from(c.flags) & DT_OFFMESH_CON_BIDIR != 0,
            side: c.side,
            user_id: c.userId,
        }
    }
}
