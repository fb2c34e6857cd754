//! `navkit.Crowd`: agents walking a navmesh (navkit's `Crowd`, Detour's `dtCrowd` with navkit's
//! behaviours: agents give way, queue and arrive), their positions and velocities as arrays.

use std::sync::{Arc, Mutex, MutexGuard};

use navkit::agents::crowd::{Activity, AgentHandle, AgentParams};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays;
use crate::errors::IntoPy;
use crate::navmesh::NavMesh;
use crate::path::status_name;
use crate::tilecache::{TileCache, obstacle, shapes};

/// The navmesh a crowd walks: shared, or a tile cache it owns (obstacles while it walks).
enum Walked {
    Mesh(navkit::Crowd<Arc<navkit::NavMesh>>),
    Cache(navkit::Crowd<navkit::TileCache>),
}

/// `$body` with `$c` bound to the crowd, whichever navmesh it walks.
macro_rules! with_crowd {
    ($walked:expr, $c:ident => $body:expr) => {
        match $walked {
            Walked::Mesh($c) => $body,
            Walked::Cache($c) => $body,
        }
    };
}

/// A crowd of agents on a navmesh (or on a tile cache it then owns).
///
/// Agents are named by integer handles. `positions()`, `velocities()` and `arrived()` give
/// every agent's (in `handles` order) or the given handles' as arrays.
///
/// >>> crowd = navkit.Crowd(mesh, max_agents=64)
/// >>> a = crowd.add_agents(starts)
/// >>> crowd.set_targets(a, goals)
/// >>> for _ in range(600): crowd.update(0.05)
#[pyclass(module = "navkit", name = "Crowd")]
pub struct Crowd {
    /// In a mutex only so that the class is `Sync`, as PyO3 asks: a `dtCrowd` is not, and
    /// PyO3's borrow checking already gives one caller at a time.
    walked: Mutex<Walked>,
    /// The handle of the agent in each slot.
    slots: Vec<Option<AgentHandle>>,
}

impl Crowd {
    /// The crowd (a panic in an earlier call does not lock it away).
    fn walked(&self) -> MutexGuard<'_, Walked> {
        self.walked.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The navkit handle of Python's `handle`.
    fn handle(&self, handle: i64) -> PyResult<AgentHandle> {
        usize::try_from(handle)
            .ok()
            .and_then(|i| self.slots.get(i).copied().flatten())
            .ok_or_else(|| PyValueError::new_err(format!("no agent has handle {handle}")))
    }

    /// The handles asked for (every agent's, in slot order, if `None`).
    fn handles_of(&self, handles: Option<Vec<i64>>) -> PyResult<Vec<AgentHandle>> {
        match handles {
            None => Ok(self.slots.iter().flatten().copied().collect()),
            Some(hs) => hs.into_iter().map(|h| self.handle(h)).collect(),
        }
    }

    /// One value per agent asked for.
    fn each<T>(
        &self,
        handles: Option<Vec<i64>>,
        f: impl Fn(&navkit::agents::crowd::AgentState) -> T,
    ) -> PyResult<Vec<T>> {
        let hs = self.handles_of(handles)?;
        with_crowd!(&*self.walked(), c => hs
            .iter()
            .map(|&h| c.agent(h).map(|a| f(&a)))
            .collect::<navkit::Result<Vec<T>>>()
            .py_err())
    }

    /// The tile cache's crowd, or a `TypeError` for a crowd on a plain navmesh.
    fn cached<T>(
        &self,
        f: impl FnOnce(&mut navkit::Crowd<navkit::TileCache>) -> navkit::Result<T>,
    ) -> PyResult<T> {
        match &mut *self.walked() {
            Walked::Cache(c) => f(c).py_err(),
            Walked::Mesh(_) => Err(PyTypeError::new_err(
                "obstacles need a crowd made from a TileCache",
            )),
        }
    }
}

