//! Building a solo navmesh: RecastDemo's Solo Mesh pipeline as named, documented [`Stage`]s.
//!
//! | stage | Recast call | what it does |
//! |---|---|---|
//! | `rasterize` | `rcMarkWalkableTriangles`, `rcRasterizeTriangles` | marks triangles no steeper than the max slope walkable and voxelizes them into a heightfield of spans |
//! | `filter_low_hanging_obstacles` | `rcFilterLowHangingWalkableObstacles` | lets agents step over curbs and stairs: spans within climb of a walkable span below become walkable |
//! | `filter_ledge_spans` | `rcFilterLedgeSpans` | removes walkable spans at ledges, where a neighbour drops more than the climb |
//! | `filter_walkable_low_height_spans` | `rcFilterWalkableLowHeightSpans` | removes walkable spans with less headroom than the agent's height |
//! | `compact_heightfield` | `rcBuildCompactHeightfield` | keeps only the open space above walkable spans, with neighbour links |
//! | `erode` | `rcErodeWalkableArea` | shrinks the walkable area by the agent radius |
//! | `mark_convex_volumes` | `rcMarkConvexPolyArea` | stamps the area ids of the input's convex volumes |
//! | `partition` | `rcBuildDistanceField` + `rcBuildRegions`, or `rcBuildRegionsMonotone`, or `rcBuildLayerRegions` | splits the walkable area into simple regions |
//! | `contours` | `rcBuildContours` | traces and simplifies region outlines |
//! | `poly_mesh` | `rcBuildPolyMesh` | triangulates the contours and merges triangles into convex polygons |
//! | `detail_mesh` | `rcBuildPolyMeshDetail` | adds height detail to every polygon |
//! | `detour_data` | `dtCreateNavMeshData` | sets RecastDemo's areas and flags and packs the tile with off-mesh connections |
//!
//! ```no_run
//! use navkit::{InputGeometry, BuildSettings, build::build_solo};
//! let geom = InputGeometry::load("dungeon.obj")?;
//! let built = build_solo(&geom, &BuildSettings::default())?;
//! println!("{} polys in {:.1} ms", built.report.polymesh_polys, built.report.total_ms);
//! # Ok::<(), navkit::Error>(())
//! ```

use std::time::Instant;

use recastnavigation_sys as sys;

use super::budget::{Budget, Guard, estimate_validated};
use crate::ffi::context::{Guarded, RecastContext};
use crate::ffi::detour::{AgentDims, OffMeshInput, create_nav_mesh_data};
use crate::ffi::recast::{
    CompactHeightfield, ContourSet, Heightfield, PolyMesh, PolyMeshDetail, mark_walkable_triangles,
};
use crate::geometry::InputGeometry;
use crate::geometry::spatial::ChunkyTriMesh;
use crate::navmesh::NavMesh;
use crate::settings::{BuildSettings, Partition, VoxelConfig, area, flags};
use crate::{Error, Result};

pub use super::snapshot::*;
pub use crate::ffi::context::{LogCategory, LogMessage};
pub use crate::stage::Stage;

/// What a build produced and how long each stage took.
#[derive(Clone, Debug)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct BuildReport {
    /// Grid width in cells.
    pub grid_width: i32,
    /// Grid height (z) in cells.
    pub grid_height: i32,
    /// Input vertices.
    pub input_verts: usize,
    /// Input triangles.
    pub input_tris: usize,
    /// Triangles rasterized (every input triangle: a solo build rasterizes them all).
    pub rasterized_tris: usize,
    /// Spans in the heightfield after filtering.
    pub spans: i32,
    /// Spans in the compact heightfield.
    pub compact_spans: i32,
    /// The compact heightfield's largest distance to a border (`maxDistance`), in Recast's
    /// distance-field units (2 per straight cell step, 3 per diagonal one); 0 with a partition
    /// other than watershed, which builds no distance field.
    pub max_distance: u16,
    /// One more than the largest region id the partition gave (`maxRegions`): the regions are
    /// numbered 1 to `max_regions - 1`.
    pub max_regions: u16,
    /// Contours traced.
    pub contours: i32,
    /// Poly mesh vertices.
    pub polymesh_verts: usize,
    /// Poly mesh polygons.
    pub polymesh_polys: usize,
    /// Detail meshes (one per poly mesh polygon).
    pub detail_meshes: usize,
    /// Detail mesh vertices.
    pub detail_verts: usize,
    /// Detail mesh triangles.
    pub detail_tris: usize,
    /// Off-mesh connections stored.
    pub off_mesh_connections: usize,
    /// Size of the Detour tile data in bytes.
    pub navmesh_bytes: usize,
    /// Milliseconds per stage, in pipeline order (Recast's own timers for Recast stages).
    pub timings_ms: Vec<(Stage, f64)>,
    /// Wall-clock milliseconds of the whole build.
    pub total_ms: f64,
    /// Recast's warnings and errors.
    pub warnings: Vec<String>,
    /// Every message Recast logged.
    pub log: Vec<LogMessage>,
    /// The voxel configuration used.
    pub config: VoxelConfig,
}

