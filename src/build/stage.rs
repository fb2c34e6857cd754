//! [`Stage`]: the named stages of navkit's builds, as build reports and [`crate::Error::Build`]
//! name them.

use serde::Serialize;

/// A named stage of the solo build (see the module docs for what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// Mark walkable triangles and voxelize them.
    Rasterize,
    /// `rcFilterLowHangingWalkableObstacles`.
    FilterLowHangingObstacles,
    /// `rcFilterLedgeSpans`.
    FilterLedgeSpans,
    /// `rcFilterWalkableLowHeightSpans`.
    FilterWalkableLowHeightSpans,
    /// `rcBuildCompactHeightfield`.
    CompactHeightfield,
    /// `rcErodeWalkableArea`.
    Erode,
    /// `rcMarkConvexPolyArea` for each convex volume.
    MarkConvexVolumes,
    /// Region partitioning (watershed, monotone or layers).
    Partition,
    /// `rcBuildContours`.
    Contours,
    /// `rcBuildPolyMesh`.
    PolyMesh,
    /// `rcBuildPolyMeshDetail`.
    DetailMesh,
    /// `dtCreateNavMeshData` and navmesh creation.
    DetourData,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 12] = [
        Stage::Rasterize,
        Stage::FilterLowHangingObstacles,
        Stage::FilterLedgeSpans,
        Stage::FilterWalkableLowHeightSpans,
        Stage::CompactHeightfield,
        Stage::Erode,
        Stage::MarkConvexVolumes,
        Stage::Partition,
        Stage::Contours,
        Stage::PolyMesh,
        Stage::DetailMesh,
        Stage::DetourData,
    ];

    /// The stage's name (as in JSON reports).
    pub fn name(self) -> &'static str {
        match self {
            Stage::Rasterize => "rasterize",
            Stage::FilterLowHangingObstacles => "filter_low_hanging_obstacles",
            Stage::FilterLedgeSpans => "filter_ledge_spans",
            Stage::FilterWalkableLowHeightSpans => "filter_walkable_low_height_spans",
            Stage::CompactHeightfield => "compact_heightfield",
            Stage::Erode => "erode",
            Stage::MarkConvexVolumes => "mark_convex_volumes",
            Stage::Partition => "partition",
            Stage::Contours => "contours",
            Stage::PolyMesh => "poly_mesh",
            Stage::DetailMesh => "detail_mesh",
            Stage::DetourData => "detour_data",
        }
    }
}
