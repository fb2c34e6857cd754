//! Arrays at the edge: what Python hands in (numpy arrays of any real dtype, lists, tuples) is
//! checked once, for dtype, shape and finite values, with errors that name the argument
//! (float32 and float64 point arrays are read where they lie; other dtypes are converted); what
//! goes back out is a numpy array that owns the Rust buffer (no copy).

use navkit::glam::Vec3;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray};
use numpy::{PyUntypedArrayMethods, dtype};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// `obj` as a numpy array of float64 (a float32 array is widened; integer arrays convert),
/// or a `TypeError` naming `name` for anything that is not an array of real numbers.
/// Also gives the dtype's kind as it came (`b'f'`, `b'i'` or `b'u'`).
fn as_f64_array<'py>(
    obj: &Bound<'py, PyAny>,
    name: &str,
) -> PyResult<(Bound<'py, PyUntypedArray>, u8)> {
    let py = obj.py();
    let np = py.import("numpy")?;
    let arr = match obj.cast::<PyUntypedArray>() {
        Ok(a) => a.clone(),
        Err(_) => np
            .call_method1("asarray", (obj,))
            .and_then(|a| Ok(a.cast_into::<PyUntypedArray>()?))
            .map_err(|e| {
                PyTypeError::new_err(format!("`{name}` must be an array of numbers: {e}"))
            })?,
    };
    let kind = arr.dtype().kind();
    if !matches!(kind, b'f' | b'i' | b'u') {
        return Err(PyTypeError::new_err(format!(
            "`{name}` must be an array of real numbers, not dtype {}",
            arr.dtype()
        )));
    }
    if arr.dtype().is_equiv_to(&dtype::<f64>(py)) {
        return Ok((arr, kind));
    }
    let cast = arr.call_method1("astype", ("float64",))?;
    Ok((cast.cast_into::<PyUntypedArray>()?, kind))
}

/// `obj` as a float64 array of shape `(rows, 3)` (`rows` names the row count in the error),
/// and its dtype's kind as it came.
fn rows_of_three<'py>(
    obj: &Bound<'py, PyAny>,
    name: &str,
    rows: &str,
) -> PyResult<(Bound<'py, PyArray2<f64>>, u8)> {
    let (arr, kind) = as_f64_array(obj, name)?;
    if arr.ndim() != 2 || arr.shape()[1] != 3 {
        return Err(PyValueError::new_err(format!(
            "`{name}` must have shape ({rows}, 3), not {:?}",
            arr.shape()
        )));
    }
    Ok((arr.cast_into::<PyArray2<f64>>()?, kind))
}

/// An `(N, 3)` array of points, each finite (in float32).
pub fn points(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<Vec3>> {
    // float32 `(N, 3)` arrays, navkit's own type, are read where they lie; others as float64.
    if let Ok(a) = obj.cast::<PyArray2<f32>>()
        && a.shape()[1] == 3
    {
        let view = a.readonly();
        return rows_to_points(view.as_array(), name);
    }
    let (arr, _) = rows_of_three(obj, name, "N")?;
    let view = arr.readonly();
    rows_to_points(view.as_array(), name)
}

/// The rows of an `(N, 3)` array as points, each finite in float32.
fn rows_to_points<T: Copy + Into<f64>>(
    a: numpy::ndarray::ArrayView2<'_, T>,
    name: &str,
) -> PyResult<Vec<Vec3>> {
    let mut out = Vec::with_capacity(a.nrows());
    for (i, row) in a.rows().into_iter().enumerate() {
        let (x, y, z) = (row[0].into(), row[1].into(), row[2].into());
        let p = Vec3::new(x as f32, y as f32, z as f32);
        if !p.is_finite() {
            return Err(PyValueError::new_err(format!(
                "`{name}[{i}]` is not finite (in float32): [{x}, {y}, {z}]"
            )));
        }
        out.push(p);
    }
    Ok(out)
}

/// One point: a sequence or array of three finite numbers.
pub fn point(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec3> {
    // Lists and tuples of three Python numbers, the common case, without numpy.
    let xyz = if obj.is_instance_of::<PyUntypedArray>() {
        array_point(obj, name)?
    } else {
        match obj.extract::<[f64; 3]>() {
            Ok(xyz) => xyz,
            Err(_) => array_point(obj, name)?,
        }
    };
    let p = Vec3::new(xyz[0] as f32, xyz[1] as f32, xyz[2] as f32);
    if !p.is_finite() {
        return Err(PyValueError::new_err(format!(
            "`{name}` is not finite (in float32): [{}, {}, {}]",
            xyz[0], xyz[1], xyz[2]
        )));
    }
    Ok(p)
}

/// One point through numpy: an array (or anything numpy reads) of shape `(3,)`.
fn array_point(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<[f64; 3]> {
    let (arr, _) = as_f64_array(obj, name)?;
    if arr.shape() != [3] {
        return Err(PyValueError::new_err(format!(
            "`{name}` must be three numbers (x, y, z), not shape {:?}",
            arr.shape()
        )));
    }
    let arr = arr.cast::<PyArray1<f64>>()?;
    let v = arr.readonly();
    let a = v.as_array();
    Ok([a[0], a[1], a[2]])
}

/// An optional point; `None` gives `default`.
pub fn point_or(obj: Option<&Bound<'_, PyAny>>, name: &str, default: Vec3) -> PyResult<Vec3> {
    match obj {
        Some(o) if !o.is_none() => point(o, name),
        _ => Ok(default),
    }
}

/// An `(M, 3)` array of vertex indices, each in `0..vertex_count`, as Recast's `i32`s.
pub fn triangles(obj: &Bound<'_, PyAny>, name: &str, vertex_count: usize) -> PyResult<Vec<i32>> {
    let (arr, kind) = rows_of_three(obj, name, "M")?;
    if kind == b'f' {
        return Err(PyTypeError::new_err(format!(
            "`{name}` must be an integer array (vertex indices), not a float array"
        )));
    }
    let view = arr.readonly();
    let a = view.as_array();
    let mut out = Vec::with_capacity(a.len());
    for (i, &v) in a.iter().enumerate() {
        if !(v >= 0.0 && v < vertex_count as f64 && v.fract() == 0.0) {
            return Err(PyValueError::new_err(format!(
                "`{name}[{}, {}]` = {v} is not a vertex index (0..{vertex_count})",
                i / 3,
                i % 3
            )));
        }
        out.push(v as i32);
    }
    Ok(out)
}

/// `(K, 3)` float32 array of `points`, owning the buffer.
pub fn to_array<'py>(py: Python<'py>, points: &[Vec3]) -> Bound<'py, PyArray2<f32>> {
    let flat: Vec<f32> = points.iter().flat_map(|p| p.to_array()).collect();
    Array2::from_shape_vec((points.len(), 3), flat)
        .expect("3 floats per point")
        .into_pyarray(py)
}

/// A 1-D array owning `v`.
pub fn to_array1<'py, T: numpy::Element>(py: Python<'py>, v: Vec<T>) -> Bound<'py, PyArray1<T>> {
    v.into_pyarray(py)
}

