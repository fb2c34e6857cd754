//! Separation of agents pressed deep into each other, which DetourCrowd does not undo: its
//! collision step pushes two overlapping agents apart by a share of their overlap averaged
//! with their other pushes, and two agents on top of each other only sideways to their
//! desired velocity, so a crowd pressing on agents against a wall can squeeze two of them
//! onto one point, where they stay while they stand (the bottleneck exit of the crowd suite).
//! After each update, two neighbours closer than [`DEEP`] times the sum of their radii are
//! pushed apart along the line between them (agents on one point: along x, then z in the next
//! round; the one in the higher slot the positive way) to [`APART`] times that sum, each half
//! the way, moved along the navmesh surface as DetourCrowd moves agents (sliding along walls,
//! never off the navmesh); pairs a wall kept deeper than [`DEEP`] are pushed again in a
//! further round or two, so that a push into a wall is made up by the other agent. Agents
//! less deep in each other are left to DetourCrowd. In a crush (more such pairs than a quarter
//! of the agents, e.g. 10,000 agents on nav_test) only that many, the deepest, are pushed per
//! update, so that the separation never costs much beside the update itself.

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
/// Rounds of pushes per update (the first for every pair, the others for pairs still deep).
const ROUNDS: usize = 3;

impl<N: CrowdNavMesh> Crowd<N> {
    /// Pushes apart every pair of neighbours of `snaps` pressed deep into each other (see the
    /// module docs).
    pub(super) fn separate(&mut self, snaps: &[Option<Snap>]) {
        let mut pairs = deep_pairs(snaps, self.max_radius);
        if pairs.is_empty() {
            return;
        }
        // A crush (thousands of agents packed on top of each other) would cost as much again
        // as the update: the deepest pairs only, as many as a quarter of the agents.
        let budget = (snaps.iter().flatten().count() / 4).max(16);
        if pairs.len() > budget {
            let gap = |&(i, j): &(u32, u32)| match (&snaps[i as usize], &snaps[j as usize]) {
                (Some(a), Some(b)) => dist_xz(a.pos, b.pos),
                _ => f32::INFINITY,
            };
            pairs.select_nth_unstable_by(budget, |p, q| gap(p).total_cmp(&gap(q)).then(p.cmp(q)));
            pairs.truncate(budget);
            pairs.sort_unstable();
        }
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
                // Later rounds only for pairs a wall (or another push) kept deep.
                let still = if round == 0 {
                    apart
                } else {
                    DEEP * (si.radius + sj.radius)
                };
                if dist >= still {
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
                    if let Some(q) = self.raw.nudge(k as i32, to.to_array()) {
                        pos[k] = Some(Vec3::from_array(q));
                    }
                }
            }
        }
    }
}

/// Every pair of agents (lower slot first) closer than [`DEEP`] times the sum of their radii.
/// DetourCrowd's neighbours will not do: its proximity grid gives at most 32 agents around
/// one, so in a dense crowd an agent's neighbours can miss the very agent on top of it (and
/// its collision step then does not push them apart at all). Agents go into square cells of
/// [`DEEP`] times the crowd's largest diameter, sorted by cell (row by row), so that a close pair lies
/// in one cell or two touching ones: each agent looks on along its own row to the next cell
/// and at the three cells below it in the next row.
fn deep_pairs(snaps: &[Option<Snap>], max_radius: f32) -> Vec<(u32, u32)> {
    let cell = (2.0 * DEEP * max_radius).max(1e-3);
    // Cell coordinates biased so that neighbouring cells have neighbouring keys across 0 too.
    let at = |v: f32| ((v / cell).floor() as i64 + (1 << 31)).clamp(0, u32::MAX as i64) as u64;
    let key = |x: u64, z: u64| (z << 32) | x;
    let mut items: Vec<Item> = snaps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let s = s.as_ref()?;
            let (x, z) = (at(s.pos.x), at(s.pos.z));
            Some(Item {
                key: key(x, z),
                slot: i as u32,
                pos: s.pos,
                radius: s.radius,
                height: s.height,
            })
        })
        .collect();
    items.sort_unstable_by_key(|it| (it.key, it.slot));
    let mut pairs = Vec::new();
    // Where the next row's cells start for the current agent: it only moves on, as the
    // agents' cells do.
    let mut next = 0;
    for (n, a) in items.iter().enumerate() {
        let (x, z) = (a.key & 0xffff_ffff, a.key >> 32);
        let last_x = (x + 1).min(u32::MAX as u64);
        for b in items[n + 1..]
            .iter()
            .take_while(|b| b.key <= key(last_x, z))
        {
            a.deep_with(b, &mut pairs);
        }
        if z < u32::MAX as u64 {
            let lo = key(x.saturating_sub(1), z + 1);
            while next < items.len() && items[next].key < lo {
                next += 1;
            }
            for b in items[next..]
                .iter()
                .take_while(|b| b.key <= key(last_x, z + 1))
            {
                a.deep_with(b, &mut pairs);
            }
        }
    }
    pairs.sort_unstable();
    pairs
}

/// An agent in [`deep_pairs`]'s cells.
struct Item {
    key: u64,
    slot: u32,
    pos: Vec3,
    radius: f32,
    height: f32,
}

impl Item {
    /// Adds the pair of `self` and `b` to `pairs` if they are closer (xz) than [`DEEP`] times
    /// the sum of their radii on one level (less than half the sum of their heights apart in
    /// y, as DetourCrowd's neighbours).
    fn deep_with(&self, b: &Item, pairs: &mut Vec<(u32, u32)>) {
        if (self.pos.y - b.pos.y).abs() < 0.5 * (self.height + b.height)
            && dist_xz(self.pos, b.pos) < DEEP * (self.radius + b.radius)
        {
            pairs.push((self.slot.min(b.slot), self.slot.max(b.slot)));
        }
    }
}