impl BuildReport {
    /// The per-stage counts, as a tiled build reports them per tile.
    pub fn counts(&self) -> super::StageCounts {
        super::StageCounts {
            rasterized_tris: self.rasterized_tris,
            spans: self.spans.max(0) as usize,
            compact_spans: self.compact_spans.max(0) as usize,
            max_distance: self.max_distance,
            max_regions: self.max_regions,
            contours: self.contours.max(0) as usize,
            polymesh_verts: self.polymesh_verts,
            polymesh_polys: self.polymesh_polys,
            detail_meshes: self.detail_meshes,
            detail_verts: self.detail_verts,
            detail_tris: self.detail_tris,
            navmesh_bytes: self.navmesh_bytes,
        }
    }
}

/// A built solo navmesh and its report.
#[derive(Debug)]
pub struct SoloBuild {
    /// The navmesh, ready for queries.
    pub navmesh: NavMesh,
    /// The Detour tile data the navmesh was made from.
    pub tile_data: Vec<u8>,
    /// Counts, timings, warnings.
    pub report: BuildReport,
}

// Recast timer labels (`rcTimerLabel`).
const T_TOTAL: u32 = sys::rcTimerLabel_RC_TIMER_TOTAL;
const T_RASTERIZE: u32 = sys::rcTimerLabel_RC_TIMER_RASTERIZE_TRIANGLES;
const T_COMPACT: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_COMPACTHEIGHTFIELD;
const T_CONTOURS: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_CONTOURS;
const T_FILTER_BORDER: u32 = sys::rcTimerLabel_RC_TIMER_FILTER_BORDER;
const T_FILTER_WALKABLE: u32 = sys::rcTimerLabel_RC_TIMER_FILTER_WALKABLE;
const T_FILTER_LOW: u32 = sys::rcTimerLabel_RC_TIMER_FILTER_LOW_OBSTACLES;
const T_POLYMESH: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_POLYMESH;
const T_ERODE: u32 = sys::rcTimerLabel_RC_TIMER_ERODE_AREA;
const T_MARK_CONVEX: u32 = sys::rcTimerLabel_RC_TIMER_MARK_CONVEXPOLY_AREA;
const T_DISTANCEFIELD: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_DISTANCEFIELD;
const T_REGIONS: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_REGIONS;
const T_DETAIL: u32 = sys::rcTimerLabel_RC_TIMER_BUILD_POLYMESHDETAIL;

/// A Recast call that cannot be interrupted, as a [`Guarded`] outcome.
fn guarded(ok: bool) -> Guarded {
    if ok { Guarded::Done } else { Guarded::Failed }
}

fn fail(ctx: &mut RecastContext, stage: Stage, what: &str) -> Error {
    let logs = ctx.take_logs();
    let mut message = what.to_string();
    for l in logs.iter().filter(|l| l.category != LogCategory::Progress) {
        message.push_str("; ");
        message.push_str(&l.text);
    }
    Error::Build { stage, message }
}

