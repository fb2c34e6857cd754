//! What a tiled build reports: per-tile figures, the whole build's report and the data hash.

#[cfg(feature = "tile-store")]
use super::Shard;
use super::{Built, TileGrid};
use crate::build::{OffMeshIssue, Stage, StageCounts, TileBuildCounts};
use crate::navmesh::TileCoord;

/// Per-tile figures of a build.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TileStats {
    /// Tile positions built (including those that came out empty).
    pub built: usize,
    /// Tiles with polygons.
    pub non_empty: usize,
    /// Sum of the tiles' build times (ms): the work, whatever the thread count.
    pub sum_ms: f64,
    /// Mean time per tile position (ms).
    pub mean_ms: f64,
    /// Slowest tile (ms).
    pub max_ms: f64,
    /// Polygons.
    pub polys: usize,
    /// Most polygons in one tile.
    pub max_polys_per_tile: usize,
    /// Bytes of tile data.
    pub bytes: usize,
    /// Summed time per stage over every tile (ms).
    pub stage_ms: Vec<(Stage, f64)>,
}

/// What a tiled build produced.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct TiledReport {
    /// The tile grid.
    pub grid: TileGrid,
    /// Tiles in the navmesh.
    pub tile_count: usize,
    /// Tile bits of the navmesh's refs.
    pub tile_bits: u32,
    /// Poly bits of the navmesh's refs.
    pub poly_bits: u32,
    /// Worker threads used.
    pub threads: usize,
    /// Input triangles.
    pub input_tris: usize,
    /// Per-tile figures.
    pub tiles: TileStats,
    /// Every stage's counts summed over the tiles (`max_distance` and `max_regions`: the
    /// largest of any tile).
    pub totals: StageCounts,
    /// The largest of each count in any one tile.
    pub max: StageCounts,
    /// Each tile position's counts, in grid order.
    pub tile_counts: Vec<TileBuildCounts>,
    /// The off-mesh links paths can never take (no usable flags, or an end on no polygon).
    pub off_mesh_issues: Vec<OffMeshIssue>,
    /// FNV-1a 64 hash (hex) over every tile's position and data, in grid order: the same for
    /// any thread count.
    pub data_hash: String,
    /// Wall-clock milliseconds of the whole build (validation, index, tiles, navmesh, hash).
    pub total_ms: f64,
    /// Wall-clock milliseconds of the tile phase alone (the part spread over the threads).
    pub tiles_ms: f64,
    /// Wall-clock milliseconds spent validating the geometry and indexing its triangles.
    pub index_ms: f64,
    /// Recast's warnings and errors, prefixed with the tile (and tile-store entries refused).
    pub warnings: Vec<String>,
    /// Tile positions built (without a tile store: every one).
    pub tiles_built: usize,
    /// Tile positions taken from the tile store.
    pub tiles_reused: usize,
    /// Tile-store entries refused (damaged, truncated, of another tile) and rebuilt.
    pub store_entries_refused: usize,
    /// The shard built, if only one was.
    #[cfg(feature = "tile-store")]
    pub shard: Option<Shard>,
}

/// FNV-1a 64 over tiles, in the order given: (x, z, length, data) each.
pub fn data_hash<'a>(tiles: impl IntoIterator<Item = (TileCoord, &'a [u8])>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (tile, data) in tiles {
        feed(&tile.x.to_le_bytes());
        feed(&tile.z.to_le_bytes());
        feed(&(data.len() as u64).to_le_bytes());
        feed(data);
    }
    format!("{h:016x}")
}

/// The tiles' counts: summed, maxed, and each tile's.
pub(super) fn stage_counts(built: &[Built]) -> (StageCounts, StageCounts, Vec<TileBuildCounts>) {
    let mut totals = StageCounts::default();
    let mut max = StageCounts::default();
    for b in built {
        totals.accumulate(&b.counts);
        max.max_with(&b.counts);
    }
    let tiles = built
        .iter()
        .map(|b| TileBuildCounts {
            tile: TileCoord::new(b.x, b.z),
            counts: b.counts,
            ms: b.ms,
        })
        .collect();
    (totals, max, tiles)
}

pub(super) fn tile_stats(built: &[Built]) -> TileStats {
    let mut s = TileStats {
        built: built.len(),
        ..TileStats::default()
    };
    let mut stage_ms: Vec<(Stage, f64)> = Stage::ALL.iter().map(|&st| (st, 0.0)).collect();
    for b in built {
        s.sum_ms += b.ms;
        s.max_ms = s.max_ms.max(b.ms);
        s.polys += b.polys;
        s.max_polys_per_tile = s.max_polys_per_tile.max(b.polys);
        if let Some(d) = &b.data {
            s.non_empty += 1;
            s.bytes += d.len();
        }
        for (acc, (_, ms)) in stage_ms.iter_mut().zip(&b.stage_ms) {
            acc.1 += ms;
        }
    }
    s.mean_ms = if built.is_empty() {
        0.0
    } else {
        s.sum_ms / built.len() as f64
    };
    s.stage_ms = stage_ms;
    s
}
