//! The proximity grid against Detour's own `dtProximityGrid`: the same ids in the same order
//! for random items and queries, with ties (many items in one cell, one id added twice), full
//! pools, small answer limits, and cells whose coordinates do not fit 16 bits (which switch
//! the grid to Detour's hashed layout).

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg32;
use recastnavigation_sys as sys;

use super::proximity::{ProximityGrid, Stamps};

/// Detour's grid, freed on drop.
struct Upstream(*mut sys::dtProximityGrid);

impl Upstream {
    fn new(pool: i32, cell: f32) -> Self {
        // SAFETY: a fresh grid (or null, checked), initialised once.
        unsafe {
            let g = sys::dtAllocProximityGrid();
            assert!(!g.is_null());
            assert!(sys::dtProximityGrid_init(g, pool, cell));
            Upstream(g)
        }
    }
}

impl Drop for Upstream {
    fn drop(&mut self) {
        // SAFETY: allocated by `new`, freed once.
        unsafe { sys::dtFreeProximityGrid(self.0) }
    }
}

/// One random scene: `items` boxes of up to `size` cells around points within `spread` of the
/// origin (plus `far` boxes beyond 16-bit cells), queried `queries` times; asserts the two
/// grids agree on every query. Returns how many ids were found in all.
fn scene(seed: u64, items: usize, pool: usize, spread: f32, far: usize, queries: usize) -> usize {
    let mut rng = Pcg32::seed_from_u64(seed);
    let cell = 1.8;
    let up = Upstream::new(pool as i32, cell);
    let mut ours = ProximityGrid::new(pool, cell);
    // SAFETY: live grid.
    unsafe { sys::dtProximityGrid_clear(up.0) };
    ours.clear();
    let mut add = |id: u16, x: f32, y: f32, r: f32| {
        // SAFETY: live grid.
        unsafe { sys::dtProximityGrid_addItem(up.0, id, x - r, y - r, x + r, y + r) };
        ours.add_item(id, x - r, y - r, x + r, y + r);
    };
    for k in 0..items {
        // Coarse positions make exact ties (equal cells, equal distances) common.
        let x = (rng.gen_range(-spread..spread) * 4.0).round() / 4.0;
        let y = (rng.gen_range(-spread..spread) * 4.0).round() / 4.0;
        let id = if k % 17 == 5 {
            (k / 2) as u16
        } else {
            k as u16
        };
        add(id, x, y, rng.gen_range(0.1..2.0));
    }
    for k in 0..far {
        // Beyond 16-bit cells: 32,768 cells of 1.8 are 58,982 units; some land where a wrapped
        // coordinate meets an ordinary one.
        let x = if k % 2 == 0 {
            58_982.4 + k as f32 * 1.8
        } else {
            -65_536.0 * 1.8 + 3.0
        };
        add((items + k) as u16, x, rng.gen_range(-spread..spread), 0.5);
    }
    ours.finish();
    let mut stamps = Stamps::default();
    let mut found = 0;
    for q in 0..queries {
        let (x, y) = if q % 5 == 4 {
            // Queries at wrapped coordinates too.
            (3.0, rng.gen_range(-spread..spread))
        } else {
            (
                rng.gen_range(-spread..spread),
                rng.gen_range(-spread..spread),
            )
        };
        let r = rng.gen_range(0.5..8.0);
        let max = [32usize, 3, 1, 7][q % 4];
        let mut a = [0u16; 32];
        let mut b = [0u16; 32];
        // SAFETY: live grid; `a` holds at least `max` ids.
        let na = unsafe {
            sys::dtProximityGrid_queryItems(
                up.0,
                x - r,
                y - r,
                x + r,
                y + r,
                a.as_mut_ptr(),
                max as i32,
            )
        } as usize;
        let nb = ours.query((x - r, y - r, x + r, y + r), &mut b[..max], &mut stamps);
        assert_eq!(
            &a[..na],
            &b[..nb],
            "seed {seed}, query {q} at ({x}, {y}) r {r} max {max}"
        );
        found += nb;
    }
    found
}

#[test]
fn the_grid_answers_as_dtproximitygrid_in_its_order() {
    let mut found = 0;
    for seed in 0..40 {
        // Dense layout: crowds of 50 to 1,000 agents in a 60 m square (pool 4 per agent).
        let n = 50 + seed as usize * 25;
        found += scene(seed, n, n * 4, 30.0, 0, 300);
    }
    // Enough ids to mean something (measured: 74,085).
    assert!(found > 60_000, "{found}");
}

#[test]
fn full_pools_and_16_bit_overflow_answer_as_dtproximitygrid() {
    for seed in 0..20 {
        // A pool too small for the items: the later ones are dropped.
        scene(100 + seed, 400, 300, 20.0, 0, 200);
        // Cells beyond 16 bits (hashed layout), and a pool with room for them.
        scene(200 + seed, 300, 2000, 20.0, 12, 200);
        // A sparse world: too wide for the dense layout.
        scene(300 + seed, 100, 400, 5000.0, 0, 200);
    }
}
