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

mod shapes;
mod world;
mod write;

use shapes::*;
use world::*;
pub use write::{gset_path, write_obj, write_world};

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
    pub extent: crate::Aabb,
    /// Sample points of the features.
    pub features: Vec<Feature>,
}

impl WorldStats {
    /// The features of one kind.
    pub fn features_of(&self, kind: FeatureKind) -> impl Iterator<Item = &Feature> + '_ {
        self.features.iter().filter(move |f| f.kind == kind)
    }
}

/// Generates a world; see the [module documentation](self).
///
/// A spec out of range ([`WorldSpec::validate`]) is an [`Error::InvalidArgument`].
pub fn generate(spec: &WorldSpec) -> Result<(InputGeometry, WorldStats)> {
    spec.validate()?;
    let target = spec.tris;
    let share_tris = f64::from(spec.terrain_share) * target as f64;
    let mut rng = Pcg64::seed_from_u64(spec.seed);
    let hills = Hills::new(&mut rng);
    let plots = Plots::new(share_tris);
    let (order, kinds) = plots.kinds(&mut rng);
    let stats = WorldStats::empty(spec, plots.side, plots.count());
    let mut world = World::new(rng, hills, stats);

    // Features: the mandatory ones first, then the others while the budget lasts.
    let budget = target - share_tris as usize;
    place_features(&mut world, &plots, &order, &kinds, budget);

    // Terrain: its share, or what the features leave, of quads as square as can be.
    let features_tris = world.mesh.tri_count();
    let terrain_target = (target.saturating_sub(features_tris) as f64).min(share_tris);
    let n = ((terrain_target / 2.0).sqrt().round() as usize).max(16);
    let mut terrain = Terrain::hills(n, plots.side, &world.hills);
    shape_terrain(&mut world, &mut terrain);

    // Clutter outside the features until the target is reached.
    let terrain_tris = 2 * n * n;
    let budget = target.saturating_sub(terrain_tris + features_tris);
    scatter(&mut world, &terrain, budget, plots.side);
    world.stats.structure_tris = features_tris;
    world.stats.clutter_tris = world.mesh.tri_count() - features_tris;
    assemble(world, &terrain)
}

/// The world's square cut into `per_side` x `per_side` plots of `size`.
struct Plots {
    /// Plots along each side.
    per_side: usize,
    /// The world's side (m).
    side: f64,
    /// A plot's side (m).
    size: f64,
}

/// The features every world has, placed first.
const MANDATORY: [PlotKind; 6] = [
    PlotKind::BuildingStairs,
    PlotKind::BuildingUpper,
    PlotKind::Platform,
    PlotKind::Bridge,
    PlotKind::Pond,
    PlotKind::Crag,
];

/// The other plots' kinds, drawn by weight.
const WEIGHTS: [(PlotKind, u32); 6] = [
    (PlotKind::Building, 52),
    (PlotKind::Platform, 12),
    (PlotKind::Bridge, 10),
    (PlotKind::Pond, 7),
    (PlotKind::Crag, 8),
    (PlotKind::Park, 11),
];

impl Plots {
    /// The plots of a world whose terrain has its share of the triangles, `share_tris`: one
    /// quad per m^2, at least 3 x 3 plots.
    fn new(share_tris: f64) -> Plots {
        let per_side =
            (((share_tris / 2.0).sqrt() / PLOT).floor() as usize).max(MIN_PLOTS_PER_SIDE);
        let side = ((share_tris / 2.0).sqrt()).max(per_side as f64 * PLOT);
        Plots {
            per_side,
            side,
            size: side / per_side as f64,
        }
    }

    fn count(&self) -> usize {
        self.per_side * self.per_side
    }

    /// Plot `p`'s square, row by row from (-side/2, -side/2).
    fn rect(&self, p: usize) -> Rect {
        let half = self.side / 2.0;
        let (i, j) = ((p % self.per_side) as f64, (p / self.per_side) as f64);
        Rect {
            x0: -half + i * self.size,
            z0: -half + j * self.size,
            x1: -half + (i + 1.0) * self.size,
            z1: -half + (j + 1.0) * self.size,
        }
    }

