//! Shapes the generator builds with: hills, rectangles, wall frames with openings, the growing
//! mesh.

use super::*;

/// Rounds a coordinate to the millimetre: short OBJ numbers that read back bit for bit.
pub(super) fn mm(x: f64) -> f32 {
    ((x * 1000.0).round() / 1000.0) as f32
}

pub(super) fn v3(p: [f64; 3]) -> Vec3 {
    Vec3::new(mm(p[0]), mm(p[1]), mm(p[2]))
}

/// Gentle hills: a sum of sine waves in random directions.
pub(super) struct Hills {
    /// (dir x, dir z, wave number, amplitude, phase).
    pub(super) waves: Vec<[f64; 5]>,
}

impl Hills {
    pub(super) fn new(rng: &mut Pcg64) -> Hills {
        let waves = WAVES
            .iter()
            .map(|&(amp, len)| {
                let a: f64 = rng.gen_range(0.0..TAU);
                let len = len * rng.gen_range(0.85..1.15);
                [a.cos(), a.sin(), TAU / len, amp, rng.gen_range(0.0..TAU)]
            })
            .collect();
        Hills { waves }
    }

    pub(super) fn height(&self, x: f64, z: f64) -> f64 {
        self.waves
            .iter()
            .map(|w| w[3] * (w[2] * (w[0] * x + w[1] * z) + w[4]).sin())
            .sum()
    }

    /// The largest possible height difference between two points.
    pub(super) fn range(&self) -> f64 {
        2.0 * self.waves.iter().map(|w| w[3]).sum::<f64>()
    }
}

/// An axis-aligned rectangle in x and z.
#[derive(Clone, Copy, Debug)]
pub(super) struct Rect {
    pub(super) x0: f64,
    pub(super) z0: f64,
    pub(super) x1: f64,
    pub(super) z1: f64,
}

impl Rect {
    /// Euclidean distance from the rectangle (0 inside).
    pub(super) fn dist(&self, x: f64, z: f64) -> f64 {
        let dx = (self.x0 - x).max(x - self.x1).max(0.0);
        let dz = (self.z0 - z).max(z - self.z1).max(0.0);
        dx.hypot(dz)
    }

    /// Euclidean distance between two rectangles (0 if they overlap).
    pub(super) fn gap(&self, o: &Rect) -> f64 {
        let dx = (self.x0 - o.x1).max(o.x0 - self.x1).max(0.0);
        let dz = (self.z0 - o.z1).max(o.z0 - self.z1).max(0.0);
        dx.hypot(dz)
    }

    pub(super) fn grow(&self, m: f64) -> Rect {
        Rect {
            x0: self.x0 - m,
            z0: self.z0 - m,
            x1: self.x1 + m,
            z1: self.z1 + m,
        }
    }

    pub(super) fn contains(&self, x: f64, z: f64) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.z0..=self.z1).contains(&z)
    }

    pub(super) fn centre(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.z0 + self.z1) / 2.0)
    }
}

/// A feature's local frame: `u` and `v` on the ground, rotated by `rot` quarter turns about
/// (`cx`, `cz`), heights relative to `y`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Frame {
    pub(super) cx: f64,
    pub(super) cz: f64,
    pub(super) rot: u8,
    pub(super) y: f64,
}

impl Frame {
    pub(super) fn xz(&self, u: f64, v: f64) -> (f64, f64) {
        let (du, dv) = match self.rot & 3 {
            0 => (u, v),
            1 => (-v, u),
            2 => (-u, -v),
            _ => (v, -u),
        };
        (self.cx + du, self.cz + dv)
    }

    pub(super) fn at(&self, u: f64, y: f64, v: f64) -> [f64; 3] {
        let (x, z) = self.xz(u, v);
        [x, self.y + y, z]
    }

    pub(super) fn vec(&self, u: f64, y: f64, v: f64) -> Vec3 {
        v3(self.at(u, y, v))
    }

    pub(super) fn rect(&self, u0: f64, u1: f64, v0: f64, v1: f64) -> Rect {
        let (ax, az) = self.xz(u0, v0);
        let (bx, bz) = self.xz(u1, v1);
        Rect {
            x0: ax.min(bx),
            z0: az.min(bz),
            x1: ax.max(bx),
            z1: az.max(bz),
        }
    }

