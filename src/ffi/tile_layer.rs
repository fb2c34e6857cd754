//! Detour's tile cache region partition on decoded layer grids (`dtBuildTileCacheRegions`,
//! through `glue/navkit_tc_layer.cpp`).

use std::os::raw::c_int;

use super::buffers::c_slice;
use super::owner::{opaque, owner};
use super::tile_poly_mesh::{NVP, TileContour, build_tile_poly_mesh};
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

/// Why the grids of a `w` x `h` layer may not go to Detour's tile build, or `Ok`: what the
/// tile cache checks before it trusts a layer ([`super::validate::layer::validate_layer`]):
/// sizes in 1..=255 and grids of `w * h` cells, area ids at most 63, connections (bits 0..4)
/// only toward cells inside the layer (Detour follows them unchecked), and a region partition
/// within Detour's 16 neighbours per region (upstream #452).
pub(crate) fn check_grids(
    w: usize,
    h: usize,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
    walkable_climb: i32,
) -> Result<(), String> {
    if !(1..=255).contains(&w) || !(1..=255).contains(&h) {
        return Err(format!("layer is {w} x {h} cells; 1 to 255 each way"));
    }
    let cells = w * h;
    for (name, g) in [
        ("heights", heights),
        ("areas", areas),
        ("connections", cons),
    ] {
        if g.len() != cells {
            return Err(format!(
                "{name} grid has {} cells, the layer {w} x {h} = {cells}",
                g.len()
            ));
        }
    }
    check_cells(w, h, heights, areas, cons, walkable_climb).map_err(|p| match p {
        CellProblem::Regions => format!("its {p}"),
        _ => p.to_string(),
    })
}

/// What is wrong with a layer's cells for Detour's tile build ([`check_cells`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CellProblem {
    /// Cell `cell` has an area id above 63.
    Area { cell: usize, area: u8 },
    /// Cell (`x`, `z`) connects (bits 0..4) in direction `dir`, outside the layer.
    Connection { x: usize, z: usize, dir: u8 },
    /// The region partition would overflow Detour's 16 neighbours per region (upstream #452).
    Regions,
}

impl std::fmt::Display for CellProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            CellProblem::Area { cell, area } => write!(f, "cell {cell} has area {area} > 63"),
            CellProblem::Connection { x, z, dir } => write!(
                f,
                "cell ({x}, {z}) connects in direction {dir}, outside the layer"
            ),
            CellProblem::Regions => f.write_str(
                "regions would overflow Detour's 16 neighbours per region (upstream issue #452)",
            ),
        }
    }
}

/// Connections (bits 0..4: -x, +z, +x, -z, Detour's direction order) of a `w` x `h` layer only
/// toward cells inside it: Detour's tile build follows them unchecked.
pub(crate) fn check_connections(w: usize, h: usize, cons: &[u8]) -> Result<(), CellProblem> {
    for (i, &c) in cons.iter().enumerate() {
        let (x, z) = (i % w, i / w);
        let outside = [x == 0, z + 1 == h, x + 1 == w, z == 0];
        if let Some(dir) = (0..4u8).find(|&d| c & (1 << d) != 0 && outside[usize::from(d)]) {
            return Err(CellProblem::Connection { x, z, dir });
        }
    }
    Ok(())
}

/// The checks of a `w` x `h` layer's cells that Detour's tile build relies on, in order: area
/// ids at most 63, connections (bits 0..4: -x, +z, +x, -z, Detour's direction order) only
/// toward cells inside the layer, and a region partition that fits Detour's neighbour lists.
/// The grids hold `w * h` cells each (the callers check), `w` and `h` are 1..=255.
pub(crate) fn check_cells(
    w: usize,
    h: usize,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
    walkable_climb: i32,
) -> Result<(), CellProblem> {
    if let Some(cell) = areas.iter().position(|&a| a > 63) {
        return Err(CellProblem::Area {
            cell,
            area: areas[cell],
        });
    }
    check_connections(w, h, cons)?;
    if !layer_regions_fit(w, h, heights, areas, walkable_climb) {
        return Err(CellProblem::Regions);
    }
    Ok(())
}

