//! The seeded start/end pairs the navmesh benchmark (`benches/navmesh.rs`) runs its queries
//! on, shared with the tests that compare over the same pairs (`#[path]`-included by both).

use glam::Vec3;
use rand::SeedableRng;

use navkit::query::{DEFAULT_HALF_EXTENTS, NavMeshQuery, PolyRef, QueryFilter};

/// RecastDemo's meshes in `../shared/meshes/recastdemo` the benchmark runs on.
pub const MESHES: [&str; 3] = ["dungeon", "nav_test", "undulating"];
/// Pairs per mesh.
pub const PAIRS: usize = 500;
/// The generator's seed.
pub const SEED: u64 = 0x6e61_766b_6974; // "navkit"

/// One start/end pair and the polygons nearest its points.
#[derive(Clone, Copy, Debug)]
pub struct BenchPair {
    pub start: Vec3,
    pub end: Vec3,
    pub start_ref: PolyRef,
    pub end_ref: PolyRef,
}

/// Start/end pairs on which RecastDemo's smooth-path loop gets stuck (found by a search over
/// random pairs): it oscillates between two points until its cap.
pub fn stuck_pairs(mesh: &str) -> Vec<(Vec3, Vec3)> {
    match mesh {
        "nav_test" => vec![(
            Vec3::new(8.914809, -2.2695167, -0.036701746),
            Vec3::new(6.359668, 9.613342, 18.188297),
        )],
        _ => Vec::new(),
    }
}

/// The benchmark's `count` pairs on `mesh` (its name in [`MESHES`]): first its
/// [`stuck_pairs`], then pairs of random points (`find_random_point` with `filter`, drawn from
/// `Pcg32::seed_from_u64(SEED)`) whose nearest polygons (half extents (2, 4, 2)) are found.
pub fn bench_pairs(
    mesh: &str,
    q: &mut NavMeshQuery<'_>,
    filter: &QueryFilter,
    count: usize,
) -> Vec<BenchPair> {
    let mut rng = rand_pcg::Pcg32::seed_from_u64(SEED);
    let mut pairs = Vec::with_capacity(count);
    let mut attempts = 0;
    while pairs.len() < count {
        attempts += 1;
        assert!(
            attempts <= 20 * count,
            "{mesh}: too few random points found"
        );
        // First the known pairs where RecastDemo's loop gets stuck, then random pairs.
        let (start, end) = if let Some(&p) = stuck_pairs(mesh).get(pairs.len()) {
            p
        } else {
            let (Ok((_, start)), Ok((_, end))) = (
                q.find_random_point(filter, &mut rng),
                q.find_random_point(filter, &mut rng),
            ) else {
                continue;
            };
            (start, end)
        };
        let (Ok(s), Ok(e)) = (
            q.find_nearest_poly(start, DEFAULT_HALF_EXTENTS, filter),
            q.find_nearest_poly(end, DEFAULT_HALF_EXTENTS, filter),
        ) else {
            continue;
        };
        pairs.push(BenchPair {
            start,
            end,
            start_ref: s.poly,
            end_ref: e.poly,
        });
    }
    pairs
}
