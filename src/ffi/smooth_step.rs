//! The smooth-path loop's per-step Detour calls with fixed-size outputs, as RecastDemo's stack
//! arrays: the steer target's corners (`getSteerTarget`'s `findStraightPath` of at most 3) and
//! the first polygon's neighbours (`fixupShortcuts`' at most 16). The loop runs them once per
//! half-metre step, thousands of times per path, so they skip the vectors and their bookkeeping
//! (about 60% of the loop's own instructions, by callgrind on RecastDemo's dungeon). The
//! neighbours' polygon is looked up in Rust (Detour's ref check, inlined), not through
//! `getTileAndPolyByRef`. Everything here is `#[inline(always)]`: the loop is one function, as
//! RecastDemo's.

use recastnavigation_sys as sys;

use super::detour::{RawFilter, RawNavMesh, RawQuery, merge_corridor_start_moved};
use super::{PolyRef, RawPolyRef};

/// The most corners the steer target looks at (RecastDemo's `MAX_STEER_POINTS`).
pub(crate) const STEER_CORNERS: usize = 3;

/// The most neighbours `fixupShortcuts` looks at (RecastDemo's `MAX_NEIS`).
pub(crate) const MAX_NEIS: usize = 16;

/// The most polygons a step's `moveAlongSurface` visits (RecastDemo's 16).
pub(crate) const MAX_VISITED: usize = 16;

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

/// The room the smooth-path loop's corridor needs for a walk keeping at most `max` polygons: `max`
/// and a step's visited polygons ([`RawQuery::move_corridor_start`] merges them in place).
#[inline(always)]
pub(crate) fn corridor_room(max: usize) -> usize {
    max.max(MAX_VISITED)
}

impl RawQuery<'_> {
    /// `findStraightPath` (no crossings) from `spos` to `epos` along `path`, at most
    /// [`STEER_CORNERS`] corners, into `out`; Detour's status.
    #[inline(always)]
    pub(crate) fn steer_corners(
        &self,
        spos: &[f32; 3],
        epos: &[f32; 3],
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

    /// `moveAlongSurface` from `spos` on the corridor's first polygon toward `epos` (at most
    /// [`MAX_VISITED`] polygons visited), then the visited polygons merged into the corridor's
    /// front (`dtMergeCorridorStartMoved`, keeping at most `max`); the position reached, or
    /// `None` (the corridor unchanged) if the corridor is empty or Detour failed. The points
    /// are read and written in place (no copies around the calls).
    #[inline(always)]
    pub(crate) fn move_corridor_start(
        &self,
        corridor: &mut Vec<PolyRef>,
        max: usize,
        spos: &[f32; 3],
        epos: &[f32; 3],
        f: &RawFilter,
    ) -> Option<[f32; 3]> {
        let &start = corridor.first()?;
        let mut visited = [0 as RawPolyRef; MAX_VISITED];
        let mut n = 0;
        let mut pos = [0f32; 3];
        // SAFETY: live query; positions are 3 floats; `visited` holds MAX_VISITED refs, the
        // most Detour is told to write, and it sets `n` to how many it wrote.
        let st = unsafe {
            sys::dtNavMeshQuery_moveAlongSurface(
                self.q(),
                start.0,
                spos.as_ptr(),
                epos.as_ptr(),
                &f.0,
                pos.as_mut_ptr(),
                visited.as_mut_ptr(),
                &mut n,
                MAX_VISITED as i32,
            )
        };
        if st & sys::DT_FAILURE != 0 {
            return None;
        }
        // The loop's corridor keeps at most `max` and has room for `max` and a step's visits
        // (`corridor_room`, reserved once per walk): then the merge is the bare call, as in
        // RecastDemo; else the general one, which makes that room.
        let len = corridor.len();
        let room = corridor_room(max);
        if len <= max && room <= corridor.capacity() && room <= i32::MAX as usize {
            // SAFETY: the buffer has room for `room` refs (the capacity), the first `len`
            // initialized (`PolyRef` is `dtPolyRef`, transparently); Detour reads those and the
            // first `n` of `visited` (`n` is what it wrote, at most MAX_VISITED), adds at most
            // `n` polygons, which `room` covers (so its move of the rest has a length >= 0),
            // writes at most `room` and returns how many it initialized (at most `room`; at
            // most `max` are kept).
            unsafe {
                let m = sys::dtMergeCorridorStartMoved(
                    corridor.as_mut_ptr() as *mut RawPolyRef,
                    len as i32,
                    room as i32,
                    visited.as_ptr(),
                    n.min(MAX_VISITED as i32),
                );
                corridor.set_len((m.max(0) as usize).min(max));
            }
        } else {
            let n = n.clamp(0, MAX_VISITED as i32) as usize;
            merge_corridor_start_moved(corridor, max, &visited[..n]);
        }
        Some(pos)
    }

    /// `getPolyHeight` of `pos` on `poly`: the height, or 0 where Detour fails (it then leaves
    /// the height unwritten, and RecastDemo keeps its 0).
    #[inline(always)]
    pub(crate) fn height_or_zero(&self, poly: RawPolyRef, pos: &[f32; 3]) -> f32 {
        let mut h = 0f32;
        // SAFETY: live query; `pos` is 3 floats; Detour validates the ref.
        unsafe { sys::dtNavMeshQuery_getPolyHeight(self.q(), poly, pos.as_ptr(), &mut h) };
        h
    }
}

