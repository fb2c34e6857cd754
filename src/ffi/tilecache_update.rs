//! navkit's own `dtTileCache::update` step, so that tiles rebuilt for obstacles go through
//! navkit's tile build ([`RawTileCache::build_tile`]) too: Detour's `update` builds inside
//! itself. It does what Detour's does, on the cache's own fields: queued obstacle requests
//! become touched and pending tile lists (when no rebuild is queued), one queued tile layer is
//! rebuilt per step, and obstacles whose pending tiles are all rebuilt move on (processing to
//! processed, removing to empty with a new salt, back on the free list).

use recastnavigation_sys as sys;

use super::detour::RawNavMesh;
use super::tilecache::{OBSTACLE_PROCESSED, OBSTACLE_PROCESSING, OBSTACLE_REMOVING, RawTileCache};

/// Detour's `DT_MAX_TOUCHED_TILES`: tile layers one obstacle may touch.
const MAX_TOUCHED: usize = 8;
const REQUEST_ADD: i32 = sys::dtTileCache_ObstacleRequestAction_REQUEST_ADD as i32;
const REQUEST_REMOVE: i32 = sys::dtTileCache_ObstacleRequestAction_REQUEST_REMOVE as i32;

impl RawTileCache {
    /// The cache and its obstacle pool, to change (two separate allocations).
    pub(super) fn parts(&mut self) -> (&mut sys::dtTileCache, &mut [sys::dtTileCacheObstacle]) {
        let tc = self.as_mut_ptr();
        // SAFETY: live tile cache, exclusively borrowed through `&mut self` for the lifetime of
        // both results; init allocated `maxObstacles` obstacles at `m_obstacles`, a separate
        // allocation from the cache object.
        unsafe {
            let t = &mut *tc;
            let n = usize::try_from(t.m_params.maxObstacles).unwrap_or(0);
            let obs = if t.m_obstacles.is_null() || n == 0 {
                &mut [][..]
            } else {
                std::slice::from_raw_parts_mut(t.m_obstacles, n)
            };
            (t, obs)
        }
    }

    /// One update step, as Detour's `dtTileCache::update` but building with navkit's tile
    /// build: (status of the tile built, if any; up to date).
    pub(crate) fn update(&mut self, nav: &mut RawNavMesh) -> (u32, bool) {
        #[cfg(test)]
        if super::tilecache_build::upstream::enabled() {
            return self.update_upstream(nav);
        }
        if self.raw().m_nupdate == 0 {
            self.process_requests();
        }
        let mut status = sys::DT_SUCCESS;
        if let Some(tile) = self.next_update() {
            status = self.build_tile(tile, nav);
            self.settle_obstacles(tile);
        }
        let t = self.raw();
        (status, t.m_nupdate == 0 && t.m_nreqs == 0)
    }

    /// Turns the queued obstacle requests into tile layers to rebuild: an added obstacle finds
    /// the layers its bounds touch (at most 8), a removed one starts removing; either queues
    /// its touched layers (while the queue has room) and lists them as pending.
    fn process_requests(&mut self) {
        let (t, _) = self.parts();
        let n = usize::try_from(t.m_nreqs).unwrap_or(0).min(t.m_reqs.len());
        let reqs = t.m_reqs[..n].to_vec();
        for req in reqs {
            let idx = (req.ref_ & 0xffff) as usize;
            let salt = (req.ref_ >> 16) & 0xffff;
            let (_, obs) = self.parts();
            if obs.get(idx).is_none_or(|ob| u32::from(ob.salt) != salt) {
                continue;
            }
            if req.action == REQUEST_ADD {
                let (touched, n) = self.tiles_touched_by(idx);
                let (_, obs) = self.parts();
                obs[idx].touched = touched;
                obs[idx].ntouched = n as u8;
            } else if req.action == REQUEST_REMOVE {
                let (_, obs) = self.parts();
                obs[idx].state = OBSTACLE_REMOVING;
            } else {
                continue;
            }
            self.queue_touched(idx);
        }
        self.parts().0.m_nreqs = 0;
    }

