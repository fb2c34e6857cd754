//! Building a [`Scene`] from navkit's data: the navmesh, grid cells, tiles, obstacles, paths,
//! start and goal, and a grid/navmesh comparison. Every layer comes from
//! [`crate::debug_draw`].

use glam::Vec3;

use super::{Scene, Swatch};
use crate::area;
use crate::debug_draw::paths::{self, PathKind};
use crate::debug_draw::{self, Color, Dash, Layer, follower as dd_follower, navmesh as dd_navmesh};
use crate::navmesh::NavMesh;
use crate::navmesh::view::PolyType;
use crate::tilecache::{Obstacle, ObstacleShape};

/// A human name for a navkit area id.
fn area_name(a: u8) -> String {
    match a {
        area::GROUND => "ground".into(),
        area::WATER => "water".into(),
        area::ROAD => "road".into(),
        area::DOOR => "door".into(),
        area::GRASS => "grass".into(),
        area::JUMP => "jump".into(),
        _ => format!("area {a}"),
    }
}

/// The side of a grid cell's square in pictures, as a fraction of the cell (so that the
/// cells are told apart over the polys).
pub(crate) const CELL_SCALE: f32 = 0.6;
/// The alpha of grid cells in pictures.
pub(crate) const CELL_ALPHA: u8 = 140;
/// How far turn boundaries reach either side of the path in pictures.
pub(crate) const BOUNDARY_HALF_WIDTH: f32 = 1.2;

impl Scene {
    /// A scene of `nav` (RecastDemo's navmesh view, top-down): polys by area, poly outlines
    /// (walls thick), off-mesh links; a legend entry per area present, walls, and off-mesh
    /// links if there are any.
    pub fn with_navmesh(nav: &NavMesh, title: impl Into<String>) -> Scene {
        let mut s = Scene::new(title);
        s.add_navmesh(nav);
        s
    }

    /// Adds `nav`'s ground layers (see [`Scene::with_navmesh`]).
    pub fn add_navmesh(&mut self, nav: &NavMesh) {
        let mut areas: Vec<(u8, usize)> = Vec::new();
        for tile in nav.tiles() {
            for p in tile.polys().filter(|p| p.poly_type() == PolyType::Ground) {
                match areas.iter_mut().find(|(a, _)| *a == p.area()) {
                    Some(e) => e.1 += 1,
                    None => areas.push((p.area(), 1)),
                }
            }
        }
        areas.sort_unstable();
        let polys = dd_navmesh::polys(nav, dd_navmesh::PolyColoring::Area);
        if !polys.primitives.is_empty() {
            for &(a, n) in &areas {
                self.legend(
                    Swatch::Area(a),
                    format!("navmesh polys: {} ({n})", area_name(a)),
                );
            }
            self.ground.push(polys);
        }
        self.add_ground(
            dd_navmesh::outlines(nav, dd_navmesh::Outlines::Detail),
            Some((
                Swatch::Line(dd_navmesh::WALL_COLOR, dd_navmesh::WALL_WIDTH, Dash::Solid),
                "walls (poly edges without a neighbour)".into(),
            )),
        );
        let links = dd_navmesh::off_mesh_links(nav);
        let n = nav
            .tiles()
            .map(|t| {
                t.polys()
                    .filter(|p| p.poly_type() == PolyType::OffMeshConnection)
                    .count()
            })
            .sum::<usize>();
        let c = links.lines().next().map_or(Color::BLACK, |l| l.2);
        self.add_ground(
            links,
            Some((
                Swatch::Line(c, 2.0, Dash::Solid),
                format!("off-mesh links ({n}; circles at the ends, arrows where they lead)"),
            )),
        );
    }

    /// Adds the bounds of every tile of `nav` (nothing for a single-tile navmesh, whose border
    /// is the mesh's edge).
    pub fn add_tile_borders(&mut self, nav: &NavMesh) {
        let n = nav.tile_count();
        if n > 1 {
            self.add_overlay(
                dd_navmesh::tiles(nav),
                Some((
                    Swatch::Line(Color::from_int(1, 160), 1.0, Dash::Solid),
                    format!("tile bounds ({n} tiles, one colour each)"),
                )),
            );
        }
    }

