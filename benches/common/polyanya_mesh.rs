//! The reference meshes of the optimal path's checks (tests/optimal_path.rs) and benchmark
//! (benches/optimal.rs): a navkit navmesh's only tile as a `polyanya` crate mesh, and how many
//! polygons lie over a point (a point over two floors is ambiguous in 2D); and the seeded
//! random pairs both draw.

use glam::{Vec2, Vec3};
use navkit::NavMesh;
use navkit::navmesh::view::PolyType;
use navkit::query::{NavMeshQuery, PathOptions, QueryFilter};
use rand::SeedableRng;

/// `n` random pairs from `seed` that Detour's corridor (with `q`'s node pool) connects.
pub fn connected_pairs(q: &mut NavMeshQuery<'_>, n: usize, seed: u64) -> Vec<(Vec3, Vec3)> {
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let a = q.find_random_point(&f, &mut rng).unwrap().1;
        let b = q.find_random_point(&f, &mut rng).unwrap().1;
        let corridor = q.path(a, b, &f, &PathOptions::corridor_only());
        if corridor.is_ok_and(|p| p.is_complete()) {
            out.push((a, b));
        }
    }
    out
}

/// The navmesh's only tile as a `polyanya` mesh (ground polygons fanned into
/// counter-clockwise triangles), its coordinates moved by `origin` (the crate works in
/// `f32` with absolute tolerances).
pub fn to_polyanya(nav: &NavMesh) -> (polyanya::Mesh, Vec2) {
    let tile = nav.tiles().next().unwrap();
    let h = tile.header();
    let origin = Vec2::new(h.bmin.x, h.bmin.z);
    let vertices: Vec<Vec2> = tile
        .vertices()
        .iter()
        .map(|v| Vec2::new(v[0], v[2]) - origin)
        .collect();
    let mut triangles = Vec::new();
    for poly in tile.polys().filter(|p| p.poly_type() == PolyType::Ground) {
        let mut idx: Vec<usize> = poly
            .vertex_indices()
            .iter()
            .map(|&i| usize::from(i))
            .collect();
        let area: f32 = (0..idx.len())
            .map(|k| vertices[idx[k]].perp_dot(vertices[idx[(k + 1) % idx.len()]]))
            .sum();
        if area < 0.0 {
            idx.reverse();
        }
        for k in 1..idx.len() - 1 {
            triangles.push([idx[0], idx[k], idx[k + 1]]);
        }
    }
    let mut mesh = polyanya::Mesh::try_from(polyanya::Trimesh {
        vertices,
        triangles,
    })
    .unwrap();
    mesh.bake();
    (mesh, origin)
}

/// How many ground polygons lie over `p` on the xz-plane.
pub fn polys_over(nav: &NavMesh, p: Vec3) -> usize {
    let q = Vec2::new(p.x, p.z);
    let inside = |v: &[Vec2]| {
        let n = v.len();
        let s: Vec<f32> = (0..n)
            .map(|k| (v[(k + 1) % n] - v[k]).perp_dot(q - v[k]))
            .collect();
        s.iter().all(|&x| x >= -1e-4) || s.iter().all(|&x| x <= 1e-4)
    };
    nav.tiles()
        .flat_map(|t| t.polys().collect::<Vec<_>>())
        .filter(|poly| poly.poly_type() == PolyType::Ground)
        .filter(|poly| {
            inside(
                &poly
                    .vertices()
                    .map(|v| Vec2::new(v.x, v.z))
                    .collect::<Vec<_>>(),
            )
        })
        .count()
}
