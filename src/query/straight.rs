//! The straight path along a corridor: [`NavMeshQuery::find_straight_path`]
//! (`findStraightPath`), string-pulled corners.

use glam::Vec3;

use super::*;
use crate::ffi::detour::StraightOut;
use crate::ffi::smooth_step::SteerCorners;
use crate::status::PathStatus;

/// Options of a straight path ([`NavMeshQuery::find_straight_path`], [`super::PathOptions`]);
/// the defaults are RecastDemo's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(default))]
pub struct StraightPathOptions {
    /// Add a vertex where the area changes (`DT_STRAIGHTPATH_AREA_CROSSINGS`; off).
    pub area_crossings: bool,
    /// Add a vertex at every polygon edge crossing (`DT_STRAIGHTPATH_ALL_CROSSINGS`; off).
    pub all_crossings: bool,
    /// The most corners (1..=[`MAX_BUFFER`]; RecastDemo's 256): a longer path is cut and
    /// [`crate::PathStatus::Partial`].
    pub max_points: usize,
}

impl Default for StraightPathOptions {
    /// No crossings, [`DEFAULT_MAX_PATH`] corners (RecastDemo's).
    fn default() -> Self {
        StraightPathOptions {
            area_crossings: false,
            all_crossings: false,
            max_points: DEFAULT_MAX_PATH,
        }
    }
}

/// Flags of a straight-path vertex (`dtStraightPathFlags`).
pub mod straight_flags {
    /// The start point.
    pub const START: u8 = 1;
    /// The end point.
    pub const END: u8 = 2;
    /// The start of an off-mesh connection.
    pub const OFFMESH_CONNECTION: u8 = 4;
    /// navkit's own: where an optimal path crosses from one polygon to the next
    /// ([`OptimalOptions::crossings`](crate::query::OptimalOptions::crossings)).
    pub const CROSSING: u8 = 8;
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

/// The corners of a path along a corridor: [`NavMeshQuery::find_straight_path`], and the
/// straight path of a [`super::NavPath`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StraightPath {
    /// The corners, start to end.
    pub points: Vec<StraightPoint>,
    /// [`PathStatus::Complete`] if the corners reach the end point; partial if the corridor
    /// did not reach it (the path then ends at the corridor's end) or
    /// [`StraightPathOptions::max_points`] cut it.
    pub status: PathStatus,
}

impl Default for StraightPath {
    /// No corners, [`PathStatus::Partial`].
    fn default() -> Self {
        StraightPath {
            points: Vec::new(),
            status: PathStatus::Partial,
        }
    }
}

impl StraightPath {
    /// True if the corners reach the end point.
    pub fn is_complete(&self) -> bool {
        self.status.is_complete()
    }
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

/// Detour's straight-path output as corners (zipped, so the copy has no index checks; the
/// three arrays have the same length, Detour's count).
#[inline(always)]
fn copy_corners(raw: &StraightOut, out: &mut StraightPath) {
    out.points.clear();
    out.points.reserve(raw.points.len());
    for ((&pos, &flags), &poly) in raw.points.iter().zip(&raw.flags).zip(&raw.refs) {
        out.points.push(StraightPoint {
            pos: Vec3::from_array(pos),
            flags,
            poly: PolyRef(poly),
        });
    }
}

impl NavMeshQuery<'_> {
    /// The string-pulled corners of `corridor` from `start_pos` to `end_pos`
    /// (`findStraightPath`), at most [`StraightPathOptions::max_points`].
    ///
    /// Detour checks the corridor's refs itself: an invalid one ends the path there (reported
    /// as partial). An empty corridor is [`Error::InvalidArgument`].
    pub fn find_straight_path(
        &mut self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        options: &StraightPathOptions,
    ) -> Result<StraightPath> {
        let mut out = StraightPath::default();
        self.find_straight_path_into(start_pos, end_pos, corridor, options, &mut out)?;
        Ok(out)
    }

    /// [`Self::find_straight_path`] writing into `out`, reusing its buffer (no allocation once
    /// warm).
    pub fn find_straight_path_into(
        &mut self,
        start_pos: Vec3,
        end_pos: Vec3,
        corridor: &[PolyRef],
        options: &StraightPathOptions,
        out: &mut StraightPath,
    ) -> Result<()> {
        let sp = check_point("start_pos", start_pos)?;
        let ep = check_point("end_pos", end_pos)?;
        if corridor.is_empty() {
            return Err(Error::InvalidArgument("empty corridor".into()));
        }
        // Detour checks every corridor ref itself here: an invalid one ends the path early
        // (reported as partial).
        let max_points = options.max_points;
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
        out.status = if st.partial() || st.has(Status::BUFFER_TOO_SMALL) {
            PathStatus::Partial
        } else {
            PathStatus::Complete
        };
        Ok(())
    }

    /// `findStraightPath` (no crossings, at most 3 corners) in the smooth-path loop (see
    /// [`NavMeshQuery::move_corridor_start`]), for its steer target, into `out`; false if
    /// Detour failed.
    #[inline(always)]
    pub(crate) fn steer_corners(
        &mut self,
        start: &[f32; 3],
        end: &[f32; 3],
        corridor: &[PolyRef],
        out: &mut SteerCorners,
    ) -> bool {
        let st = self
            .raw
            .steer_corners(start, end, crate::ffi::poly_refs(corridor), out);
        !Status(st).failed()
    }
}
