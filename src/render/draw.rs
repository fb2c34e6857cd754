//! What goes where on a picture, for both backends: the map (ground layers lowest first, then
//! the overlays), the axes with world coordinates, the title, the legend and the height bar.

use glam::Vec3;

use super::layout::{self, AXIS_BAND, Frame, LEGEND_TOP, ROW};
use super::painter::{CHAR_W, Painter};
use super::{LegendEntry, PolyColors, RenderOptions, Scene, Swatch};
use crate::debug_draw::{Color, Dash, Primitive, navmesh as dd_navmesh};

use super::{HEIGHT_FILL_ALPHA as RAMP_ALPHA, POLY_FILL_ALPHA as FILL_ALPHA};
const INK: Color = Color::rgba(20, 20, 20, 255);
const GRID_LINE: Color = Color::rgba(90, 100, 110, 40);
/// Size of the height bar.
const BAR_W: f32 = 240.0;
const BAR_H: f32 = 12.0;

/// A picture laid out: its frame, the height range if polys are coloured by height, the
/// legend's place.
pub(crate) struct Plan {
    pub frame: Frame,
    heights: Option<(f32, f32)>,
    /// Top-left of the height bar.
    bar: (f32, f32),
}

/// Whether `c` is the colour debug_draw gives ground polys.
fn is_ground(c: Color) -> bool {
    c.with_alpha(255) == Color::area(crate::area::GROUND)
}

fn is_polys(name: &str) -> bool {
    name == dd_navmesh::POLYS_LAYER
}

impl Plan {
    pub fn new(scene: &Scene, opts: &RenderOptions) -> Plan {
        let poly_tris: Vec<[Vec3; 3]> = scene
            .ground
            .layers
            .iter()
            .filter(|l| is_polys(&l.name))
            .flat_map(|l| l.triangles().map(|t| t.0))
            .collect();
        let by_height = match opts.colors {
            PolyColors::Area => false,
            PolyColors::Height => !poly_tris.is_empty(),
            PolyColors::Auto => layout::has_stacked_floors(&poly_tris, 2.0),
        };
        let heights = by_height
            .then(|| layout::bounds(poly_tris.iter().flatten().copied()))
            .flatten()
            .map(|(lo, hi)| (lo.y, hi.y.max(lo.y + 1e-3)));
        // The legend band: title, entries, and the height bar beside them or under them.
        let longest = scene
            .legend
            .iter()
            .map(|e| e.label.chars().count())
            .max()
            .unwrap_or(0) as f32;
        let entries_h = ROW * scene.legend.len() as f32;
        let text_right = layout::LEFT.min(20.0) + 30.0 + longest * CHAR_W;
        let bar_x = opts.width as f32 - layout::RIGHT - BAR_W - 30.0;
        let (bar, band) = if heights.is_none() {
            ((0.0, 0.0), LEGEND_TOP + entries_h)
        } else if bar_x > text_right + 20.0 {
            ((bar_x, LEGEND_TOP + 12.0), LEGEND_TOP + entries_h.max(48.0))
        } else {
            (
                (20.0, LEGEND_TOP + entries_h + 14.0),
                LEGEND_TOP + entries_h + 52.0,
            )
        };
        let (lo, hi) = scene
            .focus
            .filter(|(a, b)| a.is_finite() && b.is_finite() && a.x <= b.x && a.z <= b.z)
            .or_else(|| {
                let g = scene.ground.bounds();
                let o = scene.overlays.bounds();
                match (g, o) {
                    (Some(g), Some(o)) => Some((g.0.min(o.0), g.1.max(o.1))),
                    (g, o) => g.or(o),
                }
            })
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .unwrap_or((Vec3::ZERO, Vec3::ONE));
        let frame = Frame::new(lo, hi, opts.width, opts.max_size, band);
        Plan {
            frame,
            heights,
            bar,
        }
    }