/// The stages shared by every build: rasterize the triangles `chunks` yields (each a slice of
/// vertex index triples into the geometry's mesh), the span filters, compact heightfield, erode
/// and convex volumes, over the grid `cfg`. Returns the eroded compact heightfield, the
/// heightfield's span count and the number of triangles rasterized.
pub(super) fn walkable_area<'a>(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    settings: &BuildSettings,
    cfg: &VoxelConfig,
    chunks: impl Iterator<Item = &'a [i32]>,
    capture: Option<&mut SoloStages>,
) -> Result<(CompactHeightfield, i32, usize)> {
    let mesh = &geom.mesh;
    let mut rasterized = 0usize;
    // Stage: rasterize.
    guard.check(Stage::Rasterize)?;
    let mut solid = Heightfield::new();
    if !solid.create(
        ctx, cfg.width, cfg.height, cfg.bmin, cfg.bmax, cfg.cs, cfg.ch,
    ) {
        return Err(fail(
            ctx,
            Stage::Rasterize,
            "could not create the heightfield",
        ));
    }
    for tris in chunks {
        guard.check(Stage::Rasterize)?;
        rasterized += tris.len() / 3;
        let areas = mark_walkable_triangles(ctx, cfg.walkable_slope_angle, &mesh.verts, tris)
            .ok_or_else(|| Error::Geometry("triangle indices out of range".into()))?;
        if !solid.rasterize(ctx, &mesh.verts, tris, &areas, cfg.walkable_climb) {
            return Err(fail(
                ctx,
                Stage::Rasterize,
                "could not rasterize the triangles",
            ));
        }
    }

    // Stages: the three span filters, in RecastDemo's order.
    if settings.filter_low_hanging_obstacles {
        guard.check(Stage::FilterLowHangingObstacles)?;
        solid.filter_low_hanging_obstacles(ctx, cfg.walkable_climb);
    }
    if settings.filter_ledge_spans {
        guard.check(Stage::FilterLedgeSpans)?;
        solid.filter_ledge_spans(ctx, cfg.walkable_height, cfg.walkable_climb);
    }
    if settings.filter_walkable_low_height_spans {
        guard.check(Stage::FilterWalkableLowHeightSpans)?;
        solid.filter_walkable_low_height_spans(ctx, cfg.walkable_height);
    }
    let spans = solid.span_count(ctx);
    check_compact_limits(&solid, spans, cfg)?;
    if let Some(c) = capture {
        c.take_heightfield(&solid);
    }

    // Stage: compact heightfield.
    guard.check(Stage::CompactHeightfield)?;
    let mut chf = CompactHeightfield::new();
    if !chf.build(ctx, cfg.walkable_height, cfg.walkable_climb, &solid) {
        return Err(fail(
            ctx,
            Stage::CompactHeightfield,
            "could not build the compact heightfield",
        ));
    }
    drop(solid);

    // Stage: erode.
    guard.check(Stage::Erode)?;
    if !chf.erode(ctx, cfg.walkable_radius) {
        return Err(fail(ctx, Stage::Erode, "could not erode the walkable area"));
    }

    // Stage: convex volumes.
    for v in &geom.convex_volumes {
        guard.check(Stage::MarkConvexVolumes)?;
        let verts: Vec<f32> = v.verts.iter().flat_map(|p| p.to_array()).collect();
        chf.mark_convex_poly_area(ctx, &verts, v.hmin, v.hmax, v.area);
    }
    Ok((chf, spans, rasterized))
}

/// The walkable area of one tile: the stages of [`walkable_area`] over the triangles of the
/// chunks of `index` that overlap the tile's border-expanded grid `cfg`, with the heightfield's
/// span count and the number of triangles rasterized. `None` if no triangle is near the tile.
pub(crate) fn tile_walkable_area(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    index: &ChunkyTriMesh,
    cfg: &VoxelConfig,
    settings: &BuildSettings,
) -> Result<Option<(CompactHeightfield, i32, usize)>> {
    tile_walkable_area_capturing(ctx, guard, geom, index, cfg, settings, None)
}

