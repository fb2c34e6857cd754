//! Plane (xz) geometry of an agent's look-ahead path for the crowd behaviours: the agent's
//! position followed by its next corners, as DetourCrowd steers along them.

use glam::Vec3;

/// A short polyline in the xz plane (y ignored): an agent's position and its next corners.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Polyline {
    pts: [Vec3; 5],
    n: usize,
}

/// Where a point projects onto a [`Polyline`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Projection {
    /// Distance (xz) from the point to the polyline.
    pub dist: f32,
    /// Arc length along the polyline of the nearest point.
    pub along: f32,
    /// The nearest point.
    pub point: Vec3,
    /// The unit xz direction of the segment the nearest point lies on.
    pub dir: Vec3,
}

/// `v` with y set to 0.
pub(super) fn flat(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

/// Unit xz direction of `v`, or zero when it is (nearly) zero.
pub(super) fn flat_dir(v: Vec3) -> Vec3 {
    flat(v).normalize_or_zero()
}

/// xz distance between two points.
pub(super) fn dist_xz(a: Vec3, b: Vec3) -> f32 {
    flat(a - b).length()
}

impl Polyline {
    /// `start` then `corners` (at most 4 kept), cut at arc length `max_len`.
    pub fn new(start: Vec3, corners: &[Vec3], max_len: f32) -> Self {
        let mut p = Polyline {
            pts: [start; 5],
            n: 1,
        };
        let mut len = 0.0;
        for &c in corners.iter().take(4) {
            let prev = p.pts[p.n - 1];
            let seg = dist_xz(prev, c);
            if seg < 1e-4 {
                continue;
            }
            if len + seg >= max_len {
                p.pts[p.n] = prev + (c - prev) * ((max_len - len) / seg);
                p.n += 1;
                break;
            }
            p.pts[p.n] = c;
            p.n += 1;
            len += seg;
        }
        p
    }

    /// True when the polyline is a single point.
    pub fn is_point(&self) -> bool {
        self.n < 2
    }

    /// The first segment's unit xz direction (zero for a single point).
    pub fn heading(&self) -> Vec3 {
        if self.is_point() {
            Vec3::ZERO
        } else {
            flat_dir(self.pts[1] - self.pts[0])
        }
    }

    /// Total xz length.
    pub fn length(&self) -> f32 {
        self.pts[..self.n]
            .windows(2)
            .map(|w| dist_xz(w[0], w[1]))
            .sum()
    }

    /// The nearest point of the polyline to `p` (`None` for a single point).
    pub fn project(&self, p: Vec3) -> Option<Projection> {
        let mut best: Option<Projection> = None;
        let mut along = 0.0;
        for w in self.pts[..self.n].windows(2) {
            let (a, b) = (flat(w[0]), flat(w[1]));
            let ab = b - a;
            let len = ab.length();
            if len < 1e-6 {
                continue;
            }
            let dir = ab / len;
            let t = (flat(p) - a).dot(dir).clamp(0.0, len);
            let q = a + dir * t;
            let d = (flat(p) - q).length();
            if best.is_none_or(|b| d < b.dist) {
                best = Some(Projection {
                    dist: d,
                    along: along + t,
                    point: w[0] + (w[1] - w[0]) * (t / len),
                    dir,
                });
            }
            along += len;
        }
        best
    }

    /// The point at arc length `s`, continuing straight past the end along the last segment.
    pub fn point_at(&self, s: f32) -> Vec3 {
        let mut left = s.max(0.0);
        for w in self.pts[..self.n].windows(2) {
            let len = dist_xz(w[0], w[1]);
            if left <= len && len > 1e-6 {
                return w[0] + (w[1] - w[0]) * (left / len);
            }
            left -= len;
        }
        let last = self.pts[self.n - 1];
        if self.n >= 2 {
            last + flat_dir(last - self.pts[self.n - 2]) * left
        } else {
            last
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projection_and_points_of_an_l_shaped_path() {
        // Hand-made: (0,0) -> (4,0) -> (4,3), length 7.
        let p = Polyline::new(
            Vec3::ZERO,
            &[Vec3::new(4.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 3.0)],
            100.0,
        );
        assert_eq!(p.length(), 7.0);
        let pr = p.project(Vec3::new(2.0, 5.0, 1.0)).unwrap();
        assert_eq!((pr.dist, pr.along), (1.0, 2.0));
        let pr = p.project(Vec3::new(5.0, 0.0, 2.0)).unwrap();
        assert_eq!((pr.dist, pr.along), (1.0, 6.0));
        assert_eq!(p.point_at(5.0), Vec3::new(4.0, 0.0, 1.0));
        assert_eq!(p.point_at(9.0), Vec3::new(4.0, 0.0, 5.0));
        // Cut at 5: ends at (4,0,1).
        let cut = Polyline::new(
            Vec3::ZERO,
            &[Vec3::new(4.0, 0.0, 0.0), Vec3::new(4.0, 0.0, 3.0)],
            5.0,
        );
        assert_eq!(cut.length(), 5.0);
        assert_eq!(cut.heading(), Vec3::X);
    }
}
