//! Phase 8, per agent, four times: collision resolution. Each walking agent computes the mean
//! of its pushes away from the neighbours it overlaps (70% of half the overlap each; agents on
//! top of each other push sideways to their desired velocity, in opposite directions by
//! index), then all apply theirs. As `dtCrowd::update`'s collision handling.
//!
//! `displacement` writes its own agent's displacement and reads its neighbours' positions and
//! radii, which nothing writes then; `apply` reads and writes only its own agent.

use super::vecmath::{add, len_sqr, mad, scale, sub};
use super::{CrowdView, STATE_WALKING};

/// Rounds of resolution per update.
pub(super) const ITERATIONS: usize = 4;
/// The share of half the overlap each push resolves.
const RESOLVE_FACTOR: f32 = 0.7;

/// Computes agent `i`'s displacement (walking agents).
///
/// # Safety
/// `view` of a live crowd in an update, `i` an active agent this task alone writes; its
/// neighbours' positions are not written meanwhile.
pub(super) unsafe fn displacement(view: CrowdView, i: usize) {
    // SAFETY: agent `i` is this task's; neighbours are only read.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state != STATE_WALKING {
            return;
        }
        let mut disp = [0.0f32; 3];
        let mut w = 0.0f32;
        let n = (*ag).nneis.clamp(0, 6) as usize;
        for k in 0..n {
            let j = (*ag).neis[k].idx as usize;
            let nei = view.agent(j);
            let mut diff = sub((*ag).npos, (*nei).npos);
            diff[1] = 0.0;
            let reach = (*ag).params.radius + (*nei).params.radius;
            let dist_sqr = len_sqr(diff);
            if dist_sqr > reach * reach {
                continue;
            }
            let dist = dist_sqr.sqrt();
            let mut pen = reach - dist;
            if dist < 0.0001 {
                let dv = (*ag).dvel;
                diff = if i > j {
                    [-dv[2], 0.0, dv[0]]
                } else {
                    [dv[2], 0.0, -dv[0]]
                };
                pen = 0.01;
            } else {
                pen = (1.0 / dist) * (pen * 0.5) * RESOLVE_FACTOR;
            }
            disp = mad(disp, diff, pen);
            w += 1.0;
        }
        if w > 0.0001 {
            disp = scale(disp, 1.0 / w);
        }
        (*ag).disp = disp;
    }
}

/// Moves agent `i` (walking agents) by its displacement.
///
/// # Safety
/// As [`displacement`].
pub(super) unsafe fn apply(view: CrowdView, i: usize) {
    // SAFETY: agent `i` is this task's.
    unsafe {
        let ag = view.agent(i);
        if (*ag).state == STATE_WALKING {
            (*ag).npos = add((*ag).npos, (*ag).disp);
        }
    }
}