/// [`tile_walkable_area`], copying the filtered heightfield into `capture` when given.
pub(crate) fn tile_walkable_area_capturing(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    index: &ChunkyTriMesh,
    cfg: &VoxelConfig,
    settings: &BuildSettings,
    capture: Option<&mut SoloStages>,
) -> Result<Option<(CompactHeightfield, i32, usize)>> {
    let mut chunks = Vec::new();
    index.chunks_overlapping(
        [cfg.bmin[0], cfg.bmin[2]],
        [cfg.bmax[0], cfg.bmax[2]],
        &mut chunks,
    );
    if chunks.is_empty() {
        return Ok(None);
    }
    walkable_area(
        ctx,
        guard,
        geom,
        settings,
        cfg,
        chunks.iter().map(|&c| index.chunk_tris(c)),
        capture,
    )
    .map(Some)
}

/// The most walkable spans a compact heightfield can index: `rcCompactCell::index` has 24 bits.
pub const MAX_COMPACT_SPANS: i32 = (1 << 24) - 1;
/// The most walkable spans one column of a compact heightfield can hold:
/// `rcCompactCell::count` has 8 bits.
pub const MAX_SPANS_PER_COLUMN: usize = 255;

/// Refuses a heightfield whose walkable spans would not fit the compact heightfield's cells
/// (Recast truncates both fields silently, and later stages then read the wrong spans).
fn check_compact_limits(solid: &Heightfield, spans: i32, cfg: &VoxelConfig) -> Result<()> {
    if spans > MAX_COMPACT_SPANS {
        return Err(Error::Build {
            stage: Stage::CompactHeightfield,
            message: format!(
                "{spans} walkable spans; a compact heightfield indexes at most {MAX_COMPACT_SPANS} \
                 (24-bit cell index): build tiled, or use a bigger cell size"
            ),
        });
    }
    let (most, (x, z)) = solid.max_walkable_column();
    if most > MAX_SPANS_PER_COLUMN {
        return Err(Error::Build {
            stage: Stage::CompactHeightfield,
            message: format!(
                "{most} walkable spans stacked in the column at cell ({x}, {z}) (world x {:.2}, \
                 z {:.2}); a compact heightfield holds at most {MAX_SPANS_PER_COLUMN} per column \
                 (8-bit count): the level stacks more walkable floors over this spot than Recast \
                 can hold; remove floors there or build the level in parts",
                cfg.bmin[0] + (x as f32 + 0.5) * cfg.cs,
                cfg.bmin[2] + (z as f32 + 0.5) * cfg.cs,
            ),
        });
    }
    Ok(())
}

/// What the stages after the walkable area made of one tile.
pub(crate) struct TileProducts {
    /// The Detour tile data; `None` if the tile has no polygons.
    pub data: Option<Vec<u8>>,
    pub contours: i32,
    pub compact_spans: i32,
    pub max_distance: u16,
    pub max_regions: u16,
    pub polymesh_verts: usize,
    pub polymesh_polys: usize,
    pub detail_meshes: usize,
    pub detail_verts: usize,
    pub detail_tris: usize,
    pub detour_ms: f64,
}

impl TileProducts {
    /// These products' counts (the caller adds the spans and triangles rasterized).
    pub(crate) fn counts(&self) -> super::StageCounts {
        super::StageCounts {
            compact_spans: self.compact_spans.max(0) as usize,
            max_distance: self.max_distance,
            max_regions: self.max_regions,
            contours: self.contours.max(0) as usize,
            polymesh_verts: self.polymesh_verts,
            polymesh_polys: self.polymesh_polys,
            detail_meshes: self.detail_meshes,
            detail_verts: self.detail_verts,
            detail_tris: self.detail_tris,
            navmesh_bytes: self.data.as_ref().map_or(0, Vec::len),
            ..Default::default()
        }
    }
}

