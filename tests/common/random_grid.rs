//! Seeded random grids for the grid tests.

use glam::UVec2;
use navkit::grid::{Grid, Terrain};

/// A grid with `blocked_pct`% blocked cells and `water_pct`% water (xorshift, seeded; the
/// same cells for the same arguments).
pub fn random_grid(w: u32, h: u32, blocked_pct: u64, water_pct: u64, seed: u64) -> Grid {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut g = Grid::new(w, h).unwrap();
    for y in 0..h {
        for x in 0..w {
            let r = next() % 100;
            if r < blocked_pct {
                g.set_terrain(UVec2::new(x, y), Terrain::Blocked);
            } else if r < blocked_pct + water_pct {
                g.set_terrain(UVec2::new(x, y), Terrain::Water);
            }
        }
    }
    g
}