    /// The colour a ground triangle is filled with.
    fn fill(&self, c: Color, verts: &[Vec3; 3], polys: bool) -> Color {
        if !polys {
            return c;
        }
        match self.heights {
            Some((lo, hi)) if is_ground(c) => {
                let y = (verts[0].y + verts[1].y + verts[2].y) / 3.0;
                layout::ramp((y - lo) / (hi - lo), RAMP_ALPHA)
            }
            _ => c.with_alpha(c.a().max(FILL_ALPHA)),
        }
    }

    pub fn paint(&self, scene: &Scene, p: &mut impl Painter) {
        let f = &self.frame;
        p.clip(Some(f.map_rect()));
        self.grid_lines(p);
        // Ground: every primitive of every ground layer, lowest first (lines and points a
        // little above their height, so a floor's outlines lie on its own polys).
        let mut ground: Vec<(f32, bool, &Primitive)> = scene
            .ground
            .layers
            .iter()
            .flat_map(|l| {
                let polys = is_polys(&l.name);
                l.primitives.iter().map(move |pr| (polys, pr))
            })
            .map(|(polys, pr)| {
                let key = match pr {
                    Primitive::Triangle { verts, .. } => {
                        (verts[0].y + verts[1].y + verts[2].y) / 3.0
                    }
                    Primitive::Line { a, b, .. } => a.y.max(b.y) + 0.3,
                    Primitive::Point { pos, .. } => pos.y + 0.3,
                };
                (key, polys, pr)
            })
            .collect();
        ground.sort_by(|a, b| a.0.total_cmp(&b.0));
        let items: Vec<(bool, &Primitive)> = ground.iter().map(|g| (g.1, g.2)).collect();
        self.primitives(p, &items);
        for l in &scene.overlays.layers {
            let items: Vec<(bool, &Primitive)> =
                l.primitives.iter().map(|pr| (false, pr)).collect();
            self.primitives(p, &items);
        }
        p.clip(None);
        self.axes(p);
        self.legend(scene, p);
    }

    /// Draws primitives in order, joining runs of touching line segments of one style into
    /// polylines (so dashes run on along a path).
    fn primitives(&self, p: &mut impl Painter, items: &[(bool, &Primitive)]) {
        let f = &self.frame;
        let mut ops: Vec<Op> = Vec::new();
        let mut run: Vec<(f32, f32)> = Vec::new();
        let mut style: Option<(Color, f32, Dash)> = None;
        let mut last_end: Option<Vec3> = None;
        fn flush(ops: &mut Vec<Op>, run: &mut Vec<(f32, f32)>, style: Option<(Color, f32, Dash)>) {
            if let Some((c, w, d)) = style
                && run.len() >= 2
            {
                ops.push(Op::Line(std::mem::take(run), c, w, d));
            }
            run.clear();
        }
        for &(polys, pr) in items {
            match *pr {
                Primitive::Line {
                    a,
                    b,
                    color,
                    width,
                    dash,
                } => {
                    let s = Some((color, width, dash));
                    if s != style || last_end != Some(a) {
                        flush(&mut ops, &mut run, style);
                        style = s;
                        run.push(f.map(a));
                    }
                    run.push(f.map(b));
                    last_end = Some(b);
                }
                Primitive::Triangle { verts, color } => {
                    flush(&mut ops, &mut run, style);
                    last_end = None;
                    ops.push(Op::Tri(
                        verts.map(|v| f.map(v)),
                        self.fill(color, &verts, polys),
                    ));
                }
                Primitive::Point { pos, color, size } => {
                    flush(&mut ops, &mut run, style);
                    last_end = None;
                    ops.push(Op::Dot(f.map(pos), size, color));
                }
            }
        }
        flush(&mut ops, &mut run, style);
        for op in ops {
            match op {
                Op::Line(pts, c, w, d) => p.polyline(&pts, c, w, d),
                Op::Tri(t, c) => p.triangle(t, c),
                Op::Dot(at, size, c) => {
                    p.dot(at, size / 2.0, c);
                    // Big points (start, goal, corners) get a dark ring to stand out.
                    if size >= 5.0 {
                        ring(p, at, size / 2.0 + 0.7);
                    }
                }
            }
        }
    }