    /// Adds tile-cache obstacles, coloured by state.
    pub fn add_obstacles(&mut self, obstacles: &[Obstacle]) {
        let layer = debug_draw::geometry::obstacles(obstacles);
        // The swatch: the top faces' colour (the sides are darker), of the first obstacle's state.
        let c = obstacles.first().map_or(Color::BLACK, |o| {
            debug_draw::geometry::obstacle_color(o.state)
        });
        self.add_overlay(
            layer,
            Some((Swatch::Fill(c), format!("obstacles ({})", obstacles.len()))),
        );
    }

    /// Adds obstacle shapes (for example ones a scenario adds later), in RecastDemo's
    /// "processing" yellow, with `label` in the legend.
    pub fn add_obstacle_shapes(&mut self, shapes: &[ObstacleShape], label: impl Into<String>) {
        let mut l = Layer::new(debug_draw::geometry::OBSTACLES_LAYER);
        let c = debug_draw::geometry::obstacle_color(crate::tilecache::ObstacleState::Processing);
        for s in shapes {
            debug_draw::geometry::obstacle_shape(&mut l, s, c);
        }
        self.add_overlay(l, Some((Swatch::Fill(c), label.into())));
    }

    /// Adds the walkable cells of `grid` ([`debug_draw::grid::mesh_cells_scaled`]: a square
    /// 0.6 of the cell across on its span's floor, in its area's colour), listed in the legend
    /// with their count if there are any.
    pub fn add_grid_cells(&mut self, grid: &crate::grid::mesh::MeshGrid) {
        let mut l = debug_draw::grid::mesh_cells_scaled(grid, CELL_SCALE);
        // RecastDemo's alpha 64 is for its dark 3D view; over a light picture's polys the
        // squares need more (as the polys do, [`super::POLY_FILL_ALPHA`]).
        for p in &mut l.primitives {
            if let debug_draw::Primitive::Triangle { color, .. } = p {
                *color = color.with_alpha(CELL_ALPHA);
            }
        }
        // The swatch: the first cell's colour.
        let c = l.triangles().next().map_or(Color::BLACK, |t| t.1);
        let n = l.triangles().count() / 2;
        self.add_overlay(
            l,
            Some((
                Swatch::Fill(c),
                format!("walkable grid cells ({n}, squares in their area's colour)"),
            )),
        );
    }

    /// Adds a path of `kind` (its debug-draw colour and dash), labelled.
    pub fn add_path(&mut self, kind: PathKind, points: &[Vec3], label: impl Into<String>) {
        let (c, w, dash) = kind.style();
        self.add_overlay(
            paths::polyline(kind, points),
            Some((Swatch::Line(c, w, dash), label.into())),
        );
    }

    /// Adds the turn boundaries and look points of prepared follower paths
    /// ([`debug_draw::follower::boundaries`], 1.2 units either side of the path),
    /// one legend entry naming the colours drawn.
    pub fn add_follower_boundaries(&mut self, paths: &[&crate::agents::follower::FollowPath]) {
        let mut l = Layer::new(dd_follower::BOUNDARIES_LAYER);
        let (mut n, mut slow, mut finish) = (0, false, false);
        for p in paths {
            let b = dd_follower::boundaries(p, BOUNDARY_HALF_WIDTH);
            for (.., c, _) in b.lines() {
                n += 1;
                slow |= c == dd_follower::SLOW_COLOR;
                finish |= c == dd_follower::FINISH_COLOR;
            }
            l.primitives.extend(b.primitives);
        }
        let mut label = format!("turn boundaries ({n}");
        if slow {
            label.push_str("; orange where the follower brakes");
        }
        if finish {
            label.push_str("; magenta: finish line");
        }
        label.push(')');
        self.add_overlay(
            l,
            Some((
                Swatch::Line(dd_follower::TURN_COLOR, 2.0, Dash::Solid),
                label,
            )),
        );
    }

    /// Adds start and goal markers ([`paths::endpoints`]: a circle of the agent's `radius`
    /// and a point), each with its legend entry and coordinates.
    pub fn add_endpoints(&mut self, start: Option<Vec3>, goal: Option<Vec3>, radius: f32) {
        for (p, name, s, g) in [(start, "start", true, false), (goal, "goal", false, true)] {
            let Some(p) = p else { continue };
            let l = paths::endpoints(s.then_some(p), g.then_some(p), radius, 2.0);
            let c = l.points().next().map_or(Color::BLACK, |p| p.1);
            self.add_overlay(
                l,
                Some((
                    Swatch::Point(c, 10.0),
                    format!("{name} ({:.2}, {:.2}, {:.2})", p.x, p.y, p.z),
                )),
            );
        }
    }
}

