//! How a [`Crowd`] updates: navkit's own update (the default), which gives DetourCrowd's
//! results to the bit with the per-agent work on several threads, or upstream's
//! `dtCrowd::update`, kept for comparison; the threads; and each agent's neighbours.
//!
//! navkit's update runs the phases of `dtCrowd::update` in the same order over the same
//! agents (DetourCrowd stays the store of agents, paths and parameters): path validity, move
//! requests and the path queue, topology optimisation, the proximity grid, boundaries and
//! neighbours, corners and off-mesh triggers, steering, obstacle avoidance, integration,
//! collision resolution and movement along the navmesh. The per-agent phases run over the
//! agents in parallel, each worker with its own navmesh query (512 nodes, as dtCrowd's own);
//! the obstacle-avoidance sampling is navkit's, which scores the candidate velocities several
//! at a time (SIMD) and picks the one Detour's query picks (6 circles, 8 segments, as
//! dtCrowd's). The budgeted parts (the path queue, topology optimisation) run in agent order
//! on the calling thread. Every result (positions, velocities, corridors) is the same whatever
//! the thread count and processor, and the same as [`CrowdEngine::Upstream`]'s.

use glam::Vec3;

use super::{AgentHandle, Crowd, CrowdNavMesh};
use crate::query::PolyRef;
use crate::{Error, Result};

/// Which update [`Crowd::update`] runs ([`Crowd::set_engine`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum CrowdEngine {
    /// navkit's update: DetourCrowd's results to the bit, the per-agent phases on
    /// [`Crowd::threads`] threads (see the module docs).
    #[default]
    Navkit,
    /// Upstream's `dtCrowd::update`, on the calling thread: for comparisons.
    Upstream,
}

/// How long navkit's last crowd update took ([`Crowd::last_update_timing`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UpdateTiming {
    /// Time in the sequential steps.
    pub sequential: std::time::Duration,
    /// The whole update.
    pub total: std::time::Duration,
}

/// One neighbour of an agent, as found by the last update ([`Crowd::neighbours`]).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Neighbour {
    /// The neighbour.
    pub agent: AgentHandle,
    /// The squared distance between the two on the xz-plane, at the last update.
    pub distance_squared: f32,
}

impl<N: CrowdNavMesh> Crowd<N> {
    /// Runs navkit's update on `threads` threads from now on: with the `parallel` feature, a
    /// pool of that many threads owned by the crowd (1: the calling thread alone); without it,
    /// always the calling thread. The results do not depend on it. A new crowd uses rayon's
    /// global pool (every core). Errors for 0.
    pub fn set_threads(&mut self, threads: usize) -> Result<()> {
        if threads == 0 {
            return Err(Error::InvalidArgument(
                "crowd threads: must be at least 1".to_string(),
            ));
        }
        self.raw.set_threads(Some(threads));
        Ok(())
    }

    /// The threads navkit's update runs its per-agent phases on.
    pub fn threads(&self) -> usize {
        self.raw.threads()
    }

    /// The last update by navkit's engine: the time its sequential steps took (the path queue,
    /// topology optimisation, the proximity grid, the hand-offs between parallel phases) and
    /// its whole time. The sequential share bounds what more threads can gain (Amdahl).
    pub fn last_update_timing(&self) -> UpdateTiming {
        let (sequential, total) = self.raw.timing();
        UpdateTiming { sequential, total }
    }

    /// Chooses the update [`Crowd::update`] runs (navkit's by default).
    pub fn set_engine(&mut self, engine: CrowdEngine) {
        self.engine = engine;
    }

    /// The update [`Crowd::update`] runs.
    pub fn engine(&self) -> CrowdEngine {
        self.engine
    }

    /// The agent's neighbours at the last update (at most 6, nearest first, within its
    /// collision query range): the agents its avoidance, separation and collisions consider.
    /// Empty before its first update and while it is on an off-mesh connection.
    pub fn neighbours(&self, h: AgentHandle) -> Result<Vec<Neighbour>> {
        let idx = self.slot(h)?;
        let (neis, n) = self.raw.neighbours(idx);
        Ok(neis[..n]
            .iter()
            .filter_map(|&(i, distance_squared)| {
                let i = usize::try_from(i).ok()?;
                let &(generation, live) = self.slots.get(i)?;
                live.then_some(Neighbour {
                    agent: AgentHandle {
                        index: i as u32,
                        generation,
                    },
                    distance_squared,
                })
            })
            .collect())
    }

    /// The agent's corridor (the polygons of its path, from the one it stands on) and the
    /// velocity its last update planned (after avoidance, before the acceleration limit).
    pub fn corridor(&self, h: AgentHandle) -> Result<(Vec<PolyRef>, Vec3)> {
        let idx = self.slot(h)?;
        let (path, planned) = self
            .raw
            .corridor(idx)
            .ok_or_else(|| Error::InvalidArgument(format!("no agent in slot {idx}")))?;
        Ok((
            path.into_iter().map(PolyRef).collect(),
            Vec3::from_array(planned),
        ))
    }

    /// One update of `dt` seconds (checked by the caller) with the chosen engine.
    pub(super) fn step(&mut self, dt: f32) {
        match self.engine {
            CrowdEngine::Navkit => self.raw.update(dt),
            CrowdEngine::Upstream => self.raw.update_upstream(dt),
        }
    }
}
