//! Grids ([`crate::grid`]): the cells of a [`Grid`] (a Moving AI map or any 2D grid) and the
//! walkable spans of a [`MeshGrid`] (the grid on 3D geometry, one quad per span so stacked
//! floors are drawn apart), the nodes an A* or JPS search reached (as RecastDemo draws Detour's
//! search nodes: a point per node, a line to its parent) and grid paths.
//!
//! A [`Grid`] has no place in the world of its own: [`GridPlacement`] says where its cells lie
//! (cell `(x, y)` covers world x `x..x + 1` and z `y..y + 1` times the cell size, by default at
//! height 0). A [`MeshGrid`] is drawn where its spans are.

use glam::{UVec2, Vec3};

use super::{Color, Layer};
use crate::grid::mesh::MeshGrid;
use crate::grid::{Grid, NodeId, SearchContext, Terrain};
use crate::settings::area;

/// Name of the layer of passable cells (walkable spans of a [`MeshGrid`]).
pub const CELLS_LAYER: &str = "grid.cells";
/// Name of the layer of blocked cells (spans of a [`MeshGrid`] Recast left unwalkable).
pub const BLOCKED_LAYER: &str = "grid.blocked";
/// Name of the layer of the nodes a search reached.
pub const SEARCH_LAYER: &str = "grid.search";

/// Blocked cells: `duRGBA(64,64,64,160)`.
pub const BLOCKED_COLOR: Color = Color::rgba(64, 64, 64, 160);
/// A closed (expanded) search node: Detour's node colour `duRGBA(255,192,0,255)`.
pub const CLOSED_COLOR: Color = Color::rgba(255, 192, 0, 255);
/// A node still on the open list: `duRGBA(0,140,255,255)`, so the search's frontier stands out.
pub const OPEN_COLOR: Color = Color::rgba(0, 140, 255, 255);
/// The line from a node to its parent: Detour's `duRGBA(255,192,0,128)`.
pub const PARENT_COLOR: Color = Color::rgba(255, 192, 0, 128);

/// Where a [`Grid`]'s cells lie in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GridPlacement {
    /// The world position of cell (0, 0)'s minimum corner; the grid is drawn at its height.
    pub origin: Vec3,
    /// The side of a cell in world units.
    pub cell_size: f32,
}

impl Default for GridPlacement {
    /// Cell (0, 0) at the origin, cells 1 unit wide.
    fn default() -> Self {
        GridPlacement {
            origin: Vec3::ZERO,
            cell_size: 1.0,
        }
    }
}

impl GridPlacement {
    /// The world centre of `cell`.
    ///
    /// ```
    /// use glam::{UVec2, Vec3};
    /// use navkit::debug_draw::grid::GridPlacement;
    /// let place = GridPlacement { origin: Vec3::new(10.0, 2.0, 0.0), cell_size: 0.5 };
    /// assert_eq!(place.center(UVec2::new(2, 1)), Vec3::new(11.25, 2.0, 0.75));
    /// ```
    pub fn center(&self, cell: UVec2) -> Vec3 {
        self.corner(cell.x as f32 + 0.5, cell.y as f32 + 0.5)
    }

    fn corner(&self, x: f32, y: f32) -> Vec3 {
        self.origin + Vec3::new(x * self.cell_size, 0.0, y * self.cell_size)
    }

    /// Cell `(x, y)` as a quad (two triangles) in `color`.
    fn quad(&self, l: &mut Layer, cell: UVec2, color: Color) {
        self.quad_scaled(l, cell, color, 1.0);
    }

    /// Cell `(x, y)` as a quad (two triangles) in `color`, `scale` of the cell's side around
    /// its centre.
    fn quad_scaled(&self, l: &mut Layer, cell: UVec2, color: Color, scale: f32) {
        let (lo, hi) = (0.5 - scale * 0.5, 0.5 + scale * 0.5);
        let (x, y) = (cell.x as f32, cell.y as f32);
        let c = [
            self.corner(x + lo, y + lo),
            self.corner(x + lo, y + hi),
            self.corner(x + hi, y + hi),
            self.corner(x + hi, y + lo),
        ];
        l.triangle([c[0], c[1], c[2]], color);
        l.triangle([c[0], c[2], c[3]], color);
    }
}