    /// Faint lines at the axis ticks, under everything.
    fn grid_lines(&self, p: &mut impl Painter) {
        let f = &self.frame;
        let (l, t, r, b) = f.map_rect();
        let (xs, zs, _, _) = self.ticks();
        for x in xs {
            let (px, _) = f.map(Vec3::new(x, 0.0, f.min.y));
            p.polyline(&[(px, t), (px, b)], GRID_LINE, 1.0, Dash::Solid);
        }
        for z in zs {
            let (_, pz) = f.map(Vec3::new(f.min.x, 0.0, z));
            p.polyline(&[(l, pz), (r, pz)], GRID_LINE, 1.0, Dash::Solid);
        }
    }

    /// The x and z ticks (world values) and their steps: about one tick per 90 pixels along
    /// the longer side, the same step on both axes (square grid cells) unless the other axis
    /// would get fewer than two ticks, which then gets a step of its own.
    fn ticks(&self) -> (Vec<f32>, Vec<f32>, f32, f32) {
        let f = &self.frame;
        let (l, t, r, b) = f.map_rect();
        let long = (r - l).max(b - t);
        let step = layout::nice_step(f.size.x.max(f.size.y), (long / 90.0).max(2.0));
        let axis = |lo: f32, size: f32, px: f32| {
            let ticks = layout::ticks(lo, lo + size, step);
            if ticks.len() >= 2 {
                return (ticks, step);
            }
            let own = layout::nice_step(size, (px / 90.0).max(2.0));
            (layout::ticks(lo, lo + size, own), own)
        };
        let (xs, sx) = axis(f.min.x, f.size.x, r - l);
        let (zs, sz) = axis(f.min.y, f.size.y, b - t);
        (xs, zs, sx, sz)
    }

    /// The frame, ticks and labels: x along the top, z down the left side.
    fn axes(&self, p: &mut impl Painter) {
        let f = &self.frame;
        let (l, t, r, b) = f.map_rect();
        let axis = Color::rgba(60, 60, 60, 255);
        p.polyline(
            &[(l, t), (r, t), (r, b), (l, b), (l, t)],
            Color::rgba(60, 60, 60, 160),
            1.0,
            Dash::Solid,
        );
        let (xs, zs, sx, sz) = self.ticks();
        for x in xs {
            let (px, _) = f.map(Vec3::new(x, 0.0, f.min.y));
            p.polyline(&[(px, t - 5.0), (px, t)], axis, 1.0, Dash::Solid);
            let s = layout::tick_label(x, sx);
            let w = s.chars().count() as f32 * CHAR_W;
            p.text(px - w / 2.0, t - 15.0, &s, INK);
        }
        for z in zs {
            let (_, pz) = f.map(Vec3::new(f.min.x, 0.0, z));
            p.polyline(&[(l - 5.0, pz), (l, pz)], axis, 1.0, Dash::Solid);
            let s = layout::tick_label(z, sz);
            let w = s.chars().count() as f32 * CHAR_W;
            p.text(l - 8.0 - w, pz - 4.0, &s, INK);
        }
        // Axis names: x at the top right of the labels, z at the top left.
        p.text(r - CHAR_W * 6.0, t - AXIS_BAND + 2.0, "x ->", INK);
        let zx = (l - 60.0).max(2.0);
        p.text(zx, t - 4.0, "z", INK);
        p.text(zx, t + 5.0, "|", INK);
        p.text(zx, t + 12.0, "v", INK);
    }

