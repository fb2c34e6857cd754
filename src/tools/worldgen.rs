//! A reproducible generator of large test worlds for navmesh builds and benchmarks.
//!
//! [`generate`] turns a [`WorldSpec`] (a target triangle count and a seed) into an
//! [`InputGeometry`] with build settings, off-mesh jump links and water volumes, and a
//! [`WorldStats`] saying what it made and where. The same spec always gives the same world, bit
//! for bit (on one platform: the hills use its `sin`); [`write_world`] writes it as an OBJ and a
//! RecastDemo `.gset` beside it, also bit for bit.
//!
//! The world (Y up, centred on the origin) is a square heightfield of gentle hills (slopes below
//! 15 degrees) cut into *plots* of about 32 m. Each plot holds one feature on a flattened pad,
//! with smooth (at most 33 degree) shoulders down to the hills:
//!
//! - **buildings** (10–20 m by 8–14 m): walls 0.3 m thick and 3 m high as closed boxes, with
//!   windows (sills 1 m high) and a front doorway 2.0–2.4 m wide and 2.4–2.7 m high (sometimes a
//!   second one); rooms divided by inner walls with 2 m doorways; crates; most have a flat roof,
//!   some a staircase up to it and a jump link down from it, some an upper storey reached by
//!   stairs inside; half stand in a yard walled 1.2 m high with a gate in line with the front
//!   door;
//! - **platforms**: a solid block 3–4.5 m high with a staircase (steps of at most 0.25 m) on one
//!   side, a 20–28 degree ramp on another and two jump links down;
//! - **bridges**: a deck 2.8–3.4 m wide whose underside is 2.85 m or more above the flat ground
//!   it spans, with a 24–30 degree ramp at each end and a jump link down;
//! - **ponds**: a bowl 1.5–2.2 m deep whose floor is marked [`area::WATER`] by a convex volume;
//! - **crags**: steep cones or ridges (56–65 degrees), patches no agent can walk;
//! - **parks**: no feature, only clutter.
//!
//! Trees, rocks and crates are then scattered outside the features until the triangle count
//! reaches the target (the terrain takes about [`WorldSpec::terrain_share`] of it), so the result
//! is within a few triangles of the target (about 1% for the smallest worlds, whose features
//! leave no room for clutter) for any size from [`MIN_TRIS`] to [`MAX_TRIS`]. The
//! terrain has about one quad per square metre, so a world of a million triangles is some 525 m
//! square; small worlds keep at least 3 x 3 plots and a coarser terrain.
//!
//! Every world has at least one building with roof stairs, one with an upper storey, one
//! platform, one bridge, one pond and one crag. [`WorldStats::features`] lists sample points on
//! each (a building's interior, an upper floor, a roof, a deck, the ground under a bridge, a
//! pond's floor, a crag's summit) with a ground point from which each walkable one can be
//! reached, for tests to query.
//!
//! ```
//! use navkit::tools::worldgen::{generate, FeatureKind, WorldSpec};
//! let (geom, stats) = generate(&WorldSpec::new(20_000, 7))?;
//! assert_eq!(geom.mesh.tri_count(), stats.tris);
//! assert!(stats.tris.abs_diff(20_000) < 2_000);
//! assert!(stats.features.iter().any(|f| f.kind == FeatureKind::BridgeDeck));
//! assert!(geom.off_mesh_connections.len() <= 256 && geom.convex_volumes.len() <= 256);
//! # Ok::<(), navkit::Error>(())
//! ```

use std::f64::consts::TAU;
use std::io::Write;
use std::path::{Path, PathBuf};

use glam::Vec3;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::geometry::{MAX_CONVEX_VOLUMES, MAX_OFF_MESH_CONNECTIONS};
use crate::{
    BuildSettings, ConvexVolume, Error, InputGeometry, OffMeshConnection, Result, TriMesh, area,
    flags,
};

/// The smallest target triangle count [`generate`] accepts.
pub const MIN_TRIS: usize = 5_000;
/// The largest target triangle count [`generate`] accepts.
pub const MAX_TRIS: usize = 50_000_000;

/// Nominal plot size (m): plots are this size or up to a third larger.
const PLOT: f64 = 32.0;
/// Fewest plots along each side of the world.
const MIN_PLOTS_PER_SIDE: usize = 3;
/// The flat pad reaches this far (m) beyond a feature's footprint.
const PAD_MARGIN: f64 = 4.0;
/// Slope of a pad's shoulders (rise over run).
const PAD_SLOPE: f64 = 0.45;
/// Largest height difference of two pads over their distance (below [`PAD_SLOPE`], so that
/// their shoulders never reach into each other's flat part).
const PAD_FEASIBLE: f64 = 0.35;
/// Wall thickness and height, roof thickness (m).
const WALL_T: f64 = 0.3;
const WALL_H: f64 = 3.0;
const ROOF_T: f64 = 0.25;
/// How deep solids reach below the ground they stand on (m).
const SINK: f64 = 0.3;
/// How far a yard wall is from its building (m), and its height.
const YARD_GAP: f64 = 3.0;
const YARD_WALL_H: f64 = 1.2;
/// Largest step rise and the step depth (m).
const STEP_RISE: f64 = 0.25;
const TREAD: f64 = 0.3;
/// Width of every staircase (m).
const STAIR_W: f64 = 2.4;
/// Jump links start this far inside an edge and land this far outside it (m).
const JUMP_IN: f64 = 1.2;
const JUMP_OUT: f64 = 2.0;
/// Off-mesh link radius (m).
const LINK_RADIUS: f32 = 0.6;
/// The terrain's hills: (amplitude, wavelength) of its sine waves, in m.
const WAVES: [(f64, f64); 6] = [
    (1.5, 400.0),
    (1.5, 330.0),
    (0.8, 160.0),
    (0.8, 140.0),
    (0.35, 60.0),
    (0.3, 45.0),
];

/// What to generate: the size, the seed and the share of the terrain.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WorldSpec {
    /// Target triangle count, [`MIN_TRIS`]..=[`MAX_TRIS`]. The world's side grows with its
    /// square root; the result is within a few triangles of it (about 1% for the smallest).
    pub tris: usize,
    /// Seed of every random choice: the same spec gives the same world, bit for bit.
    pub seed: u64,
    /// Share of the triangles given to the terrain, 0.1..=0.95 (default 0.55); buildings,
    /// platforms, bridges and clutter get the rest. With a small target the features may take
    /// more than their share, and the terrain gets coarser.
    pub terrain_share: f32,
}

impl Default for WorldSpec {
    fn default() -> Self {
        WorldSpec {
            tris: 100_000,
            seed: 1,
            terrain_share: 0.55,
        }
    }
}

impl WorldSpec {
    /// A spec of `tris` triangles from `seed`, with the default terrain share.
    pub fn new(tris: usize, seed: u64) -> Self {
        WorldSpec {
            tris,
            seed,
            ..WorldSpec::default()
        }
    }

    /// Checks the triangle count and the terrain share; out of range is
    /// [`Error::InvalidArgument`].
    pub fn validate(&self) -> Result<()> {
        if !(MIN_TRIS..=MAX_TRIS).contains(&self.tris) {
            return Err(Error::InvalidArgument(format!(
                "world size {} triangles is not in {MIN_TRIS}..={MAX_TRIS}",
                self.tris
            )));
        }
        if !(0.1..=0.95).contains(&self.terrain_share) {
            return Err(Error::InvalidArgument(format!(
                "terrain share {} is not in 0.1..=0.95",
                self.terrain_share
            )));
        }
        Ok(())
    }
}

