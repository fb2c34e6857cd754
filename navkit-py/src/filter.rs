//! `navkit.QueryFilter`: which polygons a query may visit and what each area costs.

use navkit::query::QueryFilter as Filter;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

/// Which polygons a query may visit (by their flags) and what each area (0..=63) costs.
///
/// The default is RecastDemo's: every flag but `DISABLED` (0x10), ground, road and door cost 1,
/// water 10, grass 2, jump 1.5.
///
/// >>> f = navkit.QueryFilter(area_costs={navkit.AREA_WATER: 100.0})
#[pyclass(module = "navkit", name = "QueryFilter", from_py_object)]
#[derive(Clone, Default)]
pub struct QueryFilter {
    pub inner: Filter,
}

impl QueryFilter {
    /// The filter given, or RecastDemo's.
    pub fn or_default(filter: Option<QueryFilter>) -> Filter {
        filter.map(|f| f.inner).unwrap_or_default()
    }
}

/// `area` as an area id, or a `ValueError` naming it.
fn area_id(area: i64) -> PyResult<u8> {
    u8::try_from(area)
        .ok()
        .filter(|a| *a <= 63)
        .ok_or_else(|| PyValueError::new_err(format!("area {area} is not an area id (0..=63)")))
}

/// `flags` as 16 polygon flag bits, or a `ValueError` naming `what`.
fn flag_bits(flags: i64, what: &str) -> PyResult<u16> {
    u16::try_from(flags)
        .map_err(|_| PyValueError::new_err(format!("`{what}` {flags} is not 16 bits of flags")))
}

#[pymethods]
impl QueryFilter {
    /// RecastDemo's filter, with these flags and area costs changed.
    #[new]
    #[pyo3(signature = (*, include_flags=None, exclude_flags=None, area_costs=None))]
    fn new(
        include_flags: Option<i64>,
        exclude_flags: Option<i64>,
        area_costs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let mut f = QueryFilter::default();
        if let Some(i) = include_flags {
            f.inner.set_include_flags(flag_bits(i, "include_flags")?);
        }
        if let Some(e) = exclude_flags {
            f.inner.set_exclude_flags(flag_bits(e, "exclude_flags")?);
        }
        if let Some(costs) = area_costs {
            for (a, c) in costs.iter() {
                f.set_area_cost(a.extract()?, c.extract()?)?;
            }
        }
        Ok(f)
    }

    /// Polygons with none of these flags are never visited.
    #[getter]
    fn include_flags(&self) -> u16 {
        self.inner.include_flags()
    }

    #[setter]
    fn set_include_flags(&mut self, flags: i64) -> PyResult<()> {
        self.inner
            .set_include_flags(flag_bits(flags, "include_flags")?);
        Ok(())
    }

    /// Polygons with any of these flags are never visited.
    #[getter]
    fn exclude_flags(&self) -> u16 {
        self.inner.exclude_flags()
    }

    #[setter]
    fn set_exclude_flags(&mut self, flags: i64) -> PyResult<()> {
        self.inner
            .set_exclude_flags(flag_bits(flags, "exclude_flags")?);
        Ok(())
    }

    /// The cost per metre of crossing `area` (a multiplier of the distance).
    fn area_cost(&self, area: i64) -> PyResult<f32> {
        Ok(self.inner.area_cost(area_id(area)?))
    }

    /// Sets the cost of `area`: a finite number, 0 or more.
    fn set_area_cost(&mut self, area: i64, cost: f64) -> PyResult<()> {
        let a = area_id(area)?;
        if !(cost.is_finite() && cost >= 0.0 && cost <= f64::from(f32::MAX)) {
            return Err(PyValueError::new_err(format!(
                "the cost of area {a} must be a finite number >= 0, not {cost}"
            )));
        }
        self.inner.set_area_cost(a, cost as f32);
        Ok(())
    }

    /// A filter from `__reduce__`'s state: the flags and all 64 area costs.
    #[staticmethod]
    fn _from_state(include_flags: i64, exclude_flags: i64, costs: Vec<f64>) -> PyResult<Self> {
        let mut f = QueryFilter::new(Some(include_flags), Some(exclude_flags), None)?;
        for (a, c) in costs.into_iter().enumerate().take(64) {
            f.set_area_cost(a as i64, c)?;
        }
        Ok(f)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let f = slf.borrow();
        let costs: Vec<f32> = (0..64u8).map(|a| f.inner.area_cost(a)).collect();
        let state = (f.inner.include_flags(), f.inner.exclude_flags(), costs).into_pyobject(py)?;
        let ctor = py.get_type::<QueryFilter>().getattr("_from_state")?;
        PyTuple::new(py, [ctor, state.into_any()])
    }

    fn __repr__(&self) -> String {
        let costs: Vec<String> = (0..64u8)
            .filter(|&a| self.inner.area_cost(a) != 1.0)
            .map(|a| format!("{a}: {}", self.inner.area_cost(a)))
            .collect();
        format!(
            "QueryFilter(include_flags={:#06x}, exclude_flags={:#06x}, area_costs={{{}}})",
            self.inner.include_flags(),
            self.inner.exclude_flags(),
            costs.join(", ")
        )
    }
}