/// An activity as Python sees it.
fn activity_name(a: Activity) -> &'static str {
    match a {
        Activity::Idle => "idle",
        Activity::Moving => "moving",
        Activity::Arrived => "arrived",
        Activity::GivingWay => "giving_way",
        Activity::Yielding => "yielding",
        Activity::Queued => "queued",
    }
}

#[pymethods]
impl Crowd {
    /// A crowd on `navmesh` (a `NavMesh`, shared; or a `TileCache`, which the crowd then owns,
    /// so obstacles can come and go while agents walk) of at most `max_agents` agents no wider
    /// than `max_agent_radius`.
    #[new]
    #[pyo3(signature = (navmesh, *, max_agents=128, max_agent_radius=0.6))]
    fn new(navmesh: &Bound<'_, PyAny>, max_agents: usize, max_agent_radius: f32) -> PyResult<Self> {
        let walked = if let Ok(mesh) = navmesh.cast::<NavMesh>() {
            let nav = mesh.get().pool.navmesh().clone();
            Walked::Mesh(navkit::Crowd::shared(nav, max_agents, max_agent_radius).py_err()?)
        } else if let Ok(cache) = navmesh.cast::<TileCache>() {
            let cache = cache.borrow_mut().take()?;
            Walked::Cache(
                navkit::Crowd::with_tile_cache(cache, max_agents, max_agent_radius).py_err()?,
            )
        } else {
            return Err(PyTypeError::new_err(
                "`navmesh` must be a navkit.NavMesh or a navkit.TileCache",
            ));
        };
        let capacity = with_crowd!(&walked, c => c.capacity());
        Ok(Crowd {
            walked: Mutex::new(walked),
            slots: vec![None; capacity],
        })
    }