/// What a [`Feature`] sample point is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum FeatureKind {
    /// The floor of a building, 2.5 m inside its front doorway; `approach` is straight out from
    /// the doorway, 2.5 m away or, if the building has a yard, just outside the yard's gate.
    BuildingInterior,
    /// The centre of a flat roof reached by a staircase; `approach` is in front of the stairs.
    Roof,
    /// A point on the upper floor of a two-storey building, reached by stairs inside;
    /// `approach` is the same as the building's [`FeatureKind::BuildingInterior`]'s.
    UpperFloor,
    /// The centre of a platform's top; `approach` is in front of its stairs (a ramp also leads
    /// up).
    PlatformTop,
    /// The centre of a bridge deck; `approach` is beyond the foot of one of its ramps.
    BridgeDeck,
    /// The ground under a bridge deck's centre; `approach` is on the ground beside the bridge.
    UnderBridge,
    /// The deepest point of a pond, inside its [`area::WATER`] volume; `approach` is on the shore.
    Water,
    /// The summit of a crag: every slope within `radius` is too steep to walk; `approach` is on
    /// the ground at its foot.
    SteepSlope,
}

/// A sample point of a generated feature, for tests and benchmarks.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Feature {
    /// What the point is.
    pub kind: FeatureKind,
    /// The point, on the surface (floor, deck, roof, pond floor, crag summit).
    pub point: Vec3,
    /// A point on the open ground near the feature; every kind but
    /// [`FeatureKind::SteepSlope`] can be walked to from it without jumping.
    pub approach: Vec3,
    /// The feature's half size around `point` (m): the building's half depth, the roof's,
    /// platform's or deck's half width, the water volume's radius, the crag's foot radius.
    pub radius: f32,
}

/// What [`generate`] made.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct WorldStats {
    /// The seed used.
    pub seed: u64,
    /// The target triangle count.
    pub target_tris: usize,
    /// Triangles of the mesh.
    pub tris: usize,
    /// Vertices of the mesh.
    pub verts: usize,
    /// Triangles of the terrain.
    pub terrain_tris: usize,
    /// Triangles of the buildings, yards, platforms, stairs, ramps and bridges.
    pub structure_tris: usize,
    /// Triangles of the clutter (trees, rocks, crates).
    pub clutter_tris: usize,
    /// The terrain grid's spacing (m).
    pub terrain_cell: f32,
    /// The world's side (m).
    pub side: f32,
    /// The number of plots (features plus parks).
    pub plots: usize,
    /// Buildings.
    pub buildings: usize,
    /// Doorways of buildings (outer and inner).
    pub doorways: usize,
    /// Roofs (flat, walkable).
    pub roofs: usize,
    /// Yard walls (1.2 m high, with a gate) around buildings.
    pub yards: usize,
    /// Upper floors (two-storey buildings).
    pub upper_floors: usize,
    /// Staircases (to platforms and roofs).
    pub stairs: usize,
    /// Ramps (to platforms and bridge decks).
    pub ramps: usize,
    /// Raised platforms.
    pub platforms: usize,
    /// Bridges.
    pub bridges: usize,
    /// Ponds, each with one water volume.
    pub water_volumes: usize,
    /// Crags (steep unwalkable patches).
    pub steep_patches: usize,
    /// Off-mesh jump links.
    pub jump_links: usize,
    /// Trees, rocks and crate stacks.
    pub clutter: usize,
    /// The mesh bounds.
    pub extent: (Vec3, Vec3),
    /// Sample points of the features.
    pub features: Vec<Feature>,
}

impl WorldStats {
    /// The features of one kind.
    pub fn features_of(&self, kind: FeatureKind) -> impl Iterator<Item = &Feature> + '_ {
        self.features.iter().filter(move |f| f.kind == kind)
    }
}

/// Rounds a coordinate to the millimetre: short OBJ numbers that read back bit for bit.
fn mm(x: f64) -> f32 {
    ((x * 1000.0).round() / 1000.0) as f32
}

fn v3(p: [f64; 3]) -> Vec3 {
    Vec3::new(mm(p[0]), mm(p[1]), mm(p[2]))
}

/// Gentle hills: a sum of sine waves in random directions.
struct Hills {
    /// (dir x, dir z, wave number, amplitude, phase).
    waves: Vec<[f64; 5]>,
}

impl Hills {
    fn new(rng: &mut Pcg64) -> Hills {
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

    fn height(&self, x: f64, z: f64) -> f64 {
        self.waves
            .iter()
            .map(|w| w[3] * (w[2] * (w[0] * x + w[1] * z) + w[4]).sin())
            .sum()
    }

    /// The largest possible height difference between two points.
    fn range(&self) -> f64 {
        2.0 * self.waves.iter().map(|w| w[3]).sum::<f64>()
    }
}

/// An axis-aligned rectangle in x and z.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x0: f64,
    z0: f64,
    x1: f64,
    z1: f64,
}

impl Rect {
    /// Euclidean distance from the rectangle (0 inside).
    fn dist(&self, x: f64, z: f64) -> f64 {
        let dx = (self.x0 - x).max(x - self.x1).max(0.0);
        let dz = (self.z0 - z).max(z - self.z1).max(0.0);
        dx.hypot(dz)
    }

    /// Euclidean distance between two rectangles (0 if they overlap).
    fn gap(&self, o: &Rect) -> f64 {
        let dx = (self.x0 - o.x1).max(o.x0 - self.x1).max(0.0);
        let dz = (self.z0 - o.z1).max(o.z0 - self.z1).max(0.0);
        dx.hypot(dz)
    }

    fn grow(&self, m: f64) -> Rect {
        Rect {
            x0: self.x0 - m,
            z0: self.z0 - m,
            x1: self.x1 + m,
            z1: self.z1 + m,
        }
    }

    fn contains(&self, x: f64, z: f64) -> bool {
        (self.x0..=self.x1).contains(&x) && (self.z0..=self.z1).contains(&z)
    }

    fn centre(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.z0 + self.z1) / 2.0)
    }
}

/// A feature's local frame: `u` and `v` on the ground, rotated by `rot` quarter turns about
/// (`cx`, `cz`), heights relative to `y`.
#[derive(Clone, Copy, Debug)]
struct Frame {
    cx: f64,
    cz: f64,
    rot: u8,
    y: f64,
}

impl Frame {
    fn xz(&self, u: f64, v: f64) -> (f64, f64) {
        let (du, dv) = match self.rot & 3 {
            0 => (u, v),
            1 => (-v, u),
            2 => (-u, -v),
            _ => (v, -u),
        };
        (self.cx + du, self.cz + dv)
    }

    fn at(&self, u: f64, y: f64, v: f64) -> [f64; 3] {
        let (x, z) = self.xz(u, v);
        [x, self.y + y, z]
    }

    fn vec(&self, u: f64, y: f64, v: f64) -> Vec3 {
        v3(self.at(u, y, v))
    }

