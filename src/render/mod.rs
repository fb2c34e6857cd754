//! Top-down pictures (PNG with `tiny-skia`, or SVG) of navmeshes, walkable grid cells, paths,
//! turn boundaries and trajectories, with a legend.
//!
//! Polygons are coloured by area and shaded by height (higher is lighter), so stacked floors
//! read apart; off-mesh connections are drawn as lines with a dot at each end.

use std::fmt::Write as _;
use std::path::Path;

use glam::{Vec2, Vec3};
use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Rect, Stroke, Transform};

use crate::navmesh::PolyInfo;
use crate::{Error, Result, area};

/// An RGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
    fn scale(self, f: f32) -> Rgb {
        let c = |v: u8| ((v as f32 * f).round().clamp(0.0, 255.0)) as u8;
        Rgb(c(self.0), c(self.1), c(self.2))
    }
}

/// The colour of a polygon area.
pub fn area_color(a: u8) -> Rgb {
    match a {
        area::GROUND => Rgb(96, 160, 210),
        area::WATER => Rgb(40, 80, 200),
        area::ROAD => Rgb(150, 140, 120),
        area::DOOR => Rgb(200, 120, 60),
        area::GRASS => Rgb(90, 170, 80),
        area::JUMP => Rgb(230, 200, 60),
        _ => Rgb(160, 120, 190),
    }
}

/// A polyline to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Polyline {
    /// Legend label.
    pub label: String,
    /// The points (drawn in xz).
    pub points: Vec<Vec3>,
    /// Colour.
    pub color: Rgb,
    /// Width in pixels.
    pub width: f32,
    /// Draw a dot at every point.
    pub dots: bool,
}

/// Everything a picture shows.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Title, drawn at the top.
    pub title: String,
    /// Navmesh polygons (ground and off-mesh).
    pub polys: Vec<PolyInfo>,
    /// Walkable grid cells: centre and size.
    pub cells: Vec<(Vec3, f32)>,
    /// Paths and trajectories.
    pub lines: Vec<Polyline>,
    /// Turn boundaries: segments.
    pub boundaries: Vec<(Vec3, Vec3)>,
    /// Marked points (start, goal): position, colour.
    pub markers: Vec<(Vec3, Rgb)>,
    /// Show only this box (its x and z; everything is still drawn, and cut at the edges):
    /// see [`Scene::zoom_to_lines`].
    pub focus: Option<(Vec3, Vec3)>,
    /// Tile borders of a tiled navmesh: each tile's minimum and maximum corner (x, z drawn).
    pub tiles: Vec<(Vec3, Vec3)>,
    /// Obstacle outlines (x, z drawn), filled: cylinders as polygons, boxes as their corners.
    pub obstacles: Vec<Vec<Vec3>>,
}

impl Scene {
    /// Adds the outlines of `obstacles` (see [`crate::tilecache::ObstacleShape::outline`]).
    pub fn add_obstacles(&mut self, obstacles: &[crate::tilecache::Obstacle]) {
        self.obstacles
            .extend(obstacles.iter().map(|o| o.shape.outline()));
    }

    /// Adds the borders of every tile of `navmesh` (nothing for a single-tile navmesh, whose
    /// border is the mesh's edge).
    pub fn add_tile_borders(&mut self, navmesh: &crate::navmesh::NavMesh) {
        let tiles = navmesh.tile_bounds();
        if tiles.len() > 1 {
            self.tiles = tiles.into_iter().map(|(_, b)| b.into()).collect();
        }
    }

    /// Frames the picture on the lines and markers (the paths), with `margin` world units
    /// around them, instead of the whole navmesh. Does nothing if there are no lines or markers.
    pub fn zoom_to_lines(&mut self, margin: f32) {
        let pts = self
            .lines
            .iter()
            .flat_map(|l| l.points.iter().copied())
            .chain(self.markers.iter().map(|m| m.0))
            .filter(|p| p.is_finite());
        let (lo, hi) = pts.fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(p), hi.max(p)),
        );
        if lo.x <= hi.x {
            let m = Vec3::new(margin, 0.0, margin);
            self.focus = Some((lo - m, hi + m));
        }
    }
}

struct Frame {
    min: Vec2,
    scale: f32,
    margin: f32,
    legend_h: f32,
    hmin: f32,
    hmax: f32,
}

