//! Where things go on a picture: the map's frame (world xz to pixels, top-down, z down), the
//! size cap, nice axis ticks and the height colour ramp.

use glam::{Vec2, Vec3};

use crate::debug_draw::Color;

/// Pixels left of the map (the z labels), right of it, and below it.
pub(crate) const LEFT: f32 = 64.0;
pub(crate) const RIGHT: f32 = 20.0;
pub(crate) const BOTTOM: f32 = 20.0;
/// Pixels between the legend band and the map (the x labels).
pub(crate) const AXIS_BAND: f32 = 30.0;
/// Height of one legend row.
pub(crate) const ROW: f32 = 14.0;
/// Top of the first legend row.
pub(crate) const LEGEND_TOP: f32 = 26.0;

/// The map's place on the picture.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    /// World x and z at the map's top-left corner.
    pub min: Vec2,
    /// World extent shown (x, z).
    pub size: Vec2,
    /// Pixels per world unit.
    pub scale: f32,
    /// Map's top-left corner in pixels.
    pub origin: Vec2,
    /// Picture size in pixels.
    pub width: u32,
    pub height: u32,
}

impl Frame {
    /// The frame of a world box `lo..hi` (x and z used) on a picture `width` wide whose long
    /// side is at most `max_size`, under a legend band of `band` pixels. The map is scaled to
    /// fit both the width and the height cap and centred.
    pub fn new(lo: Vec3, hi: Vec3, width: u32, max_size: u32, band: f32) -> Frame {
        let size = Vec2::new((hi.x - lo.x).max(1e-3), (hi.z - lo.z).max(1e-3));
        let top = band + AXIS_BAND;
        let avail_w = (width as f32 - LEFT - RIGHT).max(16.0);
        let avail_h = (max_size as f32 - top - BOTTOM).max(16.0);
        let scale = (avail_w / size.x).min(avail_h / size.y);
        let map_w = size.x * scale;
        let height = ((top + size.y * scale + BOTTOM).ceil() as u32).min(max_size);
        Frame {
            min: Vec2::new(lo.x, lo.z),
            size,
            scale,
            origin: Vec2::new(LEFT + ((avail_w - map_w) / 2.0).max(0.0), top),
            width,
            height,
        }
    }

    /// A world point in pixels.
    pub fn map(&self, p: Vec3) -> (f32, f32) {
        (
            self.origin.x + (p.x - self.min.x) * self.scale,
            self.origin.y + (p.z - self.min.y) * self.scale,
        )
    }

    /// The map's rectangle in pixels: left, top, right, bottom.
    pub fn map_rect(&self) -> (f32, f32, f32, f32) {
        (
            self.origin.x,
            self.origin.y,
            self.origin.x + self.size.x * self.scale,
            self.origin.y + self.size.y * self.scale,
        )
    }
}

/// A "nice" tick step (1, 2 or 5 times a power of ten) giving about `count` ticks over
/// `range`.
pub(crate) fn nice_step(range: f32, count: f32) -> f32 {
    let raw = (range / count.max(1.0)).max(1e-6);
    let p = 10f32.powf(raw.log10().floor());
    let m = raw / p;
    let n = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    n * p
}

/// The multiples of `step` in `lo..=hi`.
pub(crate) fn ticks(lo: f32, hi: f32, step: f32) -> Vec<f32> {
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    if last < first || last - first > 1000 {
        return Vec::new();
    }
    (first..=last).map(|k| k as f32 * step).collect()
}

/// A tick label: as many decimals as the step needs.
pub(crate) fn tick_label(v: f32, step: f32) -> String {
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    let v = if v.abs() < step * 1e-3 { 0.0 } else { v };
    format!("{v:.decimals$}")
}

/// The height ramp's stops, low to high: deep blue, cyan, light green, sand, salmon. Light
/// enough that the (dark, saturated) path colours read on every part of it, and without the
/// greens and reds of the paths at full strength.
const RAMP: [(u8, u8, u8); 5] = [
    (105, 140, 215),
    (100, 195, 220),
    (160, 215, 130),
    (245, 210, 110),
    (235, 130, 110),
];

/// The ramp's colour at `t` in 0..=1, with alpha `a`.
pub(crate) fn ramp(t: f32, a: u8) -> Color {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let x = t * (RAMP.len() - 1) as f32;
    let i = (x.floor() as usize).min(RAMP.len() - 2);
    let f = x - i as f32;
    let (a0, b0) = (RAMP[i], RAMP[i + 1]);
    let l = |p: u8, q: u8| (p as f32 + (q as f32 - p as f32) * f).round() as u8;
    Color::rgba(l(a0.0, b0.0), l(a0.1, b0.1), l(a0.2, b0.2), a)
}