/// Partition, contours, poly mesh, detail mesh and Detour data for the tile at `tile` whose
/// walkable area is `chf` (grid `cfg`, with `cfg.border_size` cells of border), copying the
/// compact heightfield, contours, poly mesh and detail mesh into `capture` when given. The
/// products' `data` is `None` if the tile has no polygons (the counts of the stages that ran
/// are kept).
#[allow(clippy::too_many_arguments)]
pub(crate) fn detour_tile_capturing(
    ctx: &mut RecastContext,
    guard: &Guard,
    geom: &InputGeometry,
    settings: &BuildSettings,
    cfg: &VoxelConfig,
    mut chf: CompactHeightfield,
    tile: [i32; 2],
    mut capture: Option<&mut SoloStages>,
) -> Result<TileProducts> {
    let border = cfg.border_size;
    let (_, _, compact_spans) = chf.dims();
    // Stage: partition.
    guard.check(Stage::Partition)?;
    let ok = match settings.partition {
        Partition::Watershed => {
            if !chf.build_distance_field(ctx) {
                return Err(fail(
                    ctx,
                    Stage::Partition,
                    "could not build the distance field",
                ));
            }
            chf.build_regions(
                ctx,
                border,
                cfg.min_region_area,
                cfg.merge_region_area,
                &guard.interrupt(),
            )
        }
        Partition::Monotone => guarded(chf.build_regions_monotone(
            ctx,
            border,
            cfg.min_region_area,
            cfg.merge_region_area,
        )),
        Partition::Layers => guarded(chf.build_layer_regions(ctx, border, cfg.min_region_area)),
    };
    match ok {
        Guarded::Done => {}
        Guarded::Failed => return Err(fail(ctx, Stage::Partition, "could not build regions")),
        Guarded::Interrupted => return Err(guard.stopped(Stage::Partition)),
    }

    // Stage: contours.
    guard.check(Stage::Contours)?;
    let mut cset = ContourSet::new();
    match cset.build(
        ctx,
        &chf,
        cfg.max_simplification_error,
        cfg.max_edge_len,
        &guard.interrupt(),
    ) {
        Guarded::Done => {}
        Guarded::Failed => return Err(fail(ctx, Stage::Contours, "could not build contours")),
        Guarded::Interrupted => return Err(guard.stopped(Stage::Contours)),
    }
    let contours = cset.count();
    if let Some(c) = capture.as_deref_mut() {
        c.take_compact(&chf);
        c.take_contours(&cset);
    }
    let mut products = TileProducts {
        data: None,
        contours,
        compact_spans,
        max_distance: 0,
        max_regions: 0,
        polymesh_verts: 0,
        polymesh_polys: 0,
        detail_meshes: 0,
        detail_verts: 0,
        detail_tris: 0,
        detour_ms: 0.0,
    };
    (products.max_distance, products.max_regions) = chf.distance_and_regions();
    if contours == 0 {
        return Ok(products);
    }

    // Stage: poly mesh.
    guard.check(Stage::PolyMesh)?;
    let mut pmesh = PolyMesh::new();
    if !pmesh.build(ctx, &cset, cfg.max_verts_per_poly) {
        return Err(fail(ctx, Stage::PolyMesh, "could not triangulate contours"));
    }

    // Stage: detail mesh.
    guard.check(Stage::DetailMesh)?;
    let mut dmesh = PolyMeshDetail::new();
    if !dmesh.build(
        ctx,
        &pmesh,
        &chf,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error,
    ) {
        return Err(fail(
            ctx,
            Stage::DetailMesh,
            "could not build the detail mesh",
        ));
    }
    drop(chf);
    drop(cset);
    products.polymesh_verts = pmesh.nverts();
    products.polymesh_polys = pmesh.npolys();
    products.detail_meshes = dmesh.nmeshes();
    products.detail_verts = dmesh.nverts();
    products.detail_tris = dmesh.ntris();
    if pmesh.npolys() == 0 {
        if let Some(c) = capture.as_deref_mut() {
            c.take_meshes(&pmesh, &dmesh);
        }
        return Ok(products);
    }

    // Stage: Detour data. Areas and flags as RecastDemo.
    guard.check(Stage::DetourData)?;
    let detour_started = Instant::now();
    for a in pmesh.areas_mut() {
        if *a == area::WALKABLE {
            *a = area::GROUND;
        }
    }
    let poly_flags: Vec<u16> = pmesh.areas().iter().map(|&a| flags::for_area(a)).collect();
    pmesh.flags_mut().copy_from_slice(&poly_flags);
    if let Some(c) = capture {
        c.take_meshes(&pmesh, &dmesh);
    }
    if pmesh.nverts() >= 0xffff {
        return Err(Error::Build {
            stage: Stage::DetourData,
            message: format!(
                "tile {tile:?} has {} vertices; Detour allows at most 65534 per tile (use smaller tiles)",
                pmesh.nverts()
            ),
        });
    }
    let cons = &geom.off_mesh_connections;
    let off_verts: Vec<f32> = cons
        .iter()
        .flat_map(|c| [c.start.to_array(), c.end.to_array()].concat())
        .collect();
    let radii: Vec<f32> = cons.iter().map(|c| c.radius).collect();
    let off_flags: Vec<u16> = cons.iter().map(|c| c.flags).collect();
    let off_areas: Vec<u8> = cons.iter().map(|c| c.area).collect();
    let dirs: Vec<u8> = cons
        .iter()
        .map(|c| if c.bidirectional { 1 } else { 0 })
        .collect();
    let ids: Vec<u32> = cons.iter().map(|c| c.user_id).collect();
    let data = create_nav_mesh_data(
        &pmesh,
        &dmesh,
        &poly_flags,
        &OffMeshInput {
            verts: &off_verts,
            radii: &radii,
            flags: &off_flags,
            areas: &off_areas,
            dirs: &dirs,
            user_ids: &ids,
        },
        &AgentDims {
            height: settings.agent_height,
            radius: settings.agent_radius,
            climb: settings.agent_max_climb,
        },
        tile,
    )
    .ok_or_else(|| Error::Build {
        stage: Stage::DetourData,
        message: format!(
            "dtCreateNavMeshData refused tile {tile:?} ({} verts, {} polys)",
            pmesh.nverts(),
            pmesh.npolys()
        ),
    })?;
    products.data = Some(data);
    products.detour_ms = detour_started.elapsed().as_secs_f64() * 1e3;
    Ok(products)
}

