//! Detour's tile cache region partition on decoded layer grids (`dtBuildTileCacheRegions`,
//! through `glue/navkit_tc_regions.cpp`).

use std::os::raw::c_int;

use super::tilecache::layer_regions_fit;

unsafe extern "C" {
    fn navkit_tc_layer_regions(
        w: c_int,
        h: c_int,
        heights: *const u8,
        areas: *const u8,
        cons: *const u8,
        walkable_climb: c_int,
        regs: *mut u8,
        reg_count: *mut c_int,
    ) -> u32;
}

/// The region of each cell of a `w` x `h` layer (0xff: none) and the number of regions, as
/// Detour partitions it when it rebuilds the tile; `None` if a grid is shorter than `w * h`, a
/// size is out of 1..=255, the partition would overflow Detour's neighbour lists (checked before
/// Detour runs: upstream issue #452) or Detour refuses (more than 255 regions).
pub(crate) fn layer_regions(
    w: usize,
    h: usize,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
    walkable_climb: i32,
) -> Option<(Vec<u8>, usize)> {
    let cells = w * h;
    if !(1..=255).contains(&w)
        || !(1..=255).contains(&h)
        || heights.len() < cells
        || areas.len() < cells
        || cons.len() < cells
        || !layer_regions_fit(w, h, heights, areas, walkable_climb)
    {
        return None;
    }
    let mut regs = vec![0xffu8; cells];
    let mut count: c_int = 0;
    // SAFETY: the three grids hold at least w*h bytes and are only read; `regs` holds w*h
    // bytes; w and h are in 1..=255; the neighbour lists fit (checked above).
    let st = unsafe {
        navkit_tc_layer_regions(
            w as c_int,
            h as c_int,
            heights.as_ptr(),
            areas.as_ptr(),
            cons.as_ptr(),
            walkable_climb,
            regs.as_mut_ptr(),
            &mut count,
        )
    };
    if st & recastnavigation_sys::DT_FAILURE != 0
        || st & recastnavigation_sys::DT_BUFFER_TOO_SMALL != 0
    {
        return None;
    }
    Some((regs, usize::try_from(count).ok()?))
}