/// Which paths of a comparison (`navkit::tools::compare::Comparison`, feature `tools`) a scene
/// draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComparisonPaths {
    /// The navmesh straight path.
    pub straight: bool,
    /// The navmesh smooth path.
    pub smooth: bool,
    /// The spline through the corners.
    pub spline: bool,
    /// The followers' trajectories (on the straight path, and on the grid path if `grid`)
    /// with their turn boundaries.
    pub follower: bool,
    /// The grid A* path and its simplified waypoints.
    pub grid: bool,
    /// The walkable grid cells (off by default: they hide the polys).
    pub grid_cells: bool,
    /// The optimal (shortest) path.
    pub optimal: bool,
}

impl ComparisonPaths {
    /// Only the straight path (`navkit render`'s default).
    pub const STRAIGHT: ComparisonPaths = ComparisonPaths {
        straight: true,
        smooth: false,
        spline: false,
        follower: false,
        grid: false,
        grid_cells: false,
        optimal: false,
    };
    /// Every path kind (`navkit compare`'s), no grid cells.
    pub const ALL: ComparisonPaths = ComparisonPaths {
        straight: true,
        smooth: true,
        spline: true,
        follower: true,
        grid: true,
        grid_cells: false,
        optimal: true,
    };

    /// Whether `kind` is drawn.
    pub fn has(&self, kind: PathKind) -> bool {
        match kind {
            PathKind::Straight => self.straight,
            PathKind::Smooth => self.smooth,
            PathKind::Spline => self.spline,
            PathKind::Trajectory => self.follower,
            PathKind::Grid => self.grid,
            PathKind::Optimal => self.optimal,
        }
    }

    /// Turns `kind` on.
    pub fn with(mut self, kind: PathKind) -> Self {
        match kind {
            PathKind::Straight => self.straight = true,
            PathKind::Smooth => self.smooth = true,
            PathKind::Spline => self.spline = true,
            PathKind::Trajectory => self.follower = true,
            PathKind::Grid => self.grid = true,
            PathKind::Optimal => self.optimal = true,
        }
        self
    }

    /// No path at all.
    pub const NONE: ComparisonPaths = ComparisonPaths {
        straight: false,
        smooth: false,
        spline: false,
        follower: false,
        grid: false,
        grid_cells: false,
        optimal: false,
    };
}

impl Default for ComparisonPaths {
    fn default() -> Self {
        ComparisonPaths::STRAIGHT
    }
}

#[cfg(feature = "tools")]
/// `", 1.034x the optimum"`: the kind `f` picks over the comparison's optimal path (on the
/// xz-plane), or nothing without one.
fn over(
    c: &crate::tools::compare::Comparison,
    f: impl Fn(&crate::tools::compare::OverOptimal) -> Option<f32>,
) -> String {
    match c.over_optimal.as_ref().and_then(f) {
        Some(r) => format!(", {r:.3}x the optimum"),
        None => String::new(),
    }
}

#[cfg(feature = "tools")]
/// The optimal path ([`PathKind::Optimal`]) with its legend entry.
fn add_optimal(scene: &mut Scene, o: &crate::tools::compare::OptimalSide) {
    let exact = if o.exact {
        ""
    } else {
        ", shortest not cheapest"
    };
    let partial = if o.status.is_complete() {
        ""
    } else {
        ", PARTIAL"
    };
    scene.add_path(
        PathKind::Optimal,
        &o.path,
        format!(
            "optimal (shortest) path ({} points, {:.2} long on the xz-plane{exact}{partial})",
            o.points, o.length_xz
        ),
    );
}

