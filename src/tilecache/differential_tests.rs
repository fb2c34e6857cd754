//! Differential tests: navkit's tile build (its own polygon mesh builder) and update step
//! against Detour's own `dtTileCache::buildNavMeshTile` and `dtTileCache::update`, kept for
//! tests (`crate::ffi::tilecache_build::upstream`). Two caches are built from the same level
//! and settings, one through each; every navmesh tile must be the same bytes, and obstacle
//! add/remove sequences must end, step by step, in the same tiles, statuses and obstacle slots
//! (salts, states, touched and pending layers, free list).

use glam::Vec3;

use super::*;
use crate::ffi::tilecache_build::upstream;

/// A RecastDemo mesh from `../shared/meshes/recastdemo`.
fn level(name: &str) -> InputGeometry {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/meshes/recastdemo");
    InputGeometry::load(path.join(name)).expect("RecastDemo mesh in ../shared")
}

/// A tile cache whose builds and updates are Detour's (`upstream`) or navkit's.
struct World {
    tc: TileCache,
    upstream: bool,
}

impl World {
    fn build(geom: &InputGeometry, settings: &BuildSettings, tile_size: u32, up: bool) -> World {
        let cache = TileCacheSettings {
            tile_size,
            ..TileCacheSettings::default()
        };
        upstream::set(up);
        let tc = TileCache::build(geom, settings, &cache, &Budget::new());
        upstream::set(false);
        World {
            tc: tc.expect("tile cache builds"),
            upstream: up,
        }
    }

    /// Runs `f` with this world's builds (Detour's or navkit's).
    fn with<T>(&mut self, f: impl FnOnce(&mut TileCache) -> T) -> T {
        upstream::set(self.upstream);
        let out = f(&mut self.tc);
        upstream::set(false);
        out
    }
}

/// Asserts both navmeshes hold the same tiles, byte for byte; the number compared.
fn same_tiles(a: &TileCache, b: &TileCache, what: &str) -> usize {
    let (ta, tb) = (a.navmesh.raw().tile_data(), b.navmesh.raw().tile_data());
    assert_eq!(ta.len(), tb.len(), "{what}: tile count");
    for ((ra, da), (rb, db)) in ta.iter().zip(&tb) {
        assert_eq!(ra, rb, "{what}: tile refs");
        assert!(
            da == db,
            "{what}: tile {ra} differs ({} vs {} bytes)",
            da.len(),
            db.len()
        );
    }
    ta.len()
}

/// Steps both caches' updates until Detour's is up to date, comparing every step's status and
/// obstacle slots, and the tiles at the end; the tiles compared.
fn update_both(u: &mut World, o: &mut World, what: &str) -> (usize, usize) {
    for step in 0..10_000 {
        let su = u.with(|tc| tc.raw.update(tc.navmesh.raw_mut()));
        let so = o.with(|tc| tc.raw.update(tc.navmesh.raw_mut()));
        assert_eq!(su, so, "{what}: step {step} (status, up to date)");
        assert_eq!(
            u.tc.raw.obstacle_slot_states(),
            o.tc.raw.obstacle_slot_states(),
            "{what}: obstacle slots after step {step}"
        );
        assert_eq!(u.tc.raw.pending(), o.tc.raw.pending(), "{what}: queues");
        if su.1 {
            return (same_tiles(&u.tc, &o.tc, what), step + 1);
        }
    }
    panic!("{what}: updates never finished");
}

/// A small deterministic generator (64-bit LCG, Knuth's constants) for obstacle placement.
struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// `n` obstacles of every shape spread over the level's bounds, spanning its full height.
fn obstacles(geom: &InputGeometry, seed: u64, n: usize) -> Vec<ObstacleShape> {
    let b = geom.mesh.bounds();
    let (lo, hi) = (b.min, b.max);
    let mut r = Lcg(seed);
    (0..n)
        .map(|i| {
            let x = lo.x + (hi.x - lo.x) * r.unit();
            let z = lo.z + (hi.z - lo.z) * r.unit();
            let size = 0.3 + 1.5 * r.unit();
            let (y0, h) = (lo.y - 1.0, hi.y - lo.y + 2.0);
            match i % 3 {
                0 => ObstacleShape::Cylinder {
                    pos: Vec3::new(x, y0, z),
                    radius: size,
                    height: h,
                },
                1 => ObstacleShape::Box {
                    bmin: Vec3::new(x - size, y0, z - size * 0.5),
                    bmax: Vec3::new(x + size, y0 + h, z + size * 0.5),
                },
                _ => ObstacleShape::OrientedBox {
                    center: Vec3::new(x, (lo.y + hi.y) * 0.5, z),
                    half_extents: Vec3::new(size, h * 0.5, size * 0.4),
                    y_angle: 6.0 * r.unit(),
                },
            }
        })
        .collect()
}