/// The colour of a passable cell: ground in RecastDemo's ground colour, water in its water
/// colour (both alpha 64), turned toward its road brown as the cell's cost multiplier `weight`
/// grows above 1 (`t = (weight - 1) / (weight + 1)` of the way; cheaper cells are not tinted).
///
/// ```
/// use navkit::debug_draw::{Color, grid::cell_color};
/// use navkit::grid::Terrain;
/// assert_eq!(cell_color(Terrain::Ground, 1.0), Color::rgba(0, 192, 255, 64));
/// assert_eq!(cell_color(Terrain::Water, 1.0), Color::rgba(0, 0, 255, 64));
/// // Weight 3: half way (t = 0.5, 127/255) toward brown.
/// assert_eq!(cell_color(Terrain::Ground, 3.0), Color::rgba(24, 106, 133, 64));
/// ```
pub fn cell_color(terrain: Terrain, weight: f32) -> Color {
    let base = match terrain {
        Terrain::Water => Color::area(area::WATER),
        Terrain::Ground | Terrain::Blocked => Color::area(area::GROUND),
    };
    let t = if weight.is_finite() && weight > 1.0 {
        (weight - 1.0) / (weight + 1.0)
    } else {
        0.0
    };
    base.lerp(Color::area(area::ROAD), (t * 255.0) as u8)
        .with_alpha(64)
}

/// Every passable cell of `grid` as a quad (2 triangles) in [`cell_color`].
pub fn cells(grid: &Grid, place: &GridPlacement) -> Layer {
    let mut l = Layer::new(CELLS_LAYER);
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let c = UVec2::new(x, y);
            let t = grid.terrain(c);
            if t.is_passable() {
                place.quad(&mut l, c, cell_color(t, grid.weight(c)));
            }
        }
    }
    l
}

/// Every blocked cell of `grid` as a quad (2 triangles) in [`BLOCKED_COLOR`].
pub fn blocked(grid: &Grid, place: &GridPlacement) -> Layer {
    let mut l = Layer::new(BLOCKED_LAYER);
    for y in 0..grid.height() {
        for x in 0..grid.width() {
            let c = UVec2::new(x, y);
            if !grid.terrain(c).is_passable() {
                place.quad(&mut l, c, BLOCKED_COLOR);
            }
        }
    }
    l
}

/// A span of `grid` as a quad on its floor, `scale` of the cell's side.
fn span_quad(l: &mut Layer, grid: &MeshGrid, span: u32, color: Color, scale: f32) {
    let s = grid.spans();
    let sp = &s.spans[span as usize];
    let place = GridPlacement {
        origin: Vec3::new(s.origin.x, grid.point(span).y, s.origin.z),
        cell_size: s.cell_size,
    };
    place.quad_scaled(l, UVec2::new(sp.x, sp.z), color, scale);
}

/// Every walkable span of `grid` (as many as [`MeshGrid::walkable_count`]) as a quad (2
/// triangles) on its floor, in its area's colour at alpha 64 ([`Color::area`]; Recast's
/// walkable area as ground), as RecastDemo's compact heightfield view.
pub fn mesh_cells(grid: &MeshGrid) -> Layer {
    mesh_cells_scaled(grid, 1.0)
}