    fn rect(&self, u0: f64, u1: f64, v0: f64, v1: f64) -> Rect {
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
    fn prism(&self, m: &mut Mesh, u0: f64, u1: f64, v0: f64, v1: f64, y_bot: f64, top: [f64; 4]) {
        let uv = [(u0, v0), (u1, v0), (u1, v1), (u0, v1)];
        let bottom = uv.map(|(u, v)| self.at(u, y_bot, v));
        let mut tp = bottom;
        for (k, p) in tp.iter_mut().enumerate() {
            *p = self.at(uv[k].0, top[k], uv[k].1);
        }
        m.solid(bottom, tp);
    }

    #[allow(clippy::too_many_arguments)]
    fn cuboid(&self, m: &mut Mesh, u0: f64, u1: f64, v0: f64, v1: f64, y0: f64, y1: f64) {
        self.prism(m, u0, u1, v0, v1, y0, [y1; 4]);
    }

    /// A wall of thickness [`WALL_T`] from `base` (reaching [`SINK`] lower) up to `base + h`,
    /// centred on the line `v = c` (`along_u`) or `u = c`, from `a` to `b` along it, with
    /// `openings` (sorted, inside `a..b`, heights relative to `base`).
    #[allow(clippy::too_many_arguments)]
    fn wall(
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
    fn stairs(
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
fn run_of(n: usize) -> f64 {
    (n - 1) as f64 * TREAD
}

/// Which kind of building to make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// Anything.
    Random,
    /// Roof, stairs up to it, jump link down, yard.
    RoofStairs,
    /// An upper storey reached by inner stairs, roof, yard.
    Upper,
}

/// A gap in a wall: from `start` to `end` along it, between `sill` and `top` above the floor.
#[derive(Clone, Copy, Debug)]
struct Opening {
    start: f64,
    end: f64,
    sill: f64,
    top: f64,
}

impl Opening {
    fn door(centre: f64, width: f64, top: f64) -> Opening {
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
fn with_windows(a: f64, b: f64, doors: &[Opening]) -> Vec<Opening> {
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
struct Mesh {
    verts: Vec<f32>,
    tris: Vec<i32>,
}

impl Mesh {
    fn vert(&mut self, p: [f64; 3]) -> i32 {
        let i = (self.verts.len() / 3) as i32;
        self.verts.extend([mm(p[0]), mm(p[1]), mm(p[2])]);
        i
    }

    fn tri_count(&self) -> usize {
        self.tris.len() / 3
    }

    /// A planar (or nearly) face, fan-triangulated, facing away from `inside`.
    fn face(&mut self, ids: &[i32], pts: &[[f64; 3]], inside: [f64; 3]) {
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
    fn solid(&mut self, bottom: [[f64; 3]; 4], top: [[f64; 3]; 4]) {
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

fn centroid(pts: &[[f64; 3]]) -> [f64; 3] {
    let mut c = [0.0; 3];
    for p in pts {
        for a in 0..3 {
            c[a] += p[a] / pts.len() as f64;
        }
    }
    c
}

/// A flat pad at height `h` over `rect`.
struct Pad {
    rect: Rect,
    h: f64,
}

/// A pond's bowl.
struct Bowl {
    cx: f64,
    cz: f64,
    r: f64,
    depth: f64,
}

/// A crag: a cone (`half_len` 0) or a ridge along x (`along_x`) or z, of slope `k`, reaching the
/// hills `r` from its summit (line).
struct Crag {
    cx: f64,
    cz: f64,
    half_len: f64,
    along_x: bool,
    r: f64,
    k: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PlotKind {
    Building,
    BuildingStairs,
    BuildingUpper,
    Platform,
    Bridge,
    Pond,
    Crag,
    Park,
}

/// Estimated triangles of an optional feature, to keep within the budget.
fn estimate(kind: PlotKind) -> usize {
    match kind {
        PlotKind::Building => 1400,
        PlotKind::BuildingStairs | PlotKind::BuildingUpper => 2000,
        PlotKind::Platform => 300,
        PlotKind::Bridge => 40,
        _ => 0,
    }
}

/// The world under construction.
struct World {
    rng: Pcg64,
    hills: Hills,
    mesh: Mesh,
    pads: Vec<Pad>,
    bowls: Vec<Bowl>,
    crags: Vec<Crag>,
    /// Where clutter must not go.
    reserved: Vec<Rect>,
    links: Vec<OffMeshConnection>,
    volumes: Vec<ConvexVolume>,
    features: Vec<Feature>,
    stats: WorldStats,
}

impl World {
    /// A frame of rotation `rot` for a footprint `[u0, u1, v0, v1]`, placed at random inside
    /// `plot` with `margin` around it, where the pad is flat; the pad is recorded and reserved.
    fn place(&mut self, plot: Rect, rot: u8, fp: [f64; 4], margin: f64) -> Frame {
        let [u0, u1, v0, v1] = fp;
        let f0 = Frame {
            cx: 0.0,
            cz: 0.0,
            rot,
            y: 0.0,
        };
        let r = f0.rect(u0, u1, v0, v1).grow(margin);
        let mut pick = |lo: f64, hi: f64| {
            if hi > lo {
                self.rng.gen_range(lo..hi)
            } else {
                (lo + hi) / 2.0
            }
        };
        let cx = pick(plot.x0 - r.x0, plot.x1 - r.x1);
        let cz = pick(plot.z0 - r.z0, plot.z1 - r.z1);
        let pad = Rect {
            x0: r.x0 + cx,
            z0: r.z0 + cz,
            x1: r.x1 + cx,
            z1: r.z1 + cz,
        };
        // The hills' height at the centre, brought within PAD_FEASIBLE times the distance of
        // every earlier pad's height, so that shoulders of slope PAD_SLOPE can join them all.
        let (px, pz) = pad.centre();
        let mut h = self.hills.height(px, pz);
        for other in &self.pads {
            let d = PAD_FEASIBLE * pad.gap(&other.rect);
            h = h.clamp(other.h - d, other.h + d);
        }
        self.pads.push(Pad { rect: pad, h });
        self.reserved.push(pad);
        Frame { cx, cz, rot, y: h }
    }

    fn link(&mut self, start: Vec3, end: Vec3) {
        if self.links.len() < MAX_OFF_MESH_CONNECTIONS {
            self.links.push(OffMeshConnection {
                start,
                end,
                radius: LINK_RADIUS,
                bidirectional: false,
                area: area::JUMP,
                flags: flags::JUMP,
                user_id: 1000 + self.links.len() as u32,
            });
        }
    }

    fn feature(&mut self, kind: FeatureKind, point: Vec3, approach: Vec3, radius: f64) {
        self.features.push(Feature {
            kind,
            point,
            approach,
            radius: radius as f32,
        });
    }

    /// A building: walls with windows, a front doorway, maybe a side one, rooms divided by
    /// inner walls with doorways, crates; most have a roof, some stairs up to it and a jump link
    /// down from it, some an upper storey reached by inner stairs, some a yard wall with a gate
    /// in front of the door. `style` forces roof stairs or an upper storey (and a yard).
    fn building(&mut self, plot: Rect, style: Style) {
        let rng = &mut self.rng;
        let w: f64 = rng.gen_range(10.0..20.0);
        let d: f64 = rng.gen_range(8.0..14.0);
        let roof = style != Style::Random || rng.gen_bool(0.7);
        let roof_stairs = match style {
            Style::Random => roof && rng.gen_bool(0.5),
            s => s == Style::RoofStairs,
        };
        let upper = match style {
            Style::Random => !roof_stairs && rng.gen_bool(0.35),
            s => s == Style::Upper,
        };
        let yard = style != Style::Random || rng.gen_bool(0.5);
        let side_door = !upper && rng.gen_bool(0.4);
        let n_steps = ((WALL_H + ROOF_T) / STEP_RISE).ceil() as usize;
        let run = if roof_stairs { run_of(n_steps) } else { 0.0 };
        let rot = rng.gen_range(0..4u8);
        let margin = if yard { YARD_GAP + 2.5 } else { PAD_MARGIN };
        let (hw, hd) = (w / 2.0, d / 2.0);
        let f = self.place(plot, rot, [-hw, hw, -hd, hd + run], margin);
        let rng = &mut self.rng;
        let dw: f64 = rng.gen_range(2.0..2.4);
        let dh: f64 = rng.gen_range(2.4..2.7);
        let du = rng.gen_range(-hw + 1.5 + dw / 2.0..hw - 1.5 - dw / 2.0);
        let mut doors = 1;

        // Front (-v) and back (+v) walls run the full width; the sides fit between them.
        let m = &mut self.mesh;
        let front = with_windows(-hw, hw, &[Opening::door(du, dw, dh)]);
        f.wall(m, true, -hd + WALL_T / 2.0, -hw, hw, (0.0, WALL_H), &front);
        let back = with_windows(-hw, hw, &[]);
        f.wall(m, true, hd - WALL_T / 2.0, -hw, hw, (0.0, WALL_H), &back);
        let (s0, s1) = (-hd + WALL_T, hd - WALL_T);
        let left = if side_door {
            doors += 1;
            let c = rng.gen_range(s0 + 2.5..s1 - 2.5);
            with_windows(s0, s1, &[Opening::door(c, 2.0, 2.5)])
        } else {
            with_windows(s0, s1, &[])
        };
        f.wall(m, false, -hw + WALL_T / 2.0, s0, s1, (0.0, WALL_H), &left);
        let right = with_windows(s0, s1, &[]);
        f.wall(m, false, hw - WALL_T / 2.0, s0, s1, (0.0, WALL_H), &right);
        // Rooms about 6 m wide, divided by walls across (clear of the front door) with doorways,
        // and in deep buildings a back room 3.5 m deep through a doorway in one of them.
        let rooms = ((w / 6.0).floor() as usize).max(1);
        let room_u = |k: f64| -hw + w * k / rooms as f64;
        let back_room = d >= 9.5;
        let vp = hd - 3.5;
        let cross_end = if back_room { vp - WALL_T / 2.0 } else { s1 };
        for k in 1..rooms {
            let uc = room_u(k as f64);
            if (uc - du).abs() > dw / 2.0 + 1.2 {
                doors += 1;
                let c = rng.gen_range(s0 + 1.5..cross_end - 1.5);
                let door = [Opening::door(c, 2.0, 2.5)];
                f.wall(m, false, uc, s0, cross_end, (0.0, WALL_H), &door);
            }
        }
        if back_room {
            doors += 1;
            let c = room_u(rng.gen_range(0..rooms) as f64 + 0.5);
            let (a, b) = (-hw + WALL_T, hw - WALL_T);
            f.wall(
                m,
                true,
                vp,
                a,
                b,
                (0.0, WALL_H),
                &[Opening::door(c, 2.0, 2.5)],
            );
        }
        // Crates along the back wall.
        for _ in 0..rng.gen_range(2..6) {
            let s: f64 = rng.gen_range(0.7..1.1);
            let u = rng.gen_range(-hw + WALL_T + s..hw - WALL_T - s);
            let v = hd - WALL_T - s / 2.0 - 0.05;
            let h: f64 = rng.gen_range(0.7..1.4);
            let (u0, u1, v0, v1) = (u - s / 2.0, u + s / 2.0, v - s / 2.0, v + s / 2.0);
            f.cuboid(m, u0, u1, v0, v1, -SINK, h);
        }
        // The yard: a wall 1.2 m high with posts, YARD_GAP out, a gate in front of the door.
        let out = if yard { YARD_GAP + 1.5 } else { 2.5 };
        if yard {
            let (a, b) = (-hw - YARD_GAP, hw + YARD_GAP);
            let (c, e) = (-hd - YARD_GAP, hd + run + YARD_GAP);
            let gate = [Opening {
                top: 9.0,
                ..Opening::door(du, 2.6, 0.0)
            }];
            f.wall(m, true, c, a, b, (0.0, YARD_WALL_H), &gate);
            f.wall(m, true, e, a, b, (0.0, YARD_WALL_H), &[]);
            let t = WALL_T / 2.0;
            f.wall(m, false, a, c + t, e - t, (0.0, YARD_WALL_H), &[]);
            f.wall(m, false, b, c + t, e - t, (0.0, YARD_WALL_H), &[]);
            let post = |m: &mut Mesh, u: f64, v: f64| {
                f.cuboid(m, u - 0.25, u + 0.25, v - 0.25, v + 0.25, -SINK, 1.5);
            };
            let posts = |len: f64| ((len / 2.5).round() as usize).max(1);
            let n = posts(b - a);
            for k in 0..=n {
                let u = a + (b - a) * k as f64 / n as f64;
                if (u - du).abs() > 1.3 + 0.25 {
                    post(m, u, c);
                }
                post(m, u, e);
            }
            let n = posts(e - c);
            for k in 1..n {
                let v = c + (e - c) * k as f64 / n as f64;
                post(m, a, v);
                post(m, b, v);
            }
            self.stats.yards += 1;
        }
        self.feature(
            FeatureKind::BuildingInterior,
            f.vec(du, 0.0, -hd + 2.5),
            f.vec(du, 0.0, -hd - out),
            hd,
        );
        let floor = WALL_H + ROOF_T;
        if upper {
            // Stairs inside, along the side wall away from the front door, rising towards +v
            // from 1.5 m inside the front wall into a stairwell of the upper floor's slab.
            let m = &mut self.mesh;
            let (i0, i1, j0, j1) = (-hw + WALL_T, hw - WALL_T, -hd + WALL_T, hd - WALL_T);
            let (su0, su1) = if du <= 0.0 {
                (i1 - STAIR_W, i1)
            } else {
                (i0, i0 + STAIR_W)
            };
            let vs = j0 + 1.5;
            let ve = vs
                + f.stairs(
                    m,
                    false,
                    (su0 + su1) / 2.0,
                    vs + run_of(n_steps),
                    -1.0,
                    floor,
                    n_steps,
                );
            f.cuboid(m, i0, i1, j0, vs, WALL_H, floor);
            f.cuboid(m, i0, i1, ve, j1, WALL_H, floor);
            let (h0, h1) = if du <= 0.0 { (i0, su0) } else { (su1, i1) };
            f.cuboid(m, h0, h1, vs, ve, WALL_H, floor);
            let upper_walls = (WALL_H, WALL_H);
            let front = with_windows(-hw, hw, &[]);
            f.wall(m, true, -hd + WALL_T / 2.0, -hw, hw, upper_walls, &front);
            f.wall(m, true, hd - WALL_T / 2.0, -hw, hw, upper_walls, &front);
            let side = with_windows(s0, s1, &[]);
            f.wall(m, false, -hw + WALL_T / 2.0, s0, s1, upper_walls, &side);
            f.wall(m, false, hw - WALL_T / 2.0, s0, s1, upper_walls, &side);
            self.feature(
                FeatureKind::UpperFloor,
                f.vec(0.0, floor, (ve + j1) / 2.0),
                f.vec(du, 0.0, -hd - out),
                (j1 - ve) / 2.0,
            );
            self.stats.stairs += 1;
            self.stats.upper_floors += 1;
        }
        let (roof_at, top) = if upper {
            (2.0 * WALL_H, 2.0 * WALL_H + ROOF_T)
        } else {
            (WALL_H, floor)
        };
        if roof {
            f.cuboid(&mut self.mesh, -hw, hw, -hd, hd, roof_at, top);
            self.stats.roofs += 1;
        }
        if roof_stairs {
            let su = self
                .rng
                .gen_range(-hw + 0.5 + STAIR_W / 2.0..hw - 0.5 - STAIR_W / 2.0);
            f.stairs(&mut self.mesh, false, su, hd, 1.0, top, n_steps);
            self.stats.stairs += 1;
            self.feature(
                FeatureKind::Roof,
                f.vec(0.0, top, 0.0),
                f.vec(su, 0.0, hd + run + 1.5),
                hd.min(hw),
            );
            self.link(
                f.vec(-hw + JUMP_IN, top, 0.0),
                f.vec(-hw - JUMP_OUT, 0.0, 0.0),
            );
        }
        self.stats.buildings += 1;
        self.stats.doorways += doors;
    }

    /// A raised platform with stairs (front), a ramp (right) and two jump links.
    fn platform(&mut self, plot: Rect) {
        let rng = &mut self.rng;
        let s: f64 = rng.gen_range(6.0..8.0);
        let h: f64 = rng.gen_range(3.0..4.5);
        let angle: f64 = rng.gen_range(20.0f64..28.0).to_radians();
        let ramp_w: f64 = rng.gen_range(2.6..3.0);
        let n = (h / STEP_RISE).ceil() as usize;
        let run = (n - 1) as f64 * TREAD;
        let ramp_run = h / angle.tan();
        let hs = s / 2.0;
        let rot = rng.gen_range(0..4u8);
        let f = self.place(plot, rot, [-hs, hs + ramp_run, -hs - run, hs], PAD_MARGIN);
        let rng = &mut self.rng;
        let su = rng.gen_range(-hs + 0.3 + STAIR_W / 2.0..hs - 0.3 - STAIR_W / 2.0);
        let rv = rng.gen_range(-hs + 0.2 + ramp_w / 2.0..hs - 0.2 - ramp_w / 2.0);
        let m = &mut self.mesh;
        f.cuboid(m, -hs, hs, -hs, hs, -SINK, h);
        f.stairs(m, false, su, -hs, -1.0, h, n);
        let (v0, v1) = (rv - ramp_w / 2.0, rv + ramp_w / 2.0);
        f.prism(m, hs, hs + ramp_run, v0, v1, -SINK, [h, 0.0, 0.0, h]);
        self.feature(
            FeatureKind::PlatformTop,
            f.vec(0.0, h, 0.0),
            f.vec(su, 0.0, -hs - run - 2.5),
            hs,
        );
        self.link(
            f.vec(-hs + JUMP_IN, h, 0.0),
            f.vec(-hs - JUMP_OUT, 0.0, 0.0),
        );
        self.link(f.vec(0.0, h, hs - JUMP_IN), f.vec(0.0, 0.0, hs + JUMP_OUT));
        self.stats.platforms += 1;
        self.stats.stairs += 1;
        self.stats.ramps += 1;
    }

    /// A bridge along u: a deck over flat ground, a ramp at each end, a jump link down.
    fn bridge(&mut self, plot: Rect) {
        let rng = &mut self.rng;
        let span: f64 = rng.gen_range(6.0..7.5);
        let h: f64 = rng.gen_range(3.2..3.6);
        let width: f64 = rng.gen_range(2.8..3.4);
        let angle: f64 = rng.gen_range(24.0f64..30.0).to_radians();
        let run = h / angle.tan();
        let (hs, hw) = (span / 2.0, width / 2.0);
        let rot = rng.gen_range(0..4u8);
        let f = self.place(plot, rot, [-hs - run, hs + run, -hw, hw], PAD_MARGIN);
        let m = &mut self.mesh;
        f.cuboid(m, -hs, hs, -hw, hw, h - 0.35, h);
        f.prism(m, -hs - run, -hs, -hw, hw, -SINK, [0.0, h, h, 0.0]);
        f.prism(m, hs, hs + run, -hw, hw, -SINK, [h, 0.0, 0.0, h]);
        self.feature(
            FeatureKind::BridgeDeck,
            f.vec(0.0, h, 0.0),
            f.vec(-hs - run - 2.5, 0.0, 0.0),
            hw,
        );
        self.feature(
            FeatureKind::UnderBridge,
            f.vec(0.0, 0.0, 0.0),
            f.vec(0.0, 0.0, -hw - 3.0),
            hs,
        );
        self.link(f.vec(0.0, h, 0.0), f.vec(0.0, 0.0, hw + JUMP_OUT));
        self.stats.bridges += 1;
        self.stats.ramps += 2;
    }

    /// A pond: a bowl in a pad, its floor marked water by a convex volume of 6 to 12 points.
    fn pond(&mut self, plot: Rect) {
        let r: f64 = self.rng.gen_range(9.0..12.0);
        let depth: f64 = self.rng.gen_range(1.5..2.2);
        let f = self.place(plot, 0, [-r, r, -r, r], PAD_MARGIN);
        self.bowls.push(Bowl {
            cx: f.cx,
            cz: f.cz,
            r,
            depth,
        });
        // The volume's outline is where the bowl is a quarter of its depth deep.
        let rw = r * 2.0 / 3.0;
        let surface = -depth / 4.0;
        let n = self.rng.gen_range(6..=12usize);
        let phase = self.rng.gen_range(0.0..TAU);
        let verts = (0..n)
            .map(|i| {
                let a = phase + TAU * i as f64 / n as f64;
                f.vec(rw * a.cos(), surface, rw * a.sin())
            })
            .collect();
        self.volumes.push(ConvexVolume {
            verts,
            hmin: mm(f.y - depth - 0.5),
            hmax: mm(f.y + surface + 0.5),
            area: area::WATER,
        });
        self.feature(
            FeatureKind::Water,
            f.vec(0.0, -depth, 0.0),
            f.vec(0.0, 0.0, -r - 1.5),
            rw,
        );
        self.stats.water_volumes += 1;
    }

    /// A crag (a steep cone or ridge) near the plot's centre; its feature is added with the
    /// terrain, which snaps it to the grid.
    fn crag(&mut self, plot: Rect) {
        let rng = &mut self.rng;
        let r: f64 = rng.gen_range(5.0..8.0);
        let k: f64 = rng.gen_range(1.5..2.2);
        let half_len = if rng.gen_bool(0.4) {
            rng.gen_range(1.5..4.0)
        } else {
            0.0
        };
        let along_x = rng.gen_bool(0.5);
        let reach = r + half_len + 2.0;
        let (pcx, pcz) = plot.centre();
        let slack = ((plot.x1 - plot.x0) / 2.0 - reach - 4.0).max(0.0);
        let cx = pcx + rng.gen_range(-slack..=slack);
        let cz = pcz + rng.gen_range(-slack..=slack);
        let (ex, ez) = if along_x {
            (half_len, 0.0)
        } else {
            (0.0, half_len)
        };
        self.reserved.push(Rect {
            x0: cx - ex - r - 2.0,
            z0: cz - ez - r - 2.0,
            x1: cx + ex + r + 2.0,
            z1: cz + ez + r + 2.0,
        });
        self.crags.push(Crag {
            cx,
            cz,
            half_len,
            along_x,
            r,
            k,
        });
        self.stats.steep_patches += 1;
    }
}

/// The terrain: `(n + 1)^2` heights on a grid of spacing `cell` from (`x0`, `x0`).
struct Terrain {
    n: usize,
    cell: f64,
    x0: f64,
    h: Vec<f64>,
}

impl Terrain {
    fn idx(&self, i: usize, j: usize) -> usize {
        j * (self.n + 1) + i
    }

    /// Grid index range (inclusive) of the coordinates `lo..=hi`.
    fn range(&self, lo: f64, hi: f64) -> std::ops::RangeInclusive<usize> {
        let a = ((lo - self.x0) / self.cell).floor().max(0.0) as usize;
        let b = (((hi - self.x0) / self.cell).ceil().max(0.0) as usize).min(self.n);
        a.min(self.n)..=b
    }

    fn pos(&self, i: usize) -> f64 {
        self.x0 + i as f64 * self.cell
    }

    /// Applies `f(x, z, h) -> h` to the heights inside `rect`.
    fn apply(&mut self, rect: Rect, mut f: impl FnMut(f64, f64, f64) -> f64) {
        for j in self.range(rect.z0, rect.z1) {
            let z = self.pos(j);
            for i in self.range(rect.x0, rect.x1) {
                let x = self.pos(i);
                let k = self.idx(i, j);
                self.h[k] = f(x, z, self.h[k]);
            }
        }
    }

    /// The height at (`x`, `z`), bilinear between the grid points.
    fn height(&self, x: f64, z: f64) -> f64 {
        let fx = ((x - self.x0) / self.cell).clamp(0.0, self.n as f64 - 1e-9);
        let fz = ((z - self.x0) / self.cell).clamp(0.0, self.n as f64 - 1e-9);
        let (i, j) = (fx as usize, fz as usize);
        let (tx, tz) = (fx - i as f64, fz - j as f64);
        let h = |i, j| self.h[self.idx(i, j)];
        let a = h(i, j) * (1.0 - tx) + h(i + 1, j) * tx;
        let b = h(i, j + 1) * (1.0 - tx) + h(i + 1, j + 1) * tx;
        a * (1.0 - tz) + b * tz
    }

    fn snap(&self, x: f64) -> f64 {
        self.pos(
            ((x - self.x0) / self.cell)
                .round()
                .clamp(0.0, self.n as f64) as usize,
        )
    }
}

/// Generates a world; see the [module documentation](self).
///
/// A spec out of range ([`WorldSpec::validate`]) is an [`Error::InvalidArgument`].
pub fn generate(spec: &WorldSpec) -> Result<(InputGeometry, WorldStats)> {
    spec.validate()?;
    let target = spec.tris;
    let share = f64::from(spec.terrain_share);
    let mut rng = Pcg64::seed_from_u64(spec.seed);
    let hills = Hills::new(&mut rng);

    // The side (terrain of one quad per m^2 at its share), at least 3 x 3 plots.
    let np =
        (((share * target as f64 / 2.0).sqrt() / PLOT).floor() as usize).max(MIN_PLOTS_PER_SIDE);
    let side = ((share * target as f64 / 2.0).sqrt()).max(np as f64 * PLOT);
    let plot_size = side / np as f64;
    let half = side / 2.0;
    let plot_rect = |p: usize| {
        let (i, j) = ((p % np) as f64, (p / np) as f64);
        Rect {
            x0: -half + i * plot_size,
            z0: -half + j * plot_size,
            x1: -half + (i + 1.0) * plot_size,
            z1: -half + (j + 1.0) * plot_size,
        }
    };

    // Plot kinds: one of each mandatory feature at random plots, the others drawn by weight.
    let plots = np * np;
    let mut order: Vec<usize> = (0..plots).collect();
    order.shuffle(&mut rng);
    const MANDATORY: [PlotKind; 6] = [
        PlotKind::BuildingStairs,
        PlotKind::BuildingUpper,
        PlotKind::Platform,
        PlotKind::Bridge,
        PlotKind::Pond,
        PlotKind::Crag,
    ];
    const WEIGHTS: [(PlotKind, u32); 6] = [
        (PlotKind::Building, 52),
        (PlotKind::Platform, 12),
        (PlotKind::Bridge, 10),
        (PlotKind::Pond, 7),
        (PlotKind::Crag, 8),
        (PlotKind::Park, 11),
    ];
    let mut kinds = vec![PlotKind::Park; plots];
    for (k, &p) in order.iter().enumerate() {
        kinds[p] = match MANDATORY.get(k) {
            Some(&m) => m,
            None => {
                let mut x = rng.gen_range(0..WEIGHTS.iter().map(|w| w.1).sum::<u32>());
                let mut kind = PlotKind::Park;
                for &(k, w) in &WEIGHTS {
                    if x < w {
                        kind = k;
                        break;
                    }
                    x -= w;
                }
                kind
            }
        };
    }

    let mut world = World {
        rng,
        hills,
        mesh: Mesh::default(),
        pads: Vec::new(),
        bowls: Vec::new(),
        crags: Vec::new(),
        reserved: Vec::new(),
        links: Vec::new(),
        volumes: Vec::new(),
        features: Vec::new(),
        stats: WorldStats {
            seed: spec.seed,
            target_tris: target,
            tris: 0,
            verts: 0,
            terrain_tris: 0,
            structure_tris: 0,
            clutter_tris: 0,
            terrain_cell: 0.0,
            side: side as f32,
            plots,
            buildings: 0,
            doorways: 0,
            roofs: 0,
            yards: 0,
            upper_floors: 0,
            stairs: 0,
            ramps: 0,
            platforms: 0,
            bridges: 0,
            water_volumes: 0,
            steep_patches: 0,
            jump_links: 0,
            clutter: 0,
            extent: (Vec3::ZERO, Vec3::ZERO),
            features: Vec::new(),
        },
    };

    // Features: the mandatory ones first, then the others while the budget lasts.
    let budget = target - (share * target as f64) as usize;
    // (There are at least 9 plots, more than the mandatory features.)
    let firsts = &order[..MANDATORY.len()];
    let sequence = firsts
        .iter()
        .copied()
        .chain((0..plots).filter(|p| !firsts.contains(p)));
    for p in sequence {
        let mandatory = firsts.contains(&p);
        let mut kind = kinds[p];
        if !mandatory
            && (world.mesh.tri_count() + estimate(kind) > budget
                || (kind == PlotKind::Pond && world.volumes.len() >= MAX_CONVEX_VOLUMES))
        {
            kind = PlotKind::Park;
        }
        let rect = plot_rect(p);
        match kind {
            PlotKind::Building => world.building(rect, Style::Random),
            PlotKind::BuildingStairs => world.building(rect, Style::RoofStairs),
            PlotKind::BuildingUpper => world.building(rect, Style::Upper),
            PlotKind::Platform => world.platform(rect),
            PlotKind::Bridge => world.bridge(rect),
            PlotKind::Pond => world.pond(rect),
            PlotKind::Crag => world.crag(rect),
            PlotKind::Park => {}
        }
    }

    // Terrain: its share, or what the features leave, of quads as square as can be.
    let features_tris = world.mesh.tri_count();
    let terrain_target = (target.saturating_sub(features_tris) as f64).min(share * target as f64);
    let n = ((terrain_target / 2.0).sqrt().round() as usize).max(16);
    let cell = side / n as f64;
    let mut terrain = Terrain {
        n,
        cell,
        x0: -half,
        h: Vec::with_capacity((n + 1) * (n + 1)),
    };
    for j in 0..=n {
        let z = terrain.pos(j);
        for i in 0..=n {
            let h = world.hills.height(terrain.pos(i), z);
            terrain.h.push(h);
        }
    }
    // Pads: flat inside, shoulders of slope PAD_SLOPE at most, down (or up) to the hills.
    let reach = world.hills.range() / PAD_SLOPE + cell;
    for pad in &world.pads {
        let (r, h0) = (pad.rect, pad.h);
        terrain.apply(r.grow(reach), |x, z, h| {
            let d = PAD_SLOPE * r.dist(x, z);
            h0 + (h - h0).clamp(-d, d)
        });
    }
    for b in &world.bowls {
        let r = Rect {
            x0: b.cx - b.r,
            z0: b.cz - b.r,
            x1: b.cx + b.r,
            z1: b.cz + b.r,
        };
        terrain.apply(r, |x, z, h| {
            let d = (x - b.cx).hypot(z - b.cz);
            if d < b.r {
                h - b.depth * (1.0 + (std::f64::consts::PI * d / b.r).cos()) / 2.0
            } else {
                h
            }
        });
    }
    let mut crag_features = Vec::new();
    for c in &world.crags {
        let (cx, cz) = (terrain.snap(c.cx), terrain.snap(c.cz));
        let half_len = (c.half_len / cell).round() * cell;
        let (ex, ez) = if c.along_x {
            (half_len, 0.0)
        } else {
            (0.0, half_len)
        };
        let base = world.hills.height(cx, cz);
        let summit = base + c.k * c.r;
        let spread = (summit - base + world.hills.range()) / c.k + cell;
        let r = Rect {
            x0: cx - ex,
            z0: cz - ez,
            x1: cx + ex,
            z1: cz + ez,
        };
        terrain.apply(r.grow(spread), |x, z, h| h.max(summit - c.k * r.dist(x, z)));
        crag_features.push((cx, cz, summit, c.r + half_len));
    }
    for (cx, cz, summit, r) in crag_features {
        let foot = cz - r - 3.0;
        world.feature(
            FeatureKind::SteepSlope,
            v3([cx, summit, cz]),
            v3([cx, terrain.height(cx, foot), foot]),
            r,
        );
    }

    // Clutter outside the features until the target is reached.
    let terrain_tris = 2 * n * n;
    let budget = target.saturating_sub(terrain_tris + features_tris);
    scatter(&mut world, &terrain, budget, side);
    world.stats.structure_tris = features_tris;
    world.stats.clutter_tris = world.mesh.tri_count() - features_tris;

    // The mesh: terrain first, then everything else.
    let World {
        mesh: extra,
        links,
        volumes,
        features,
        mut stats,
        ..
    } = world;
    let terrain_verts = (n + 1) * (n + 1);
    let mut verts = Vec::with_capacity(terrain_verts * 3 + extra.verts.len());
    for j in 0..=n {
        let z = mm(terrain.pos(j));
        for i in 0..=n {
            verts.extend([mm(terrain.pos(i)), mm(terrain.h[terrain.idx(i, j)]), z]);
        }
    }
    let mut tris = Vec::with_capacity(terrain_tris * 3 + extra.tris.len());
    for j in 0..n {
        for i in 0..n {
            let a = terrain.idx(i, j) as i32;
            let b = terrain.idx(i, j + 1) as i32;
            // (x0 z0), (x0 z1), (x1 z1) and (x0 z0), (x1 z1), (x1 z0): both face up.
            tris.extend([a, b, b + 1, a, b + 1, a + 1]);
        }
    }
    verts.extend_from_slice(&extra.verts);
    let off = terrain_verts as i32;
    tris.extend(extra.tris.iter().map(|&t| t + off));
    let mesh = TriMesh::new(verts, tris)?;
    stats.tris = mesh.tri_count();
    stats.verts = mesh.vert_count();
    stats.terrain_tris = terrain_tris;
    stats.terrain_cell = cell as f32;
    stats.jump_links = links.len();
    stats.extent = mesh.bounds();
    stats.features = features;
    let mut geom = InputGeometry::from_mesh(mesh);
    geom.settings = Some(BuildSettings::default());
    geom.off_mesh_connections = links;
    geom.convex_volumes = volumes;
    geom.validate()?;
    Ok((geom, stats))
}

/// Scatters trees (38 triangles), rocks (12) and crate stacks (12 a crate) outside the reserved
/// areas until they have used `budget` triangles (or there is no room left).
fn scatter(world: &mut World, terrain: &Terrain, budget: usize, side: f64) {
    let start = world.mesh.tri_count();
    let half = side / 2.0 - 1.5;
    // The reserved rectangles by plot-sized bucket, for quick rejection.
    let bucket = PLOT;
    let nb = (side / bucket).ceil() as usize + 1;
    let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); nb * nb];
    let cell_of = |v: f64| (((v + side / 2.0) / bucket).floor().max(0.0) as usize).min(nb - 1);
    for (k, r) in world.reserved.iter().enumerate() {
        let r = r.grow(2.0);
        for j in cell_of(r.z0)..=cell_of(r.z1) {
            for i in cell_of(r.x0)..=cell_of(r.x1) {
                buckets[j * nb + i].push(k);
            }
        }
    }
    let mut misses = 0;
    loop {
        let left = budget.saturating_sub(world.mesh.tri_count() - start);
        if left < 12 || misses > 1000 {
            break;
        }
        let x = world.rng.gen_range(-half..half);
        let z = world.rng.gen_range(-half..half);
        let blocked = buckets[cell_of(z) * nb + cell_of(x)]
            .iter()
            .any(|&k| world.reserved[k].grow(2.0).contains(x, z));
        if blocked {
            misses += 1;
            continue;
        }
        misses = 0;
        let ground = terrain.height(x, z) - 0.6;
        let roll: f64 = world.rng.r#gen();
        if left >= 38 && roll < 0.55 {
            tree(&mut world.mesh, &mut world.rng, x, ground, z);
        } else if roll < 0.8 {
            rock(&mut world.mesh, &mut world.rng, x, ground, z);
        } else {
            let n = world.rng.gen_range(1..=3usize).min(left / 12);
            crates(&mut world.mesh, &mut world.rng, x, ground, z, n);
        }
        world.stats.clutter += 1;
    }
}

/// A tree: an octagonal trunk (sides and top, 22 triangles) and a steep double cone canopy
/// (16), its underside at least 2.3 m above the ground.
fn tree(m: &mut Mesh, rng: &mut Pcg64, x: f64, y: f64, z: f64) {
    let rt: f64 = rng.gen_range(0.2..0.35);
    let ground = y + 0.6;
    let hb = ground + rng.gen_range(2.3..3.0);
    let rc: f64 = rng.gen_range(1.2..2.0);
    let ring_y = hb + 0.8;
    let tip = ring_y + rc * rng.gen_range(1.6..2.2);
    let phase = rng.gen_range(0.0..TAU);
    let ring = |r: f64, y: f64| -> Vec<[f64; 3]> {
        (0..8)
            .map(|k| {
                let a = phase + TAU * k as f64 / 8.0;
                [x + r * a.cos(), y, z + r * a.sin()]
            })
            .collect()
    };
    // Trunk.
    let (bot, top) = (ring(rt, y), ring(rt, ring_y));
    let inside = [x, (y + ring_y) / 2.0, z];
    let b: Vec<i32> = bot.iter().map(|p| m.vert(*p)).collect();
    let t: Vec<i32> = top.iter().map(|p| m.vert(*p)).collect();
    for k in 0..8 {
        let l = (k + 1) % 8;
        m.face(
            &[b[k], b[l], t[l], t[k]],
            &[bot[k], bot[l], top[l], top[k]],
            inside,
        );
    }
    m.face(&t, &top, inside);
    // Canopy.
    let cring = ring(rc, ring_y);
    let inside = [x, ring_y, z];
    let c: Vec<i32> = cring.iter().map(|p| m.vert(*p)).collect();
    let (up, down) = ([x, tip, z], [x, hb, z]);
    let (iu, id) = (m.vert(up), m.vert(down));
    for k in 0..8 {
        let l = (k + 1) % 8;
        m.face(&[c[k], c[l], iu], &[cring[k], cring[l], up], inside);
        m.face(&[c[k], c[l], id], &[cring[k], cring[l], down], inside);
    }
}

/// A rock: a skewed, turned box 0.5–1.3 m high.
fn rock(m: &mut Mesh, rng: &mut Pcg64, x: f64, y: f64, z: f64) {
    let (sx, sz): (f64, f64) = (rng.gen_range(0.6..1.6), rng.gen_range(0.6..1.6));
    let h = 0.6 + rng.gen_range(0.5..1.3);
    let a: f64 = rng.gen_range(0.0..TAU);
    let (c, s) = (a.cos(), a.sin());
    let corner = |u: f64, v: f64, y: f64| [x + u * c - v * s, y, z + u * s + v * c];
    let uv = [(-sx, -sz), (sx, -sz), (sx, sz), (-sx, sz)];
    let bottom = uv.map(|(u, v)| corner(u, v, y));
    let mut top = bottom;
    for (k, p) in top.iter_mut().enumerate() {
        let (u, v) = uv[k];
        let j = 0.7 + 0.15 * rng.r#gen::<f64>();
        *p = corner(u * j, v * j, y + h - 0.2 * rng.r#gen::<f64>());
    }
    m.solid(bottom, top);
}

/// A stack of `n` crates, each smaller than the one below.
fn crates(m: &mut Mesh, rng: &mut Pcg64, x: f64, y: f64, z: f64, n: usize) {
    let mut s: f64 = rng.gen_range(0.8..1.3);
    let mut y0 = y;
    let mut y1 = y + 0.6 + s;
    for _ in 0..n {
        let lo = [x - s / 2.0, y0, z - s / 2.0];
        let hi = [x + s / 2.0, y1, z + s / 2.0];
        let bottom = [
            [lo[0], lo[1], lo[2]],
            [hi[0], lo[1], lo[2]],
            [hi[0], lo[1], hi[2]],
            [lo[0], lo[1], hi[2]],
        ];
        let top = bottom.map(|p| [p[0], hi[1], p[2]]);
        m.solid(bottom, top);
        y0 = y1;
        s *= rng.gen_range(0.6..0.9);
        y1 = y0 + s;
    }
}

/// Where [`write_world`] puts the `.gset` of `obj_path`: beside it, same stem.
pub fn gset_path(obj_path: &Path) -> PathBuf {
    obj_path.with_extension("gset")
}

/// Writes `mesh` as a Wavefront OBJ (`v x y z` lines, then `f a b c` with 1-based indices),
/// streaming through a buffer. Numbers are written in their shortest form that reads back to
/// the same `f32`, so [`TriMesh::from_obj`] gives back the same arrays.
pub fn write_obj(mesh: &TriMesh, path: &Path) -> Result<()> {
    let file = std::fs::File::create(path).map_err(|e| Error::io(path, e))?;
    let mut w = std::io::BufWriter::with_capacity(1 << 20, file);
    let body = |w: &mut std::io::BufWriter<std::fs::File>| -> std::io::Result<()> {
        writeln!(
            w,
            "# navkit gen world: {} vertices, {} triangles",
            mesh.vert_count(),
            mesh.tri_count()
        )?;
        for v in mesh.verts.chunks_exact(3) {
            writeln!(w, "v {} {} {}", v[0], v[1], v[2])?;
        }
        for t in mesh.tris.chunks_exact(3) {
            writeln!(w, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1)?;
        }
        w.flush()
    };
    body(&mut w).map_err(|e| Error::io(path, e))
}

/// Writes a world: the mesh as the OBJ `obj_path` ([`write_obj`]) and the geometry set (settings,
/// jump links, water volumes) as a `.gset` beside it ([`gset_path`]) whose `f` line names the OBJ
/// by file name, so the pair can be moved together. [`InputGeometry::load`] of the `.gset` gives
/// back the same mesh, links and volumes.
///
/// `obj_path` must end in `.obj` (else [`Error::InvalidArgument`]).
pub fn write_world(geom: &InputGeometry, obj_path: &Path) -> Result<()> {
    let is_obj = obj_path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("obj"));
    let name = obj_path.file_name().and_then(|n| n.to_str());
    let Some(name) = name.filter(|_| is_obj) else {
        return Err(Error::InvalidArgument(format!(
            "world output `{}` must be a file name ending in .obj",
            obj_path.display()
        )));
    };
    write_obj(&geom.mesh, obj_path)?;
    geom.save_gset(gset_path(obj_path), name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle of a box or ramp faces away from its centre; only tops face up.
    #[test]
    fn solids_face_out() {
        let f = Frame {
            cx: 3.0,
            cz: -2.0,
            rot: 1,
            y: 1.0,
        };
        let mut boxes = Mesh::default();
        f.cuboid(&mut boxes, -1.0, 2.0, -0.5, 0.5, 0.0, 2.0);
        f.prism(&mut boxes, 0.0, 4.0, -1.0, 1.0, -0.3, [0.0, 2.0, 2.0, 0.0]);
        let mut tree_mesh = Mesh::default();
        tree(&mut tree_mesh, &mut Pcg64::seed_from_u64(3), 0.0, 0.0, 0.0);
        assert_eq!(boxes.tri_count(), 24);
        assert_eq!(tree_mesh.tri_count(), 38);
        for (m, solids) in [(&boxes, 2), (&tree_mesh, 1)] {
            let v = |i: i32| Vec3::from_slice(&m.verts[i as usize * 3..i as usize * 3 + 3]);
            let mut up = 0;
            for (k, t) in m.tris.chunks_exact(3).enumerate() {
                let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
                let n = (b - a).cross(c - a);
                assert!(n.length() > 1e-6);
                if n.normalize().y > 0.99 {
                    up += 1;
                }
                if solids == 2 {
                    // The centre of the solid this triangle belongs to.
                    let first = (k / 12) * 8;
                    let centre = (0..8).map(|i| v((first + i) as i32)).sum::<Vec3>() / 8.0;
                    assert!(n.dot((a + b + c) / 3.0 - centre) > 0.0, "triangle {k}");
                }
            }
            // The box's top, or the trunk's octagonal cap.
            assert_eq!(up, if solids == 2 { 2 } else { 6 });
        }
    }

    #[test]
    fn terrain_slopes_are_walkable_outside_crags() {
        let (geom, stats) = generate(&WorldSpec::new(30_000, 5)).unwrap();
        let m = &geom.mesh;
        let crags: Vec<&Feature> = stats.features_of(FeatureKind::SteepSlope).collect();
        let cos45 = 45f32.to_radians().cos();
        for t in m.tris.chunks_exact(3).take(stats.terrain_tris) {
            let (a, b, c) = (
                m.vertex(t[0] as usize),
                m.vertex(t[1] as usize),
                m.vertex(t[2] as usize),
            );
            let n = (b - a).cross(c - a).normalize();
            let p = (a + b + c) / 3.0;
            let near_crag = crags.iter().any(|f| {
                Vec3::new(p.x - f.point.x, 0.0, p.z - f.point.z).length() < f.radius * 1.6 + 3.0
            });
            assert!(near_crag || n.y > cos45 + 0.05, "steep terrain at {p}: {n}");
        }
    }

    /// The terrain under every ground-level sample point is at the point's height: pads stay
    /// flat where the features stand.
    #[test]
    fn pads_stay_flat() {
        for seed in 1..=6 {
            let (geom, stats) = generate(&WorldSpec::new(150_000, seed)).unwrap();
            let n = ((stats.terrain_tris / 2) as f64).sqrt().round() as usize;
            let cell = f64::from(stats.side) / n as f64;
            let x0 = -f64::from(stats.side) / 2.0;
            let h = |i: usize, j: usize| f64::from(geom.mesh.verts[(j * (n + 1) + i) * 3 + 1]);
            let ground = |p: Vec3| {
                let fx = (f64::from(p.x) - x0) / cell;
                let fz = (f64::from(p.z) - x0) / cell;
                let (i, j) = (fx.floor() as usize, fz.floor() as usize);
                let (tx, tz) = (fx - i as f64, fz - j as f64);
                // The quad's two triangles: (i j), (i j+1), (i+1 j+1) and (i j), (i+1 j+1), (i+1 j).
                if tz >= tx {
                    h(i, j) + (h(i + 1, j + 1) - h(i, j + 1)) * tx + (h(i, j + 1) - h(i, j)) * tz
                } else {
                    h(i, j) + (h(i + 1, j) - h(i, j)) * tx + (h(i + 1, j + 1) - h(i + 1, j)) * tz
                }
            };
            let mut worst = 0.0f64;
            for f in &stats.features {
                let mut points = vec![f.approach];
                if matches!(
                    f.kind,
                    FeatureKind::BuildingInterior | FeatureKind::UnderBridge | FeatureKind::Water
                ) {
                    points.push(f.point);
                }
                for p in points {
                    let tol = if f.kind == FeatureKind::Water {
                        0.1
                    } else {
                        0.01
                    };
                    let e = (ground(p) - f64::from(p.y)).abs();
                    assert!(
                        e < tol,
                        "seed {seed}: {:?} at {p}: ground {}",
                        f.kind,
                        ground(p)
                    );
                    worst = worst.max(e);
                }
            }
            for c in &geom.off_mesh_connections {
                let e = (ground(c.end) - f64::from(c.end.y)).abs();
                assert!(e < 0.01, "seed {seed}: {c:?}: ground {}", ground(c.end));
            }
        }
    }
}
