//! The JSON vocabulary every command shares (documented in the README's "Command line"):
//!
//! - `status`: `"complete"`, `"partial"` or `"failed"` for anything that looks for a path;
//! - endpoints are `start` and `goal` (points `[x, y, z]`), their polygons `start_ref`/`goal_ref`;
//! - every value with a unit ends in it: `_m` (world units: metres in the sample levels), `_s`,
//!   `_ms`, `_us`, `_bytes`, `_m_per_s`, `_cells` (grid cells); counts have no suffix;
//! - grid dimensions are a `grid` object (`bmin`, `bmax`, `cell_size_m`, `cells_x`, `cells_z`, ...);
//! - errors are `{"error": {"kind": "...", "message": "..."}}`.

use glam::Vec3;
use serde::Serialize;
use serde_json::{Map, Value};

/// `value` as JSON, with `f32`s printed as `f32`s (shortest round-trip text, not widened to
/// `f64` digits): serialized to text and read back.
pub fn to_json<T: Serialize + ?Sized>(value: &T) -> Value {
    serde_json::to_string(value)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null)
}

/// A point as `[x, y, z]`.
pub fn v3(v: Vec3) -> Value {
    to_json(&[v.x, v.y, v.z])
}

/// An `f32` printed as an `f32` (`null` if not finite).
pub fn num32(x: f32) -> Value {
    to_json(&x)
}

/// The path status word.
pub fn status(complete: bool) -> &'static str {
    if complete { "complete" } else { "partial" }
}

/// Renames keys of an object in place, keeping their order; other values are left alone.
pub fn rename(value: &mut Value, pairs: &[(&str, &str)]) {
    if let Value::Object(map) = value {
        let old = std::mem::take(map);
        let mut new = Map::with_capacity(old.len());
        for (k, v) in old {
            let key = pairs
                .iter()
                .find(|(from, _)| *from == k)
                .map_or(k, |(_, to)| to.to_string());
            new.insert(key, v);
        }
        *map = new;
    }
}

/// Applies [`rename`] to every object of an array (or to the value itself if it is an object).
pub fn rename_each(value: &mut Value, pairs: &[(&str, &str)]) {
    match value {
        Value::Array(items) => items.iter_mut().for_each(|v| rename(v, pairs)),
        v => rename(v, pairs),
    }
}

/// The kind of an error: its variant's name in snake case (`io`, `parse`, `point_off_mesh`,
/// `invalid_argument`, ...), so that scripts can tell errors apart without parsing messages.
pub fn error_kind(e: &navkit::Error) -> String {
    let debug = format!("{e:?}");
    let name: String = debug
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    snake_case(if name.is_empty() { "error" } else { &name })
}

fn snake_case(name: &str) -> String {
    let mut s = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                s.push('_');
            }
            s.push(c.to_ascii_lowercase());
        } else {
            s.push(c);
        }
    }
    s
}

/// `{"kind": "...", "message": "..."}` for an error.
pub fn error_object(e: &navkit::Error) -> Value {
    serde_json::json!({ "kind": error_kind(e), "message": e.to_string() })
}
