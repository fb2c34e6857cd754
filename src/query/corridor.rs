//! The polygon corridor between two polygons: [`NavMeshQuery::find_path`] (`findPath`).

use glam::Vec3;

use super::*;

/// Whether a path reaches its goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum PathStatus {
    /// The path ends in the goal polygon.
    Complete,
    /// The goal was not reached (unreachable, out of search nodes, or the buffer was too
    /// small): the path leads to the polygon nearest the goal.
    Partial,
}

/// The result of [`NavMeshQuery::find_path`]: a corridor of polygons.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Path {
    /// The polygons from start to end.
    pub polys: Vec<PolyRef>,
    /// Complete or partial.
    pub status: PathStatus,
    /// Detour's raw status word.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub detour_status: Status,
}

impl Path {
    /// True if the path reaches the goal polygon.
    pub fn is_complete(&self) -> bool {
        self.status == PathStatus::Complete
    }
}

impl NavMeshQuery<'_> {
    /// The polygon corridor from `start` (containing `start_pos`) to `end` (`findPath`), at most
    /// `max_path` polygons.
    pub fn find_path(
        &mut self,
        start: PolyRef,
        end: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        max_path: usize,
    ) -> Result<Path> {
        let mut path = Path {
            polys: Vec::new(),
            status: PathStatus::Partial,
            detour_status: Status(0),
        };
        self.find_path_into(start, end, start_pos, end_pos, filter, max_path, &mut path)?;
        Ok(path)
    }

    /// [`Self::find_path`] writing into `out`, reusing its buffer (no allocation once warm).
    #[allow(clippy::too_many_arguments)]
    pub fn find_path_into(
        &mut self,
        start: PolyRef,
        end: PolyRef,
        start_pos: Vec3,
        end_pos: Vec3,
        filter: &QueryFilter,
        max_path: usize,
        out: &mut Path,
    ) -> Result<()> {
        let s = self.check_ref("start", start)?;
        let e = self.check_ref("end", end)?;
        let sp = check_point("start_pos", start_pos)?;
        let ep = check_point("end_pos", end_pos)?;
        if max_path == 0 || max_path > MAX_BUFFER {
            return Err(Error::InvalidArgument(format!(
                "max_path {max_path} is not in 1..={MAX_BUFFER}"
            )));
        }
        let st = self
            .raw
            .find_path(s, e, sp, ep, &filter.raw, &mut self.refs, max_path);
        let st = check_status("findPath", st)?;
        out.polys.clear();
        out.polys.extend(self.refs.iter().map(|&r| PolyRef(r)));
        let complete = !st.partial()
            && !st.has(Status::OUT_OF_NODES)
            && !st.has(Status::BUFFER_TOO_SMALL)
            && out.polys.last() == Some(&end);
        out.status = if complete {
            PathStatus::Complete
        } else {
            PathStatus::Partial
        };
        out.detour_status = st;
        Ok(())
    }

    /// Nearest polygons of both points (with [`DEFAULT_HALF_EXTENTS`]), then [`Self::find_path`]
    /// with [`DEFAULT_MAX_PATH`].
    pub fn find_path_between(
        &mut self,
        start: Vec3,
        end: Vec3,
        filter: &QueryFilter,
    ) -> Result<Path> {
        let s = self.nearest_poly("start", start, DEFAULT_HALF_EXTENTS, filter)?;
        let e = self.nearest_poly("end", end, DEFAULT_HALF_EXTENTS, filter)?;
        self.find_path(s.poly, e.poly, start, end, filter, DEFAULT_MAX_PATH)
    }
}
