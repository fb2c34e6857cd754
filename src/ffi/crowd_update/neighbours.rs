//! Phase 4: the proximity grid (sequential), then per agent the local boundary (the navmesh
//! walls near it, refreshed when it has moved a quarter of its query range or a polygon of it
//! has changed) and its neighbours: the 6 nearest agents of the first 32 the grid finds within
//! its query range, at a height overlap. As the grid and neighbour part of `dtCrowd::update`.
//!
//! A task writes its own agent's boundary and neighbour list; it reads other agents' positions
//! and heights, which nothing writes in this phase.

use recastnavigation_sys as sys;

use super::proximity::ProximityGrid;
use super::scratch::Scratch;
use super::vecmath::{dist_2d_sqr, len_sqr, sub};
use super::{CrowdView, STATE_WALKING};

/// The most neighbours an agent keeps (`DT_CROWDAGENT_MAX_NEIGHBOURS`).
const MAX_NEIGHBOURS: usize = sys::DT_CROWDAGENT_MAX_NEIGHBOURS as usize;
/// The most candidates taken from the grid.
const MAX_CANDIDATES: usize = 32;

/// Fills `grid` with every active agent's box, by its place in `active`, and `candidates`
/// with each one's position and height (read by the neighbour queries from this compact
/// copy instead of from the agents).
///
/// # Safety
/// `view` of a live crowd in an update, with no task running; `active` its active agents.
pub(super) unsafe fn build_grid(
    view: CrowdView,
    active: &[usize],
    grid: &mut ProximityGrid,
    candidates: &mut Vec<[f32; 4]>,
) {
    grid.clear();
    candidates.clear();
    for (k, &i) in active.iter().enumerate() {
        // SAFETY: an active agent of the crowd; read only.
        let (p, r, h) = unsafe {
            let ag = view.agent(i);
            ((*ag).npos, (*ag).params.radius, (*ag).params.height)
        };
        grid.add_item(k as u16, p[0] - r, p[2] - r, p[0] + r, p[2] + r);
        candidates.push([p[0], p[1], p[2], h]);
    }
    grid.finish();
}

/// What the neighbour queries read: the grid and, by place in `active`, the agents' indices,
/// positions and heights.
#[derive(Clone, Copy)]
pub(super) struct Candidates<'a> {
    pub(super) grid: &'a ProximityGrid,
    pub(super) active: &'a [usize],
    pub(super) pos_height: &'a [[f32; 4]],
}

/// Updates agent `i`'s boundary and neighbours (walking agents only).
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone writes; `active`
/// the crowd's active agents, as the grid was built from; `scratch` this worker's.
pub(super) unsafe fn update(view: CrowdView, cands: Candidates, i: usize, scratch: &mut Scratch) {
    // SAFETY: agent `i` is this task's; the query is this worker's; other agents are only
    // read (positions and heights), which no task writes in this phase.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return;
        }
        let query = scratch.nav_query();
        let filter = view.filter(ag);
        let range = (*ag).params.collisionQueryRange;
        let thr = range * 0.25;
        let boundary = &raw mut (*ag).boundary;
        if dist_2d_sqr((*ag).npos, (*boundary).m_center) > thr * thr
            || !sys::dtLocalBoundary_isValid(boundary, query, filter)
        {
            let corridor = &raw const (*ag).corridor;
            let first = if (*corridor).m_npath > 0 {
                *(*corridor).m_path
            } else {
                0
            };
            sys::dtLocalBoundary_update(boundary, first, (*ag).npos.as_ptr(), range, query, filter);
        }
        let mut neis = [(0usize, 0.0f32); MAX_NEIGHBOURS];
        let me = (i, (*ag).npos, (*ag).params.height, range);
        let n = find_neighbours(cands, me, &mut neis, scratch);
        for (slot, &(k, dist)) in (*ag).neis.iter_mut().zip(&neis[..n]) {
            slot.idx = cands.active[k] as i32;
            slot.dist = dist;
        }
        (*ag).nneis = n as i32;
    }
}

/// The nearest agents to agent `i` at `pos` (of `height`, querying `range`), by place in
/// `active`, with squared distances, nearest first, from the grid's candidates in their
/// order; how many.
// Negated comparisons: Detour's skips as written, which keep a NaN distance or height.
#[allow(clippy::neg_cmp_op_on_partial_ord)]
fn find_neighbours(
    cands: Candidates,
    (i, pos, height, range): (usize, [f32; 3], f32, f32),
    out: &mut [(usize, f32); MAX_NEIGHBOURS],
    scratch: &mut Scratch,
) -> usize {
    let mut ids = [0u16; MAX_CANDIDATES];
    let bbox = (
        pos[0] - range,
        pos[2] - range,
        pos[0] + range,
        pos[2] + range,
    );
    let nids = cands.grid.query(bbox, &mut ids, &mut scratch.stamps);
    // The candidates in reach, in the grid's order, with their squared distances: computed
    // without branches (whether a candidate is kept is hard to predict), then inserted.
    let mut kept = [(0usize, 0.0f32); MAX_CANDIDATES];
    let mut nkept = 0;
    for &id in &ids[..nids] {
        let k = id as usize;
        let [ox, oy, oz, oh] = cands.pos_height[k];
        let mut diff = sub(pos, [ox, oy, oz]);
        let level = !(diff[1].abs() >= (height + oh) / 2.0);
        diff[1] = 0.0;
        let dist_sqr = len_sqr(diff);
        let near = !(dist_sqr > range * range);
        kept[nkept] = (k, dist_sqr);
        nkept += usize::from(level & near & (cands.active[k] != i));
    }
    let mut n = 0;
    for &(k, dist_sqr) in &kept[..nkept] {
        n = insert_neighbour(out, n, k, dist_sqr);
    }
    n
}

/// Inserts (`k`, `dist`) into the sorted list `list[..n]` as Detour's crowd does: at the end if
/// it is not nearer than the last entry (dropped if the list is full), else before the first
/// entry at least as far; what falls past the end is dropped. The new count.
fn insert_neighbour(
    list: &mut [(usize, f32); MAX_NEIGHBOURS],
    n: usize,
    k: usize,
    dist: f32,
) -> usize {
    let at = if n == 0 {
        0
    } else if dist >= list[n - 1].1 {
        if n >= MAX_NEIGHBOURS {
            return n;
        }
        n
    } else {
        match list[..n].iter().position(|e| dist <= e.1) {
            Some(at) => at,
            // Only for a NaN distance, which Detour would write past its list: dropped.
            None => return n,
        }
    };
    let end = (n + 1).min(MAX_NEIGHBOURS);
    list.copy_within(at..end - 1, at + 1);
    list[at] = (k, dist);
    end
}
