//! Building navmeshes from geometry: settings, the Solo Mesh pipeline as named stages (and the
//! walkable spans behind the mesh-derived grid), and tiled builds on every core.

pub mod budget;
mod counts;
pub mod settings;
mod snapshot;
mod solo;
mod spans;
mod stage;
pub mod tiled;

pub use budget::{Budget, BuildEstimate, CancelToken, StrayVertices, estimate};
pub use counts::{StageCounts, TileBuildCounts};
pub use solo::*;
pub use spans::{SPAN_DIRS, WalkableSpan, WalkableSpans, build_walkable_spans};
