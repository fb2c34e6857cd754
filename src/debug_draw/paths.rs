//! Paths of every kind: the corridor's polys, the straight path (corners), the smooth path,
//! a spline through the corners, a follower's or crowd agent's trajectory and grid paths, each
//! in its own colour and dash style ([`PathKind`]).

use glam::Vec3;

use super::{Color, Dash, Layer};
use crate::navmesh::NavMesh;
use crate::query::{PolyRef, SmoothPath, StraightPath};

/// Name of the corridor layer.
pub const CORRIDOR_LAYER: &str = "path.corridor";
/// Name of the start and goal markers layer.
pub const ENDPOINTS_LAYER: &str = "path.endpoints";

/// The kinds of path, each drawn in its own colour and dash style.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathKind {
    /// The straight path's corners (`findStraightPath`): RecastDemo's `duRGBA(64,16,0,220)`,
    /// solid, 2 pixels, a 6-pixel point at each corner.
    Straight,
    /// The smooth path (RecastDemo's follow mode): `duRGBA(0,0,0,220)`, dotted, 3 pixels.
    Smooth,
    /// A spline through the corners: purple `duRGBA(160,32,200,220)`, dashed, 2 pixels.
    Spline,
    /// A follower's trajectory: green `duRGBA(0,160,64,220)`, dashed, 2 pixels.
    Trajectory,
    /// A grid path (A*, JPS): red `duRGBA(200,32,16,220)`, dotted, 2 pixels.
    Grid,
    /// The optimal (shortest) path ([`crate::query::OptimalPath`]): translucent lime
    /// `duRGBA(120,220,0,170)`, solid, 5 pixels, drawn under the others so that they show
    /// over it where they coincide.
    Optimal,
}

impl PathKind {
    /// Every kind.
    pub const ALL: [PathKind; 6] = [
        PathKind::Straight,
        PathKind::Smooth,
        PathKind::Spline,
        PathKind::Trajectory,
        PathKind::Grid,
        PathKind::Optimal,
    ];

    /// Its layer's name (`path.straight`, ...).
    pub fn layer_name(self) -> &'static str {
        match self {
            PathKind::Straight => "path.straight",
            PathKind::Smooth => "path.smooth",
            PathKind::Spline => "path.spline",
            PathKind::Trajectory => "path.trajectory",
            PathKind::Grid => "path.grid",
            PathKind::Optimal => "path.optimal",
        }
    }

    /// Colour, line width and dash.
    pub fn style(self) -> (Color, f32, Dash) {
        match self {
            PathKind::Straight => (Color::rgba(64, 16, 0, 220), 2.0, Dash::Solid),
            PathKind::Smooth => (Color::rgba(0, 0, 0, 220), 3.0, Dash::Dotted),
            PathKind::Spline => (Color::rgba(160, 32, 200, 220), 2.0, Dash::Dashed),
            PathKind::Trajectory => (Color::rgba(0, 160, 64, 220), 2.0, Dash::Dashed),
            PathKind::Grid => (Color::rgba(200, 32, 16, 220), 2.0, Dash::Dotted),
            PathKind::Optimal => (Color::rgba(120, 220, 0, 170), 5.0, Dash::Solid),
        }
    }
}

/// `points` as `kind`'s layer: one segment per consecutive pair (`points.len() - 1`), and for
/// [`PathKind::Straight`] a point at each corner.
pub fn polyline(kind: PathKind, points: &[Vec3]) -> Layer {
    let mut l = Layer::new(kind.layer_name());
    let (c, w, dash) = kind.style();
    l.polyline(points, c, w, dash);
    if kind == PathKind::Straight {
        for &p in points {
            l.point(p, c, 6.0);
        }
    }
    l
}

/// The straight path's corners; corners where an off-mesh link starts are marked in
/// RecastDemo's `duRGBA(128,96,0,220)`.
pub fn straight(path: &StraightPath) -> Layer {
    let pts: Vec<Vec3> = path.points.iter().map(|p| p.pos).collect();
    let mut l = polyline(PathKind::Straight, &pts);
    let off_mesh = Color::rgba(128, 96, 0, 220);
    // DT_STRAIGHTPATH_OFFMESH_CONNECTION.
    for (prim, p) in l
        .primitives
        .iter_mut()
        .filter(|p| matches!(p, super::Primitive::Point { .. }))
        .zip(&path.points)
    {
        if p.flags & 4 != 0
            && let super::Primitive::Point { color, .. } = prim
        {
            *color = off_mesh;
        }
    }
    l
}

/// The smooth path.
pub fn smooth(path: &SmoothPath) -> Layer {
    polyline(PathKind::Smooth, &path.points)
}

/// A spline's samples (for example [`crate::agents::spline::Spline::sample_by_arc_length`]).
pub fn spline(samples: &[Vec3]) -> Layer {
    polyline(PathKind::Spline, samples)
}

/// One trajectory (the positions an agent went through).
pub fn trajectory(positions: &[Vec3]) -> Layer {
    polyline(PathKind::Trajectory, positions)
}

