//! [`StageCounts`]: what each stage of a build made, the counts RecastDemo's build log and
//! tools panel show, for one tile (or a solo build), and summed or maxed over a tiled build.

use crate::navmesh::TileCoord;

/// The counts of one build (a solo build or one tile of a tiled build), stage by stage.
///
/// In a tiled build's totals ([`crate::build::tiled::TiledReport::totals`]) every field is the
/// sum over the tiles except `max_distance` and `max_regions`, which are the largest of any
/// tile; [`crate::build::tiled::TiledReport::max`] holds the largest of each field.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct StageCounts {
    /// Triangles rasterized (RecastDemo's per-tile "Tris"; all input triangles in a solo build).
    pub rasterized_tris: usize,
    /// Spans in the heightfield after the filters.
    pub spans: usize,
    /// Spans in the compact heightfield.
    pub compact_spans: usize,
    /// The compact heightfield's `maxDistance` (0 without a watershed partition).
    pub max_distance: u16,
    /// The partition's `maxRegions` (one more than the largest region id).
    pub max_regions: u16,
    /// Contours traced.
    pub contours: usize,
    /// Poly mesh vertices.
    pub polymesh_verts: usize,
    /// Poly mesh polygons.
    pub polymesh_polys: usize,
    /// Detail meshes (one per polygon).
    pub detail_meshes: usize,
    /// Detail mesh vertices.
    pub detail_verts: usize,
    /// Detail mesh triangles.
    pub detail_tris: usize,
    /// Bytes of Detour tile data (0 for a tile with no polygons).
    pub navmesh_bytes: usize,
}

impl StageCounts {
    /// Adds `other`'s counts to these, keeping the larger `max_distance` and `max_regions`.
    pub fn accumulate(&mut self, other: &StageCounts) {
        self.rasterized_tris += other.rasterized_tris;
        self.spans += other.spans;
        self.compact_spans += other.compact_spans;
        self.max_distance = self.max_distance.max(other.max_distance);
        self.max_regions = self.max_regions.max(other.max_regions);
        self.contours += other.contours;
        self.polymesh_verts += other.polymesh_verts;
        self.polymesh_polys += other.polymesh_polys;
        self.detail_meshes += other.detail_meshes;
        self.detail_verts += other.detail_verts;
        self.detail_tris += other.detail_tris;
        self.navmesh_bytes += other.navmesh_bytes;
    }

    /// Keeps the larger of each field.
    pub fn max_with(&mut self, other: &StageCounts) {
        self.rasterized_tris = self.rasterized_tris.max(other.rasterized_tris);
        self.spans = self.spans.max(other.spans);
        self.compact_spans = self.compact_spans.max(other.compact_spans);
        self.max_distance = self.max_distance.max(other.max_distance);
        self.max_regions = self.max_regions.max(other.max_regions);
        self.contours = self.contours.max(other.contours);
        self.polymesh_verts = self.polymesh_verts.max(other.polymesh_verts);
        self.polymesh_polys = self.polymesh_polys.max(other.polymesh_polys);
        self.detail_meshes = self.detail_meshes.max(other.detail_meshes);
        self.detail_verts = self.detail_verts.max(other.detail_verts);
        self.detail_tris = self.detail_tris.max(other.detail_tris);
        self.navmesh_bytes = self.navmesh_bytes.max(other.navmesh_bytes);
    }

    /// The counts as (name, value) pairs, in pipeline order: the JSON keys of `navkit build
    /// --json` and the lines of its summary.
    pub fn named(&self) -> [(&'static str, u64); 12] {
        [
            ("rasterized_tris", self.rasterized_tris as u64),
            ("spans", self.spans as u64),
            ("compact_spans", self.compact_spans as u64),
            ("max_distance", u64::from(self.max_distance)),
            ("max_regions", u64::from(self.max_regions)),
            ("contours", self.contours as u64),
            ("polymesh_verts", self.polymesh_verts as u64),
            ("polymesh_polys", self.polymesh_polys as u64),
            ("detail_meshes", self.detail_meshes as u64),
            ("detail_verts", self.detail_verts as u64),
            ("detail_tris", self.detail_tris as u64),
            ("navmesh_bytes", self.navmesh_bytes as u64),
        ]
    }
}

/// One tile's counts and time in a tiled build.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileBuildCounts {
    /// The tile.
    pub tile: TileCoord,
    /// What its stages made (all 0 past the last stage that ran: a tile with no triangles
    /// near it stops before rasterizing, one with no contours after the contours).
    pub counts: StageCounts,
    /// Milliseconds it took.
    pub ms: f64,
}
