//! The two backends a picture is painted with: PNG pixels through `tiny-skia` (text in an 8x8
//! bitmap font) and SVG text. Both take pixel coordinates; [`super::draw`] decides what goes
//! where, once for both.

use std::fmt::Write as _;

use tiny_skia::{
    Color as SkColor, FillRule, LineCap, LineJoin, Mask, Paint, PathBuilder, Pixmap, Rect, Stroke,
    StrokeDash, Transform,
};

use crate::debug_draw::{Color, Dash};
use crate::{Error, Result};

/// Pixel width of one character of legend and label text.
pub(crate) const CHAR_W: f32 = 8.0;

/// What the drawing code asks of a backend.
pub(crate) trait Painter {
    /// Starts clipping to a rectangle (left, top, right, bottom).
    fn clip(&mut self, rect: Option<(f32, f32, f32, f32)>);
    /// A filled triangle (no anti-aliasing between neighbours: no seams).
    fn triangle(&mut self, p: [(f32, f32); 3], c: Color);
    /// A polyline of `width` pixels in `dash` style.
    fn polyline(&mut self, p: &[(f32, f32)], c: Color, width: f32, dash: Dash);
    /// A filled circle.
    fn dot(&mut self, at: (f32, f32), radius: f32, c: Color);
    /// A filled rectangle, optionally outlined.
    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Color, outline: Option<Color>);
    /// Text whose top-left corner is at `x`, `y` (8 pixels tall).
    fn text(&mut self, x: f32, y: f32, s: &str, c: Color);
}

/// Dash pattern in pixels for a line of `width`.
fn dash_pattern(dash: Dash, width: f32) -> Option<Vec<f32>> {
    match dash {
        Dash::Solid => None,
        Dash::Dashed => Some(vec![4.0 * width + 4.0, 2.0 * width + 3.0]),
        // Round caps make dots of a zero-length dash.
        Dash::Dotted => Some(vec![0.01, 2.0 * width + 2.0]),
    }
}

/// The PNG backend.
pub(crate) struct PngPainter {
    pub pixmap: Pixmap,
    mask: Option<Mask>,
}

impl PngPainter {
    pub fn new(width: u32, height: u32, background: Color) -> Result<PngPainter> {
        let mut pixmap = Pixmap::new(width, height).ok_or_else(|| {
            Error::InvalidArgument(format!("cannot make a {width} x {height} picture"))
        })?;
        pixmap.fill(sk(background));
        Ok(PngPainter { pixmap, mask: None })
    }

    pub fn encode(self) -> Result<Vec<u8>> {
        self.pixmap
            .encode_png()
            .map_err(|e| Error::Render(format!("PNG encoding failed: {e}")))
    }
}

fn sk(c: Color) -> SkColor {
    SkColor::from_rgba8(c.r(), c.g(), c.b(), c.a())
}

fn paint(c: Color, anti_alias: bool) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color(sk(c));
    p.anti_alias = anti_alias;
    p
}

impl Painter for PngPainter {
    fn clip(&mut self, rect: Option<(f32, f32, f32, f32)>) {
        self.mask = rect.and_then(|(l, t, r, b)| {
            let mut m = Mask::new(self.pixmap.width(), self.pixmap.height())?;
            let path = PathBuilder::from_rect(Rect::from_ltrb(l, t, r, b)?);
            m.fill_path(&path, FillRule::Winding, false, Transform::identity());
            Some(m)
        });
    }

    fn triangle(&mut self, p: [(f32, f32); 3], c: Color) {
        let mut pb = PathBuilder::new();
        pb.move_to(p[0].0, p[0].1);
        pb.line_to(p[1].0, p[1].1);
        pb.line_to(p[2].0, p[2].1);
        pb.close();
        if let Some(path) = pb.finish() {
            self.pixmap.fill_path(
                &path,
                &paint(c, false),
                FillRule::Winding,
                Transform::identity(),
                self.mask.as_ref(),
            );
        }
    }

    fn polyline(&mut self, p: &[(f32, f32)], c: Color, width: f32, dash: Dash) {
        let mut pb = PathBuilder::new();
        for (i, &(x, y)) in p.iter().enumerate() {
            if i == 0 {
                pb.move_to(x, y);
            } else {
                pb.line_to(x, y);
            }
        }
        let Some(path) = pb.finish() else { return };
        let stroke = Stroke {
            width,
            line_cap: if dash == Dash::Solid {
                LineCap::Butt
            } else {
                LineCap::Round
            },
            line_join: LineJoin::Round,
            dash: dash_pattern(dash, width).and_then(|d| StrokeDash::new(d, 0.0)),
            ..Stroke::default()
        };
        self.pixmap.stroke_path(
            &path,
            &paint(c, true),
            &stroke,
            Transform::identity(),
            self.mask.as_ref(),
        );
    }

