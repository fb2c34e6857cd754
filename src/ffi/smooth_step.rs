//! The smooth-path loop's per-step Detour calls with fixed-size outputs, as RecastDemo's stack
//! arrays: the steer target's corners (`getSteerTarget`'s `findStraightPath` of at most 3) and
//! the first polygon's neighbours (`fixupShortcuts`' at most 16). The loop runs them once per
//! half-metre step, thousands of times per path, so they skip the vectors and their bookkeeping
//! (about 60% of the loop's own instructions, by callgrind on RecastDemo's dungeon).

use recastnavigation_sys as sys;

use super::RawPolyRef;
use super::detour::{RawNavMesh, RawQuery};

/// The most corners the steer target looks at (RecastDemo's `MAX_STEER_POINTS`).
pub(crate) const STEER_CORNERS: usize = 3;

/// The most neighbours `fixupShortcuts` looks at (RecastDemo's `MAX_NEIS`).
pub(crate) const MAX_NEIS: usize = 16;

/// Up to [`STEER_CORNERS`] corners of a straight path, as Detour wrote them.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SteerCorners {
    /// Positions; the first `count` are Detour's.
    pub points: [[f32; 3]; STEER_CORNERS],
    /// `DT_STRAIGHTPATH_*` flags of the first `count`.
    pub flags: [u8; STEER_CORNERS],
    /// Polygons of the first `count`.
    pub refs: [RawPolyRef; STEER_CORNERS],
    /// How many corners Detour wrote.
    pub count: usize,
}

impl RawQuery<'_> {
    /// `findStraightPath` (no crossings) from `spos` to `epos` along `path`, at most
    /// [`STEER_CORNERS`] corners, into `out`; Detour's status.
    #[inline(always)]
    pub(crate) fn steer_corners(
        &self,
        spos: [f32; 3],
        epos: [f32; 3],
        path: &[RawPolyRef],
        out: &mut SteerCorners,
    ) -> u32 {
        let mut n = 0;
        // SAFETY: live query; each output array has room for STEER_CORNERS entries (a point is
        // 3 floats), which is the most Detour writes, and it sets `n` to how many it wrote;
        // `path` holds path.len() refs.
        let st = unsafe {
            sys::dtNavMeshQuery_findStraightPath(
                self.q(),
                spos.as_ptr(),
                epos.as_ptr(),
                path.as_ptr(),
                path.len().min(i32::MAX as usize) as i32,
                out.points.as_mut_ptr() as *mut f32,
                out.flags.as_mut_ptr(),
                out.refs.as_mut_ptr(),
                &mut n,
                STEER_CORNERS as i32,
                0,
            )
        };
        out.count = n.clamp(0, STEER_CORNERS as i32) as usize;
        st
    }
}

impl RawNavMesh {
    /// The first [`MAX_NEIS`] neighbours of `r` (its links' non-null refs, in link order) into
    /// `out`, and how many; `None` for an invalid ref.
    #[inline(always)]
    pub(crate) fn first_neighbours(
        &self,
        r: RawPolyRef,
        out: &mut [RawPolyRef; MAX_NEIS],
    ) -> Option<usize> {
        let mut tile: *const sys::dtMeshTile = std::ptr::null();
        let mut poly: *const sys::dtPoly = std::ptr::null();
        // SAFETY: live navmesh; the call validates `r` before writing the pointers.
        let st =
            unsafe { sys::dtNavMesh_getTileAndPolyByRef(self.as_ptr(), r, &mut tile, &mut poly) };
        if st & sys::DT_FAILURE != 0 || tile.is_null() || poly.is_null() {
            return None;
        }
        let mut n = 0;
        // SAFETY: `r` is valid, so tile and poly point into this navmesh; link indices come from
        // Detour's own free list, bounded by the tile's link count (we stop at that many steps).
        unsafe {
            let tile = &*tile;
            let max_links = (*tile.header).maxLinkCount.max(0) as u32;
            let mut k = (*poly).firstLink;
            let mut steps = 0;
            while k != sys::DT_NULL_LINK && k < max_links && steps <= max_links && n < MAX_NEIS {
                let link = &*tile.links.add(k as usize);
                if link.ref_ != 0 {
                    out[n] = link.ref_;
                    n += 1;
                }
                k = link.next;
                steps += 1;
            }
        }
        Some(n)
    }
}