impl Frame {
    fn new(scene: &Scene, width: u32) -> (Frame, u32) {
        let mut lo = Vec3::splat(f32::MAX);
        let mut hi = Vec3::splat(f32::MIN);
        let mut add = |p: Vec3| {
            if p.is_finite() {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        };
        scene
            .polys
            .iter()
            .flat_map(|p| &p.verts)
            .for_each(|&v| add(v));
        scene.cells.iter().for_each(|&(c, _)| add(c));
        scene
            .lines
            .iter()
            .flat_map(|l| &l.points)
            .for_each(|&v| add(v));
        scene.markers.iter().for_each(|&(v, _)| add(v));
        if lo.x > hi.x {
            lo = Vec3::ZERO;
            hi = Vec3::ONE;
        }
        if let Some((flo, fhi)) = scene.focus.filter(|(a, b)| a.is_finite() && b.is_finite()) {
            // Height shading keeps the whole scene's range.
            (lo.x, lo.z, hi.x, hi.z) = (flo.x, flo.z, fhi.x.max(flo.x), fhi.z.max(flo.z));
        }
        let margin = 20.0;
        let labelled = scene.lines.iter().filter(|l| !l.label.is_empty()).count();
        let legend_h = 24.0 + 14.0 * (labelled as f32 + 5.0);
        let w = (hi.x - lo.x).max(1e-3);
        let d = (hi.z - lo.z).max(1e-3);
        let scale = (width as f32 - 2.0 * margin) / w;
        let height = (d * scale + 2.0 * margin + legend_h).ceil() as u32;
        (
            Frame {
                min: Vec2::new(lo.x, lo.z),
                scale,
                margin,
                legend_h,
                hmin: lo.y,
                hmax: hi.y,
            },
            height,
        )
    }

    /// A path through `points` in picture coordinates, closed for a polygon.
    fn path(&self, points: &[Vec3], closed: bool) -> Option<tiny_skia::Path> {
        let mut pb = PathBuilder::new();
        for (i, &v) in points.iter().enumerate() {
            let (x, y) = self.map(v);
            if i == 0 {
                pb.move_to(x, y);
            } else {
                pb.line_to(x, y);
            }
        }
        if closed {
            pb.close();
        }
        pb.finish()
    }

    fn map(&self, p: Vec3) -> (f32, f32) {
        (
            self.margin + (p.x - self.min.x) * self.scale,
            self.legend_h + self.margin + (p.z - self.min.y) * self.scale,
        )
    }

    /// Height shading: 0.55 at the lowest, 1.0 at the highest.
    fn shade(&self, y: f32) -> f32 {
        let t = if self.hmax > self.hmin {
            (y - self.hmin) / (self.hmax - self.hmin)
        } else {
            1.0
        };
        0.55 + 0.45 * t.clamp(0.0, 1.0)
    }
}

/// Control point of the arc drawn for an off-mesh connection: bulging to one side, so the jump
/// stands out from paths along it.
fn arc_control(a: (f32, f32), b: (f32, f32)) -> (f32, f32) {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    ((a.0 + b.0) / 2.0 + dy * 0.35, (a.1 + b.1) / 2.0 - dx * 0.35)
}

fn legend_entries(scene: &Scene) -> Vec<(Rgb, String)> {
    let mut v = vec![
        (
            area_color(area::GROUND),
            "navmesh: ground (lighter = higher)".to_string(),
        ),
        (area_color(area::WATER), "water".to_string()),
        (area_color(area::JUMP), "off-mesh connection".to_string()),
    ];
    if !scene.cells.is_empty() {
        v.push((Rgb(235, 235, 235), "walkable grid cells (dots)".to_string()));
    }
    if !scene.boundaries.is_empty() {
        v.push((Rgb(120, 120, 120), "turn boundaries".to_string()));
    }
    if !scene.tiles.is_empty() {
        v.push((
            TILE_COLOR,
            format!("tile borders ({} tiles)", scene.tiles.len()),
        ));
    }
    if !scene.obstacles.is_empty() {
        v.push((
            OBSTACLE_COLOR,
            format!("obstacles ({})", scene.obstacles.len()),
        ));
    }
    // Lines without a label (the many trajectories of a simulation) share the entry of the
    // labelled line before them.
    for l in scene.lines.iter().filter(|l| !l.label.is_empty()) {
        v.push((l.color, l.label.clone()));
    }
    v
}

const TILE_COLOR: Rgb = Rgb(60, 110, 200);
const OBSTACLE_COLOR: Rgb = Rgb(150, 20, 20);

fn paint(c: Rgb, alpha: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(Color::from_rgba8(c.0, c.1, c.2, alpha));
    p.anti_alias = true;
    p
}

/// Draws text with an 8x8 bitmap font (ASCII).
fn text(pm: &mut Pixmap, x: f32, y: f32, s: &str, c: Rgb) {
    use font8x8::UnicodeFonts;
    let p = paint(c, 255);
    for (k, ch) in s.chars().enumerate() {
        let Some(glyph) = font8x8::BASIC_FONTS.get(ch) else {
            continue;
        };
        for (row, bits) in glyph.iter().enumerate() {
            for col in 0..8 {
                if bits & (1 << col) != 0 {
                    if let Some(r) =
                        Rect::from_xywh(x + (k * 8 + col) as f32, y + row as f32, 1.0, 1.0)
                    {
                        pm.fill_rect(r, &p, Transform::identity(), None);
                    }
                }
            }
        }
    }
}

/// Renders `scene` to a PNG `width` pixels wide.
pub fn render_png(scene: &Scene, width: u32) -> Result<Vec<u8>> {
    let width = width.clamp(64, 8192);
    let (f, height) = Frame::new(scene, width);
    let mut pm = Pixmap::new(width, height.clamp(64, 16384)).ok_or_else(|| {
        Error::InvalidArgument(format!("cannot make a {width} x {height} picture"))
    })?;
    pm.fill(Color::from_rgba8(250, 250, 248, 255));
    let id = Transform::identity();
    // Polygons, lowest first so upper floors lie on top.
    let mut polys: Vec<&PolyInfo> = scene.polys.iter().filter(|p| !p.off_mesh).collect();
    polys.sort_by(|a, b| {
        let ya = a.verts.iter().map(|v| v.y).sum::<f32>() / a.verts.len().max(1) as f32;
        let yb = b.verts.iter().map(|v| v.y).sum::<f32>() / b.verts.len().max(1) as f32;
        ya.total_cmp(&yb)
    });
    let edge = paint(Rgb(40, 60, 80), 140);
    for p in &polys {
        if let Some(path) = f.path(&p.verts, true) {
            let y = p.verts.iter().map(|v| v.y).sum::<f32>() / p.verts.len() as f32;
            pm.fill_path(
                &path,
                &paint(area_color(p.area).scale(f.shade(y)), 200),
                FillRule::Winding,
                id,
                None,
            );
            pm.stroke_path(
                &path,
                &edge,
                &Stroke {
                    width: 0.6,
                    ..Stroke::default()
                },
                id,
                None,
            );
        }
    }
    // Grid cells: a translucent dot per walkable cell, over the polygons.
    let cell_paint = paint(Rgb(255, 255, 255), 90);
    for &(c, size) in &scene.cells {
        let w = (size * f.scale * 0.6).max(1.0);
        let (x, y) = f.map(c);
        if let Some(r) = Rect::from_xywh(x - w / 2.0, y - w / 2.0, w, w) {
            pm.fill_rect(r, &cell_paint, id, None);
        }
    }
    // Off-mesh connections.
    let jump = paint(area_color(area::JUMP).scale(0.8), 255);
    for p in scene
        .polys
        .iter()
        .filter(|p| p.off_mesh && p.verts.len() == 2)
    {
        let (a, b) = (f.map(p.verts[0]), f.map(p.verts[1]));
        let (cx, cy) = arc_control(a, b);
        let mut pb = PathBuilder::new();
        pb.move_to(a.0, a.1);
        pb.quad_to(cx, cy, b.0, b.1);
        if let Some(path) = pb.finish() {
            pm.stroke_path(
                &path,
                &jump,
                &Stroke {
                    width: 3.0,
                    ..Stroke::default()
                },
                id,
                None,
            );
        }
        for (x, y) in [a, b] {
            if let Some(c) = PathBuilder::from_circle(x, y, 4.0) {
                pm.fill_path(&c, &jump, FillRule::Winding, id, None);
            }
        }
    }
    // Tile borders, then obstacles.
    let tpaint = paint(TILE_COLOR, 110);
    for &(lo, hi) in &scene.tiles {
        let (a, b) = (f.map(lo), f.map(hi));
        if let Some(r) = Rect::from_ltrb(a.0.min(b.0), a.1.min(b.1), a.0.max(b.0), a.1.max(b.1)) {
            let path = PathBuilder::from_rect(r);
            pm.stroke_path(
                &path,
                &tpaint,
                &Stroke {
                    width: 0.8,
                    ..Stroke::default()
                },
                id,
                None,
            );
        }
    }
    let opaint = paint(OBSTACLE_COLOR, 190);
    for o in &scene.obstacles {
        if let Some(path) = f.path(o, true) {
            pm.fill_path(&path, &opaint, FillRule::Winding, id, None);
        }
    }
    // Turn boundaries.
    let bpaint = paint(Rgb(120, 120, 120), 200);
    for &(a, b) in &scene.boundaries {
        let (a, b) = (f.map(a), f.map(b));
        let mut pb = PathBuilder::new();
        pb.move_to(a.0, a.1);
        pb.line_to(b.0, b.1);
        if let Some(path) = pb.finish() {
            pm.stroke_path(
                &path,
                &bpaint,
                &Stroke {
                    width: 1.0,
                    ..Stroke::default()
                },
                id,
                None,
            );
        }
    }
    // Lines.
    for l in &scene.lines {
        let lp = paint(l.color, 235);
        if let Some(path) = f.path(&l.points, false) {
            pm.stroke_path(
                &path,
                &lp,
                &Stroke {
                    width: l.width,
                    ..Stroke::default()
                },
                id,
                None,
            );
        }
        if l.dots {
            for &v in &l.points {
                let (x, y) = f.map(v);
                if let Some(c) = PathBuilder::from_circle(x, y, l.width + 1.0) {
                    pm.fill_path(&c, &lp, FillRule::Winding, id, None);
                }
            }
        }
    }
    for &(m, c) in &scene.markers {
        let (x, y) = f.map(m);
        if let Some(circle) = PathBuilder::from_circle(x, y, 6.0) {
            pm.fill_path(&circle, &paint(c, 255), FillRule::Winding, id, None);
            pm.stroke_path(
                &circle,
                &paint(Rgb(0, 0, 0), 255),
                &Stroke {
                    width: 1.5,
                    ..Stroke::default()
                },
                id,
                None,
            );
        }
    }
    // Title and legend, on a clean band (a zoomed picture draws geometry under it).
    if let Some(r) = Rect::from_xywh(0.0, 0.0, width as f32, f.legend_h + f.margin / 2.0) {
        pm.fill_rect(r, &paint(Rgb(250, 250, 248), 255), id, None);
    }
    text(&mut pm, f.margin, 8.0, &scene.title, Rgb(0, 0, 0));
    for (i, (c, label)) in legend_entries(scene).iter().enumerate() {
        let y = 24.0 + 14.0 * i as f32;
        if let Some(r) = Rect::from_xywh(f.margin, y, 18.0, 9.0) {
            pm.fill_rect(r, &paint(*c, 255), id, None);
        }
        text(&mut pm, f.margin + 26.0, y, label, Rgb(20, 20, 20));
    }
    pm.encode_png()
        .map_err(|e| Error::Render(format!("PNG encoding failed: {e}")))
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Renders `scene` as SVG, `width` user units wide.
pub fn render_svg(scene: &Scene, width: u32) -> String {
    let width = width.clamp(64, 8192);
    let (f, height) = Frame::new(scene, width);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">"#
    );
    let _ = writeln!(s, r##"<rect width="100%" height="100%" fill="#fafaf8"/>"##);
    let mut polys: Vec<&PolyInfo> = scene.polys.iter().filter(|p| !p.off_mesh).collect();
    polys.sort_by(|a, b| {
        let ya = a.verts.iter().map(|v| v.y).sum::<f32>();
        let yb = b.verts.iter().map(|v| v.y).sum::<f32>();
        (ya / a.verts.len().max(1) as f32).total_cmp(&(yb / b.verts.len().max(1) as f32))
    });
    for p in polys {
        let pts: Vec<String> = p
            .verts
            .iter()
            .map(|&v| {
                let (x, y) = f.map(v);
                format!("{x:.2},{y:.2}")
            })
            .collect();
        let y = p.verts.iter().map(|v| v.y).sum::<f32>() / p.verts.len().max(1) as f32;
        let _ = writeln!(
            s,
            r##"<polygon points="{}" fill="{}" fill-opacity="0.8" stroke="#283c50" stroke-opacity="0.5" stroke-width="0.6"/>"##,
            pts.join(" "),
            area_color(p.area).scale(f.shade(y)).hex()
        );
    }
    for &(c, size) in &scene.cells {
        let w = (size * f.scale * 0.6).max(1.0);
        let (x, y) = f.map(c);
        let (x, y) = (x - w / 2.0, y - w / 2.0);
        let _ = writeln!(
            s,
            r##"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{w:.2}" fill="#ffffff" fill-opacity="0.35"/>"##
        );
    }
    let jump = area_color(area::JUMP).scale(0.8).hex();
    for p in scene
        .polys
        .iter()
        .filter(|p| p.off_mesh && p.verts.len() == 2)
    {
        let (a, b) = (f.map(p.verts[0]), f.map(p.verts[1]));
        let (cx, cy) = arc_control(a, b);
        let _ = writeln!(
            s,
            r#"<path d="M {:.2} {:.2} Q {cx:.2} {cy:.2} {:.2} {:.2}" fill="none" stroke="{jump}" stroke-width="3"/>"#,
            a.0, a.1, b.0, b.1
        );
        for (x, y) in [a, b] {
            let _ = writeln!(
                s,
                r#"<circle cx="{x:.2}" cy="{y:.2}" r="4" fill="{jump}"/>"#
            );
        }
    }
    for &(lo, hi) in &scene.tiles {
        let (a, b) = (f.map(lo), f.map(hi));
        let _ = writeln!(
            s,
            r#"<rect x="{:.2}" y="{:.2}" width="{:.2}" height="{:.2}" fill="none" stroke="{}" stroke-opacity="0.45" stroke-width="0.8"/>"#,
            a.0.min(b.0),
            a.1.min(b.1),
            (b.0 - a.0).abs(),
            (b.1 - a.1).abs(),
            TILE_COLOR.hex()
        );
    }
    for o in &scene.obstacles {
        let pts: Vec<String> = o
            .iter()
            .map(|&v| {
                let (x, y) = f.map(v);
                format!("{x:.2},{y:.2}")
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<polygon points="{}" fill="{}" fill-opacity="0.75"/>"#,
            pts.join(" "),
            OBSTACLE_COLOR.hex()
        );
    }
    for &(a, b) in &scene.boundaries {
        let (a, b) = (f.map(a), f.map(b));
        let _ = writeln!(
            s,
            r##"<line x1="{:.2}" y1="{:.2}" x2="{:.2}" y2="{:.2}" stroke="#787878" stroke-width="1"/>"##,
            a.0, a.1, b.0, b.1
        );
    }
    for l in &scene.lines {
        let pts: Vec<String> = l
            .points
            .iter()
            .map(|&v| {
                let (x, y) = f.map(v);
                format!("{x:.2},{y:.2}")
            })
            .collect();
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"><title>{}</title></polyline>"#,
            pts.join(" "),
            l.color.hex(),
            l.width,
            esc(&l.label)
        );
    }
    for &(m, c) in &scene.markers {
        let (x, y) = f.map(m);
        let _ = writeln!(
            s,
            r#"<circle cx="{x:.2}" cy="{y:.2}" r="6" fill="{}" stroke="black" stroke-width="1.5"/>"#,
            c.hex()
        );
    }
    let _ = writeln!(
        s,
        r##"<rect width="100%" height="{:.2}" fill="#fafaf8"/>"##,
        f.legend_h + f.margin / 2.0
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="16">{}</text>"#,
        f.margin,
        esc(&scene.title)
    );
    for (i, (c, label)) in legend_entries(scene).iter().enumerate() {
        let y = 24.0 + 14.0 * i as f32;
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{y}" width="18" height="9" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            f.margin,
            c.hex(),
            f.margin + 26.0,
            y + 9.0,
            esc(label)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Writes `scene` to `path`: SVG if it ends in `.svg`, PNG otherwise.
pub fn save(scene: &Scene, path: impl AsRef<Path>, width: u32) -> Result<()> {
    let path = path.as_ref();
    let svg = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    let bytes = if svg {
        render_svg(scene, width).into_bytes()
    } else {
        render_png(scene, width)?
    };
    crate::atomic_file::write(path, &bytes)
}

/// The turn boundaries of a prepared follower path as segments `half_len` either side of the
/// path, at the height of their look points.
pub fn boundary_segments(
    path: &crate::agents::follower::FollowPath,
    half_len: f32,
) -> Vec<(Vec3, Vec3)> {
    path.boundaries
        .iter()
        .zip(&path.look_points)
        .map(|(b, lp)| {
            let side = Vec2::new(-b.dir.y, b.dir.x) * half_len;
            (
                Vec3::new(b.point.x - side.x, lp.y, b.point.y - side.y),
                Vec3::new(b.point.x + side.x, lp.y, b.point.y + side.y),
            )
        })
        .collect()
}

#[cfg(feature = "tools")]
/// Adds a follower run to a scene: its trajectory and its turn boundaries.
fn add_follower(scene: &mut Scene, f: &crate::tools::compare::FollowerRun, on: &str, color: Rgb) {
    scene.boundaries.extend(boundary_segments(&f.path, 1.2));
    scene.lines.push(Polyline {
        label: format!(
            "follower on the {on} ({:.1} in {:.1} s{})",
            f.travelled,
            f.time,
            if f.arrived { "" } else { ", DID NOT ARRIVE" }
        ),
        points: f.trajectory.clone(),
        color,
        width: 2.0,
        dots: false,
    });
}

#[cfg(feature = "tools")]
#[cfg_attr(docsrs, doc(cfg(feature = "tools")))]
/// A scene of a navmesh (polygons by area, off-mesh connections), the walkable cells of a
/// grid if given, and a [`Comparison`](crate::tools::compare::Comparison) if given: the grid path and
/// its simplified waypoints, the navmesh straight and smooth paths, both follower trajectories
/// with their turn boundaries, and start and goal markers.
pub fn comparison_scene(
    navmesh: &crate::navmesh::NavMesh,
    grid: Option<&crate::grid::mesh::MeshGrid>,
    comparison: Option<&crate::tools::compare::Comparison>,
    title: impl Into<String>,
) -> Scene {
    let mut scene = Scene {
        title: title.into(),
        polys: navmesh.polys(),
        ..Scene::default()
    };
    if let Some(g) = grid {
        let s = g.spans();
        scene.cells = (0..s.spans.len() as u32)
            .filter(|&i| s.walkable(i))
            .map(|i| (s.position(i), s.cell_size))
            .collect();
    }
    let Some(c) = comparison else {
        return scene;
    };
    if let Some(g) = &c.grid {
        scene.lines.push(Polyline {
            label: format!(
                "grid A* path ({} cells, {:.1} long, {} expanded)",
                g.cells, g.length, g.expanded
            ),
            points: g.points.clone(),
            color: Rgb(240, 140, 20),
            width: 2.0,
            dots: false,
        });
        scene.lines.push(Polyline {
            label: format!("grid waypoints after simplification ({})", g.waypoints),
            points: g.waypoint_points.clone(),
            color: Rgb(170, 90, 0),
            width: 1.0,
            dots: true,
        });
        if let Some(f) = &g.follower {
            add_follower(&mut scene, f, "grid path", Rgb(150, 30, 170));
        }
    }
    if let Some(n) = &c.navmesh {
        scene.lines.push(Polyline {
            label: format!(
                "navmesh straight path ({} corners, {:.1} long)",
                n.corners, n.straight_length
            ),
            points: n.straight.clone(),
            color: Rgb(220, 40, 40),
            width: 2.0,
            dots: true,
        });
        scene.lines.push(Polyline {
            label: format!(
                "navmesh smooth path ({} points, {:.1} long)",
                n.smooth_points, n.smooth_length
            ),
            points: n.smooth.clone(),
            color: Rgb(30, 30, 160),
            width: 1.5,
            dots: false,
        });
        if !n.spline.is_empty() {
            scene.lines.push(Polyline {
                label: format!("spline through the corners ({:.1} long)", n.spline_length),
                points: n.spline.clone(),
                color: Rgb(0, 150, 170),
                width: 1.5,
                dots: false,
            });
        }
        if let Some(f) = &n.follower {
            add_follower(&mut scene, f, "straight path", Rgb(20, 150, 60));
        }
        if !n.complete {
            scene
                .title
                .push_str("  (navmesh path PARTIAL: goal not reachable)");
        }
    }
    scene.markers.push((c.from, Rgb(40, 200, 40)));
    scene.markers.push((c.to, Rgb(220, 40, 40)));
    scene
}
