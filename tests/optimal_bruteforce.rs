//! The optimal path against a brute-force optimum: Dijkstra over a visibility graph of every
//! navmesh vertex, the start and the goal, where two points see each other if Detour's own
//! raycast walks from one to the other (so it follows floors over floors as the navmesh
//! links them). On small levels with holes, narrow gaps and two floors, solo, tiled and
//! tile-cache navmeshes. Independent of the search: it shares no code with
//! `src/query/optimal/`.

mod common;

use glam::Vec3;
use navkit::navmesh::view::PolyType;
use navkit::query::{
    NavMeshQuery, OptimalOptions, PathOptions, PolyRef, QueryFilter, RaycastOptions,
};
use navkit::{InputGeometry, NavMesh, NavMeshBuilder, TriMesh};
use rand::SeedableRng;

/// A level of walkable 2 m cells (`#` a hole, anything else floor), at height `y`, from
/// `rows` (row 0 at z = 0).
fn cells(rows: &[&str], y: f32, verts: &mut Vec<f32>, tris: &mut Vec<i32>) {
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            if ch == '#' {
                continue;
            }
            let (x0, z0) = (c as f32 * 2.0, r as f32 * 2.0);
            quad(
                verts,
                tris,
                [
                    (x0, y, z0),
                    (x0 + 2.0, y, z0),
                    (x0 + 2.0, y, z0 + 2.0),
                    (x0, y, z0 + 2.0),
                ],
            );
        }
    }
}

/// A quad (corners counter-clockwise seen from above in x-z order as listed), two triangles
/// facing up.
fn quad(verts: &mut Vec<f32>, tris: &mut Vec<i32>, c: [(f32, f32, f32); 4]) {
    let base = (verts.len() / 3) as i32;
    for (x, y, z) in c {
        verts.extend([x, y, z]);
    }
    tris.extend([base, base + 2, base + 1, base, base + 3, base + 2]);
}

fn geometry(verts: Vec<f32>, tris: Vec<i32>) -> InputGeometry {
    InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap())
}

/// Square pillars and an L-shaped block in a 24 m room.
fn pillars() -> InputGeometry {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    cells(
        &[
            "............",
            "............",
            "..#....##...",
            "..#.........",
            ".....#......",
            "....###.....",
            "............",
            ".##.....#...",
            ".#......#...",
            "........#...",
            "....#.......",
            "............",
        ],
        0.0,
        &mut v,
        &mut t,
    );
    geometry(v, t)
}

/// Two rooms joined by single-cell gaps in a wall.
fn gaps() -> InputGeometry {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    cells(
        &[
            "..........",
            "..........",
            "..........",
            "#.####.###",
            "..........",
            "..........",
            "####.#####",
            "..........",
            "..........",
        ],
        0.0,
        &mut v,
        &mut t,
    );
    geometry(v, t)
}

/// A ground floor with a platform 4 m above part of it, reached by a ramp.
fn floors() -> InputGeometry {
    let (mut v, mut t) = (Vec::new(), Vec::new());
    quad(
        &mut v,
        &mut t,
        [
            (0.0, 0.0, 0.0),
            (44.0, 0.0, 0.0),
            (44.0, 0.0, 30.0),
            (0.0, 0.0, 30.0),
        ],
    );
    quad(
        &mut v,
        &mut t,
        [
            (4.0, 4.0, 10.0),
            (24.0, 4.0, 10.0),
            (24.0, 4.0, 20.0),
            (4.0, 4.0, 20.0),
        ],
    );
    quad(
        &mut v,
        &mut t,
        [
            (24.0, 4.0, 10.0),
            (36.0, 0.0, 10.0),
            (36.0, 0.0, 20.0),
            (24.0, 4.0, 20.0),
        ],
    );
    geometry(v, t)
}

/// Every ground polygon's vertices, deduplicated per tile: (position, polygons having it).
fn vertices(nav: &NavMesh) -> Vec<(Vec3, Vec<PolyRef>)> {
    let mut out: Vec<(Vec3, Vec<PolyRef>)> = Vec::new();
    for tile in nav.tiles() {
        for poly in tile.polys().filter(|p| p.poly_type() == PolyType::Ground) {
            for v in poly.vertices() {
                match out.iter_mut().find(|(p, _)| p.distance(v) < 1e-4) {
                    Some((_, polys)) => polys.push(poly.poly_ref()),
                    None => out.push((v, vec![poly.poly_ref()])),
                }
            }
        }
    }
    out
}