/// The region of each cell of a `w` x `h` layer (0xff: none) and the number of regions, as
/// Detour partitions it when it rebuilds the tile; `None` if the grids fail [`check_grids`] or
/// Detour refuses (more than 255 regions).
pub(crate) fn layer_regions(
    w: usize,
    h: usize,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
    walkable_climb: i32,
) -> Option<(Vec<u8>, usize)> {
    check_grids(w, h, heights, areas, cons, walkable_climb).ok()?;
    let cells = w * h;
    let mut regs = vec![0xffu8; cells];
    let mut count: c_int = 0;
    // SAFETY: the three grids hold w*h bytes and are only read; `regs` holds w*h bytes; w and
    // h are in 1..=255; the neighbour lists fit (check_grids).
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

opaque!(
    /// The glue's `NavkitLayerMesh`: a layer's contours and poly mesh.
    NavkitLayerMesh
);

unsafe extern "C" {
    fn navkit_tc_layer_mesh_new(
        w: c_int,
        h: c_int,
        heights: *const u8,
        areas: *const u8,
        cons: *const u8,
        walkable_climb: c_int,
        max_error: f32,
        status: *mut u32,
    ) -> *mut NavkitLayerMesh;
    fn navkit_tc_layer_mesh_free(m: *mut NavkitLayerMesh);
    fn navkit_tc_layer_mesh_contour_count(m: *const NavkitLayerMesh) -> c_int;
    fn navkit_tc_layer_mesh_contour(
        m: *const NavkitLayerMesh,
        i: c_int,
        verts: *mut *const u8,
        nverts: *mut c_int,
        reg: *mut u8,
        area: *mut u8,
    ) -> c_int;
}

/// One contour of a layer: vertices (x, height, z, flags) in cells, region and area.
pub(crate) struct RawLayerContour {
    pub verts: Vec<[u8; 4]>,
    pub reg: u8,
    pub area: u8,
}

/// A layer's poly mesh: `polys` holds `2 * nvp` entries per poly (vertex indices, 0xffff after
/// the last, then neighbour information); every vertex index is below `verts.len()` (navkit's
/// builder gives no other).
pub(crate) struct RawLayerPolyMesh {
    pub nvp: usize,
    pub verts: Vec<[u16; 3]>,
    pub polys: Vec<u16>,
    pub areas: Vec<u8>,
}

owner!(
    /// The glue's result, freed on every path out.
    LayerMesh(NavkitLayerMesh),
    free: navkit_tc_layer_mesh_free
);

impl LayerMesh {
    /// The glue's regions and contours (simplified with `max_error`) of a `w` x `h` layer, or
    /// Detour's status.
    ///
    /// # Safety
    /// The grids must have passed [`check_grids`] for `w`, `h` and `walkable_climb`: Detour's
    /// builder trusts them.
    unsafe fn build(
        w: usize,
        h: usize,
        (heights, areas, cons): (&[u8], &[u8], &[u8]),
        walkable_climb: i32,
        max_error: f32,
    ) -> Result<Self, u32> {
        let mut status = 0u32;
        // SAFETY: the three grids hold w*h bytes and are only read; w and h are in 1..=255;
        // areas, connections and region neighbours are as Detour's builder assumes (the
        // caller's contract). The glue returns a result (freed by navkit_tc_layer_mesh_free) or
        // null.
        let mesh = unsafe {
            Self::from_raw(navkit_tc_layer_mesh_new(
                w as c_int,
                h as c_int,
                heights.as_ptr(),
                areas.as_ptr(),
                cons.as_ptr(),
                walkable_climb,
                max_error,
                &mut status,
            ))
        };
        mesh.ok_or(status | recastnavigation_sys::DT_FAILURE)
    }

    /// Contour `i`, if the result has it.
    fn contour(&self, i: c_int) -> RawLayerContour {
        let (mut vp, mut nv, mut reg, mut area) = (std::ptr::null(), 0, 0u8, 0u8);
        // SAFETY: live result, four outputs; the glue checks the index.
        let ok = unsafe {
            navkit_tc_layer_mesh_contour(self.as_ptr(), i, &mut vp, &mut nv, &mut reg, &mut area)
        };
        let nv = if ok != 0 {
            usize::try_from(nv).unwrap_or(0)
        } else {
            0
        };
        // SAFETY: the result holds `nv` vertices of 4 bytes at `vp` (null or valid when the
        // glue succeeds), alive while `self` is borrowed.
        let verts = unsafe { c_slice(vp as *const [u8; 4], nv) }.to_vec();
        RawLayerContour { verts, reg, area }
    }

    /// Every contour.
    fn contours(&self) -> Vec<RawLayerContour> {
        // SAFETY: live result.
        let n = unsafe { navkit_tc_layer_mesh_contour_count(self.as_ptr()) }.max(0);
        (0..n).map(|i| self.contour(i)).collect()
    }
}

/// navkit's poly mesh of a layer's contours ([`super::tile_poly_mesh`], what the tile builds
/// use in place of Detour's `dtBuildTileCachePolyMesh`), or a Detour status.
fn poly_mesh_of(contours: &[RawLayerContour]) -> Result<RawLayerPolyMesh, u32> {
    let conts: Vec<TileContour> = contours
        .iter()
        .map(|c| TileContour {
            verts: c.verts.concat(),
            reg: c.reg,
            area: c.area,
        })
        .collect();
    let mesh = build_tile_poly_mesh(&conts)?;
    Ok(RawLayerPolyMesh {
        nvp: NVP,
        verts: mesh
            .verts
            .chunks_exact(3)
            .map(|v| [v[0], v[1], v[2]])
            .collect(),
        polys: mesh.polys,
        areas: mesh.areas,
    })
}

/// Why [`layer_contours_and_mesh`] gave nothing.
pub(crate) enum LayerBuildError {
    /// The grids fail [`check_grids`] (or the error is not finite): Detour was not called.
    Refused(String),
    /// Detour's status.
    Detour(u32),
}

/// Contours and poly mesh of a `w` x `h` layer as navkit's tile builds make them (Detour's
/// regions and contours with `max_error`, navkit's poly mesh; no obstacles marked). The grids are checked first
/// ([`check_grids`]): Detour's builder trusts them.
pub(crate) fn layer_contours_and_mesh(
    w: usize,
    h: usize,
    heights: &[u8],
    areas: &[u8],
    cons: &[u8],
    walkable_climb: i32,
    max_error: f32,
) -> Result<(Vec<RawLayerContour>, RawLayerPolyMesh), LayerBuildError> {
    check_grids(w, h, heights, areas, cons, walkable_climb).map_err(LayerBuildError::Refused)?;
    if !max_error.is_finite() || max_error < 0.0 {
        return Err(LayerBuildError::Refused(format!(
            "simplification error {max_error} is not a finite, non-negative number"
        )));
    }
    // SAFETY: the grids passed `check_grids` just above.
    let mesh = unsafe { LayerMesh::build(w, h, (heights, areas, cons), walkable_climb, max_error) }
        .map_err(LayerBuildError::Detour)?;
    let contours = mesh.contours();
    let poly_mesh = poly_mesh_of(&contours).map_err(LayerBuildError::Detour)?;
    Ok((contours, poly_mesh))
}
