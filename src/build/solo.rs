//! Building a solo navmesh: RecastDemo's Solo Mesh pipeline as named, documented [`Stage`]s.
//!
//! The stages are the functions of `build/stages/` (one file per Recast stage), strung
//! together by `build/pipeline.rs`; [`Stage`] names them in reports and errors.
//!
//! ```
//! use navkit::{InputGeometry, NavMeshBuilder};
//! let geom = InputGeometry::load("meshes/demo_level.gset")?;
//! let built = NavMeshBuilder::new(&geom).solo()?;
//! println!("{} polys in {:.1} ms", built.report().polymesh_polys, built.report().total_ms);
//! # Ok::<(), navkit::Error>(())
//! ```

use crate::build::stages::{TriChunk, TriIds};
use std::time::Instant;

use recastnavigation_sys as sys;

use super::budget::{Budget, estimate_validated};
use super::offmesh::{OffMeshIssue, off_mesh_issues};
use super::pipeline::{TileProducts, detour_tile, stage_timings, walkable_area};
use crate::ffi::context::RecastContext;
use crate::geometry::InputGeometry;
use crate::navmesh::NavMesh;
use crate::settings::{BuildSettings, VoxelConfig};
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
    /// Off-mesh connections in the input.
    pub off_mesh_connections: usize,
    /// The off-mesh links paths can never take (no usable flags, or an end on no polygon).
    pub off_mesh_issues: Vec<OffMeshIssue>,
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

/// A built solo navmesh (RecastDemo's Solo Mesh), from [`crate::NavMeshBuilder::solo`]: the
/// navmesh, the Detour tile data it was made from, the report and, if the builder was asked to
/// [`capture_stages`](crate::NavMeshBuilder::capture_stages), Recast's intermediate stages.
#[derive(Debug)]
pub struct SoloBuild {
    navmesh: NavMesh,
    tile_data: Vec<u8>,
    report: BuildReport,
    stages: Option<SoloStages>,
}

impl SoloBuild {
    /// The navmesh, ready for queries.
    pub fn navmesh(&self) -> &NavMesh {
        &self.navmesh
    }

    /// Gives up the rest and keeps the navmesh.
    pub fn into_navmesh(self) -> NavMesh {
        self.navmesh
    }

    /// The Detour tile data the navmesh was made from.
    pub fn tile_data(&self) -> &[u8] {
        &self.tile_data
    }

    /// Counts, timings, warnings, off-mesh links paths cannot take.
    pub fn report(&self) -> &BuildReport {
        &self.report
    }

    /// Recast's intermediate stages (the heightfield after the filters, the partitioned compact
    /// heightfield, the contours, the poly mesh and the detail mesh), if the builder was asked
    /// to [`capture_stages`](crate::NavMeshBuilder::capture_stages); `None` otherwise.
    pub fn stages(&self) -> Option<&SoloStages> {
        self.stages.as_ref()
    }

    /// The navmesh, the report and the stages (if captured), owned.
    pub fn into_parts(self) -> (NavMesh, BuildReport, Option<SoloStages>) {
        (self.navmesh, self.report, self.stages)
    }
}

/// Recast's timer of the whole build (`rcTimerLabel`).
const T_TOTAL: u32 = sys::rcTimerLabel_RC_TIMER_TOTAL;

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
/// wrap, and `rcBuildPolyMeshDetail` then reads outside the compact heightfield. Detour's BV
/// tree quantises the tile's extent in cell sizes, plus one, into 16 bits as well, which
/// navkit's tile validator checks (below 65535): the bounds span up to half a cell more than
/// the grid (it is rounded to whole cells), so 65533 cells is the most that passes. (Tiled
/// builds have a grid per tile, far below this.)
pub const MAX_SOLO_CELLS_PER_AXIS: i32 = 65533;

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

/// How many times over [`MAX_COMPACT_SPANS`] the estimated walkable spans must be for a solo
/// build to be refused before rasterizing (the estimate counts overlapping walkable triangles
/// twice; the exact check after rasterizing catches what this lets through).
const COMPACT_REFUSE_FACTOR: u64 = 2;

/// Refuses, before rasterizing, a solo build whose walkable spans
/// ([`BuildEstimate::walkable_spans`](crate::build::BuildEstimate::walkable_spans)) will not
/// fit a compact heightfield, naming the cell size that would.
fn check_compact_estimate(e: &crate::build::BuildEstimate) -> Result<()> {
    let limit = crate::build::MAX_COMPACT_SPANS as u64;
    if e.walkable_spans <= limit * COMPACT_REFUSE_FACTOR {
        return Ok(());
    }
    let cs = f64::from(e.cell_size) * (e.walkable_spans as f64 / limit as f64).sqrt() * 1.05;
    Err(Error::Build {
        stage: Stage::CompactHeightfield,
        message: format!(
            "about {:.3e} walkable spans estimated before rasterizing (the walkable triangles \
             cover that many cells at cell_size {}); a compact heightfield indexes at most \
             {limit} (24-bit cell index): raise cell_size to at least {:.3}, or build tiled",
            e.walkable_spans as f64, e.cell_size, cs
        ),
    })
}

