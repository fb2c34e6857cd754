//! Benchmark: navkit's optimal path (`PathOptions::optimal`, Polyanya over the navmesh's
//! polygons) against the `polyanya` crate on 2D meshes converted from the same navmesh, and
//! against Detour's path (`findPath` + `findStraightPath`), on the same seeded pairs.
//!
//! Cases: RecastDemo's dungeon, nav_test and undulating (solo builds), and a generated world
//! of 1M triangles built tiled (`--quick`: 100k) where the `polyanya` crate is not run (its
//! meshes need shared vertices; tile borders have T-junctions). Per case, 200 random pairs
//! that Detour connects; the crate is timed on the pairs whose ends lie over one polygon
//! each on the xz-plane (a point over two floors is ambiguous in 2D), and its lengths are
//! checked against navkit's (relative difference below 1e-4, asserted).
//!
//! Sides, timed per query, each including finding the ends' polygons:
//! - `detour`: `NavMeshQuery::path` with the straight path (Detour's `findNearestPoly` x2,
//!   `findPath`, `findStraightPath`);
//! - `optimal`: `NavMeshQuery::path` with only the optimal path (its corridor is then the
//!   polygons the optimal path crosses: Detour's search is not run);
//! - `corridor`: `NavMeshQuery::path` with the corridor only (Detour's `findPath`), for scale;
//! - `corners`: the optimal path without its side crossings (`OptimalOptions::crossings`
//!   off): only the corners, with their heights, as the crate returns corners only;
//! - `polyanya`: the crate's `Mesh::path`.
//!
//! Interleaved rounds (each side in turn over all pairs), medians, ratios. Run:
//! `cargo bench --bench optimal -- --bench` (`-- --quick` for fewer rounds and the 100k world;
//! without `--bench`, as `cargo test --benches` runs it, a smoke test).

use std::hint::black_box;
use std::time::Instant;

use glam::{Vec2, Vec3};
use navkit::query::{NavMeshQuery, OptimalOptions, PathOptions, QueryFilter};
use navkit::{InputGeometry, NavMesh, NavMeshBuilder};

#[path = "common/polyanya_mesh.rs"]
mod polyanya_mesh;
use polyanya_mesh::{connected_pairs, polys_over, to_polyanya};

const PAIRS: usize = 200;

/// One benchmarked navmesh: its pairs, and the crate's mesh where there is one.
struct Case {
    name: String,
    nav: NavMesh,
    pairs: Vec<(Vec3, Vec3)>,
    reference: Option<(polyanya::Mesh, Vec2, Vec<usize>)>,
}

