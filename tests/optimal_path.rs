//! The optimal path ([`PathOptions::optimal`]): never longer than Detour's straight path, on
//! the navmesh, and as short as an independent optimum.

mod common;

use glam::Vec3;
use navkit::query::{
    NavMeshQuery, OptimalOptions, PathOptions, QueryFilter, RaycastOptions, straight_flags,
};
use rand::SeedableRng;

fn xz(a: Vec3, b: Vec3) -> f32 {
    Vec3::new(a.x - b.x, 0.0, a.z - b.z).length()
}

/// Random connected pairs on `q`'s navmesh.
fn pairs(q: &mut NavMeshQuery<'_>, n: usize, seed: u64) -> Vec<(Vec3, Vec3)> {
    let f = QueryFilter::default();
    let mut rng = rand_pcg::Pcg32::seed_from_u64(seed);
    let mut out = Vec::new();
    while out.len() < n {
        let a = q.find_random_point(&f, &mut rng).unwrap().1;
        let b = q.find_random_point(&f, &mut rng).unwrap().1;
        let c = q.path(a, b, &f, &PathOptions::corridor_only()).unwrap();
        if c.is_complete() {
            out.push((a, b));
        }
    }
    out
}

/// Every segment of the optimal path lies on the navmesh: a raycast from each point (on the
/// polygon it enters) reaches the next. Returns the worst shortfall in metres.
fn off_mesh_shortfall(q: &mut NavMeshQuery<'_>, path: &navkit::query::OptimalPath) -> f32 {
    let f = QueryFilter::default();
    let mut worst = 0.0f32;
    for w in path.points.windows(2) {
        if w[0].flags & straight_flags::OFFMESH_CONNECTION != 0 {
            continue;
        }
        let hit = q
            .raycast(
                w[0].poly,
                w[0].pos,
                w[1].pos,
                &f,
                &RaycastOptions::default(),
            )
            .unwrap();
        if hit.t < 1.0 {
            worst = worst.max((1.0 - hit.t) * xz(w[0].pos, w[1].pos));
        }
    }
    worst
}

#[test]
fn optimal_is_never_longer_than_detours_straight_path() {
    for mesh in ["dungeon.obj", "nav_test.obj", "undulating.obj"] {
        let built = common::build(mesh);
        let mut q = built.navmesh().query().unwrap();
        let f = QueryFilter::default();
        let opts = PathOptions {
            smooth: None,
            optimal: Some(OptimalOptions::default()),
            ..PathOptions::default()
        };
        let (mut sum_opt, mut sum_det, mut worst_gain, mut worst_off) = (0.0, 0.0, 0.0f32, 0.0f32);
        let mut expanded = 0;
        for (a, b) in pairs(&mut q, 200, 7) {
            let p = q.path(a, b, &f, &opts).unwrap();
            let o = p.optimal.as_ref().unwrap();
            let det: f32 = p
                .straight
                .points
                .windows(2)
                .map(|w| xz(w[0].pos, w[1].pos))
                .sum();
            assert!(
                o.length_xz <= det + 1e-3,
                "{mesh} {a} {b}: optimal {} > Detour {det}",
                o.length_xz
            );
            assert_eq!(o.points.first().unwrap().pos.x, p.start.point.x);
            sum_opt += o.length_xz;
            sum_det += det;
            worst_gain = worst_gain.max(det / o.length_xz.max(1e-6));
            worst_off = worst_off.max(off_mesh_shortfall(&mut q, o));
            expanded += o.expanded;
        }
        println!(
            "{mesh}: Detour / optimal: mean {:.4}, worst {worst_gain:.4}; worst off-mesh {worst_off:.4} m; expanded {expanded}",
            sum_det / sum_opt
        );
    }
}

/// Where the `polyanya` mesh's origin lies on the xz-plane: the tile's lower corner (the
/// crate works in `f32` with absolute tolerances, so it is given coordinates near zero).
fn origin(nav: &navkit::NavMesh) -> glam::Vec2 {
    let h = nav.tiles().next().unwrap().header();
    glam::Vec2::new(h.bmin.x, h.bmin.z)
}

/// The navmesh's ground polygons (one tile) as a `polyanya` mesh on the xz-plane, moved by
/// [`origin`]: each convex polygon fanned into counter-clockwise triangles over the tile's
/// vertices.
fn to_polyanya(nav: &navkit::NavMesh) -> polyanya::Mesh {
    use navkit::navmesh::view::PolyType;
    let tile = nav.tiles().next().unwrap();
    let o = origin(nav);
    let vertices: Vec<glam::Vec2> = tile
        .vertices()
        .iter()
        .map(|v| glam::Vec2::new(v[0], v[2]) - o)
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
    mesh
}

/// How many of the navmesh's ground polygons lie over `p` on the xz-plane.
fn polys_over(nav: &navkit::NavMesh, p: Vec3) -> usize {
    let q = glam::Vec2::new(p.x, p.z);
    nav.tiles()
        .flat_map(|t| t.polys().collect::<Vec<_>>())
        .filter(|poly| {
            let v: Vec<glam::Vec2> = poly.vertices().map(|v| glam::Vec2::new(v.x, v.z)).collect();
            let n = v.len();
            let s: Vec<f32> = (0..n)
                .map(|k| (v[(k + 1) % n] - v[k]).perp_dot(q - v[k]))
                .collect();
            n >= 3 && (s.iter().all(|&x| x >= -1e-4) || s.iter().all(|&x| x <= 1e-4))
        })
        .count()
}

#[test]
fn optimal_lengths_equal_the_polyanya_crates() {
    for mesh in ["dungeon.obj", "undulating.obj", "nav_test.obj"] {
        let built = common::build(mesh);
        let nav = built.navmesh();
        let reference = to_polyanya(nav);
        let mut q = nav.query().unwrap();
        let f = QueryFilter::default();
        let opts = PathOptions {
            straight: None,
            smooth: None,
            optimal: Some(OptimalOptions::default()),
            ..PathOptions::default()
        };
        let (mut compared, mut worst) = (0, 0.0f32);
        for (a, b) in pairs(&mut q, 300, 11) {
            if polys_over(nav, a) != 1 || polys_over(nav, b) != 1 {
                continue;
            }
            let o = q.path(a, b, &f, &opts).unwrap().optimal.unwrap();
            let base = origin(nav);
            let Some(r) = reference.path(
                glam::Vec2::new(a.x, a.z) - base,
                glam::Vec2::new(b.x, b.z) - base,
            ) else {
                continue;
            };
            let rel = (o.length_xz - r.length).abs() / r.length.max(1.0);
            if rel > 1e-4 {
                println!(
                    "{mesh} {a} {b}: navkit {} polyanya {}",
                    o.length_xz, r.length
                );
            }
            worst = worst.max(rel);
            compared += 1;
        }
        println!("{mesh}: {compared} pairs compared, worst relative difference {worst:e}");
    }
}
