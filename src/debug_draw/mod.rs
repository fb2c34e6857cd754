//! Engine-agnostic debug drawing: navkit's data as coloured triangles, lines and points grouped
//! in named layers, for any renderer.
//!
//! Every picture RecastDemo draws has a layer here:
//!
//! - [`navmesh`]: polys by area, flags or tile, detail triangles, outlines, vertices, tile
//!   bounds, off-mesh links, BV tree (`duDebugDrawNavMesh*`);
//! - [`geometry`]: the input mesh shaded by slope, convex volumes, tile-cache obstacles;
//! - [`stages`]: Recast's intermediate stages, from [`crate::build::SoloBuild::stages`]
//!   (heightfield, compact heightfield, distance field, regions, raw and simplified contours,
//!   poly mesh, detail mesh);
//! - [`paths`]: the corridor, straight, smooth and spline paths, trajectories, grid paths, start
//!   and goal, and Detour's search nodes after a search (`duDebugDrawNavMeshNodes`, from
//!   [`crate::query::NavMeshQuery::search_nodes`]);
//! - [`agents`]: crowd agents with their corners and velocities;
//! - [`follower`]: the turn-boundary follower's boundaries, look points and state;
//! - [`grid`]: grid cells (a Moving AI [`crate::grid::Grid`] or the walkable spans of a
//!   [`crate::grid::mesh::MeshGrid`]) and the nodes an A* or JPS search reached;
//! - [`tilecache`]: the tile cache's layers by area and by region, their contours and poly
//!   meshes, and its tile bounds (`duDebugDrawTileCache*`, from
//!   [`crate::tilecache::TileCache::decode_layers`]).
//!
//! Colours follow upstream's DebugUtils (`duRGBA`, `duIntToCol`, `duTransCol`, RecastDemo's
//! `areaToCol`, ...): see [`Color`]. Each layer's name is a `*_LAYER` constant of its module
//! (`navmesh.polys`, `path.straight`, `stage.contours`, ...), so a viewer can toggle them.
//!
//! A [`DebugDraw`] is a list of [`Layer`]s; a layer is a list of [`Primitive`]s (small `Copy`
//! values over glam's [`Vec3`]). Read them directly, or feed them to a [`DebugDrawSink`], the
//! counterpart of upstream's `duDebugDraw` (`begin`, `vertex`, `end`), which batches runs of
//! primitives of one kind and style.
//!
//! Feeding an engine: implement [`DebugDrawSink`] over its immediate-mode or buffered line and
//! triangle API. For example, filling the vertex buffers a GPU renderer uploads, one draw call
//! per batch (Bevy's gizmos, macroquad's `draw_triangle`/`draw_line_3d`, Godot's
//! `ImmediateMesh` and Unity's `GL.Begin` work the same way):
//!
//! ```
//! # fn main() -> navkit::Result<()> {
//! use glam::Vec3;
//! use navkit::debug_draw::{self, Color, DebugDraw, DebugDrawSink, PrimitiveKind, Style};
//! use navkit::query::QueryFilter;
//!
//! /// What the GPU gets: position and RGBA, as a vertex buffer would hold it.
//! #[repr(C)]
//! #[derive(Clone, Copy)]
//! struct Vertex {
//!     pos: [f32; 3],
//!     rgba: [u8; 4],
//! }
//!
//! /// One draw call: a primitive topology, a line width or point size, a range of vertices.
//! struct DrawCall {
//!     kind: PrimitiveKind,
//!     size: f32,
//!     range: std::ops::Range<usize>,
//! }
//!
//! #[derive(Default)]
//! struct GpuDebugBuffers {
//!     vertices: Vec<Vertex>,
//!     calls: Vec<DrawCall>,
//! }
//!
//! impl DebugDrawSink for GpuDebugBuffers {
//!     fn begin(&mut self, _layer: &str, kind: PrimitiveKind, style: Style) {
//!         let start = self.vertices.len();
//!         self.calls.push(DrawCall { kind, size: style.size, range: start..start });
//!     }
//!     fn vertex(&mut self, pos: Vec3, color: Color) {
//!         self.vertices.push(Vertex { pos: pos.into(), rgba: color.to_array() });
//!     }
//!     fn end(&mut self) {
//!         let end = self.vertices.len();
//!         if let Some(call) = self.calls.last_mut() {
//!             call.range.end = end;
//!         }
//!     }
//! }
//!
//! // A level, its navmesh and a path across it.
//! let floor = navkit::TriMesh::new(
//!     vec![0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 0.0, 10.0, 10.0, 0.0, 0.0],
//!     vec![0, 1, 2, 0, 2, 3],
//! )?;
//! let geom = navkit::InputGeometry::from_mesh(floor);
//! let nav = navkit::NavMeshBuilder::new(&geom).solo()?.into_navmesh();
//! let mut query = nav.query()?;
//! let (a, b) = (Vec3::new(1.0, 0.0, 1.0), Vec3::new(9.0, 0.0, 9.0));
//! let path = query.path(a, b, &QueryFilter::default(), &Default::default())?;
//!
//! // The picture: navmesh, straight path, the search's nodes.
//! let mut picture: DebugDraw = debug_draw::navmesh::navmesh(&nav, &Default::default());
//! picture.push(debug_draw::paths::straight(&path.straight));
//! picture.push(debug_draw::paths::search_nodes(&query.search_nodes()));
//!
//! // Every frame (or when something changed): fill the buffers, leaving out hidden layers.
//! let mut gpu = GpuDebugBuffers::default();
//! picture.feed_filtered(&mut gpu, |name| name != debug_draw::navmesh::VERTICES_LAYER);
//! for call in &gpu.calls {
//!     let per = match call.kind {
//!         PrimitiveKind::Points => 1,
//!         PrimitiveKind::Lines => 2,
//!         PrimitiveKind::Triangles => 3,
//!     };
//!     assert_eq!(call.range.len() % per, 0);
//!     // engine.draw(call.kind, call.size, &gpu.vertices[call.range.clone()]);
//! }
//! let triangles: usize = gpu.calls.iter()
//!     .filter(|c| c.kind == PrimitiveKind::Triangles)
//!     .map(|c| c.range.len() / 3)
//!     .sum();
//! assert_eq!(triangles, picture.layer("navmesh.polys").unwrap().count(PrimitiveKind::Triangles));
//! # Ok(())
//! # }
//! ```