    /// The plots in random order and each plot's kind: one of each mandatory feature on the
    /// first plots of the order, the others drawn by weight.
    fn kinds(&self, rng: &mut Pcg64) -> (Vec<usize>, Vec<PlotKind>) {
        let plots = self.count();
        let mut order: Vec<usize> = (0..plots).collect();
        order.shuffle(rng);
        let mut kinds = vec![PlotKind::Park; plots];
        for (k, &p) in order.iter().enumerate() {
            kinds[p] = match MANDATORY.get(k) {
                Some(&m) => m,
                None => weighted_kind(rng),
            };
        }
        (order, kinds)
    }
}

/// A plot kind drawn by [`WEIGHTS`].
fn weighted_kind(rng: &mut Pcg64) -> PlotKind {
    let mut x = rng.gen_range(0..WEIGHTS.iter().map(|w| w.1).sum::<u32>());
    for &(k, w) in &WEIGHTS {
        if x < w {
            return k;
        }
        x -= w;
    }
    PlotKind::Park
}

impl WorldStats {
    /// The stats of a world of `spec` not built yet: its side and plots, every count 0.
    fn empty(spec: &WorldSpec, side: f64, plots: usize) -> WorldStats {
        WorldStats {
            seed: spec.seed,
            target_tris: spec.tris,
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
            extent: crate::Aabb::default(),
            features: Vec::new(),
        }
    }
}

/// Builds the plots' features in `order` (the mandatory ones first): the others become parks
/// once their estimated triangles would pass `budget`, ponds once the water volumes are full.
fn place_features(
    world: &mut World,
    plots: &Plots,
    order: &[usize],
    kinds: &[PlotKind],
    budget: usize,
) {
    // (There are at least 9 plots, more than the mandatory features.)
    let firsts = &order[..MANDATORY.len()];
    let sequence = firsts
        .iter()
        .copied()
        .chain((0..plots.count()).filter(|p| !firsts.contains(p)));
    for p in sequence {
        let mandatory = firsts.contains(&p);
        let mut kind = kinds[p];
        if !mandatory
            && (world.mesh.tri_count() + estimate(kind) > budget
                || (kind == PlotKind::Pond && world.volumes.len() >= MAX_CONVEX_VOLUMES))
        {
            kind = PlotKind::Park;
        }
        let rect = plots.rect(p);
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
}

/// Shapes the hills under the features: flat pads with shoulders, bowls for ponds, crags (whose
/// features are added here, snapped to the grid).
fn shape_terrain(world: &mut World, terrain: &mut Terrain) {
    // Pads: flat inside, shoulders of slope PAD_SLOPE at most, down (or up) to the hills.
    let reach = world.hills.range() / PAD_SLOPE + terrain.cell;
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
    let crags: Vec<_> = world
        .crags
        .iter()
        .map(|c| raise_crag(terrain, &world.hills, c))
        .collect();
    for (cx, cz, summit, r) in crags {
        let foot = cz - r - 3.0;
        world.feature(
            FeatureKind::SteepSlope,
            v3([cx, summit, cz]),
            v3([cx, terrain.height(cx, foot), foot]),
            r,
        );
    }
}

/// Raises crag `c`, snapped to the terrain's grid; returns its summit `(x, z, height)` and its
/// foot's radius.
fn raise_crag(terrain: &mut Terrain, hills: &Hills, c: &Crag) -> (f64, f64, f64, f64) {
    let cell = terrain.cell;
    let (cx, cz) = (terrain.snap(c.cx), terrain.snap(c.cz));
    let half_len = (c.half_len / cell).round() * cell;
    let (ex, ez) = if c.along_x {
        (half_len, 0.0)
    } else {
        (0.0, half_len)
    };
    let base = hills.height(cx, cz);
    let summit = base + c.k * c.r;
    let spread = (summit - base + hills.range()) / c.k + cell;
    let r = Rect {
        x0: cx - ex,
        z0: cz - ez,
        x1: cx + ex,
        z1: cz + ez,
    };
    terrain.apply(r.grow(spread), |x, z, h| h.max(summit - c.k * r.dist(x, z)));
    (cx, cz, summit, c.r + half_len)
}

/// The finished world: the mesh (terrain first, then everything else), its links, volumes and
/// stats.
fn assemble(world: World, terrain: &Terrain) -> Result<(InputGeometry, WorldStats)> {
    let World {
        mesh: extra,
        links,
        volumes,
        features,
        mut stats,
        ..
    } = world;
    let n = terrain.n;
    let (terrain_verts, terrain_tris) = ((n + 1) * (n + 1), 2 * n * n);
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
    stats.terrain_cell = terrain.cell as f32;
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
