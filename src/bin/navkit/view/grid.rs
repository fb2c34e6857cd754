//! `GET /api/grid`: the grid the grid paths run on ([`navkit::grid::mesh::MeshGrid`], built
//! from the geometry with the current settings on first use and kept until the next rebuild),
//! as [`navkit::debug_draw::grid`] draws it: `grid.cells` (a quad per walkable span, in its
//! area's colour, 0.8 of the cell across) and `grid.blocked` (the spans Recast left unwalkable), both off by default,
//! bounded as every layer ([`super::encode`]: big ones are thinned or left out, saying so),
//! with the counts (`walkable`, `blocked`) and the grid's build time.

use serde_json::{Value, json};

use navkit::debug_draw::grid as dd;

use super::State;
use super::encode::{MAX_RESPONSE_VERTICES, entries};
use super::http::Response;

/// The side of a walkable cell's quad, as a fraction of the cell.
const CELL_SCALE: f32 = 0.8;

/// The grid's layers and counts.
pub(super) fn layers(st: &mut State) -> Result<Value, Response> {
    let built_now = st.grid.is_none();
    super::paths::grid(st).map_err(|e| Response::error(422, e))?;
    let Some(g) = st.grid.as_ref() else {
        return Err(Response::error(422, "no grid"));
    };
    let spans = g.spans().spans.len();
    let walkable = g.walkable_count();
    let mut budget = MAX_RESPONSE_VERTICES;
    let mut out = Vec::new();
    // The walkable cells a little smaller than the cell, so that they are told apart over the
    // polys of the same colour.
    for l in [dd::mesh_cells_scaled(g, CELL_SCALE), dd::mesh_blocked(g)] {
        out.extend(entries(
            &l,
            &json!({"shown": false, "group": "grid"}),
            &mut budget,
        ));
    }
    Ok(json!({
        "walkable": walkable,
        "blocked": spans - walkable,
        "cell_size": g.cell_size(),
        "build_ms": st.grid_ms,
        "built_now": built_now,
        "layers": out,
    }))
}