/// Validates the geometry and derives the whole-build voxel grid.
pub(super) fn solo_config(geom: &InputGeometry, settings: &BuildSettings) -> Result<VoxelConfig> {
    geom.validate()?;
    let (bmin, bmax) = geom.mesh.bounds().into();
    let cfg = settings.to_config(bmin, bmax)?;
    if cfg.width <= 0 || cfg.height <= 0 {
        return Err(Error::Geometry(format!(
            "the build area is empty: {} x {} cells",
            cfg.width, cfg.height
        )));
    }
    check_solo_axes(geom, settings, &cfg)?;
    Ok(cfg)
}

/// The most cells a solo build's grid may have along x or along z. Recast's poly mesh stores
/// vertex x and z as 16-bit cell indices (`rcPolyMesh::verts`); on a wider or deeper grid they
/// wrap, and `rcBuildPolyMeshDetail` then reads outside the compact heightfield. (Tiled builds
/// have a grid per tile, far below this.)
pub const MAX_SOLO_CELLS_PER_AXIS: i32 = 0xffff;

/// Refuses a solo grid wider or deeper than [`MAX_SOLO_CELLS_PER_AXIS`] before Recast sees it,
/// naming the axis, the extreme vertices (usually one stray vertex far from the level) and the
/// remedies.
fn check_solo_axes(
    geom: &InputGeometry,
    settings: &BuildSettings,
    cfg: &VoxelConfig,
) -> Result<()> {
    for (axis, k, cells) in [("x", 0usize, cfg.width), ("z", 2usize, cfg.height)] {
        if cells <= MAX_SOLO_CELLS_PER_AXIS {
            continue;
        }
        let extent = cfg.bmax[k] - cfg.bmin[k];
        let whence = if settings.bounds.is_some() {
            format!(
                "the settings' build bounds span {} .. {} along {axis}",
                cfg.bmin[k], cfg.bmax[k]
            )
        } else {
            // The vertices at both ends of the axis: one of them is usually a stray vertex.
            let verts = geom.mesh.verts.chunks_exact(3).enumerate();
            let (lo, hi) = verts.fold((0usize, 0usize), |(lo, hi), (i, v)| {
                let c = |j: usize| geom.mesh.verts[j * 3 + k];
                (
                    if v[k] < c(lo) { i } else { lo },
                    if v[k] > c(hi) { i } else { hi },
                )
            });
            let at = |i: usize| {
                let v = &geom.mesh.verts[i * 3..i * 3 + 3];
                format!("OBJ vertex {} at ({}, {}, {})", i + 1, v[0], v[1], v[2])
            };
            format!("the mesh spans from {} to {} along {axis}", at(lo), at(hi))
        };
        return Err(Error::Geometry(format!(
            "{whence}: {extent} m, {cells} cells of {} m; a solo navmesh holds at most \
             {MAX_SOLO_CELLS_PER_AXIS} cells along x and z (Recast stores vertices as 16-bit cell \
             indices). Remove or fix the far vertex if it is a stray one, build tiled, or use a \
             cell size of at least {:.3} m",
            cfg.cs,
            // Rounded up to the millimetre, with a cell to spare (the grid size is rounded).
            (extent / (MAX_SOLO_CELLS_PER_AXIS - 1) as f32 * 1000.0).ceil() / 1000.0
        )));
    }
    Ok(())
}