/// Name of the layer of a follower's trajectory along a grid path.
pub const GRID_TRAJECTORY_LAYER: &str = "path.grid_trajectory";
/// A follower's trajectory along a grid path: teal `duRGBA(0,140,150,220)`, dashed as
/// [`PathKind::Trajectory`], so that it is told apart from the follower on the navmesh path
/// and from the orange of [`super::follower::SLOW_COLOR`]'s turn boundaries.
pub const GRID_TRAJECTORY_COLOR: Color = Color::rgba(0, 140, 150, 220);

/// A follower's trajectory along a grid path ([`GRID_TRAJECTORY_COLOR`], dashed, 2 pixels),
/// in layer [`GRID_TRAJECTORY_LAYER`].
pub fn grid_trajectory(positions: &[Vec3]) -> Layer {
    let mut l = Layer::new(GRID_TRAJECTORY_LAYER);
    let (_, w, dash) = PathKind::Trajectory.style();
    l.polyline(positions, GRID_TRAJECTORY_COLOR, w, dash);
    l
}

/// Several agents' trajectories, each in its own colour (`duIntToCol(i + 1, 220)`), dashed.
pub fn trajectories(paths: &[Vec<Vec3>]) -> Layer {
    let mut l = Layer::new(PathKind::Trajectory.layer_name());
    for (i, p) in paths.iter().enumerate() {
        l.polyline(p, Color::from_int(i as u32 + 1, 220), 2.0, Dash::Dashed);
    }
    l
}

/// The optimal path's points.
pub fn optimal(path: &crate::query::OptimalPath) -> Layer {
    let pts: Vec<Vec3> = path.points.iter().map(|p| p.pos).collect();
    polyline(PathKind::Optimal, &pts)
}

/// A grid path's cell centres.
pub fn grid(points: &[Vec3]) -> Layer {
    polyline(PathKind::Grid, points)
}

/// The corridor's polys as RecastDemo's path-find tool: every poly `duRGBA(0,0,0,64)`, the
/// first `duRGBA(128,25,0,192)` and the last `duRGBA(51,102,0,129)` over it.
pub fn corridor(nav: &NavMesh, polys: &[PolyRef]) -> Layer {
    let mut l = super::navmesh::polys_by_ref(nav, CORRIDOR_LAYER, polys, Color::rgba(0, 0, 0, 64));
    if let (Some(&first), Some(&last)) = (polys.first(), polys.last()) {
        let s = super::navmesh::polys_by_ref(nav, "", &[first], Color::rgba(128, 25, 0, 192));
        let e = super::navmesh::polys_by_ref(nav, "", &[last], Color::rgba(51, 102, 0, 129));
        l.primitives.extend(s.primitives);
        l.primitives.extend(e.primitives);
    }
    l
}

/// Start and goal markers as RecastDemo's agent cylinders, simplified: an upright line of
/// `height` and a circle of `radius` at each, start `duRGBA(128,25,0,192)`, goal
/// `duRGBA(51,102,0,129)`.
pub fn endpoints(start: Option<Vec3>, goal: Option<Vec3>, radius: f32, height: f32) -> Layer {
    let mut l = Layer::new(ENDPOINTS_LAYER);
    for (p, c) in [
        (start, Color::rgba(128, 25, 0, 192)),
        (goal, Color::rgba(51, 102, 0, 129)),
    ] {
        if let Some(p) = p {
            l.line(p, p + Vec3::Y * height, c, 2.0);
            l.circle(p + Vec3::Y * 0.05, radius, c, 2.0, 16);
            l.point(p, c, 6.0);
        }
    }
    l
}

/// Name of the layer of Detour's search nodes.
pub const SEARCH_NODES_LAYER: &str = "path.search_nodes";

/// A query's search nodes ([`crate::query::NavMeshQuery::search_nodes`]) as RecastDemo's
/// `duDebugDrawNavMeshNodes`: a 4-pixel point per node 0.5 above where the search entered its
/// polygon, `duRGBA(255,192,0,255)` (closed nodes; nodes still on the open list in
/// `duRGBA(0,140,255,255)`, the frontier, which RecastDemo does not tell apart), then a 2-pixel
/// line from each node with a parent to its parent, `duRGBA(255,192,0,128)` (dashed where the
/// parent is not adjacent: reached by an any-angle raycast).
pub fn search_nodes(nodes: &[crate::query::SearchNode]) -> Layer {
    let mut l = Layer::new(SEARCH_NODES_LAYER);
    let up = Vec3::Y * 0.5;
    for n in nodes {
        let c = if n.open && !n.closed {
            super::grid::OPEN_COLOR
        } else {
            super::grid::CLOSED_COLOR
        };
        l.point(n.pos + up, c, 4.0);
    }
    for n in nodes {
        if let Some(p) = n.parent.and_then(|i| nodes.get(i)) {
            let dash = if n.parent_detached {
                Dash::Dashed
            } else {
                Dash::Solid
            };
            l.dashed_line(n.pos + up, p.pos + up, super::grid::PARENT_COLOR, 2.0, dash);
        }
    }
    l
}