    fn legend(&self, scene: &Scene, p: &mut impl Painter) {
        p.text(20.0, 8.0, &scene.title, Color::BLACK);
        for (i, e) in scene.legend.iter().enumerate() {
            let y = LEGEND_TOP + ROW * i as f32;
            self.swatch(p, e, 20.0, y);
            let label = match (&e.swatch, self.heights) {
                (Swatch::Area(a), Some(_)) if *a == crate::area::GROUND => {
                    format!("{} - coloured by height", e.label)
                }
                _ => e.label.clone(),
            };
            p.text(50.0, y, &label, INK);
        }
        if let Some((lo, hi)) = self.heights {
            let (x, y) = self.bar;
            p.text(x, y - 12.0, "ground height y (m)", INK);
            let n = 48;
            for k in 0..n {
                let c = layout::ramp((k as f32 + 0.5) / n as f32, 255);
                let w = BAR_W / n as f32;
                p.rect(x + k as f32 * w, y, w + 0.5, BAR_H, c, None);
            }
            p.rect(x, y, BAR_W, BAR_H, Color::rgba(0, 0, 0, 0), Some(INK));
            let step = layout::nice_step(hi - lo, 4.0);
            // The ends, with one more decimal, under the bar's ends; ticks between them where
            // they do not touch the ends' labels.
            let ends = [(lo, x), (hi, x + BAR_W)];
            for (v, px) in ends {
                let s = layout::tick_label(v, step / 10.0);
                let w = s.chars().count() as f32 * CHAR_W;
                p.text(px - w / 2.0, y + BAR_H + 6.0, &s, INK);
            }
            let lo_w = layout::tick_label(lo, step / 10.0).chars().count() as f32 * CHAR_W;
            let hi_w = layout::tick_label(hi, step / 10.0).chars().count() as f32 * CHAR_W;
            for v in layout::ticks(lo, hi, step) {
                let px = x + (v - lo) / (hi - lo) * BAR_W;
                let w = layout::tick_label(v, step).chars().count() as f32 * CHAR_W;
                if px - w / 2.0 < x + lo_w / 2.0 + 6.0
                    || px + w / 2.0 > x + BAR_W - hi_w / 2.0 - 6.0
                {
                    continue;
                }
                p.polyline(
                    &[(px, y + BAR_H), (px, y + BAR_H + 4.0)],
                    INK,
                    1.0,
                    Dash::Solid,
                );
                let s = layout::tick_label(v, step);
                let w = s.chars().count() as f32 * CHAR_W;
                p.text(px - w / 2.0, y + BAR_H + 6.0, &s, INK);
            }
        }
    }

    fn swatch(&self, p: &mut impl Painter, e: &LegendEntry, x: f32, y: f32) {
        match &e.swatch {
            Swatch::Fill(c) => p.rect(x, y, 22.0, 9.0, *c, None),
            Swatch::Area(a) => {
                if self.heights.is_some() && *a == crate::area::GROUND {
                    for k in 0..11 {
                        let c = layout::ramp(k as f32 / 10.0, 255);
                        p.rect(x + k as f32 * 2.0, y, 2.5, 9.0, c, None);
                    }
                } else {
                    let c = Color::area(*a);
                    p.rect(x, y, 22.0, 9.0, c.with_alpha(FILL_ALPHA), None);
                }
            }
            Swatch::Line(c, w, d) => {
                p.polyline(&[(x, y + 4.5), (x + 22.0, y + 4.5)], *c, w.max(1.5), *d)
            }
            Swatch::Point(c, size) => {
                p.dot((x + 11.0, y + 4.5), size / 2.0, *c);
                ring(p, (x + 11.0, y + 4.5), size / 2.0 + 0.7);
            }
            Swatch::Colors(cs) => {
                let n = cs.len().clamp(1, 6);
                for (k, c) in cs.iter().take(n).enumerate() {
                    let px = x + k as f32 * 22.0 / n as f32;
                    p.rect(px, y, 22.0 / n as f32, 9.0, *c, None);
                }
            }
        }
    }
}

/// A dark ring of `radius` around `at`, 1.4 pixels wide.
fn ring(p: &mut impl Painter, at: (f32, f32), radius: f32) {
    let pts: Vec<(f32, f32)> = (0..=24)
        .map(|i| {
            let a = i as f32 / 24.0 * std::f32::consts::TAU;
            (at.0 + radius * a.cos(), at.1 + radius * a.sin())
        })
        .collect();
    p.polyline(&pts, Color::rgba(20, 20, 20, 210), 1.4, Dash::Solid);
}

enum Op {
    Line(Vec<(f32, f32)>, Color, f32, Dash),
    Tri([(f32, f32); 3], Color),
    Dot((f32, f32), f32, Color),
}
