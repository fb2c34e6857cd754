//! Building navmeshes from geometry: settings, the Solo Mesh pipeline as named stages (and the
//! walkable spans behind the mesh-derived grid), and tiled builds on every core.

pub mod budget;
mod counts;
mod offmesh;
mod pipeline;
mod snapshot;
mod solo;
mod spans;
mod stages;
pub mod tiled;

pub use crate::settings::{
    MAX_BUILD_COORDINATE, MAX_BV_CELLS, MAX_GRID_CELLS, MAX_SPAN_HEIGHT, MIN_CELL_ULPS,
    SettingField, VoxelConfig,
};
pub use budget::{Budget, BuildEstimate, BuildKind, CancelToken, StrayVertices, estimate};
pub use counts::{StageCounts, TileBuildCounts};
pub(crate) use offmesh::off_mesh_issues;
pub use offmesh::{LinkEnd, OffMeshIssue, OffMeshProblem};
pub(crate) use pipeline::{TileTris, detour_tile, stage_timings, tile_walkable_area};
pub use solo::*;
pub(crate) use spans::build_walkable_spans;
pub use spans::{SPAN_DIRS, WalkableSpan, WalkableSpans};
pub(crate) use stages::OffMeshArrays;
pub use stages::{MAX_COMPACT_SPANS, MAX_SPANS_PER_COLUMN};