fn mesh_path(name: &str) -> String {
    format!(
        "{}/../shared/meshes/recastdemo/{name}.obj",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn pairs(nav: &NavMesh, n: usize) -> Vec<(Vec3, Vec3)> {
    connected_pairs(&mut NavMeshQuery::new(nav, 65535).unwrap(), n, 22)
}

fn solo_case(name: &str) -> Case {
    let geom = InputGeometry::load(mesh_path(name)).unwrap();
    let nav = NavMeshBuilder::new(&geom).solo().unwrap().into_navmesh();
    let pairs = pairs(&nav, PAIRS);
    let (mesh, origin) = to_polyanya(&nav);
    let unique = (0..pairs.len())
        .filter(|&i| polys_over(&nav, pairs[i].0) == 1 && polys_over(&nav, pairs[i].1) == 1)
        .collect();
    Case {
        name: name.to_string(),
        nav,
        pairs,
        reference: Some((mesh, origin, unique)),
    }
}

fn world_case(tris: usize) -> Case {
    use navkit::tools::worldgen::{WorldSpec, generate};
    let (geom, _) = generate(&WorldSpec::new(tris, 1)).unwrap();
    let nav = NavMeshBuilder::new(&geom).tiled().unwrap().into_navmesh();
    let pairs = pairs(&nav, PAIRS);
    Case {
        name: format!("world {}k tiled", tris / 1000),
        nav,
        pairs,
        reference: None,
    }
}

fn options(which: &str) -> PathOptions {
    let corridor = PathOptions::corridor_only();
    match which {
        "detour" => PathOptions {
            smooth: None,
            ..PathOptions::default()
        },
        "optimal" => PathOptions {
            optimal: Some(OptimalOptions::default()),
            ..corridor
        },
        "corners" => PathOptions {
            optimal: Some(OptimalOptions {
                crossings: false,
                ..OptimalOptions::default()
            }),
            ..corridor
        },
        _ => corridor,
    }
}

/// Seconds for side `which` over the case's pairs (the crate's: over its pairs).
fn time_side(case: &Case, q: &mut NavMeshQuery<'_>, which: &str) -> f64 {
    let f = QueryFilter::default();
    let t = Instant::now();
    if which == "polyanya" {
        let (mesh, o, unique) = case.reference.as_ref().unwrap();
        for &i in unique {
            let (a, b) = case.pairs[i];
            black_box(mesh.path(Vec2::new(a.x, a.z) - *o, Vec2::new(b.x, b.z) - *o));
        }
        return t.elapsed().as_secs_f64() / unique.len().max(1) as f64;
    }
    let o = options(which);
    for &(a, b) in &case.pairs {
        black_box(q.path(a, b, &f, &o).unwrap());
    }
    t.elapsed().as_secs_f64() / case.pairs.len() as f64
}

/// Asserts navkit's optimal lengths equal the crate's and are never above Detour's.
fn check(case: &Case, q: &mut NavMeshQuery<'_>) {
    let f = QueryFilter::default();
    let xz = |a: Vec3, b: Vec3| Vec2::new(a.x - b.x, a.z - b.z).length();
    let both = PathOptions {
        optimal: Some(OptimalOptions::default()),
        ..options("detour")
    };
    let (mut expanded, mut polys) = (0usize, 0usize);
    for (i, &(a, b)) in case.pairs.iter().enumerate() {
        let p = q.path(a, b, &f, &both).unwrap();
        polys += p.corridor.polys.len();
        let o = p.optimal.unwrap();
        expanded += o.expanded;
        let det: f32 = p
            .straight
            .points
            .windows(2)
            .map(|w| xz(w[0].pos, w[1].pos))
            .sum();
        assert!(
            o.length_xz <= det * (1.0 + 1e-5),
            "{} pair {i}: longer than Detour's",
            case.name
        );
        if let Some((mesh, origin, unique)) = &case.reference {
            if unique.contains(&i) {
                let r = mesh
                    .path(Vec2::new(a.x, a.z) - *origin, Vec2::new(b.x, b.z) - *origin)
                    .unwrap();
                let rel = (o.length_xz - r.length).abs() / r.length.max(1.0);
                assert!(
                    rel < 1e-4,
                    "{} pair {i}: navkit {} polyanya {}",
                    case.name,
                    o.length_xz,
                    r.length
                );
            }
        }
    }
    report_stats(&case.name, expanded, polys, case.pairs.len());
}

fn report_stats(name: &str, expanded: usize, polys: usize, n: usize) {
    eprintln!(
        "{name}: optimal search expands {:.0} nodes per query; Detour's corridors have {:.0} polygons",
        expanded as f64 / n as f64,
        polys as f64 / n as f64
    );
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run(case: &Case, rounds: usize) {
    let mut q = NavMeshQuery::new(&case.nav, 65535).unwrap();
    check(case, &mut q);
    let mut sides = vec!["detour", "optimal", "corridor", "corners"];
    if case.reference.is_some() {
        sides.push("polyanya");
    }
    let mut times = vec![Vec::new(); sides.len()];
    for _ in 0..rounds {
        for (k, side) in sides.iter().enumerate() {
            times[k].push(time_side(case, &mut q, side));
        }
    }
    let us: Vec<f64> = times.into_iter().map(|t| median(t) * 1e6).collect();
    print!(
        "{:<18} {:>9.1} {:>9.1} {:>9.1} {:>9.1}   optimal/detour {:.2}  corners/detour {:.2}",
        case.name,
        us[0],
        us[1],
        us[2],
        us[3],
        us[1] / us[0],
        us[3] / us[0]
    );
    match us.get(4) {
        Some(p) => {
            let n = case.reference.as_ref().map_or(0, |r| r.2.len());
            let (ratio, corners) = (us[1] / p, us[3] / p);
            println!(
                "   polyanya {p:>8.1} ({n} pairs)   optimal/polyanya {ratio:.2}  corners/polyanya {corners:.2}"
            )
        }
        None => println!(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bench = args.iter().any(|a| a == "--bench");
    let quick = args.iter().any(|a| a == "--quick") || !bench;
    let rounds = std::env::var("NAVKIT_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(if bench && !quick { 15 } else { 3 });
    println!("per query, microseconds (medians of {rounds} interleaved rounds, {PAIRS} pairs)");
    println!(
        "{:<18} {:>9} {:>9} {:>9} {:>9}",
        "case", "detour", "optimal", "corridor", "corners"
    );
    // `NAVKIT_BENCH_CASES=undulating,world` runs only those.
    let only = std::env::var("NAVKIT_BENCH_CASES").ok();
    let wanted = |n: &str| only.as_ref().is_none_or(|o| o.split(',').any(|w| w == n));
    let names = if bench {
        vec!["dungeon", "nav_test", "undulating"]
    } else {
        vec!["dungeon"]
    };
    for name in names.into_iter().filter(|n| wanted(n)) {
        run(&solo_case(name), rounds);
    }
    if bench && wanted("world") {
        run(&world_case(if quick { 100_000 } else { 1_000_000 }), rounds);
    }
}
