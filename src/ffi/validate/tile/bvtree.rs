//! The BV tree: `queryPolygonsInTile` walks nodes `[0, bvNodeCount)`, stepping 1 past leaves
//! and overlapping nodes and `-i` past non-overlapping internal nodes.

use super::offsets::bv;
use super::{Header, TileInfo};
use crate::ffi::bytes::{i32_at, u16_at};
use crate::{Error, Result};
use recastnavigation_sys::dtBVNode;
use std::mem::size_of;

/// Node bounds ordered, leaves naming ground polys, escape offsets within the tree.
pub(super) fn check(data: &[u8], hd: &Header) -> Result<()> {
    let Header {
        info: TileInfo { bv_node_count, .. },
        layout,
        ground_count,
        ..
    } = *hd;
    for k in 0..bv_node_count {
        let base = layout.bv_tree + k * size_of::<dtBVNode>();
        for a in 0..3 {
            let lo = u16_at(data, base + bv::BMIN + 2 * a)?;
            let hi = u16_at(data, base + bv::BMAX + 2 * a)?;
            if lo > hi {
                return Err(Error::data(
                    base + bv::BMAX + 2 * a,
                    format!("BV node {k} bmax[{a}] {hi} < bmin[{a}] {lo}"),
                ));
            }
        }
        let i = i32_at(data, base + bv::I)?;
        if i >= 0 {
            if i as usize >= ground_count {
                return Err(Error::data(
                    base + bv::I,
                    format!(
                        "BV node {k} is a leaf for poly {i} >= ground poly count {ground_count}"
                    ),
                ));
            }
        } else {
            let escape = i.unsigned_abs() as usize;
            if i == i32::MIN || k.saturating_add(escape) > bv_node_count {
                return Err(Error::data(
                    base + bv::I,
                    format!(
                        "BV node {k} escape index {i} jumps to node {} beyond bvNodeCount \
                         {bv_node_count}",
                        k as i64 - i64::from(i)
                    ),
                ));
            }
        }
    }
    Ok(())
}