fn xz(a: Vec3, b: Vec3) -> f64 {
    f64::from(Vec3::new(a.x - b.x, 0.0, a.z - b.z).length())
}

/// True if Detour's raycast from `a` (starting on one of `polys`) reaches `b` (a wall hit
/// at the very end counts: a vertex lies on walls) on `b`'s floor: the last polygon it
/// walks holds `b` within a metre of height (the raycast itself works on the xz-plane).
fn sees(q: &mut NavMeshQuery<'_>, a: Vec3, polys: &[PolyRef], b: Vec3) -> bool {
    let f = QueryFilter::default();
    polys.iter().any(|&p| {
        let Ok(hit) = q.raycast(p, a, b, &f, &RaycastOptions::default()) else {
            return false;
        };
        let Some(&last) = hit.polys.last() else {
            return false;
        };
        hit.t >= 1.0 - 1e-5
            && q.closest_point_on_poly(last, b)
                .is_ok_and(|(c, _)| xz(c, b) < 1e-3 && (c.y - b.y).abs() < 1.0)
    })
}

/// The brute-force optimum from `s` to `g` (each a point and its polygon).
fn brute_force(
    q: &mut NavMeshQuery<'_>,
    verts: &[(Vec3, Vec<PolyRef>)],
    s: (Vec3, PolyRef),
    g: (Vec3, PolyRef),
) -> f64 {
    let mut pts: Vec<(Vec3, Vec<PolyRef>)> = vec![(s.0, vec![s.1]), (g.0, vec![g.1])];
    pts.extend(verts.iter().cloned());
    let n = pts.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n)
            .filter(|&i| !done[i])
            .min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
        else {
            break;
        };
        if dist[u].is_infinite() || u == 1 {
            break;
        }
        done[u] = true;
        for w in 0..n {
            if done[w] || dist[u] + xz(pts[u].0, pts[w].0) >= dist[w] {
                continue;
            }
            let (pu, polys) = (pts[u].0, pts[u].1.clone());
            if sees(q, pu, &polys, pts[w].0) {
                dist[w] = dist[u] + xz(pu, pts[w].0);
            }
        }
    }
    dist[1]
}

fn check(name: &str, nav: &NavMesh, pairs: usize) {
    let mut q = NavMeshQuery::new(nav, 8192).unwrap();
    let f = QueryFilter::default();
    let verts = vertices(nav);
    let mut rng = rand_pcg::Pcg32::seed_from_u64(3);
    let opts = PathOptions {
        smooth: None,
        optimal: Some(OptimalOptions::default()),
        ..PathOptions::default()
    };
    let (mut n, mut worst, mut gain) = (0, 0.0f64, 0.0f64);
    while n < pairs {
        let (sp, s) = q.find_random_point(&f, &mut rng).unwrap();
        let (gp, g) = q.find_random_point(&f, &mut rng).unwrap();
        let p = q.path(s, g, &f, &opts).unwrap();
        if !p.is_complete() {
            continue;
        }
        let o = p.optimal.unwrap();
        let bf = brute_force(&mut q, &verts, (s, sp), (g, gp));
        let rel = (f64::from(o.length_xz) - bf).abs() / bf.max(1.0);
        assert!(
            rel < 1e-4,
            "{name} {s} {g}: optimal {} brute force {bf}",
            o.length_xz
        );
        worst = worst.max(rel);
        let det: f64 = p
            .straight
            .points
            .windows(2)
            .map(|w| xz(w[0].pos, w[1].pos))
            .sum();
        gain = gain.max(det / bf);
        n += 1;
    }
    println!(
        "{name}: {n} pairs, worst relative difference {worst:e}, Detour's worst excess {gain:.4}"
    );
}

#[test]
fn optimal_equals_brute_force_on_solo_levels() {
    for (name, geom) in [
        ("pillars", pillars()),
        ("gaps", gaps()),
        ("floors", floors()),
    ] {
        let built = NavMeshBuilder::new(&geom).solo().unwrap();
        check(name, built.navmesh(), 40);
    }
}

#[test]
fn optimal_equals_brute_force_on_tiled_levels() {
    for (name, geom) in [
        ("pillars", pillars()),
        ("gaps", gaps()),
        ("floors", floors()),
    ] {
        let tiled = NavMeshBuilder::new(&geom).tile_size(16).tiled().unwrap();
        check(name, tiled.navmesh(), 40);
        let cache = NavMeshBuilder::new(&geom)
            .tile_size(16)
            .tile_cache()
            .unwrap();
        check(name, cache.navmesh(), 20);
    }
}
