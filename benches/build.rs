//! Benchmark: navkit's solo build against rerecast's (the pure-Rust Recast port), on
//! RecastDemo's three meshes (`dungeon`, `nav_test`, `undulating` from
//! `../shared/meshes/recastdemo`), with RecastDemo's default Solo Mesh settings.
//!
//! What it does, in one run:
//! 1. per mesh, one navkit build with its stages captured and one rerecast build from the same
//!    voxel configuration (navkit's [`VoxelConfig`], copied field by field into rerecast's
//!    `Config`); asserts that the two poly meshes are the same (vertices, polygons, neighbours;
//!    every polygon walkable) and that the detail meshes have the same counts;
//! 2. interleaved rounds (navkit then rerecast, every round, every mesh; the machine is shared
//!    and noisy): navkit's whole `NavMeshBuilder::solo` (validation, estimate, Recast, Detour
//!    data, the `NavMesh`) against rerecast's whole pipeline (marking walkable triangles to the
//!    detail mesh; no Detour data, which rerecast does not make);
//! 3. a table of per-mesh medians and the ratio navkit / rerecast, then the same per stage
//!    (navkit's own stage timers against rerecast's stages timed here), to show where the time
//!    goes.
//!
//! Run: `cargo bench --bench build`. `NAVKIT_BENCH_ROUNDS` sets the rounds (default 20).

#[path = "common/median.rs"]
mod median;
use median::median;
use std::hint::black_box;
use std::time::Instant;

use glam::{UVec3, Vec3, Vec3A};
use navkit::build::VoxelConfig;
use navkit::build::{SoloBuild, Stage};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder};
use rerecast::{Aabb3d, AreaType, BuildContoursFlags, Config, DetailNavmesh, PolygonNavmesh};

const DEFAULT_ROUNDS: usize = 20;
const MESHES: [&str; 3] = ["dungeon", "nav_test", "undulating"];