pub mod agents;
mod color;
pub mod follower;
pub mod geometry;
pub mod grid;
pub mod navmesh;
pub mod paths;
pub mod stages;
pub mod tilecache;

pub use color::Color;

use glam::Vec3;

/// What a batch of vertices draws (`duDebugDrawPrimitives` without quads: a quad is two
/// triangles here).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum PrimitiveKind {
    /// One vertex per point.
    Points,
    /// Two vertices per line segment.
    Lines,
    /// Three vertices per triangle.
    Triangles,
}

/// How a line is stroked. A hint: a renderer without dashes draws it solid.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Dash {
    /// Solid.
    #[default]
    Solid,
    /// Long dashes.
    Dashed,
    /// Dots.
    Dotted,
}

/// The style of a batch: point size or line width in pixels (as upstream's `begin(prim, size)`;
/// 1 for triangles) and the dash hint of lines.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Style {
    /// Point size or line width in pixels.
    pub size: f32,
    /// Dash hint (lines only).
    pub dash: Dash,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            size: 1.0,
            dash: Dash::Solid,
        }
    }
}

/// One drawable item.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum Primitive {
    /// A point of `size` pixels.
    Point {
        /// Position.
        pos: Vec3,
        /// Colour.
        color: Color,
        /// Size in pixels.
        size: f32,
    },
    /// A line segment.
    Line {
        /// Start.
        a: Vec3,
        /// End.
        b: Vec3,
        /// Colour.
        color: Color,
        /// Width in pixels.
        width: f32,
        /// Dash hint.
        dash: Dash,
    },
    /// A filled triangle.
    Triangle {
        /// Its corners (either winding: debug geometry is drawn double-sided).
        verts: [Vec3; 3],
        /// Colour.
        color: Color,
    },
}

impl Primitive {
    /// Its kind.
    pub fn kind(&self) -> PrimitiveKind {
        match self {
            Primitive::Point { .. } => PrimitiveKind::Points,
            Primitive::Line { .. } => PrimitiveKind::Lines,
            Primitive::Triangle { .. } => PrimitiveKind::Triangles,
        }
    }

    /// Its style (the batch it goes in).
    pub fn style(&self) -> Style {
        match *self {
            Primitive::Point { size, .. } => Style {
                size,
                dash: Dash::Solid,
            },
            Primitive::Line { width, dash, .. } => Style { size: width, dash },
            Primitive::Triangle { .. } => Style::default(),
        }
    }

    /// Its colour.
    pub fn color(&self) -> Color {
        match *self {
            Primitive::Point { color, .. }
            | Primitive::Line { color, .. }
            | Primitive::Triangle { color, .. } => color,
        }
    }

    /// Its vertices (1, 2 or 3), in order.
    pub fn vertices(&self) -> impl Iterator<Item = Vec3> + use<> {
        primitive_vertices(self)
    }
}

