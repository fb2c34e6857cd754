//! `navkit.BuildSettings`: navkit's [`BuildSettings`](navkit::BuildSettings) (RecastDemo's
//! defaults), each field an attribute checked when it is set, round-tripping through JSON.

use navkit::{Aabb, BuildSettings as Settings, Partition, glam::Vec3};
use pyo3::exceptions::{PyAttributeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors::{IntoPy, SettingError};

/// The switches (true or false) beside the numeric fields of `BuildSettings::FIELDS`.
const SWITCHES: [&str; 3] = [
    "filter_low_hanging_obstacles",
    "filter_ledge_spans",
    "filter_walkable_low_height_spans",
];

/// Every attribute's name, in the order `repr` and `to_dict` give them.
fn names() -> Vec<&'static str> {
    let mut v: Vec<&str> = Settings::FIELDS.iter().map(|f| f.name).collect();
    v.extend(["partition", "bounds"]);
    v.extend(SWITCHES);
    v
}

/// Build settings: RecastDemo's defaults, every field a checked attribute.
///
/// >>> s = navkit.BuildSettings(agent_radius=0.4)
/// >>> s.cell_size
/// 0.3...
#[pyclass(module = "navkit", name = "BuildSettings", eq, from_py_object)]
#[derive(Clone, PartialEq)]
pub struct BuildSettings {
    pub inner: Settings,
}

impl BuildSettings {
    /// Sets one attribute, checked.
    fn set(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        if let Some(f) = Settings::FIELDS.iter().find(|f| f.name == name) {
            let v: f64 = value.extract().map_err(|_| {
                PyTypeError::new_err(format!("setting `{name}` must be a number, not {value}"))
            })?;
            if value.is_instance_of::<pyo3::types::PyBool>() {
                return Err(PyTypeError::new_err(format!(
                    "setting `{name}` must be a number, not a bool"
                )));
            }
            f.check(v).py_err()?;
            (f.set)(&mut self.inner, v as f32);
            return Ok(());
        }
        let s = &mut self.inner;
        match name {
            "partition" => {
                let text: String = value.extract().map_err(|_| {
                    PyTypeError::new_err(
                        "setting `partition` must be a string: 'watershed', 'monotone' or 'layers'",
                    )
                })?;
                s.partition = text.parse::<Partition>().map_err(SettingError::new_err)?;
            }
            "bounds" => s.bounds = bounds(value)?,
            n if SWITCHES.contains(&n) => {
                let b: bool = value.extract().map_err(|_| {
                    PyTypeError::new_err(format!("setting `{n}` must be True or False"))
                })?;
                match n {
                    "filter_low_hanging_obstacles" => s.filter_low_hanging_obstacles = b,
                    "filter_ledge_spans" => s.filter_ledge_spans = b,
                    _ => s.filter_walkable_low_height_spans = b,
                }
            }
            _ => {
                return Err(PyAttributeError::new_err(format!(
                    "BuildSettings has no setting `{name}`; the settings are {}",
                    names().join(", ")
                )));
            }
        }
        Ok(())
    }

    /// One attribute's value.
    fn get<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let s = &self.inner;
        if let Some(f) = Settings::FIELDS.iter().find(|f| f.name == name) {
            let v = (f.get)(s);
            return if f.whole {
                Ok((v as u32).into_pyobject(py)?.into_any())
            } else {
                // The f32 as the shortest decimal that reads back to it (0.3, not 0.30000001).
                let v: f64 = format!("{v}").parse().unwrap_or(f64::from(v));
                Ok(v.into_pyobject(py)?.into_any())
            };
        }
        let b = |v: bool| -> PyResult<Bound<'py, PyAny>> {
            Ok(v.into_pyobject(py)?.to_owned().into_any())
        };
        match name {
            "partition" => Ok(format!("{:?}", s.partition)
                .to_lowercase()
                .into_pyobject(py)?
                .into_any()),
            "bounds" => match s.bounds {
                None => Ok(py.None().into_bound(py)),
                Some(a) => Ok(PyTuple::new(py, [a.min.to_array(), a.max.to_array()])?.into_any()),
            },
            "filter_low_hanging_obstacles" => b(s.filter_low_hanging_obstacles),
            "filter_ledge_spans" => b(s.filter_ledge_spans),
            "filter_walkable_low_height_spans" => b(s.filter_walkable_low_height_spans),
            _ => Err(PyAttributeError::new_err(format!(
                "BuildSettings has no setting `{name}`"
            ))),
        }
    }
}

/// `None`, or `((min x, y, z), (max x, y, z))` with min <= max, finite.
fn bounds(value: &Bound<'_, PyAny>) -> PyResult<Option<Aabb>> {
    if value.is_none() {
        return Ok(None);
    }
    let (lo, hi): ([f32; 3], [f32; 3]) = value.extract().map_err(|_| {
        PyTypeError::new_err("setting `bounds` must be None or ((min x, y, z), (max x, y, z))")
    })?;
    let (lo, hi) = (Vec3::from(lo), Vec3::from(hi));
    if !lo.is_finite() || !hi.is_finite() || lo.cmpgt(hi).any() {
        return Err(SettingError::new_err(format!(
            "setting `bounds` {lo} .. {hi}: both corners must be finite and min <= max"
        )));
    }
    Ok(Some(Aabb::new(lo, hi)))
}

#[pymethods]
impl BuildSettings {
    /// Settings with RecastDemo's defaults, changed by keyword: `BuildSettings(cell_size=0.2)`.
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let mut s = BuildSettings {
            inner: Settings::default(),
        };
        if let Some(kw) = kwargs {
            for (k, v) in kw.iter() {
                s.set(&k.extract::<String>()?, &v)?;
            }
        }
        Ok(s)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        self.get(py, name)
    }

    fn __setattr__(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(name, value)
    }

    fn __dir__(&self) -> Vec<&'static str> {
        let mut v = names();
        v.extend(["to_dict", "to_json", "from_json", "validate"]);
        v
    }

    /// Every setting by name.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for n in names() {
            d.set_item(n, self.get(py, n)?)?;
        }
        Ok(d)
    }

    /// The settings as JSON, the keys of `to_dict` (`BuildSettings.from_json` reads it back).
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string_pretty(&self.inner).map_err(|e| SettingError::new_err(e.to_string()))
    }

    /// Settings from JSON written by `to_json` (or by navkit's `--settings-json`); keys left
    /// out keep their defaults; an unknown key or a value out of range is a `SettingError`.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| SettingError::new_err(format!("settings JSON: {e}")))?;
        let Some(obj) = value.as_object() else {
            return Err(SettingError::new_err("settings JSON must be an object"));
        };
        let known = names();
        if let Some(k) = obj.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(SettingError::new_err(format!(
                "settings JSON: unknown setting `{k}`"
            )));
        }
        let inner: Settings = serde_json::from_value(value)
            .map_err(|e| SettingError::new_err(format!("settings JSON: {e}")))?;
        inner.validate().py_err()?;
        Ok(BuildSettings { inner })
    }

    /// Checks the settings together (each field is checked when set; this also checks what
    /// only a combination gets wrong). Raises `SettingError`.
    fn validate(&self) -> PyResult<()> {
        self.inner.validate().py_err()
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let mut parts = Vec::new();
        for n in names() {
            parts.push(format!("{n}={}", self.get(py, n)?.repr()?));
        }
        Ok(format!("BuildSettings({})", parts.join(", ")))
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let from_json = py.get_type::<BuildSettings>().getattr("from_json")?;
        let json = slf.borrow().to_json()?;
        PyTuple::new(py, [from_json, PyTuple::new(py, [json])?.into_any()])
    }
}
