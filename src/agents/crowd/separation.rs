//! Separation of agents pressed deep into each other, which DetourCrowd does not undo: its
//! collision step pushes two overlapping agents apart by a share of their overlap averaged
//! with their other pushes, and two agents on top of each other only sideways to their
//! desired velocity, so a crowd pressing on agents against a wall can squeeze two of them
//! onto one point, where they stay while they stand (the bottleneck exit of the crowd suite).
//! After each update, two neighbours closer than [`DEEP`] times the sum of their radii are
//! pushed apart along the line between them (agents on one point: along x, then z in the next
//! round; the one in the higher slot the positive way) to [`APART`] times that sum, each half
//! the way, moved along the navmesh surface as DetourCrowd moves agents (sliding along walls,
//! never off the navmesh), over a few rounds so that a push into a wall is made up by the
//! other agent. Agents less deep in each other are left to DetourCrowd.

use glam::Vec3;

use super::mind::Snap;
use super::polyline::{dist_xz, flat};
use super::{Crowd, CrowdNavMesh};

/// Neighbours whose centres are closer than this share of the sum of their radii are pushed
/// apart (an overlap deeper than half the sum; DetourCrowd's crowds in the suite stay below a
/// quarter but in the bottleneck).
pub(super) const DEEP: f32 = 0.5;
/// How far apart they are pushed, as a share of the sum of their radii.
pub(super) const APART: f32 = 0.6;
/// Rounds of pushes per update.
const ROUNDS: usize = 3;

impl<N: CrowdNavMesh> Crowd<N> {
    /// Pushes apart every pair of neighbours of `snaps` pressed deep into each other (see the
    /// module docs).
    pub(super) fn separate(&mut self, snaps: &[Option<Snap>]) {
        let mut pairs = deep_pairs(snaps);
        if pairs.is_empty() {
            return;
        }
        pairs.sort_unstable();
        pairs.dedup();
        let mut pos: Vec<Option<Vec3>> = snaps.iter().map(|s| s.map(|s| s.pos)).collect();
        for round in 0..ROUNDS {
            for &(i, j) in &pairs {
                let (i, j) = (i as usize, j as usize);
                let (Some(pi), Some(pj), Some(si), Some(sj)) = (pos[i], pos[j], snaps[i], snaps[j])
                else {
                    continue;
                };
                let d = flat(pj - pi);
                let dist = d.length();
                let apart = APART * (si.radius + sj.radius);
                if dist >= apart {
                    continue;
                }
                let dir = if dist > 1e-3 {
                    d / dist
                } else if round % 2 == 0 {
                    Vec3::X
                } else {
                    Vec3::Z
                };
                let half = dir * (0.5 * (apart - dist));
                for (k, to) in [(i, pi - half), (j, pj + half)] {
                    let r = self.raw.nudge(k as i32, to.to_array());
                    if let Some(q) = r {
                        pos[k] = Some(Vec3::from_array(q));
                    }
                }
            }
        }
    }
}

/// True when `a` and `b` are closer (xz) than [`DEEP`] times the sum of their radii, on one
/// level (less than half the sum of their heights apart in y, as DetourCrowd's neighbours).
fn deep(a: &Snap, b: &Snap) -> bool {
    (a.pos.y - b.pos.y).abs() < 0.5 * (a.height + b.height)
        && dist_xz(a.pos, b.pos) < DEEP * (a.radius + b.radius)
}

/// Every pair of agents (lower slot first) closer than [`DEEP`] times the sum of their radii.
/// DetourCrowd's neighbours will not do: its proximity grid gives at most 32 agents around
/// one, so in a dense crowd an agent's neighbours can miss the very agent on top of it (and
/// its collision step then does not push them apart at all). Agents go into square cells of
/// [`DEEP`] times the largest diameter, sorted by cell (row by row), so that a close pair lies
/// in one cell or two touching ones: three runs of cells per agent to look at.
fn deep_pairs(snaps: &[Option<Snap>]) -> Vec<(u32, u32)> {
    let live = || {
        snaps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| Some((i, s.as_ref()?)))
    };
    let widest = live().map(|(_, s)| s.radius).fold(0.0f32, f32::max);
    let cell = (2.0 * DEEP * widest).max(1e-3);
    let at = |p: Vec3| ((p.x / cell).floor() as i64, (p.z / cell).floor() as i64);
    // Biased so that neighbouring cells have neighbouring keys across 0 too.
    let half = |v: i64| (v + (1 << 31)).clamp(0, u32::MAX as i64) as u64;
    let key = |(x, z): (i64, i64)| (half(z) << 32) | half(x);
    let mut cells: Vec<(u64, u32)> = live().map(|(i, s)| (key(at(s.pos)), i as u32)).collect();
    cells.sort_unstable();
    let mut pairs = Vec::new();
    for &(_, i) in &cells {
        let si = snaps[i as usize].as_ref().expect("live");
        let (x, z) = at(si.pos);
        for dz in -1..=1 {
            let (lo, hi) = (key((x - 1, z + dz)), key((x + 1, z + dz)));
            let from = cells.partition_point(|&(k, _)| k < lo);
            for &(k, j) in &cells[from..] {
                if k > hi {
                    break;
                }
                let sj = snaps[j as usize].as_ref().expect("live");
                if j > i && deep(si, sj) {
                    pairs.push((i, j));
                }
            }
        }
    }
    pairs
}
