//! The polygon corridor between two polygons: [`NavMeshQuery::find_path`] (`findPath`).

use glam::Vec3;

use super::*;
use crate::status::PathStatus;

/// The polygon corridor from a start polygon toward a goal polygon: what
/// [`NavMeshQuery::find_path`] and a finalized [`super::SlicedSearch`] give, and the corridor
/// of a [`super::NavPath`].
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Corridor {
    /// The polygons from the start polygon on.
    pub polys: Vec<PolyRef>,
    /// [`PathStatus::Complete`] if the corridor ends in the goal polygon; otherwise it leads to
    /// the polygon nearest the goal that the search reached (the goal cannot be reached through
    /// the filter, the node pool ran out, or the corridor did not fit its buffer).
    pub status: PathStatus,
    /// Detour's raw status word.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub detour_status: Status,
}

impl Default for Corridor {
    /// No polygons, [`PathStatus::Partial`].
    fn default() -> Self {
        Corridor {
            polys: Vec::new(),
            status: PathStatus::Partial,
            detour_status: Status(0),
        }
    }
}

impl Corridor {
    /// A corridor navkit found itself (not Detour's `findPath`): complete or partial, with
    /// the status word Detour would give it.
    pub(crate) fn found(polys: Vec<PolyRef>, complete: bool) -> Corridor {
        let (status, word) = if complete {
            (PathStatus::Complete, Status::SUCCESS)
        } else {
            (
                PathStatus::Partial,
                Status::SUCCESS | Status::PARTIAL_RESULT,
            )
        };
        Corridor {
            polys,
            status,
            detour_status: Status(word),
        }
    }

    /// True if the corridor ends in the goal polygon.
    pub fn is_complete(&self) -> bool {
        self.status.is_complete()
    }

    /// Sets the corridor to Detour's output `refs` of a search toward `goal` that ended with
    /// `status`: complete only if Detour reports neither a partial result, nor running out of
    /// nodes, nor a full buffer, and the corridor ends in `goal`. The one place this is decided.
    pub(crate) fn set(&mut self, refs: &[PolyRefBits], status: Status, goal: PolyRef) {
        self.polys.clear();
        self.polys.extend(refs.iter().map(|&r| PolyRef(r)));
        let complete = !status.partial()
            && !status.has(Status::OUT_OF_NODES)
            && !status.has(Status::BUFFER_TOO_SMALL)
            && self.polys.last() == Some(&goal);
        self.status = if complete {
            PathStatus::Complete
        } else {
            PathStatus::Partial
        };
        self.detour_status = status;
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
    ) -> Result<Corridor> {
        let mut corridor = Corridor::default();
        self.find_path_into(
            start,
            end,
            start_pos,
            end_pos,
            filter,
            max_path,
            &mut corridor,
        )?;
        Ok(corridor)
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
        out: &mut Corridor,
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
        out.set(&self.refs, st, end);
        Ok(())
    }
}