/// The fields of this navmesh's poly refs (Detour's `decodePolyId`), worked out once per walk
/// ([`RawNavMesh::ref_fields`]) rather than once a step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RefFields {
    tile_shift: u32,
    salt_shift: u32,
    poly_mask: u64,
    tile_mask: u64,
    salt_mask: u64,
}

impl RawNavMesh {
    /// This navmesh's ref layout; every width is below 64 bits (`init` keeps 32-bit layouts
    /// within 32, 64-bit refs use 16 + 28 + 20).
    #[inline(always)]
    pub(crate) fn ref_fields(&self) -> RefFields {
        let (salt_bits, tile_bits, poly_bits) = self.ref_bits();
        let mask = |bits: u32| (1u64 << bits) - 1;
        RefFields {
            tile_shift: poly_bits,
            salt_shift: poly_bits + tile_bits,
            poly_mask: mask(poly_bits),
            tile_mask: mask(tile_bits),
            salt_mask: mask(salt_bits),
        }
    }

    /// The tile and polygon of `r` if it is a valid ref of this navmesh, as Detour's
    /// `getTileAndPolyByRef` decides (non-zero; tile index below `m_maxTiles`; that tile in use
    /// with `r`'s salt; polygon index below its count), without the call: the loop looks up
    /// the corridor's first polygon once a step. `fields` are this navmesh's
    /// ([`RawNavMesh::ref_fields`]).
    #[inline(always)]
    fn tile_and_poly(
        &self,
        r: RawPolyRef,
        fields: &RefFields,
    ) -> Option<(&sys::dtMeshTile, &sys::dtPoly)> {
        if r == 0 {
            return None;
        }
        // Detour's `decodePolyId` (as `poly_ref::RefLayout::decode`).
        let r = super::tile_view::widen(r);
        let salt = ((r >> fields.salt_shift) & fields.salt_mask) as u32;
        let it = ((r >> fields.tile_shift) & fields.tile_mask) as u32;
        let ip = (r & fields.poly_mask) as u32;
        // SAFETY: live navmesh; plain fields set by `init`.
        let nav = unsafe { &*self.as_ptr() };
        if it >= nav.m_maxTiles.max(0) as u32 || nav.m_tiles.is_null() {
            return None;
        }
        // SAFETY: `m_tiles` holds `m_maxTiles` tiles (allocated by `init`), `it` is below that.
        let tile = unsafe { &*nav.m_tiles.add(it as usize) };
        if tile.salt != salt || tile.header.is_null() {
            return None;
        }
        // SAFETY: a tile in use (non-null header, matching salt) has a live header and
        // `polyCount` polygons at `polys`; `ip` is checked against that count.
        unsafe {
            if ip >= (*tile.header).polyCount.max(0) as u32 {
                return None;
            }
            Some((tile, &*tile.polys.add(ip as usize)))
        }
    }