/// Triangles rasterized between two checks of a build's [`Budget`].
const TRIS_PER_CHECK: usize = 1 << 16;

/// Builds a single-tile navmesh from `geom` with `settings`, as RecastDemo's Solo Mesh sample
/// (see [`crate::NavMeshBuilder::solo`]), copying Recast's intermediate stages into the result
/// if `capture_stages`. The geometry's convex volumes and off-mesh connections are used; bounds
/// come from `settings.bounds`, else from the mesh. Within `budget`: refused before building
/// if the [`estimate`](crate::build::estimate) is over the budget's limits (or shows stray
/// vertices), stopped at the first check after its token is cancelled or its time runs out
/// (see [`super::budget`]).
pub(crate) fn build_solo(
    geom: &InputGeometry,
    settings: &BuildSettings,
    budget: &Budget,
    capture_stages: bool,
) -> Result<SoloBuild> {
    let started = Instant::now();
    let guard = budget.start();
    let cfg = solo_config(geom, settings)?;
    // `solo_config` validated the geometry.
    let estimated = estimate_validated(geom, settings)?;
    budget.check_estimate(&estimated)?;
    check_compact_estimate(&estimated)?;
    let mut stages = capture_stages.then(SoloStages::default);
    let mut ctx = RecastContext::new();
    ctx.reset_timers();
    ctx.start_timer(T_TOTAL);
    let (chf, spans, rasterized_tris) = walkable_area(
        &mut ctx,
        &guard,
        geom,
        settings,
        &cfg,
        geom.mesh
            .tris
            .chunks(TRIS_PER_CHECK * 3)
            .enumerate()
            .map(|(i, tris)| TriChunk {
                tris,
                ids: TriIds::From(i * TRIS_PER_CHECK),
            }),
        // The whole navmesh is this one grid: its rows may be rasterized on every thread.
        crate::par::current_num_threads(),
        stages.as_mut(),
    )?;
    let products = detour_tile(
        &mut ctx,
        &guard,
        geom,
        settings,
        &cfg,
        chf,
        [0, 0],
        // The whole navmesh is this one tile: its detail mesh may use every thread.
        crate::par::current_num_threads(),
        stages.as_mut(),
    )?;
    let Some(data) = products.data.as_deref() else {
        return Err(Error::Build {
            stage: Stage::PolyMesh,
            message: "no walkable polygons: nothing in the mesh is walkable with these settings"
                .into(),
        });
    };
    let detour_started = Instant::now();
    let navmesh = NavMesh::from_tile_data(data)?;
    let detour_ms = products.detour_ms + detour_started.elapsed().as_secs_f64() * 1e3;
    ctx.stop_timer(T_TOTAL);
    let mut report = solo_report(
        geom,
        cfg,
        &mut ctx,
        detour_ms,
        &products,
        &estimated.warnings,
    );
    report.rasterized_tris = rasterized_tris;
    report.spans = spans;
    report.off_mesh_issues = off_mesh_issues(
        &navmesh,
        &geom.off_mesh_connections,
        settings.agent_max_climb,
    );
    report.total_ms = started.elapsed().as_secs_f64() * 1e3;
    Ok(SoloBuild {
        navmesh,
        tile_data: products.data.unwrap_or_default(),
        report,
        stages,
    })
}

/// The report of a solo build over the grid `cfg` whose last stages made `products` (its
/// rasterized triangles, spans, off-mesh issues and total time left for the caller), with
/// Recast's timings and log from `ctx` after the estimate's `warnings`.
fn solo_report(
    geom: &InputGeometry,
    cfg: VoxelConfig,
    ctx: &mut RecastContext,
    detour_ms: f64,
    products: &TileProducts,
    warnings: &[String],
) -> BuildReport {
    let timings_ms = stage_timings(ctx, detour_ms);
    let log = ctx.take_logs();
    let warnings = warnings
        .iter()
        .cloned()
        .chain(
            log.iter()
                .filter(|l| l.category != LogCategory::Progress)
                .map(|l| l.text.clone()),
        )
        .collect();
    BuildReport {
        grid_width: cfg.width,
        grid_height: cfg.height,
        input_verts: geom.mesh.vert_count(),
        input_tris: geom.mesh.tri_count(),
        rasterized_tris: 0,
        spans: 0,
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
        off_mesh_issues: Vec::new(),
        navmesh_bytes: products.data.as_ref().map_or(0, Vec::len),
        timings_ms,
        total_ms: 0.0,
        warnings,
        log,
        config: cfg,
    }
}