    /// Adds agents at the navmesh points nearest `positions` (`(N, 3)`), with RecastDemo's
    /// agent parameters but those given; returns their handles (int64).
    #[pyo3(signature = (positions, *, radius=0.6, height=2.0, max_speed=3.5, max_acceleration=8.0, separation_weight=2.0))]
    #[allow(clippy::too_many_arguments)] // Python's keywords, one each
    fn add_agents<'py>(
        &mut self,
        py: Python<'py>,
        positions: &Bound<'py, PyAny>,
        radius: f32,
        height: f32,
        max_speed: f32,
        max_acceleration: f32,
        separation_weight: f32,
    ) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
        let pts = arrays::points(positions, "positions")?;
        let params = AgentParams {
            height,
            max_speed,
            max_acceleration,
            separation_weight,
            ..AgentParams::with_radius(radius)
        };
        let mut out = Vec::with_capacity(pts.len());
        for (i, p) in pts.into_iter().enumerate() {
            let h = with_crowd!(&mut *self.walked(), c => c.add_agent(p, params))
                .map_err(|e| crate::errors::in_batch(i, e))?;
            self.slots[h.index()] = Some(h);
            out.push(h.index() as i64);
        }
        Ok(arrays::to_array1(py, out))
    }

    /// Removes an agent; its handle may be given to a later agent.
    fn remove_agent(&mut self, handle: i64) -> PyResult<()> {
        let h = self.handle(handle)?;
        with_crowd!(&mut *self.walked(), c => c.remove_agent(h)).py_err()?;
        self.slots[h.index()] = None;
        Ok(())
    }

    /// Sends each agent of `handles` to its row of `targets` (`(N, 3)`): it plans a path there
    /// and walks it.
    fn set_targets(&mut self, handles: Vec<i64>, targets: &Bound<'_, PyAny>) -> PyResult<()> {
        let pts = arrays::points(targets, "targets")?;
        if pts.len() != handles.len() {
            return Err(PyValueError::new_err(format!(
                "{} handles and {} targets: one target per agent",
                handles.len(),
                pts.len()
            )));
        }
        for (i, (&h, p)) in handles.iter().zip(pts).enumerate() {
            let h = self.handle(h)?;
            with_crowd!(&mut *self.walked(), c => c.request_move_target(h, p))
                .map_err(|e| crate::errors::in_batch(i, e))?;
        }
        Ok(())
    }

    /// Advances every agent by `dt` seconds (0 < dt <= 1); for a crowd on a tile cache, the
    /// obstacles' tile rebuilds run first. The GIL is released.
    fn update(&mut self, py: Python<'_>, dt: f32) -> PyResult<()> {
        let walked = self.walked.get_mut().unwrap_or_else(|e| e.into_inner());
        py.detach(|| match walked {
            Walked::Mesh(c) => c.update(dt).py_err(),
            Walked::Cache(c) => {
                c.tile_cache_mut().update_until_done().py_err()?;
                c.update(dt).py_err()
            }
        })
    }

    /// Every live agent's handle, in slot order (int64).
    #[getter]
    fn handles<'py>(&self, py: Python<'py>) -> Bound<'py, numpy::PyArray1<i64>> {
        let hs = self
            .slots
            .iter()
            .flatten()
            .map(|h| h.index() as i64)
            .collect();
        arrays::to_array1(py, hs)
    }

    /// The agents' positions, `(N, 3)` float32 (every agent's, or `handles`').
    #[pyo3(signature = (handles=None))]
    fn positions<'py>(
        &self,
        py: Python<'py>,
        handles: Option<Vec<i64>>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
        Ok(arrays::to_array(py, &self.each(handles, |a| a.position)?))
    }

    /// The agents' velocities, `(N, 3)` float32 (every agent's, or `handles`').
    #[pyo3(signature = (handles=None))]
    fn velocities<'py>(
        &self,
        py: Python<'py>,
        handles: Option<Vec<i64>>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
        Ok(arrays::to_array(py, &self.each(handles, |a| a.velocity)?))
    }

    /// Whether each agent has arrived at its target (bool array).
    #[pyo3(signature = (handles=None))]
    fn arrived<'py>(
        &self,
        py: Python<'py>,
        handles: Option<Vec<i64>>,
    ) -> PyResult<Bound<'py, numpy::PyArray1<bool>>> {
        let done = self.each(handles, |a| a.activity == Activity::Arrived)?;
        Ok(arrays::to_array1(py, done))
    }

    /// One agent's state: position, velocity, target, activity (`"moving"`, `"arrived"`,
    /// `"giving_way"` ...), path status and the corners it steers for.
    fn agent<'py>(&self, py: Python<'py>, handle: i64) -> PyResult<Bound<'py, PyDict>> {
        let h = self.handle(handle)?;
        let a = with_crowd!(&*self.walked(), c => c.agent(h)).py_err()?;
        let d = PyDict::new(py);
        d.set_item("position", a.position.to_array())?;
        d.set_item("velocity", a.velocity.to_array())?;
        d.set_item("target", a.target.to_array())?;
        d.set_item("activity", activity_name(a.activity))?;
        d.set_item("path_status", status_name(a.path_status))?;
        d.set_item("corners", arrays::to_array(py, &a.corners))?;
        d.set_item("off_mesh", a.off_mesh)?;
        Ok(d)
    }

    /// Adds an upright cylinder obstacle (a crowd on a tile cache only); returns its handle.
    fn add_cylinder(&mut self, pos: &Bound<'_, PyAny>, radius: f32, height: f32) -> PyResult<i64> {
        let shape = shapes::cylinder(pos, radius, height)?;
        let r = self.cached(|c| c.tile_cache_mut().add(&shape))?;
        Ok(i64::from(r.0))
    }

    /// Removes an obstacle (a crowd on a tile cache only).
    fn remove_obstacle(&mut self, handle: i64) -> PyResult<()> {
        let r = obstacle(handle)?;
        self.cached(|c| c.tile_cache_mut().remove(r))
    }

    fn __len__(&self) -> usize {
        self.slots.iter().flatten().count()
    }

    fn __repr__(&self) -> String {
        let on = match *self.walked() {
            Walked::Mesh(_) => "a navmesh",
            Walked::Cache(_) => "a tile cache",
        };
        format!(
            "<navkit.Crowd: {} of {} agents on {on}>",
            self.__len__(),
            self.slots.len()
        )
    }
}