    /// A solid over the local rectangle from `y_bot` up to a top whose corners (u0 v0), (u1 v0),
    /// (u1 v1), (u0 v1) are at `top` (a box when they are equal, a ramp when not).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn prism(
        &self,
        m: &mut Mesh,
        u0: f64,
        u1: f64,
        v0: f64,
        v1: f64,
        y_bot: f64,
        top: [f64; 4],
    ) {
        let uv = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)];
        let bottom = uv.map(|(u, v)| self.at(u, y_bot, v));
        let mut tp = bottom;
        for (k, p) in tp.iter_mut().enumerate() {
            *p = self.at(uv[k].0, top[k], uv[k].1);
        }
        m.solid(bottom, tp);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn cuboid(
        &self,
        m: &mut Mesh,
        u0: f64,
        u1: f64,
        v0: f64,
        v1: f64,
        y0: f64,
        y1: f64,
    ) {
        self.prism(m, u0, u1, v0, v1, y0, [y1; 4]);
    }

    /// A wall of thickness [`WALL_T`] from `base` (reaching [`SINK`] lower) up to `base + h`,
    /// centred on the line `v = c` (`along_u`) or `u = c`, from `a` to `b` along it, with
    /// `openings` (sorted, inside `a..b`, heights relative to `base`).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wall(
        &self,
        m: &mut Mesh,
        along_u: bool,
        c: f64,
        a: f64,
        b: f64,
        (base, h): (f64, f64),
        openings: &[Opening],
    ) {
        let t = WALL_T / 2.0;
        let f = Frame {
            y: self.y + base,
            ..*self
        };
        let f = &f;
        let piece = |m: &mut Mesh, p: f64, q: f64, y0: f64, y1: f64| {
            if along_u {
                f.cuboid(m, p, q, c - t, c + t, y0, y1);
            } else {
                f.cuboid(m, c - t, c + t, p, q, y0, y1);
            }
        };
        let mut s = a;
        for o in openings {
            if o.start > s {
                piece(m, s, o.start, -SINK, h);
            }
            if o.sill > 0.0 {
                piece(m, o.start, o.end, -SINK, o.sill);
            }
            if o.top < h {
                piece(m, o.start, o.end, o.top, h);
            }
            s = o.end;
        }
        if b > s {
            piece(m, s, b, -SINK, h);
        }
    }

    /// A straight staircase of `n - 1` solid steps of rise `h / n` and width [`STAIR_W`], centred
    /// on `across`, climbing towards `edge` (where something of height `h` stands) from the side
    /// `dir` (+1 or -1) of it, along u (`along_u`) or v. Returns the stairs' length.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn stairs(
        &self,
        m: &mut Mesh,
        along_u: bool,
        across: f64,
        edge: f64,
        dir: f64,
        h: f64,
        n: usize,
    ) -> f64 {
        let rise = h / n as f64;
        let (w0, w1) = (across - STAIR_W / 2.0, across + STAIR_W / 2.0);
        for k in 1..n {
            let near = edge + dir * (n - 1 - k) as f64 * TREAD;
            let far = near + dir * TREAD;
            let (a, b) = (near.min(far), near.max(far));
            let top = k as f64 * rise;
            if along_u {
                self.cuboid(m, a, b, w0, w1, -SINK, top);
            } else {
                self.cuboid(m, w0, w1, a, b, -SINK, top);
            }
        }
        run_of(n)
    }
}

/// The length of a staircase of `n` rises ([`Frame::stairs`]).
pub(super) fn run_of(n: usize) -> f64 {
    (n - 1) as f64 * TREAD
}

/// Which kind of building to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Style {
    /// Anything.
    Random,
    /// Roof, stairs up to it, jump link down, yard.
    RoofStairs,
    /// An upper storey reached by inner stairs, roof, yard.
    Upper,
}