/// Whether the triangles hold floors above one another: some 1 x 1 cell (of at most about
/// 40,000 over the box) has two surface heights `gap` or more apart, in at least 4 cells.
pub(crate) fn has_stacked_floors(tris: &[[Vec3; 3]], gap: f32) -> bool {
    let Some((lo, hi)) = bounds(tris.iter().flatten().copied()) else {
        return false;
    };
    let cell = ((hi.x - lo.x) * (hi.z - lo.z) / 40_000.0).sqrt().max(0.5);
    let nx = ((hi.x - lo.x) / cell).ceil().max(1.0) as usize;
    let nz = ((hi.z - lo.z) / cell).ceil().max(1.0) as usize;
    let mut range = vec![(f32::MAX, f32::MIN); nx * nz];
    for t in tris {
        let (tlo, thi) = bounds(t.iter().copied()).unwrap_or((t[0], t[0]));
        let i0 = ((tlo.x - lo.x) / cell - 0.5).ceil().max(0.0) as usize;
        let i1 = (((thi.x - lo.x) / cell - 0.5).floor().max(-1.0) as isize).min(nx as isize - 1);
        let k0 = ((tlo.z - lo.z) / cell - 0.5).ceil().max(0.0) as usize;
        let k1 = (((thi.z - lo.z) / cell - 0.5).floor().max(-1.0) as isize).min(nz as isize - 1);
        for k in k0 as isize..=k1 {
            for i in i0 as isize..=i1 {
                let p = Vec2::new(
                    lo.x + (i as f32 + 0.5) * cell,
                    lo.z + (k as f32 + 0.5) * cell,
                );
                if let Some(y) = height_in(t, p) {
                    let r = &mut range[k as usize * nx + i as usize];
                    r.0 = r.0.min(y);
                    r.1 = r.1.max(y);
                }
            }
        }
    }
    range.iter().filter(|r| r.1 - r.0 >= gap).count() >= 4
}

/// The height of triangle `t` over xz point `p`, if `p` is inside it (seen from above).
fn height_in(t: &[Vec3; 3], p: Vec2) -> Option<f32> {
    let (a, b, c) = (t[0], t[1], t[2]);
    let d = (b.z - c.z) * (a.x - c.x) + (c.x - b.x) * (a.z - c.z);
    if d.abs() < 1e-9 {
        return None;
    }
    let u = ((b.z - c.z) * (p.x - c.x) + (c.x - b.x) * (p.y - c.z)) / d;
    let v = ((c.z - a.z) * (p.x - c.x) + (a.x - c.x) * (p.y - c.z)) / d;
    let w = 1.0 - u - v;
    (u >= 0.0 && v >= 0.0 && w >= 0.0).then_some(u * a.y + v * b.y + w * c.y)
}

/// The box around finite points.
pub(crate) fn bounds(pts: impl Iterator<Item = Vec3>) -> Option<(Vec3, Vec3)> {
    pts.filter(|p| p.is_finite())
        .fold(None, |acc, p| match acc {
            None => Some((p, p)),
            Some((lo, hi)) => Some((lo.min(p), hi.max(p))),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_and_labels() {
        assert_eq!(nice_step(100.0, 10.0), 10.0);
        assert_eq!(nice_step(73.0, 10.0), 10.0);
        assert_eq!(nice_step(30.0, 10.0), 5.0);
        assert_eq!(nice_step(1.3, 10.0), 0.2);
        assert_eq!(ticks(-7.0, 12.0, 5.0), vec![-5.0, 0.0, 5.0, 10.0]);
        assert_eq!(tick_label(-5.0, 5.0), "-5");
        assert_eq!(tick_label(0.4, 0.2), "0.4");
        assert_eq!(tick_label(-1e-7, 0.2), "0.0");
    }

    #[test]
    fn the_frame_keeps_the_long_side_under_the_cap() {
        // A strip 2 wide and 200 deep.
        let f = Frame::new(Vec3::ZERO, Vec3::new(2.0, 0.0, 200.0), 1200, 1600, 100.0);
        assert!(f.height <= 1600);
        let (l, t, r, b) = f.map_rect();
        assert!((b - t) / (r - l) > 99.0 && (b - t) / (r - l) < 101.0);
        assert!(b <= 1600.0 - BOTTOM + 0.01);
        // A wide box: the width is the limit.
        let f = Frame::new(Vec3::ZERO, Vec3::new(100.0, 0.0, 10.0), 1000, 1600, 100.0);
        let (l, _, r, _) = f.map_rect();
        assert!((r - l - (1000.0 - LEFT - RIGHT)).abs() < 0.01);
    }

    #[test]
    fn stacked_floors_are_found() {
        let quad = |y: f32, x0: f32| {
            let (a, b, c, d) = (
                Vec3::new(x0, y, 0.0),
                Vec3::new(x0 + 10.0, y, 0.0),
                Vec3::new(x0 + 10.0, y, 10.0),
                Vec3::new(x0, y, 10.0),
            );
            [[a, b, c], [a, c, d]]
        };
        let ground = quad(0.0, 0.0);
        let upper = quad(3.0, 0.0);
        let beside = quad(3.0, 20.0);
        let two: Vec<_> = ground.iter().chain(&upper).copied().collect();
        let apart: Vec<_> = ground.iter().chain(&beside).copied().collect();
        assert!(has_stacked_floors(&two, 2.0));
        assert!(!has_stacked_floors(&apart, 2.0));
        assert!(!has_stacked_floors(&two, 4.0));
    }

    #[test]
    fn the_ramp_runs_from_blue_to_salmon() {
        assert_eq!(ramp(0.0, 255), Color::rgba(105, 140, 215, 255));
        assert_eq!(ramp(1.0, 200), Color::rgba(235, 130, 110, 200));
        assert_eq!(ramp(f32::NAN, 255), ramp(0.0, 255));
    }
}