/// Milliseconds per stage from a context's Recast timers (plus the Detour stage's own time).
pub(crate) fn stage_timings(ctx: &RecastContext, detour_ms: f64) -> Vec<(Stage, f64)> {
    let ms = |labels: &[u32]| {
        labels
            .iter()
            .map(|&l| ctx.timer(l).as_secs_f64() * 1e3)
            .sum::<f64>()
    };
    vec![
        (Stage::Rasterize, ms(&[T_RASTERIZE])),
        (Stage::FilterLowHangingObstacles, ms(&[T_FILTER_LOW])),
        (Stage::FilterLedgeSpans, ms(&[T_FILTER_BORDER])),
        (
            Stage::FilterWalkableLowHeightSpans,
            ms(&[T_FILTER_WALKABLE]),
        ),
        (Stage::CompactHeightfield, ms(&[T_COMPACT])),
        (Stage::Erode, ms(&[T_ERODE])),
        (Stage::MarkConvexVolumes, ms(&[T_MARK_CONVEX])),
        (Stage::Partition, ms(&[T_DISTANCEFIELD, T_REGIONS])),
        (Stage::Contours, ms(&[T_CONTOURS])),
        (Stage::PolyMesh, ms(&[T_POLYMESH])),
        (Stage::DetailMesh, ms(&[T_DETAIL])),
        (Stage::DetourData, detour_ms),
    ]
}

/// Builds a single-tile navmesh from `geom` with `settings`, as RecastDemo's Solo Mesh sample.
///
/// The geometry's convex volumes and off-mesh connections are used; `geom.settings` (from a
/// `.gset`) is not: pass the settings you want (for example `geom.settings.clone().unwrap_or_default()`).
/// Bounds come from `settings.bounds`, else from the mesh.
pub fn build_solo(geom: &InputGeometry, settings: &BuildSettings) -> Result<SoloBuild> {
    build_solo_with(geom, settings, &Budget::default())
}

/// Triangles rasterized between two checks of a build's [`Budget`].
const TRIS_PER_CHECK: usize = 1 << 16;

/// [`build_solo`] within `budget`: refused before building if the
/// [`estimate`](crate::build::estimate) is over the
/// budget's limits (or shows stray vertices), stopped at the first check after its token is
/// cancelled or its time runs out (see [`super::budget`]).
pub fn build_solo_with(
    geom: &InputGeometry,
    settings: &BuildSettings,
    budget: &Budget,
) -> Result<SoloBuild> {
    build_solo_capturing(geom, settings, budget, None)
}