/// One point (three numbers) or an `(N, 3)` array of points: the points, and whether it was
/// one (whose answer is then a scalar rather than an array).
pub fn one_or_many(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<(Vec<Vec3>, bool)> {
    let one = if obj.is_instance_of::<PyUntypedArray>() {
        obj.cast::<PyUntypedArray>()?.ndim() == 1
    } else {
        obj.extract::<[f64; 3]>().is_ok()
    };
    if one {
        Ok((vec![point(obj, name)?], true))
    } else {
        Ok((points(obj, name)?, false))
    }
}

/// `half_extents` (three positive numbers), or navkit's default (2, 4, 2).
pub fn half_extents(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Vec3> {
    let half = point_or(obj, "half_extents", navkit::query::DEFAULT_HALF_EXTENTS)?;
    if half.cmple(Vec3::ZERO).any() {
        return Err(PyValueError::new_err(format!(
            "`half_extents` must be positive in x, y and z, not {half}"
        )));
    }
    Ok(half)
}

/// Two `(N, 3)` arrays of the same length, as pairs of rows.
pub fn pairs(
    a: &Bound<'_, PyAny>,
    a_name: &str,
    b: &Bound<'_, PyAny>,
    b_name: &str,
) -> PyResult<Vec<(Vec3, Vec3)>> {
    let (a, b) = (points(a, a_name)?, points(b, b_name)?);
    if a.len() != b.len() {
        return Err(PyValueError::new_err(format!(
            "`{a_name}` has {} rows and `{b_name}` {}: one row of each per query",
            a.len(),
            b.len()
        )));
    }
    Ok(a.into_iter().zip(b).collect())
}

/// One area id (0..=63) per triangle: a 1-D integer array of `count` values.
pub fn area_ids(obj: &Bound<'_, PyAny>, name: &str, count: usize) -> PyResult<Vec<u8>> {
    let (arr, kind) = as_f64_array(obj, name)?;
    if kind == b'f' {
        return Err(PyTypeError::new_err(format!(
            "`{name}` must be an integer array (area ids), not a float array"
        )));
    }
    if arr.shape() != [count] {
        return Err(PyValueError::new_err(format!(
            "`{name}` must have one area per triangle, shape ({count},), not {:?}",
            arr.shape()
        )));
    }
    let arr = arr.cast::<PyArray1<f64>>()?;
    let view = arr.readonly();
    view.as_array()
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if (0.0..=63.0).contains(&v) {
                Ok(v as u8)
            } else {
                Err(PyValueError::new_err(format!(
                    "`{name}[{i}]` = {v} is not an area id (0..=63)"
                )))
            }
        })
        .collect()
}