    fn dot(&mut self, at: (f32, f32), radius: f32, c: Color) {
        if let Some(path) = PathBuilder::from_circle(at.0, at.1, radius.max(0.5)) {
            self.pixmap.fill_path(
                &path,
                &paint(c, true),
                FillRule::Winding,
                Transform::identity(),
                self.mask.as_ref(),
            );
        }
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Color, outline: Option<Color>) {
        if let Some(r) = Rect::from_xywh(x, y, w, h) {
            self.pixmap.fill_rect(
                r,
                &paint(c, false),
                Transform::identity(),
                self.mask.as_ref(),
            );
            if let Some(o) = outline {
                let path = PathBuilder::from_rect(r);
                self.pixmap.stroke_path(
                    &path,
                    &paint(o, true),
                    &Stroke::default(),
                    Transform::identity(),
                    self.mask.as_ref(),
                );
            }
        }
    }

    fn text(&mut self, x: f32, y: f32, s: &str, c: Color) {
        use font8x8::UnicodeFonts;
        let p = paint(c, false);
        for (k, ch) in s.chars().enumerate() {
            let Some(glyph) = font8x8::BASIC_FONTS.get(ch) else {
                continue;
            };
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..8 {
                    if bits & (1 << col) != 0
                        && let Some(r) = Rect::from_xywh(
                            x + k as f32 * CHAR_W + col as f32,
                            y + row as f32,
                            1.0,
                            1.0,
                        )
                    {
                        self.pixmap
                            .fill_rect(r, &p, Transform::identity(), self.mask.as_ref());
                    }
                }
            }
        }
    }
}

/// The SVG backend: one element per call.
pub(crate) struct SvgPainter {
    pub out: String,
    clipped: bool,
    clips: usize,
}

fn hex(c: Color) -> String {
    format!("#{:02x}{:02x}{:02x}", c.r(), c.g(), c.b())
}

fn opacity(c: Color) -> String {
    format!("{:.3}", f32::from(c.a()) / 255.0)
}

pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl SvgPainter {
    pub fn new(width: u32, height: u32, background: Color) -> SvgPainter {
        let mut out = String::new();
        let _ = writeln!(
            out,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="11">"#
        );
        let _ = writeln!(
            out,
            r#"<rect width="100%" height="100%" fill="{}"/>"#,
            hex(background)
        );
        SvgPainter {
            out,
            clipped: false,
            clips: 0,
        }
    }

    pub fn finish(mut self) -> String {
        self.clip(None);
        self.out.push_str("</svg>\n");
        self.out
    }
}

impl Painter for SvgPainter {
    fn clip(&mut self, rect: Option<(f32, f32, f32, f32)>) {
        if self.clipped {
            self.out.push_str("</g>\n");
            self.clipped = false;
        }
        if let Some((l, t, r, b)) = rect {
            self.clips += 1;
            let id = self.clips;
            let _ = writeln!(
                self.out,
                r#"<clipPath id="clip{id}"><rect x="{l:.2}" y="{t:.2}" width="{:.2}" height="{:.2}"/></clipPath><g clip-path="url(#clip{id})">"#,
                r - l,
                b - t
            );
            self.clipped = true;
        }
    }

    fn triangle(&mut self, p: [(f32, f32); 3], c: Color) {
        let _ = writeln!(
            self.out,
            r#"<polygon points="{:.2},{:.2} {:.2},{:.2} {:.2},{:.2}" fill="{}" fill-opacity="{}" shape-rendering="crispEdges"/>"#,
            p[0].0,
            p[0].1,
            p[1].0,
            p[1].1,
            p[2].0,
            p[2].1,
            hex(c),
            opacity(c)
        );
    }

    fn polyline(&mut self, p: &[(f32, f32)], c: Color, width: f32, dash: Dash) {
        let pts: Vec<String> = p.iter().map(|(x, y)| format!("{x:.2},{y:.2}")).collect();
        let dash = match dash_pattern(dash, width) {
            Some(d) => format!(
                r#" stroke-dasharray="{}" stroke-linecap="round""#,
                d.iter()
                    .map(|v| format!("{v:.2}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            None => String::new(),
        };
        let _ = writeln!(
            self.out,
            r#"<polyline points="{}" fill="none" stroke="{}" stroke-opacity="{}" stroke-width="{width}" stroke-linejoin="round"{dash}/>"#,
            pts.join(" "),
            hex(c),
            opacity(c)
        );
    }

    fn dot(&mut self, at: (f32, f32), radius: f32, c: Color) {
        let _ = writeln!(
            self.out,
            r#"<circle cx="{:.2}" cy="{:.2}" r="{:.2}" fill="{}" fill-opacity="{}"/>"#,
            at.0,
            at.1,
            radius.max(0.5),
            hex(c),
            opacity(c)
        );
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, c: Color, outline: Option<Color>) {
        let stroke = outline.map_or(String::new(), |o| {
            format!(r#" stroke="{}" stroke-width="1""#, hex(o))
        });
        let _ = writeln!(
            self.out,
            r#"<rect x="{x:.2}" y="{y:.2}" width="{w:.2}" height="{h:.2}" fill="{}" fill-opacity="{}"{stroke}/>"#,
            hex(c),
            opacity(c)
        );
    }

    fn text(&mut self, x: f32, y: f32, s: &str, c: Color) {
        let _ = writeln!(
            self.out,
            r#"<text x="{x:.1}" y="{:.1}" fill="{}">{}</text>"#,
            y + 8.0,
            hex(c),
            esc(s)
        );
    }
}