/// [`build_solo`], also returning owned copies of Recast's intermediate stages (the
/// heightfield after the filters, the partitioned compact heightfield, the contours, the poly
/// mesh and the detail mesh) for looking at them, for example with
/// [`crate::debug_draw::stages`]. Copying costs time and memory in proportion to the
/// heightfield; [`build_solo`] copies nothing.
///
/// ```
/// # fn main() -> navkit::Result<()> {
/// let floor = navkit::TriMesh::new(
///     vec![0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 0.0, 10.0, 10.0, 0.0, 0.0],
///     vec![0, 1, 2, 0, 2, 3],
/// )?;
/// let geom = navkit::InputGeometry::from_mesh(floor);
/// let (built, stages) = navkit::build::build_solo_stages(&geom, &Default::default())?;
/// let walkable = stages.heightfield.spans.iter().filter(|s| s.area != 0).count();
/// assert_eq!(walkable, built.report.spans as usize);
/// assert_eq!(stages.contours.contours.len(), built.report.contours as usize);
/// # Ok(())
/// # }
/// ```
pub fn build_solo_stages(
    geom: &InputGeometry,
    settings: &BuildSettings,
) -> Result<(SoloBuild, SoloStages)> {
    build_solo_stages_with(geom, settings, &Budget::default())
}

/// [`build_solo_stages`] within `budget`, as [`build_solo_with`] (refused before building if
/// over the budget's limits, stopped once its time runs out or its token is cancelled).
pub fn build_solo_stages_with(
    geom: &InputGeometry,
    settings: &BuildSettings,
    budget: &Budget,
) -> Result<(SoloBuild, SoloStages)> {
    let mut stages = SoloStages::default();
    let built = build_solo_capturing(geom, settings, budget, Some(&mut stages))?;
    Ok((built, stages))
}

fn build_solo_capturing(
    geom: &InputGeometry,
    settings: &BuildSettings,
    budget: &Budget,
    mut capture: Option<&mut SoloStages>,
) -> Result<SoloBuild> {
    let started = Instant::now();
    let guard = budget.start();
    let mesh = &geom.mesh;
    let cfg = solo_config(geom, settings)?;
    // `solo_config` validated the geometry.
    let estimated = estimate_validated(geom, settings)?;
    budget.check_estimate(&estimated)?;
    let mut ctx = RecastContext::new();
    ctx.reset_timers();
    ctx.start_timer(T_TOTAL);
    let (chf, spans, rasterized_tris) = walkable_area(
        &mut ctx,
        &guard,
        geom,
        settings,
        &cfg,
        mesh.tris.chunks(TRIS_PER_CHECK * 3),
        capture.as_deref_mut(),
    )?;
    let products =
        detour_tile_capturing(&mut ctx, &guard, geom, settings, &cfg, chf, [0, 0], capture)?;
    let Some(data) = products.data else {
        return Err(Error::Build {
            stage: Stage::PolyMesh,
            message: "no walkable polygons: nothing in the mesh is walkable with these settings"
                .into(),
        });
    };
    let detour_started = Instant::now();
    let navmesh = NavMesh::from_tile_data(&data)?;
    let detour_ms = products.detour_ms + detour_started.elapsed().as_secs_f64() * 1e3;
    ctx.stop_timer(T_TOTAL);

    let timings_ms = stage_timings(&ctx, detour_ms);
    let log = ctx.take_logs();
    let warnings = estimated
        .warnings
        .iter()
        .cloned()
        .chain(
            log.iter()
                .filter(|l| l.category != LogCategory::Progress)
                .map(|l| l.text.clone()),
        )
        .collect();
    let report = BuildReport {
        grid_width: cfg.width,
        grid_height: cfg.height,
        input_verts: mesh.vert_count(),
        input_tris: mesh.tri_count(),
        rasterized_tris,
        spans,
        compact_spans: products.compact_spans,
        max_distance: products.max_distance,
        max_regions: products.max_regions,
        contours: products.contours,
        polymesh_verts: products.polymesh_verts,
        polymesh_polys: products.polymesh_polys,
        detail_meshes: products.detail_meshes,
        detail_verts: products.detail_verts,
        detail_tris: products.detail_tris,
        off_mesh_connections: geom.off_mesh_connections.len(),
        navmesh_bytes: data.len(),
        timings_ms,
        total_ms: started.elapsed().as_secs_f64() * 1e3,
        warnings,
        log,
        config: cfg,
    };
    Ok(SoloBuild {
        navmesh,
        tile_data: data,
        report,
    })
}