/// A gap in a wall: from `start` to `end` along it, between `sill` and `top` above the floor.
#[derive(Clone, Copy, Debug)]
pub(super) struct Opening {
    pub(super) start: f64,
    pub(super) end: f64,
    pub(super) sill: f64,
    pub(super) top: f64,
}

impl Opening {
    pub(super) fn door(centre: f64, width: f64, top: f64) -> Opening {
        Opening {
            start: centre - width / 2.0,
            end: centre + width / 2.0,
            sill: 0.0,
            top,
        }
    }
}

/// Windows (1.2 m wide, from 1.0 to 2.1 m) every 2.8 m along a wall from `a` to `b`, clear of
/// `doors`, merged with them and sorted.
pub(super) fn with_windows(a: f64, b: f64, doors: &[Opening]) -> Vec<Opening> {
    let mut out = doors.to_vec();
    let mut c = a + 1.5;
    while c + 0.6 <= b - 0.9 {
        let (s, e) = (c - 0.6, c + 0.6);
        if doors.iter().all(|d| e + 0.5 < d.start || s - 0.5 > d.end) {
            out.push(Opening {
                start: s,
                end: e,
                sill: 1.0,
                top: 2.1,
            });
        }
        c += 2.8;
    }
    out.sort_by(|x, y| x.start.total_cmp(&y.start));
    out
}

/// Vertices and triangles under construction.
#[derive(Default)]
pub(super) struct Mesh {
    pub(super) verts: Vec<f32>,
    pub(super) tris: Vec<i32>,
}

impl Mesh {
    pub(super) fn vert(&mut self, p: [f64; 3]) -> i32 {
        let i = (self.verts.len() / 3) as i32;
        self.verts.extend([mm(p[0]), mm(p[1]), mm(p[2])]);
        i
    }

    pub(super) fn tri_count(&self) -> usize {
        self.tris.len() / 3
    }

    /// A planar (or nearly) face, fan-triangulated, facing away from `inside`.
    pub(super) fn face(&mut self, ids: &[i32], pts: &[[f64; 3]], inside: [f64; 3]) {
        // Newell's normal and the centroid.
        let mut n = [0.0f64; 3];
        let mut c = [0.0f64; 3];
        for (k, p) in pts.iter().enumerate() {
            let q = pts[(k + 1) % pts.len()];
            n[0] += (p[1] - q[1]) * (p[2] + q[2]);
            n[1] += (p[2] - q[2]) * (p[0] + q[0]);
            n[2] += (p[0] - q[0]) * (p[1] + q[1]);
            for a in 0..3 {
                c[a] += p[a] / pts.len() as f64;
            }
        }
        let out = (0..3).map(|a| n[a] * (c[a] - inside[a])).sum::<f64>() >= 0.0;
        for k in 1..ids.len() - 1 {
            if out {
                self.tris.extend([ids[0], ids[k], ids[k + 1]]);
            } else {
                self.tris.extend([ids[0], ids[k + 1], ids[k]]);
            }
        }
    }

    /// A closed solid with 8 corners: the `bottom` ring and the `top` ring above it, in the same
    /// order. 12 triangles, all facing out.
    pub(super) fn solid(&mut self, bottom: [[f64; 3]; 4], top: [[f64; 3]; 4]) {
        let pts: Vec<[f64; 3]> = bottom.iter().chain(top.iter()).copied().collect();
        let inside = centroid(&pts);
        let base = self.verts.len() as i32 / 3;
        for p in &pts {
            self.vert(*p);
        }
        let mut faces: Vec<[usize; 4]> = vec![[0, 1, 2, 3], [4, 5, 6, 7]];
        for i in 0..4 {
            let j = (i + 1) % 4;
            faces.push([i, j, 4 + j, 4 + i]);
        }
        for f in faces {
            let ids = f.map(|k| base + k as i32);
            let p = f.map(|k| pts[k]);
            self.face(&ids, &p, inside);
        }
    }
}

pub(super) fn centroid(pts: &[[f64; 3]]) -> [f64; 3] {
    let mut c = [0.0; 3];
    for p in pts {
        for a in 0..3 {
            c[a] += p[a] / pts.len() as f64;
        }
    }
    c
}