/// A named group of primitives that a viewer shows or hides together ("navmesh.polys",
/// "path.straight", "stage.contours", ...; see the `*_LAYER` names of each module).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Layer {
    /// Its name.
    pub name: String,
    /// Its primitives, in drawing order.
    pub primitives: Vec<Primitive>,
}

impl Layer {
    /// An empty layer.
    pub fn new(name: impl Into<String>) -> Self {
        Layer {
            name: name.into(),
            primitives: Vec::new(),
        }
    }

    /// Adds a triangle.
    pub fn triangle(&mut self, verts: [Vec3; 3], color: Color) {
        self.primitives.push(Primitive::Triangle { verts, color });
    }

    /// Adds a solid line segment of `width` pixels.
    pub fn line(&mut self, a: Vec3, b: Vec3, color: Color, width: f32) {
        self.dashed_line(a, b, color, width, Dash::Solid);
    }

    /// Adds a line segment with a dash hint.
    pub fn dashed_line(&mut self, a: Vec3, b: Vec3, color: Color, width: f32, dash: Dash) {
        self.primitives.push(Primitive::Line {
            a,
            b,
            color,
            width,
            dash,
        });
    }

    /// Adds the segments joining consecutive `points` (none for fewer than two).
    pub fn polyline(&mut self, points: &[Vec3], color: Color, width: f32, dash: Dash) {
        for w in points.windows(2) {
            self.dashed_line(w[0], w[1], color, width, dash);
        }
    }

    /// Adds a point of `size` pixels.
    pub fn point(&mut self, pos: Vec3, color: Color, size: f32) {
        self.primitives.push(Primitive::Point { pos, color, size });
    }

    /// Adds the 12 edges of the axis-aligned box `bmin`..`bmax`.
    pub fn box_wire(&mut self, bmin: Vec3, bmax: Vec3, color: Color, width: f32) {
        let c = |i: usize| {
            Vec3::new(
                if i & 1 != 0 { bmax.x } else { bmin.x },
                if i & 2 != 0 { bmax.y } else { bmin.y },
                if i & 4 != 0 { bmax.z } else { bmin.z },
            )
        };
        for i in 0..8usize {
            for bit in [1usize, 2, 4] {
                if i & bit == 0 {
                    self.line(c(i), c(i | bit), color, width);
                }
            }
        }
    }

    /// Adds a horizontal circle of `radius` about `center`, as `segments` line segments.
    pub fn circle(&mut self, center: Vec3, radius: f32, color: Color, width: f32, segments: usize) {
        let pts = circle_points(center, radius, segments.max(3));
        for i in 0..pts.len() {
            self.line(pts[i], pts[(i + 1) % pts.len()], color, width);
        }
    }

    /// The number of primitives of `kind`.
    pub fn count(&self, kind: PrimitiveKind) -> usize {
        self.primitives.iter().filter(|p| p.kind() == kind).count()
    }

    /// Its triangles, as (corners, colour).
    pub fn triangles(&self) -> impl Iterator<Item = ([Vec3; 3], Color)> + '_ {
        self.primitives.iter().filter_map(|p| match *p {
            Primitive::Triangle { verts, color } => Some((verts, color)),
            _ => None,
        })
    }

    /// Its line segments, as (start, end, colour, width).
    pub fn lines(&self) -> impl Iterator<Item = (Vec3, Vec3, Color, f32)> + '_ {
        self.primitives.iter().filter_map(|p| match *p {
            Primitive::Line {
                a, b, color, width, ..
            } => Some((a, b, color, width)),
            _ => None,
        })
    }

    /// Its points, as (position, colour).
    pub fn points(&self) -> impl Iterator<Item = (Vec3, Color)> + '_ {
        self.primitives.iter().filter_map(|p| match *p {
            Primitive::Point { pos, color, .. } => Some((pos, color)),
            _ => None,
        })
    }

    /// The box around every vertex, or `None` for an empty layer.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let mut it = self.primitives.iter().flat_map(primitive_vertices);
        let first = it.next()?;
        Some(it.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
    }

    /// Feeds the layer to `sink`: one `begin`/`end` per run of primitives of one kind and
    /// style, in order.
    pub fn feed(&self, sink: &mut (impl DebugDrawSink + ?Sized)) {
        let mut open: Option<(PrimitiveKind, Style)> = None;
        for p in &self.primitives {
            let key = (p.kind(), p.style());
            if open != Some(key) {
                if open.is_some() {
                    sink.end();
                }
                sink.begin(&self.name, key.0, key.1);
                open = Some(key);
            }
            let color = p.color();
            for v in primitive_vertices(p) {
                sink.vertex(v, color);
            }
        }
        if open.is_some() {
            sink.end();
        }
    }
}