fn mesh_path(name: &str) -> String {
    format!(
        "{}/../shared/meshes/recastdemo/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    )
}

/// rerecast's stages, in the order [`rerecast_build`] times them, then what the whole build
/// spent outside them (navkit: validation, the estimate, Detour's data, the `NavMesh`, checks).
const RR_STAGES: [&str; 9] = [
    "rasterize",
    "filters",
    "compact",
    "erode",
    "partition",
    "contours",
    "poly_mesh",
    "detail_mesh",
    "other",
];

/// navkit's stages summed into [`RR_STAGES`]' groups.
fn navkit_stage_group(stage: Stage) -> Option<usize> {
    Some(match stage {
        Stage::Rasterize => 0,
        Stage::FilterLowHangingObstacles
        | Stage::FilterLedgeSpans
        | Stage::FilterWalkableLowHeightSpans => 1,
        Stage::CompactHeightfield => 2,
        Stage::Erode | Stage::MarkConvexVolumes => 3,
        Stage::Partition => 4,
        Stage::Contours => 5,
        Stage::PolyMesh => 6,
        Stage::DetailMesh => 7,
        _ => return None,
    })
}

/// rerecast's configuration with navkit's voxel values (the same cells, heights and limits).
fn rerecast_config(cfg: &VoxelConfig) -> Config {
    let v = |a: [f32; 3]| Vec3::new(a[0], a[1], a[2]);
    Config {
        width: cfg.width as u16,
        height: cfg.height as u16,
        tile_size: cfg.tile_size as u16,
        border_size: cfg.border_size as u16,
        cell_size: cfg.cs,
        cell_height: cfg.ch,
        aabb: Aabb3d {
            min: v(cfg.bmin),
            max: v(cfg.bmax),
        },
        // Recast's rcMarkWalkableTriangles takes degrees and converts them as below.
        walkable_slope_angle: cfg.walkable_slope_angle / 180.0 * std::f32::consts::PI,
        walkable_height: cfg.walkable_height as u16,
        walkable_climb: cfg.walkable_climb as u16,
        walkable_radius: cfg.walkable_radius as u16,
        max_edge_len: cfg.max_edge_len as u16,
        max_simplification_error: cfg.max_simplification_error,
        min_region_area: cfg.min_region_area as u16,
        merge_region_area: cfg.merge_region_area as u16,
        max_vertices_per_polygon: cfg.max_verts_per_poly as u16,
        detail_sample_dist: cfg.detail_sample_dist,
        detail_sample_max_error: cfg.detail_sample_max_error,
        // RecastDemo's Solo Mesh: RC_CONTOUR_TESS_WALL_EDGES.
        contour_flags: BuildContoursFlags::TESSELLATE_SOLID_WALL_EDGES,
        area_volumes: Vec::new(),
    }
}

/// navkit's triangle mesh as rerecast's, every triangle not walkable (the build marks them).
fn rerecast_mesh(geom: &InputGeometry) -> rerecast::TriMesh {
    let verts = &geom.mesh.verts;
    let tris = &geom.mesh.tris;
    rerecast::TriMesh {
        vertices: verts
            .chunks_exact(3)
            .map(|v| Vec3A::new(v[0], v[1], v[2]))
            .collect(),
        indices: tris
            .chunks_exact(3)
            .map(|t| UVec3::new(t[0] as u32, t[1] as u32, t[2] as u32))
            .collect(),
        area_types: vec![AreaType::NOT_WALKABLE; tris.len() / 3],
    }
}

/// rerecast's whole solo pipeline, as its `tests/cpp_comparison.rs` drives it, on `trimesh`
/// (consumed: marking the walkable triangles changes it). Adds each stage's seconds to `times`.
fn rerecast_build(
    mut trimesh: rerecast::TriMesh,
    cfg: &Config,
    times: &mut [f64; 9],
) -> (PolygonNavmesh, DetailNavmesh) {
    let mut t = Instant::now();
    let mut lap = |i: usize| {
        let now = Instant::now();
        times[i] += (now - t).as_secs_f64();
        t = now;
    };
    trimesh.mark_walkable_triangles(cfg.walkable_slope_angle);
    let mut hf = rerecast::HeightfieldBuilder {
        aabb: cfg.aabb,
        cell_size: cfg.cell_size,
        cell_height: cfg.cell_height,
    }
    .build()
    .expect("heightfield");
    hf.rasterize_triangles(&trimesh, cfg.walkable_climb)
        .expect("rasterize");
    lap(0);
    hf.filter_low_hanging_walkable_obstacles(cfg.walkable_climb);
    hf.filter_ledge_spans(cfg.walkable_height, cfg.walkable_climb);
    hf.filter_walkable_low_height_spans(cfg.walkable_height);
    lap(1);
    let mut chf = hf
        .into_compact(cfg.walkable_height, cfg.walkable_climb)
        .expect("compact");
    lap(2);
    chf.erode_walkable_area(cfg.walkable_radius);
    lap(3);
    chf.build_distance_field();
    chf.build_regions(cfg.border_size, cfg.min_region_area, cfg.merge_region_area)
        .expect("regions");
    lap(4);
    let contours = chf.build_contours(
        cfg.max_simplification_error,
        cfg.max_edge_len,
        cfg.contour_flags,
    );
    lap(5);
    let pmesh = contours
        .into_polygon_mesh(cfg.max_vertices_per_polygon)
        .expect("poly mesh");
    lap(6);
    let dmesh = DetailNavmesh::new(
        &pmesh,
        &chf,
        cfg.detail_sample_dist,
        cfg.detail_sample_max_error,
    )
    .expect("detail mesh");
    lap(7);
    (pmesh, dmesh)
}

fn navkit_build(geom: &InputGeometry, settings: &BuildSettings, capture: bool) -> SoloBuild {
    NavMeshBuilder::new(geom)
        .settings(settings.clone())
        .capture_stages(capture)
        .solo()
        .expect("navkit solo build")
}

/// Asserts that navkit's poly mesh (captured) and detail mesh counts equal rerecast's.
fn assert_same_meshes(name: &str, nk: &SoloBuild, pmesh: &PolygonNavmesh, dmesh: &DetailNavmesh) {
    let stages = nk.stages().expect("captured stages");
    let p = &stages.poly_mesh;
    let verts: Vec<[u16; 3]> = pmesh.vertices.iter().map(|v| v.to_array()).collect();
    assert_eq!(p.verts, verts, "{name}: poly mesh vertices");
    let nvp = pmesh.max_vertices_per_polygon as usize;
    assert_eq!(
        p.polys.len(),
        pmesh.polygon_count(),
        "{name}: polygon count"
    );
    for (i, (poly, nei)) in p.polys.iter().zip(&p.neis).enumerate() {
        let theirs = &pmesh.polygons[i * nvp..(i + 1) * nvp];
        let their_neis = &pmesh.polygon_neighbors[i * nvp..(i + 1) * nvp];
        assert_eq!(&theirs[..poly.len()], &poly[..], "{name}: polygon {i}");
        assert!(
            theirs[poly.len()..]
                .iter()
                .all(|&v| v == PolygonNavmesh::NO_INDEX),
            "{name}: polygon {i} has more vertices in rerecast"
        );
        assert_eq!(
            &their_neis[..nei.len()],
            &nei[..],
            "{name}: neighbours of {i}"
        );
    }
    // navkit's captured areas are after RecastDemo's renaming of Recast's walkable area (255)
    // to its ground area (0); no convex volumes here, so every polygon is walkable ground.
    assert!(pmesh.areas.iter().all(|&a| a == AreaType::DEFAULT_WALKABLE));
    assert!(p.areas.iter().all(|&a| a == 0), "{name}: navkit's areas");
    let d = &stages.detail_mesh;
    assert_eq!(d.meshes.len(), dmesh.meshes.len(), "{name}: detail meshes");
    assert_eq!(
        d.verts.len(),
        dmesh.vertices.len(),
        "{name}: detail vertices"
    );
    assert_eq!(
        d.tris.len(),
        dmesh.triangles.len(),
        "{name}: detail triangles"
    );
}

/// One mesh's samples: whole builds and per-stage times (seconds), each side.
struct Samples {
    name: &'static str,
    geom: InputGeometry,
    trimesh: rerecast::TriMesh,
    cfg: Config,
    navkit: Vec<f64>,
    rerecast: Vec<f64>,
    navkit_stages: Vec<[f64; 9]>,
    rerecast_stages: Vec<[f64; 9]>,
}

fn main() {
    let rounds = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_ROUNDS);
    let settings = BuildSettings::default();
    let mut all: Vec<Samples> = MESHES
        .iter()
        .map(|&name| {
            let geom = InputGeometry::load(mesh_path(name)).expect("load mesh");
            let nk = navkit_build(&geom, &settings, true);
            let cfg = rerecast_config(&nk.report().config);
            let trimesh = rerecast_mesh(&geom);
            let (pmesh, dmesh) = rerecast_build(trimesh.clone(), &cfg, &mut [0.0; 9]);
            assert_same_meshes(name, &nk, &pmesh, &dmesh);
            println!(
                "{name}: same poly mesh ({} verts, {} polys) and detail counts ({} verts, {} tris)",
                pmesh.vertices.len(),
                pmesh.polygon_count(),
                dmesh.vertices.len(),
                dmesh.triangles.len()
            );
            Samples {
                name,
                geom,
                trimesh,
                cfg,
                navkit: Vec::new(),
                rerecast: Vec::new(),
                navkit_stages: Vec::new(),
                rerecast_stages: Vec::new(),
            }
        })
        .collect();
    for _ in 0..rounds {
        for s in &mut all {
            let t = Instant::now();
            let nk = black_box(navkit_build(&s.geom, &settings, false));
            let whole = t.elapsed().as_secs_f64();
            s.navkit.push(whole);
            let mut stages = [0.0; 9];
            for &(stage, ms) in &nk.report().timings_ms {
                if let Some(g) = navkit_stage_group(stage) {
                    stages[g] += ms / 1e3;
                }
            }
            stages[8] = whole - stages.iter().sum::<f64>();
            s.navkit_stages.push(stages);
            drop(nk);
            let trimesh = s.trimesh.clone();
            let mut stages = [0.0; 9];
            let t = Instant::now();
            black_box(rerecast_build(trimesh, &s.cfg, &mut stages));
            let whole = t.elapsed().as_secs_f64();
            s.rerecast.push(whole);
            stages[8] = whole - stages.iter().sum::<f64>();
            s.rerecast_stages.push(stages);
        }
    }
    report(&mut all, rounds);
}

fn report(all: &mut [Samples], rounds: usize) {
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "\nsolo builds, medians of {rounds} interleaved rounds (load average: {})",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    println!(
        "{:<12} {:>12} {:>12} {:>18}",
        "mesh", "navkit ms", "rerecast ms", "navkit / rerecast"
    );
    for s in all.iter_mut() {
        let nk = median(&s.navkit) * 1e3;
        let rr = median(&s.rerecast) * 1e3;
        println!("{:<12} {nk:>12.3} {rr:>12.3} {:>18.3}", s.name, nk / rr);
    }
    println!("\nper stage (median ms, navkit's stage timers / rerecast's stages timed here):");
    for s in all.iter() {
        println!("{}:", s.name);
        for (i, stage) in RR_STAGES.iter().enumerate() {
            let nk: Vec<f64> = s.navkit_stages.iter().map(|a| a[i]).collect();
            let rr: Vec<f64> = s.rerecast_stages.iter().map(|a| a[i]).collect();
            let (nk, rr) = (median(&nk) * 1e3, median(&rr) * 1e3);
            println!(
                "  {stage:<12} {nk:>9.3} {rr:>9.3} {:>8.3}",
                if rr > 0.0 { nk / rr } else { f64::NAN }
            );
        }
    }
}
