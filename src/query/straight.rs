//! The straight path along a corridor: [`NavMeshQuery::find_straight_path`]
//! (`findStraightPath`), string-pulled corners.

use glam::Vec3;

use super::*;
use crate::ffi::detour::StraightOut;

/// Options of [`NavMeshQuery::find_straight_path`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StraightPathOptions {
    /// Add a vertex where the area changes (`DT_STRAIGHTPATH_AREA_CROSSINGS`).
    pub area_crossings: bool,
    /// Add a vertex at every polygon edge crossing (`DT_STRAIGHTPATH_ALL_CROSSINGS`).
    pub all_crossings: bool,
}

/// Flags of a straight-path vertex (`dtStraightPathFlags`).
pub mod straight_flags {
    /// The start point.
    pub const START: u8 = 1;
    /// The end point.
    pub const END: u8 = 2;
    /// The start of an off-mesh connection.
    pub const OFFMESH_CONNECTION: u8 = 4;
}

/// A corner of a straight path.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StraightPoint {
    /// Position.
    pub pos: Vec3,
    /// [`straight_flags`] bits.
    pub flags: u8,
    /// The polygon being entered at this point (0 at the end).
    pub poly: PolyRef,
}

/// The result of [`NavMeshQuery::find_straight_path`].
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StraightPath {
    /// The corners, start to end.
    pub points: Vec<StraightPoint>,
    /// True if the output buffer was too small, or the corridor did not reach the end point.
    pub partial: bool,
}

impl StraightPath {
    /// The corner positions.
    pub fn positions(&self) -> Vec<Vec3> {
        self.points.iter().map(|p| p.pos).collect()
    }
    /// Length of the polyline.
    pub fn length(&self) -> f32 {
        self.points
            .windows(2)
            .map(|w| w[0].pos.distance(w[1].pos))
            .sum()
    }
}

/// Detour's straight-path output as corners.
#[inline]
fn copy_corners(raw: &StraightOut, out: &mut StraightPath) {
    out.points.clear();
    out.points
        .extend((0..raw.points.len()).map(|i| StraightPoint {
            pos: Vec3::from_array(raw.points[i]),
            flags: raw.flags[i],
            poly: PolyRef(raw.refs[i]),
        }));
}

impl NavMeshQuery<'_> {
    /// The string-pulled corners of a corridor (`findStraightPath`), at most `max_points`.
    pub fn find_straight_path(
        &mut self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        max_points: usize,
        options: StraightPathOptions,
    ) -> Result<StraightPath> {
        let mut out = StraightPath::default();
        self.find_straight_path_into(start_pos, end_pos, corridor, max_points, options, &mut out)?;
        Ok(out)
    }

    /// [`Self::find_straight_path`] writing into `out`, reusing its buffer (no allocation once
    /// warm).
    pub fn find_straight_path_into(
        &mut self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        max_points: usize,
        options: StraightPathOptions,
        out: &mut StraightPath,
    ) -> Result<()> {
        let sp = check_point("start_pos", start_pos)?;
        let ep = check_point("end_pos", end_pos)?;
        if corridor.is_empty() {
            return Err(Error::InvalidArgument("empty corridor".into()));
        }
        // Detour checks every corridor ref itself here: an invalid one ends the path early
        // (reported as partial).
        if max_points == 0 || max_points > MAX_BUFFER {
            return Err(Error::InvalidArgument(format!(
                "max_points {max_points} is not in 1..={MAX_BUFFER}"
            )));
        }
        let opts = (options.area_crossings as i32) | ((options.all_crossings as i32) << 1);
        let st = self.raw.find_straight_path(
            sp,
            ep,
            crate::ffi::poly_refs(corridor),
            max_points,
            opts,
            &mut self.straight,
        );
        let st = check_status("findStraightPath", st)?;
        copy_corners(&self.straight, out);
        out.partial = st.partial() || st.has(Status::BUFFER_TOO_SMALL);
        Ok(())
    }

    /// `findStraightPath` (no crossings) in the smooth-path loop (see
    /// [`NavMeshQuery::move_corridor_start`]), for its steer target; false if Detour failed
    /// (then `out` is empty).
    #[inline]
    pub(crate) fn straight_corners(
        &mut self,
        start: [f32; 3],
        end: [f32; 3],
        corridor: &[PolyRef],
        max_points: usize,
        out: &mut StraightPath,
    ) -> bool {
        let st = self.raw.find_straight_path(
            start,
            end,
            crate::ffi::poly_refs(corridor),
            max_points,
            0,
            &mut self.straight,
        );
        copy_corners(&self.straight, out);
        out.partial = Status(st).partial();
        !Status(st).failed()
    }
}
