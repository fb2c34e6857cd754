//! Debug-draw layers ([`navkit::debug_draw`]) as the page's JSON layer entries.
//!
//! An entry is one batch of one layer: `name` (the layer's), `kind` (`tris`, `lines` or
//! `points`), `count` (vertices), `size` (line width or point size in pixels), `dash`
//! (`solid`, `dashed` or `dotted`), `positions_b64` (little-endian `f32` x, y, z per vertex,
//! base64) and `colors_b64` (r, g, b, a bytes per vertex, base64). A layer with primitives of
//! several kinds or styles gives several entries of the same name. The page also accepts
//! `positions` and `colors` as plain JSON arrays (for overlays made in the page).
//!
//! Responses are bounded: a layer of more than [`MAX_LAYER_VERTICES`] vertices (or more than
//! what is left of the answer's [`MAX_RESPONSE_VERTICES`]) is thinned to its horizontal
//! triangles (the tops and bottoms of the heightfield's boxes), `decimated` saying so; if that is still too
//! much it is sent without its data, with an `omitted` message saying why and what to change.

use base64::Engine as _;
use serde_json::{Value, json};

use navkit::debug_draw::{Dash, Layer, Primitive, PrimitiveKind};

/// The most vertices one layer may have in an answer (16 bytes each before base64).
pub const MAX_LAYER_VERTICES: usize = 1_500_000;
/// The most vertices of all layers of one answer.
pub const MAX_RESPONSE_VERTICES: usize = 3_000_000;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn kind_name(k: PrimitiveKind) -> &'static str {
    match k {
        PrimitiveKind::Points => "points",
        PrimitiveKind::Lines => "lines",
        PrimitiveKind::Triangles => "tris",
    }
}

fn dash_name(d: Dash) -> &'static str {
    match d {
        Dash::Solid => "solid",
        Dash::Dashed => "dashed",
        Dash::Dotted => "dotted",
    }
}

/// The vertex count of a layer.
pub fn vertex_count(layer: &Layer) -> usize {
    layer
        .primitives
        .iter()
        .map(|p| match p {
            Primitive::Point { .. } => 1,
            Primitive::Line { .. } => 2,
            Primitive::Triangle { .. } => 3,
        })
        .sum()
}

/// The positions and colours of a run of primitives, as bytes.
#[derive(Default)]
struct Batch {
    pos: Vec<u8>,
    col: Vec<u8>,
    count: usize,
}

impl Batch {
    fn push(&mut self, p: &Primitive) {
        let c = p.color().to_array();
        for v in p.vertices() {
            for x in v.to_array() {
                self.pos.extend_from_slice(&x.to_le_bytes());
            }
            self.col.extend_from_slice(&c);
            self.count += 1;
        }
    }
}

/// `layer`'s entries, one per kind and style, in order of first appearance; `extra` (an
/// object) is merged into each (`shown`, `group`, ...). `budget` is what is left of the
/// answer's vertices; the entries' vertices are taken from it.
pub fn entries(layer: &Layer, extra: &Value, budget: &mut usize) -> Vec<Value> {
    let base = |kind: &str, count: usize| {
        let mut v = json!({"name": layer.name, "kind": kind, "count": count});
        if let (Some(o), Some(e)) = (v.as_object_mut(), extra.as_object()) {
            for (k, x) in e {
                o.insert(k.clone(), x.clone());
            }
        }
        v
    };
    let total = vertex_count(layer);
    let limit = MAX_LAYER_VERTICES.min(*budget);
    let mut decimated = None;
    let thinned;
    let layer = if total > limit {
        thinned = upward_faces(layer);
        let n = vertex_count(&thinned);
        if n > limit || n == 0 {
            let mut v = base("tris", total);
            v["omitted"] = json!(format!(
                "{} has {total} vertices ({n} in horizontal faces), more than the {limit} the \
                 viewer sends for one layer now (at most {MAX_LAYER_VERTICES} a layer, \
                 {MAX_RESPONSE_VERTICES} an answer): use a bigger cell size or build bounds \
                 to look at it",
                layer.name
            ));
            return vec![v];
        }
        decimated = Some(format!(
            "{} has {total} vertices, more than the {limit} the viewer sends for one layer \
             now: only its {n} vertices of horizontal triangles (tops and bottoms, no sides) are sent",
            layer.name
        ));
        &thinned
    } else {
        layer
    };
    *budget -= vertex_count(layer);
    let mut batches: Vec<((PrimitiveKind, u32, Dash), Batch)> = Vec::new();
    for p in &layer.primitives {
        let style = p.style();
        let key = (p.kind(), style.size.to_bits(), style.dash);
        match batches.iter_mut().find(|(k, _)| *k == key) {
            Some((_, b)) => b.push(p),
            None => {
                let mut b = Batch::default();
                b.push(p);
                batches.push((key, b));
            }
        }
    }
    batches
        .into_iter()
        .map(|((kind, size, dash), b)| {
            let mut v = base(kind_name(kind), b.count);
            v["size"] = json!(f32::from_bits(size));
            v["dash"] = json!(dash_name(dash));
            v["positions_b64"] = json!(b64(&b.pos));
            v["colors_b64"] = json!(b64(&b.col));
            if let Some(d) = &decimated {
                v["decimated"] = json!(d);
            }
            v
        })
        .collect()
}

/// The horizontal triangles of `layer` (|normal y| > 0.5: the tops and bottoms of the
/// heightfield's boxes, without their sides), nothing else.
fn upward_faces(layer: &Layer) -> Layer {
    let mut out = Layer::new(layer.name.clone());
    out.primitives = layer
        .primitives
        .iter()
        .filter(|p| match p {
            Primitive::Triangle { verts, .. } => {
                let n = (verts[1] - verts[0])
                    .cross(verts[2] - verts[0])
                    .normalize_or_zero();
                n.y.abs() > 0.5
            }
            _ => false,
        })
        .copied()
        .collect();
    out
}

/// The colours of a layer's vertices (r, g, b, a each), base64: for a layer drawn in another
/// colouring with the same primitives in the same order.
pub fn colors_b64(layer: &Layer) -> String {
    let mut b = Batch::default();
    for p in &layer.primitives {
        b.push(p);
    }
    b64(&b.col)
}