    /// The tile layers obstacle `idx`'s bounds overlap (Detour's `queryTiles`, at most 8).
    pub(super) fn tiles_touched_by(&mut self, idx: usize) -> ([u32; MAX_TOUCHED], usize) {
        let tc = self.as_mut_ptr();
        let ob: *const sys::dtTileCacheObstacle = &self.parts().1[idx];
        let (mut bmin, mut bmax) = ([0f32; 3], [0f32; 3]);
        let mut touched = [0u32; MAX_TOUCHED];
        let mut n: std::os::raw::c_int = 0;
        // SAFETY: live tile cache; `ob` is one of its obstacles; both only read. `touched` holds
        // MAX_TOUCHED refs; the bounds are near the grid (checked when the obstacle was added),
        // so their tile coordinates convert to int.
        unsafe {
            sys::dtTileCache_getObstacleBounds(tc, ob, bmin.as_mut_ptr(), bmax.as_mut_ptr());
            sys::dtTileCache_queryTiles(
                tc,
                bmin.as_ptr(),
                bmax.as_ptr(),
                touched.as_mut_ptr(),
                &mut n,
                MAX_TOUCHED as std::os::raw::c_int,
            );
        }
        (touched, usize::try_from(n).unwrap_or(0).min(MAX_TOUCHED))
    }

    /// Queues obstacle `idx`'s touched layers for rebuild (each once) and makes them its
    /// pending list, while the queue has room (Detour's `MAX_UPDATE`).
    fn queue_touched(&mut self, idx: usize) {
        let (t, obs) = self.parts();
        let ob = &mut obs[idx];
        ob.npending = 0;
        let ntouched = usize::from(ob.ntouched).min(MAX_TOUCHED);
        for &r in &ob.touched[..ntouched] {
            let queued = usize::try_from(t.m_nupdate).unwrap_or(0);
            if queued >= t.m_update.len() {
                continue;
            }
            if !t.m_update[..queued].contains(&r) {
                t.m_update[queued] = r;
                t.m_nupdate += 1;
            }
            ob.pending[usize::from(ob.npending)] = r;
            ob.npending += 1;
        }
    }

    /// Takes the first queued tile layer off the queue.
    fn next_update(&mut self) -> Option<u32> {
        let (t, _) = self.parts();
        let n = usize::try_from(t.m_nupdate)
            .unwrap_or(0)
            .min(t.m_update.len());
        if n == 0 {
            return None;
        }
        let first = t.m_update[0];
        t.m_update.copy_within(1..n, 0);
        t.m_nupdate = (n - 1) as i32;
        Some(first)
    }

    /// Strikes the rebuilt layer `tile` off every obstacle's pending list; an obstacle with none
    /// left is processed, or, if it was being removed, empty again: its salt moves on (never
    /// 0) and its slot goes back on the free list.
    fn settle_obstacles(&mut self, tile: u32) {
        let (t, obs) = self.parts();
        let base = obs.as_mut_ptr();
        for (i, ob) in obs.iter_mut().enumerate() {
            if ob.state != OBSTACLE_PROCESSING && ob.state != OBSTACLE_REMOVING {
                continue;
            }
            let np = usize::from(ob.npending).min(MAX_TOUCHED);
            if let Some(j) = ob.pending[..np].iter().position(|&p| p == tile) {
                ob.pending[j] = ob.pending[np - 1];
                ob.npending -= 1;
            }
            if ob.npending != 0 {
                continue;
            }
            if ob.state == OBSTACLE_PROCESSING {
                ob.state = OBSTACLE_PROCESSED;
            } else {
                ob.state = super::tilecache::OBSTACLE_EMPTY;
                ob.salt = ob.salt.wrapping_add(1).max(1);
                ob.next = t.m_nextFreeObstacle;
                t.m_nextFreeObstacle = base.wrapping_add(i);
            }
        }
    }
}

/// One obstacle slot as the update step leaves it, for the differential tests.
#[cfg(test)]
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SlotState {
    pub salt: u16,
    pub state: u8,
    pub touched: Vec<u32>,
    pub pending: Vec<u32>,
}

#[cfg(test)]
impl RawTileCache {
    /// Every obstacle slot (salt, state, touched and pending layers) and the free list (slot
    /// indices in order), for comparing navkit's update step with Detour's.
    pub(crate) fn obstacle_slot_states(&self) -> (Vec<SlotState>, Vec<usize>) {
        let obs = self.obstacle_slots();
        let slots = obs
            .iter()
            .map(|ob| SlotState {
                salt: ob.salt,
                state: ob.state,
                touched: ob.touched[..usize::from(ob.ntouched).min(MAX_TOUCHED)].to_vec(),
                pending: ob.pending[..usize::from(ob.npending).min(MAX_TOUCHED)].to_vec(),
            })
            .collect();
        let size = std::mem::size_of::<sys::dtTileCacheObstacle>();
        let base = obs.as_ptr() as usize;
        let mut free = Vec::new();
        let mut p = self.raw().m_nextFreeObstacle as usize;
        while p != 0 && free.len() <= obs.len() {
            let i = (p - base) / size;
            free.push(i);
            p = obs[i].next as usize;
        }
        (slots, free)
    }
}
