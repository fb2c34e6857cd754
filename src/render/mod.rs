//! Top-down pictures (PNG with `tiny-skia`, or SVG) drawn from [`crate::debug_draw`] layers:
//! the navmesh, walkable grid cells, paths of every kind, turn boundaries, trajectories and
//! obstacles, with world coordinates on the axes and a legend of what is drawn.
//!
//! A [`Scene`] holds debug-draw layers, projected top-down (x right, z down): the *ground*
//! layers (the navmesh) are drawn lowest first, so upper floors lie over lower ones, then the
//! *overlay* layers in order. Colours, widths and dash styles are the layers' own (RecastDemo's,
//! see [`crate::debug_draw`]); the only colours of the renderer's own are the height ramp of
//! [`PolyColors::Height`], which replaces the ground colour of stacked floors so that they can
//! be told apart, with a colour bar in metres.
//!
//! ```
//! # fn main() -> navkit::Result<()> {
//! use glam::Vec3;
//! use navkit::debug_draw::paths::PathKind;
//! use navkit::render::{RenderOptions, Scene};
//!
//! let floor = navkit::TriMesh::new(
//!     vec![0.0, 0.0, 0.0, 0.0, 0.0, 10.0, 10.0, 0.0, 10.0, 10.0, 0.0, 0.0],
//!     vec![0, 1, 2, 0, 2, 3],
//! )?;
//! let geom = navkit::InputGeometry::from_mesh(floor);
//! let nav = navkit::NavMeshBuilder::new(&geom).solo()?.into_navmesh();
//! let mut scene = Scene::with_navmesh(&nav, "a floor");
//! scene.add_path(PathKind::Straight, &[Vec3::new(1.0, 0.0, 1.0), Vec3::new(9.0, 0.0, 9.0)], "a path");
//! let svg = navkit::render::render_svg(&scene, &RenderOptions::default())?;
//! assert!(svg.contains("a path") && svg.contains("<text"));
//! # Ok(())
//! # }
//! ```

mod draw;
mod layout;
mod painter;
mod scene;

use std::path::Path;

use glam::Vec3;

use crate::debug_draw::{Color, Dash, DebugDraw, Layer};
use crate::{Error, Result};

pub use scene::ComparisonPaths;
#[cfg(feature = "tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "tools")))]
pub use scene::comparison_scene;

/// The pictures' background colour.
pub const BACKGROUND: Color = Color::rgba(250, 250, 248, 255);
/// The least alpha navmesh polys are filled with (RecastDemo's 64 is for its dark 3D view; on
/// a light picture the polys need more).
pub const POLY_FILL_ALPHA: u8 = 140;
/// The alpha of polys coloured by height.
pub const HEIGHT_FILL_ALPHA: u8 = 200;

/// The height ramp's colour (opaque) at `t` in 0..=1 of the ground's height range: deep
/// blue (lowest), cyan, light green, sand, salmon (highest). NaN reads as 0.
pub fn height_color(t: f32) -> Color {
    layout::ramp(t, 255)
}

/// How a legend entry's sample is drawn.
#[derive(Clone, Debug, PartialEq)]
pub enum Swatch {
    /// A filled box.
    Fill(Color),
    /// The polys of an area (its colour as drawn, or the height ramp where polys are coloured
    /// by height).
    Area(u8),
    /// A short line in this colour, width and dash.
    Line(Color, f32, Dash),
    /// A point of this colour and size.
    Point(Color, f32),
    /// Short lines in several colours (one colour per agent, ...).
    Colors(Vec<Color>),
}

/// One legend row.
#[derive(Clone, Debug, PartialEq)]
pub struct LegendEntry {
    /// The sample.
    pub swatch: Swatch,
    /// The text.
    pub label: String,
}

/// How ground polys are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum PolyColors {
    /// By height where floors are stacked (some place has walkable surface 2 or more units
    /// above another), by area otherwise.
    #[default]
    Auto,
    /// By area (RecastDemo's colours).
    Area,
    /// Ground polys by height, on a colour ramp with a bar in the legend; other areas keep
    /// their colour.
    Height,
}

/// Picture size and colouring.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderOptions {
    /// Picture width in pixels ([`MIN_SIZE`]..=[`MAX_SIZE`]).
    pub width: u32,
    /// The longest side the picture may have, in pixels ([`MIN_SIZE`]..=[`MAX_SIZE`], at
    /// least `width`): a tall level is scaled down to fit.
    pub max_size: u32,
    /// Ground poly colours.
    pub colors: PolyColors,
}

/// The smallest picture side accepted.
pub const MIN_SIZE: u32 = 200;
/// The largest picture side accepted.
pub const MAX_SIZE: u32 = 8192;
/// The default width.
pub const DEFAULT_WIDTH: u32 = 1200;
/// The default cap on the long side.
pub const DEFAULT_MAX_SIZE: u32 = 1600;

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            width: DEFAULT_WIDTH,
            max_size: DEFAULT_MAX_SIZE,
            colors: PolyColors::Auto,
        }
    }
}