    /// The first [`MAX_NEIS`] neighbours of `r` (its links' non-null refs, in link order) into
    /// `out`, and how many; `None` for an invalid ref (`fields` as for `tile_and_poly`).
    #[inline(always)]
    pub(crate) fn first_neighbours(
        &self,
        r: RawPolyRef,
        fields: &RefFields,
        out: &mut [RawPolyRef; MAX_NEIS],
    ) -> Option<usize> {
        let (tile, poly) = self.tile_and_poly(r, fields)?;
        let mut n = 0;
        // SAFETY: `tile` and `poly` are a valid ref's, so they point into this navmesh; link
        // indices come from Detour's own free list, bounded by the tile's link count (we stop
        // at that many steps).
        unsafe {
            let max_links = (*tile.header).maxLinkCount.max(0) as u32;
            let mut k = poly.firstLink;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BuildSettings, InputGeometry, NavMeshBuilder, TriMesh};

    /// `tile_and_poly` is Detour's ref check done in Rust: on a tiled navmesh (a 40 m floor in
    /// 32-cell tiles: several tiles, so tile index and salt matter) it accepts exactly the refs
    /// Detour's `isValidPolyRef` accepts, among every real ref and forgeries of each (salt,
    /// tile and poly fields off by one, 0, all ones), and `first_neighbours` lists what
    /// Detour's links give (`NavMesh::neighbours`, through `getTileAndPolyByRef`), capped at
    /// `MAX_NEIS`.
    #[test]
    fn rust_ref_lookup_agrees_with_detour() {
        let floor = TriMesh::new(
            vec![
                0.0, 0.0, 0.0, 0.0, 0.0, 40.0, 40.0, 0.0, 40.0, 40.0, 0.0, 0.0,
            ],
            vec![0, 1, 2, 0, 2, 3],
        )
        .unwrap();
        let geom = InputGeometry::from_mesh(floor);
        let settings = BuildSettings {
            tile_size: 32,
            ..BuildSettings::default()
        };
        let nav = NavMeshBuilder::new(&geom)
            .settings(settings)
            .tiled()
            .unwrap()
            .into_navmesh();
        assert!(nav.tile_count() > 4, "tiles: {}", nav.tile_count());
        let raw = nav.raw();
        let (_, tile_bits, poly_bits) = raw.ref_bits();
        let fields = raw.ref_fields();
        let mut checked = 0;
        for info in nav.polys() {
            let r = info.poly.0;
            let mut forged = vec![r, 0, RawPolyRef::MAX];
            for shift in [0, poly_bits, poly_bits + tile_bits] {
                let one = (1 as RawPolyRef) << shift;
                forged.push(r.wrapping_add(one));
                forged.push(r.wrapping_sub(one));
            }
            for f in forged {
                assert_eq!(
                    raw.tile_and_poly(f, &fields).is_some(),
                    raw.is_valid_ref(f),
                    "ref {f:#x}"
                );
                checked += 1;
            }
            let mut neis = [0; MAX_NEIS];
            let n = raw.first_neighbours(r, &fields, &mut neis).unwrap();
            let mut want: Vec<RawPolyRef> = nav.neighbours(info.poly).iter().map(|p| p.0).collect();
            want.truncate(MAX_NEIS);
            assert_eq!(&neis[..n], &want[..], "poly {r:#x}");
        }
        assert!(checked > 100, "{checked} refs checked");
    }
}