/// A primitive's vertices, in order.
fn primitive_vertices(p: &Primitive) -> impl Iterator<Item = Vec3> + use<> {
    let (arr, n) = match *p {
        Primitive::Point { pos, .. } => ([pos, pos, pos], 1),
        Primitive::Line { a, b, .. } => ([a, b, b], 2),
        Primitive::Triangle { verts, .. } => (verts, 3),
    };
    arr.into_iter().take(n)
}

/// `n` points around a horizontal circle, starting on +x.
pub(crate) fn circle_points(center: Vec3, radius: f32, n: usize) -> Vec<Vec3> {
    (0..n)
        .map(|i| {
            let a = i as f32 / n as f32 * std::f32::consts::TAU;
            center + Vec3::new(a.cos() * radius, 0.0, a.sin() * radius)
        })
        .collect()
}

/// A picture: named layers in drawing order.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct DebugDraw {
    /// The layers.
    pub layers: Vec<Layer>,
}

impl DebugDraw {
    /// An empty picture.
    pub fn new() -> Self {
        DebugDraw::default()
    }

    /// Adds a layer (after the others).
    pub fn push(&mut self, layer: Layer) {
        self.layers.push(layer);
    }

    /// Adds every layer of `other`.
    pub fn extend(&mut self, other: DebugDraw) {
        self.layers.extend(other.layers);
    }

    /// The first layer named `name`.
    pub fn layer(&self, name: &str) -> Option<&Layer> {
        self.layers.iter().find(|l| l.name == name)
    }

    /// The layers' names, in order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.layers.iter().map(|l| l.name.as_str())
    }

    /// Feeds every layer to `sink`, in order.
    pub fn feed(&self, sink: &mut (impl DebugDrawSink + ?Sized)) {
        for l in &self.layers {
            l.feed(sink);
        }
    }

    /// Feeds the layers `show` accepts (by name) to `sink`.
    pub fn feed_filtered(
        &self,
        sink: &mut (impl DebugDrawSink + ?Sized),
        mut show: impl FnMut(&str) -> bool,
    ) {
        for l in self.layers.iter().filter(|l| show(&l.name)) {
            l.feed(sink);
        }
    }

    /// The box around every layer's vertices, or `None` if there are none.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        self.layers
            .iter()
            .filter_map(Layer::bounds)
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
    }
}

/// Where debug drawing goes: the counterpart of upstream's `duDebugDraw`. [`DebugDraw::feed`]
/// calls `begin` once per batch, then `vertex` for each vertex of its primitives (one per
/// point, two per line, three per triangle), then `end`.
pub trait DebugDrawSink {
    /// Starts a batch of `kind` primitives of `layer`, all of `style`.
    fn begin(&mut self, layer: &str, kind: PrimitiveKind, style: Style);
    /// One vertex of the current batch.
    fn vertex(&mut self, pos: Vec3, color: Color);
    /// Ends the batch.
    fn end(&mut self);
}

/// A sink that records what it is fed back into layers (one layer per `begin` layer name,
/// merged in order of first appearance): useful for tests and for buffering a sink's input.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// What was fed.
    pub draw: DebugDraw,
    current: Option<(usize, PrimitiveKind, Style)>,
    pending: Vec<(Vec3, Color)>,
}

impl DebugDrawSink for Recorder {
    fn begin(&mut self, layer: &str, kind: PrimitiveKind, style: Style) {
        let i = match self.draw.layers.iter().position(|l| l.name == layer) {
            Some(i) => i,
            None => {
                self.draw.push(Layer::new(layer));
                self.draw.layers.len() - 1
            }
        };
        self.current = Some((i, kind, style));
        self.pending.clear();
    }

    fn vertex(&mut self, pos: Vec3, color: Color) {
        let Some((i, kind, style)) = self.current else {
            return;
        };
        self.pending.push((pos, color));
        let layer = &mut self.draw.layers[i];
        match kind {
            PrimitiveKind::Points => {
                layer.point(pos, color, style.size);
                self.pending.clear();
            }
            PrimitiveKind::Lines if self.pending.len() == 2 => {
                let (a, b) = (self.pending[0].0, self.pending[1].0);
                layer.dashed_line(a, b, self.pending[0].1, style.size, style.dash);
                self.pending.clear();
            }
            PrimitiveKind::Triangles if self.pending.len() == 3 => {
                let v = [self.pending[0].0, self.pending[1].0, self.pending[2].0];
                layer.triangle(v, self.pending[0].1);
                self.pending.clear();
            }
            _ => {}
        }
    }

    fn end(&mut self) {
        self.current = None;
        self.pending.clear();
    }
}