/// [`mesh_cells`] with each quad `scale` of the cell's side around its centre (clamped to
/// 0..=1), so that neighbouring cells are told apart over the polys they lie on (pictures use
/// 0.6; 1 is RecastDemo's solid view).
///
/// ```
/// use navkit::debug_draw::grid::mesh_cells_scaled;
/// use navkit::{InputGeometry, NavMeshBuilder, TriMesh};
/// let verts = vec![0.0, 0.0, 0.0, 8.0, 0.0, 0.0, 8.0, 0.0, 8.0, 0.0, 0.0, 8.0];
/// let floor = TriMesh::new(verts, vec![0, 2, 1, 0, 3, 2]).unwrap();
/// let geom = InputGeometry::from_mesh(floor);
/// let grid = NavMeshBuilder::new(&geom).grid().unwrap();
/// let l = mesh_cells_scaled(&grid, 0.6);
/// assert!(grid.walkable_count() > 0);
/// assert_eq!(l.triangles().count(), 2 * grid.walkable_count());
/// // Each quad is 0.6 of its cell across: 0.36 of its area.
/// let cs = grid.cell_size();
/// let [a, b, c] = l.triangles().next().unwrap().0;
/// let area = (b - a).cross(c - a).length() / 2.0;
/// assert!((area - 0.36 * cs * cs / 2.0).abs() < 1e-5);
/// ```
pub fn mesh_cells_scaled(grid: &MeshGrid, scale: f32) -> Layer {
    let scale = if scale.is_finite() {
        scale.clamp(0.0, 1.0)
    } else {
        1.0
    };
    let mut l = Layer::new(CELLS_LAYER);
    let s = grid.spans();
    for (i, sp) in s.spans.iter().enumerate() {
        if sp.area == area::NULL {
            continue;
        }
        let a = if sp.area == area::WALKABLE {
            area::GROUND
        } else {
            sp.area
        };
        span_quad(&mut l, grid, i as u32, Color::area(a).with_alpha(64), scale);
    }
    l
}

/// Every span of `grid` that cannot be stood on (eroded by the agent radius, or otherwise
/// unwalkable) as a quad (2 triangles) on its floor, in [`BLOCKED_COLOR`].
pub fn mesh_blocked(grid: &MeshGrid) -> Layer {
    let mut l = Layer::new(BLOCKED_LAYER);
    let s = grid.spans();
    for (i, sp) in s.spans.iter().enumerate() {
        if sp.area == area::NULL {
            span_quad(&mut l, grid, i as u32, BLOCKED_COLOR, 1.0);
        }
    }
    l
}

/// The nodes the last search on `ctx` reached ([`SearchContext::visited`]), at `point(node)`
/// lifted by `lift`: a 4-pixel point per node ([`CLOSED_COLOR`] for expanded nodes,
/// [`OPEN_COLOR`] for the open list), then a 2-pixel line from each node but the start to its
/// parent ([`PARENT_COLOR`]). Nodes `point` gives `None` for are left out.
pub fn search_nodes(
    ctx: &SearchContext,
    lift: f32,
    mut point: impl FnMut(NodeId) -> Option<Vec3>,
) -> Layer {
    let mut l = Layer::new(SEARCH_LAYER);
    let up = Vec3::Y * lift;
    let visited: Vec<_> = ctx.visited().collect();
    for v in &visited {
        if let Some(p) = point(v.node) {
            let c = if v.closed { CLOSED_COLOR } else { OPEN_COLOR };
            l.point(p + up, c, 4.0);
        }
    }
    for v in &visited {
        if v.parent == v.node {
            continue;
        }
        if let (Some(a), Some(b)) = (point(v.node), point(v.parent)) {
            l.line(a + up, b + up, PARENT_COLOR, 2.0);
        }
    }
    l
}

/// [`search_nodes`] of a search on `grid`, at the cell centres.
pub fn grid_search(ctx: &SearchContext, grid: &Grid, place: &GridPlacement) -> Layer {
    search_nodes(ctx, 0.0, |node| {
        let cell = grid.cell(node);
        (grid.contains(cell) && grid.node(cell) == Some(node)).then(|| place.center(cell))
    })
}

/// [`search_nodes`] of a search on `grid`, at the span centres, lifted as RecastDemo lifts
/// Detour's nodes (by 0.5 units).
pub fn mesh_search(ctx: &SearchContext, grid: &MeshGrid) -> Layer {
    let n = grid.spans().spans.len();
    search_nodes(ctx, 0.5, |node| {
        ((node as usize) < n).then(|| grid.point(node))
    })
}

/// A path of cells of a grid placed at `place` ([`super::paths::grid`] through the cell
/// centres).
pub fn path(cells: &[UVec2], place: &GridPlacement) -> Layer {
    let pts: Vec<Vec3> = cells.iter().map(|&c| place.center(c)).collect();
    super::paths::grid(&pts)
}