impl RenderOptions {
    /// Checks the sizes: [`Error::InvalidArgument`] saying which is out of range.
    pub fn validate(&self) -> Result<()> {
        for (name, v) in [("width", self.width), ("max size", self.max_size)] {
            if !(MIN_SIZE..=MAX_SIZE).contains(&v) {
                return Err(Error::InvalidArgument(format!(
                    "picture {name} {v}: must be between {MIN_SIZE} and {MAX_SIZE} pixels"
                )));
            }
        }
        if self.width > self.max_size {
            return Err(Error::InvalidArgument(format!(
                "picture width {} is more than the max size {}",
                self.width, self.max_size
            )));
        }
        Ok(())
    }
}

/// A picture format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// PNG.
    Png,
    /// SVG.
    Svg,
}

impl Format {
    /// The format a file name asks for by its extension (`.png` or `.svg`, any case); any
    /// other extension, or none, is an [`Error::InvalidArgument`].
    pub fn from_path(path: &Path) -> Result<Format> {
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
        if ext.eq_ignore_ascii_case("png") {
            Ok(Format::Png)
        } else if ext.eq_ignore_ascii_case("svg") {
            Ok(Format::Svg)
        } else {
            Err(Error::InvalidArgument(format!(
                "{}: a picture must end in .png or .svg",
                path.display()
            )))
        }
    }
}

/// Everything a picture shows.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Title, drawn at the top.
    pub title: String,
    /// The ground (navmesh) layers: their primitives are drawn together from the lowest to the
    /// highest, so upper floors cover lower ones.
    pub ground: DebugDraw,
    /// Layers drawn over the ground, in order.
    pub overlays: DebugDraw,
    /// The legend, in order (see [`Scene::add_overlay`]: only what is drawn).
    pub legend: Vec<LegendEntry>,
    /// Show only this box (its x and z; everything is still drawn, and cut at the edges):
    /// see [`Scene::zoom_to_lines`].
    pub focus: Option<(Vec3, Vec3)>,
}

impl Scene {
    /// An empty scene.
    pub fn new(title: impl Into<String>) -> Scene {
        Scene {
            title: title.into(),
            ..Scene::default()
        }
    }

    /// Adds a legend entry.
    pub fn legend(&mut self, swatch: Swatch, label: impl Into<String>) {
        self.legend.push(LegendEntry {
            swatch,
            label: label.into(),
        });
    }

    /// Adds a ground layer, and its legend entry unless the layer is empty.
    pub fn add_ground(&mut self, layer: Layer, entry: Option<(Swatch, String)>) {
        if layer.primitives.is_empty() {
            return;
        }
        if let Some((swatch, label)) = entry {
            self.legend(swatch, label);
        }
        self.ground.push(layer);
    }

    /// Adds an overlay layer, and its legend entry unless the layer is empty (so the legend
    /// lists only what is drawn).
    pub fn add_overlay(&mut self, layer: Layer, entry: Option<(Swatch, String)>) {
        if layer.primitives.is_empty() {
            return;
        }
        if let Some((swatch, label)) = entry {
            self.legend(swatch, label);
        }
        self.overlays.push(layer);
    }

    /// Frames the picture on the paths, trajectories, start and goal (the overlay layers named
    /// `path.*`), with `margin` world units around them, instead of the whole scene. Does
    /// nothing if there are none.
    pub fn zoom_to_lines(&mut self, margin: f32) {
        let paths = self
            .overlays
            .layers
            .iter()
            .filter(|l| l.name.starts_with("path."));
        let pts = paths.flat_map(|l| {
            l.primitives
                .iter()
                .filter(|p| !matches!(p, crate::debug_draw::Primitive::Triangle { .. }))
                .flat_map(|p| p.vertices())
        });
        if let Some((lo, hi)) = layout::bounds(pts) {
            let m = Vec3::new(margin, 0.0, margin);
            self.focus = Some((lo - m, hi + m));
        }
    }
}

/// Renders `scene` to PNG bytes.
pub fn render_png(scene: &Scene, opts: &RenderOptions) -> Result<Vec<u8>> {
    opts.validate()?;
    let plan = draw::Plan::new(scene, opts);
    let mut p = painter::PngPainter::new(plan.frame.width, plan.frame.height, BACKGROUND)?;
    plan.paint(scene, &mut p);
    p.encode()
}

/// Renders `scene` as SVG text.
pub fn render_svg(scene: &Scene, opts: &RenderOptions) -> Result<String> {
    opts.validate()?;
    let plan = draw::Plan::new(scene, opts);
    let mut p = painter::SvgPainter::new(plan.frame.width, plan.frame.height, BACKGROUND);
    plan.paint(scene, &mut p);
    Ok(p.finish())
}

/// Writes `scene` to `path`, as PNG or SVG by its extension; any other extension is an
/// [`Error::InvalidArgument`] (nothing is written).
pub fn save(scene: &Scene, path: impl AsRef<Path>, opts: &RenderOptions) -> Result<()> {
    let path = path.as_ref();
    let bytes = match Format::from_path(path)? {
        Format::Svg => render_svg(scene, opts)?.into_bytes(),
        Format::Png => render_png(scene, opts)?,
    };
    crate::atomic_file::write(path, &bytes)
}