/// Adds the shapes to both caches (the same ones accepted by both); their refs.
fn add_both(u: &mut World, o: &mut World, shapes: &[ObstacleShape]) -> Vec<ObstacleRef> {
    let mut refs = Vec::new();
    for s in shapes {
        let (ru, ro) = (u.with(|tc| tc.add(s)), o.with(|tc| tc.add(s)));
        assert_eq!(ru.is_ok(), ro.is_ok(), "add {s:?}");
        if let (Ok(a), Ok(b)) = (ru, ro) {
            assert_eq!(a, b);
            refs.push(a);
        }
    }
    refs
}

/// Removes the obstacles from both caches.
fn remove_both(u: &mut World, o: &mut World, refs: &[ObstacleRef]) {
    for &r in refs {
        let (ru, ro) = (u.with(|tc| tc.remove(r)), o.with(|tc| tc.remove(r)));
        assert_eq!(ru.is_ok(), ro.is_ok(), "remove {r:?}");
    }
}

/// What one level comparison covered.
#[derive(Default)]
struct Counts {
    tiles: usize,
    obstacles: usize,
    steps: usize,
}

impl Counts {
    fn add(&mut self, (tiles, steps): (usize, usize)) {
        self.tiles += tiles;
        self.steps += steps;
    }
}

/// Builds the level both ways with `tile_size`, then runs add/remove sequences.
fn compare_level(geom: &InputGeometry, settings: &BuildSettings, tile_size: u32) -> Counts {
    let what = format!("tile size {tile_size}");
    let mut u = World::build(geom, settings, tile_size, true);
    let mut o = World::build(geom, settings, tile_size, false);
    let mut c = Counts {
        tiles: same_tiles(&u.tc, &o.tc, &what),
        ..Counts::default()
    };
    let first = add_both(&mut u, &mut o, &obstacles(geom, u64::from(tile_size), 9));
    c.add(update_both(&mut u, &mut o, &format!("{what}, 9 added")));
    remove_both(&mut u, &mut o, &first[..first.len() / 2]);
    let more = add_both(
        &mut u,
        &mut o,
        &obstacles(geom, 77 + u64::from(tile_size), 6),
    );
    c.add(update_both(
        &mut u,
        &mut o,
        &format!("{what}, removed and added"),
    ));
    remove_both(&mut u, &mut o, &first[first.len() / 2..]);
    remove_both(&mut u, &mut o, &more);
    c.add(update_both(&mut u, &mut o, &format!("{what}, all removed")));
    c.obstacles = first.len() + more.len();
    c
}

#[test]
fn navkit_tile_builds_and_updates_match_detours_on_recastdemo_levels() {
    // RecastDemo's default settings, and a finer variant (smaller cells and agent, tighter
    // contours: more vertices removed along tile borders).
    let fine = BuildSettings {
        cell_size: 0.2,
        agent_radius: 0.3,
        edge_max_error: 0.9,
        ..BuildSettings::default()
    };
    let mut total = Counts::default();
    for name in ["dungeon.obj", "nav_test.obj", "undulating.obj"] {
        let geom = level(name);
        for settings in [BuildSettings::default(), fine.clone()] {
            for tile_size in [8, 16, 32, 48] {
                let c = compare_level(&geom, &settings, tile_size);
                let cs = settings.cell_size;
                eprintln!(
                    "{name} cs {cs} tile size {tile_size}: {} tiles, {} obstacles, {} steps",
                    c.tiles, c.obstacles, c.steps
                );
                total.tiles += c.tiles;
                total.obstacles += c.obstacles;
                total.steps += c.steps;
            }
        }
    }
    let (tiles, obstacles, steps) = (total.tiles, total.obstacles, total.steps);
    eprintln!("tiles compared: {tiles}; obstacles: {obstacles}; update steps: {steps}");
    // Floors far below what a run measures (56,638 tiles, see the report of the change), so
    // that a comparison that silently covers nothing fails: 3 levels x 2 settings x 4 sizes,
    // each compared at build and after three updates, with obstacles accepted and tiles rebuilt.
    assert!(tiles >= 10_000, "only {tiles} tiles compared");
    assert!(obstacles >= 100, "only {obstacles} obstacles accepted");
    assert!(steps >= 200, "only {steps} update steps");
}
