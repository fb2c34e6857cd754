//! RecastDemo's Solo Mesh pipeline, one function per Recast stage, each in its own file, named
//! as Recast names the stage. Solo builds, the tiles of tiled builds, the walkable spans of the
//! mesh-derived grid and the tile cache's layers all run these functions, in this order
//! ([`crate::build::pipeline`] strings them together). Each checks the build's budget before
//! it starts (and the rasterizer before every batch of triangles, the partition and the
//! contours inside Recast).
//!
//! | stage ([`Stage`]) | function | Recast call | what it does |
//! |---|---|---|---|
//! | `rasterize` | [`rasterize_triangles`] | `rcMarkWalkableTriangles`, `rcRasterizeTriangles` | marks triangles no steeper than the max slope walkable and voxelizes them into a heightfield of spans |
//! | `filter_low_hanging_obstacles` | [`filter_low_hanging_obstacles`] | `rcFilterLowHangingWalkableObstacles` | lets agents step over curbs and stairs: spans within climb of a walkable span below become walkable |
//! | `filter_ledge_spans` | [`filter_ledge_spans`] | `rcFilterLedgeSpans` | removes walkable spans at ledges, where a neighbour drops more than the climb |
//! | `filter_walkable_low_height_spans` | [`filter_walkable_low_height_spans`] | `rcFilterWalkableLowHeightSpans` | removes walkable spans with less headroom than the agent's height |
//! | `compact_heightfield` | [`build_compact_heightfield`] | `rcBuildCompactHeightfield` | keeps only the open space above walkable spans, with neighbour links |
//! | `erode` | [`erode_walkable_area`] | `rcErodeWalkableArea` | shrinks the walkable area by the agent radius |
//! | `mark_convex_volumes` | [`mark_convex_volumes`] | `rcMarkConvexPolyArea` | stamps the area ids of the input's convex volumes |
//! | `partition` | [`build_regions`] | `rcBuildDistanceField` + `rcBuildRegions`, or `rcBuildRegionsMonotone`, or `rcBuildLayerRegions` | splits the walkable area into simple regions |
//! | `contours` | [`build_contours`] | `rcBuildContours` | traces and simplifies region outlines |
//! | `poly_mesh` | [`build_poly_mesh`] | `rcBuildPolyMesh` | triangulates the contours and merges triangles into convex polygons |
//! | `detail_mesh` | [`build_poly_mesh_detail`] | `rcBuildPolyMeshDetail` | adds height detail to every polygon |
//! | `detour_data` | [`create_detour_data`] | `dtCreateNavMeshData` | sets RecastDemo's areas and flags, triangulates again any polygon the detail mesh left without an outline triangle, and packs the tile with off-mesh connections |

mod compact;
mod contours;
mod convex_volumes;
mod detail_mesh;
mod detail_repair;
mod detour_data;
mod erode;
mod filter;
mod poly_mesh;
mod rasterize;
mod regions;

pub use compact::{MAX_COMPACT_SPANS, MAX_SPANS_PER_COLUMN};
pub(crate) use compact::{build_compact_heightfield, check_compact_limits};
pub(crate) use contours::build_contours;
pub(crate) use convex_volumes::mark_convex_volumes;
pub(crate) use detail_mesh::build_poly_mesh_detail;
pub(crate) use detour_data::{OffMeshArrays, create_detour_data};
pub(crate) use erode::erode_walkable_area;
pub(crate) use filter::{
    filter_ledge_spans, filter_low_hanging_obstacles, filter_walkable_low_height_spans,
};
pub(crate) use poly_mesh::build_poly_mesh;
pub(crate) use rasterize::{TriChunk, TriIds, rasterize_triangles};
pub(crate) use regions::build_regions;

use crate::Error;
use crate::ffi::context::{LogCategory, RecastContext};
use crate::stage::Stage;

/// The error of a Recast call that failed in `stage`: `what`, then Recast's warnings and
/// errors (taken from the context).
fn fail(ctx: &mut RecastContext, stage: Stage, what: &str) -> Error {
    let logs = ctx.take_logs();
    let mut message = what.to_string();
    for l in logs.iter().filter(|l| l.category != LogCategory::Progress) {
        message.push_str("; ");
        message.push_str(&l.text);
    }
    Error::Build { stage, message }
}
