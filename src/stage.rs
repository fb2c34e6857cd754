//! [`Stage`]: the named stages of navkit's builds, as build reports and [`crate::Error::Build`]
//! name them.

/// A named stage of the solo build (see the module docs for what each does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
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
    /// A tile cache's heightfield layers (`rcBuildHeightfieldLayers`) and their compression.
    HeightfieldLayers,
    /// A tile cache's set-up and the building of its navmesh tiles from layers.
    TileCache,
    /// A tile cache's regions of one layer (`dtBuildTileCacheRegions`).
    TileCacheRegions,
}

impl Stage {
    /// The solo pipeline's stages, in order (tiled builds run the same per tile; the tile
    /// cache's own stages are not in it).
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
            Stage::HeightfieldLayers => "heightfield_layers",
            Stage::TileCache => "tile_cache",
            Stage::TileCacheRegions => "tile_cache_regions",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