#[cfg(feature = "tools")]
/// A follower run's trajectory in `color` (dashed as [`PathKind::Trajectory`]).
fn add_follower(scene: &mut Scene, f: &crate::tools::compare::FollowerRun, on: &str, color: Color) {
    let (_, w, dash) = PathKind::Trajectory.style();
    let mut l = Layer::new(PathKind::Trajectory.layer_name());
    l.polyline(&f.trajectory, color, w, dash);
    scene.add_overlay(
        l,
        Some((
            Swatch::Line(color, w, dash),
            format!(
                "follower on the {on} ({:.1} in {:.1} s{})",
                f.travelled,
                f.time,
                if f.arrived { "" } else { ", DID NOT ARRIVE" }
            ),
        )),
    );
}

#[cfg(feature = "tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "tools")))]
/// A scene of a navmesh ([`Scene::with_navmesh`]), the walkable cells of a grid if given and
/// `paths.grid_cells`, and the paths `paths` selects of a
/// [`Comparison`](crate::tools::compare::Comparison) if given, with start and goal.
pub fn comparison_scene(
    navmesh: &NavMesh,
    grid: Option<&crate::grid::mesh::MeshGrid>,
    comparison: Option<&crate::tools::compare::Comparison>,
    title: impl Into<String>,
    paths: ComparisonPaths,
) -> Scene {
    let mut scene = Scene::with_navmesh(navmesh, title);
    if let Some(g) = grid.filter(|_| paths.grid_cells) {
        scene.add_grid_cells(g);
    }
    let Some(c) = comparison else {
        return scene;
    };
    if paths.follower {
        let mut boundaries = Vec::new();
        if let Some(f) = c.navmesh.as_ref().and_then(|n| n.follower.as_ref()) {
            boundaries.push(&f.path);
        }
        if paths.grid
            && let Some(f) = c.grid.as_ref().and_then(|g| g.follower.as_ref())
        {
            boundaries.push(&f.path);
        }
        scene.add_follower_boundaries(&boundaries);
    }
    // The wide translucent optimal path under everything, then the solid straight path, the
    // dashed and dotted lines over it.
    if let Some(o) = c.optimal.as_ref().filter(|_| paths.optimal) {
        add_optimal(&mut scene, o);
    }
    if let Some(n) = c.navmesh.as_ref().filter(|_| paths.straight) {
        scene.add_path(
            PathKind::Straight,
            &n.straight,
            format!(
                "navmesh straight path ({} corners, {:.1} long{})",
                n.corners,
                n.straight_length,
                over(c, |r| r.straight)
            ),
        );
    }
    if let Some(g) = c.grid.as_ref().filter(|_| paths.grid) {
        scene.add_path(
            PathKind::Grid,
            &g.points,
            format!(
                "grid A* path ({} cells, {:.1} long, {} expanded{})",
                g.cells,
                g.length,
                g.expanded,
                over(c, |r| r.grid)
            ),
        );
        let mut w = Layer::new("path.grid.waypoints");
        let wc = PathKind::Grid.style().0.darken().with_alpha(255);
        for &p in &g.waypoint_points {
            w.point(p, wc, 5.0);
        }
        scene.add_overlay(
            w,
            Some((
                Swatch::Point(wc, 5.0),
                format!("grid waypoints after simplification ({})", g.waypoints),
            )),
        );
        if paths.follower
            && let Some(f) = &g.follower
        {
            add_follower(&mut scene, f, "grid path", paths::GRID_TRAJECTORY_COLOR);
        }
    }
    if let Some(n) = &c.navmesh {
        if paths.spline && !n.spline.is_empty() {
            scene.add_path(
                PathKind::Spline,
                &n.spline,
                format!(
                    "spline through the corners ({:.1} long{})",
                    n.spline_length,
                    over(c, |r| r.spline)
                ),
            );
        }
        if paths.smooth {
            scene.add_path(
                PathKind::Smooth,
                &n.smooth,
                format!(
                    "navmesh smooth path ({} points, {:.1} long{})",
                    n.smooth_points,
                    n.smooth_length,
                    over(c, |r| r.smooth)
                ),
            );
        }
        if paths.follower
            && let Some(f) = &n.follower
        {
            add_follower(
                &mut scene,
                f,
                "straight path",
                PathKind::Trajectory.style().0,
            );
        }
        if !n.status.is_complete() {
            scene
                .title
                .push_str("  (navmesh path PARTIAL: goal not reachable)");
        }
    }
    scene.add_endpoints(Some(c.from), Some(c.to), 0.6);
    scene
}
