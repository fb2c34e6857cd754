//! Multi-storey levels build with every partition, solo, tiled and as tile caches, and give the
//! regions and layers Recast means to give.
//!
//! Recast's monotone and layers partitions and its heightfield layers (the tile cache) keep a
//! row's sweeps in an array sized by the grid, and a row crossing stacked floors holds a sweep
//! per floor (upstream recastnavigation #317): on these levels Recast wrote past a heap buffer.
//! navkit gives Recast a grid with room for every row's sweeps (`src/ffi/sweep_room.rs`). These
//! tests build levels whose rows hold more sweeps than their grids are wide; under
//! AddressSanitizer (`scripts/asan.sh`, run by CI) and valgrind
//! (`scripts/valgrind.sh`) they fail without that fix.
//!
//! What the builds must give: Recast's own result where Recast has room. The same level on a
//! grid twice as wide (empty columns on the right, so the level's cells, spans and connections
//! are the same) gives Recast room for every row's sweeps, and Recast then runs untouched; the
//! solo builds of the level on its own grid must give, storey by storey, the same walkable area
//! in the same number of polygons. Tiled and tile-cache builds must have every storey, with the
//! solo build's area within a tolerance measured here (tiles cut regions at their edges). A
//! spiral ramp, which no storey split describes, is checked by a path from its foot to its top
//! against the helix its inner edge makes (hand derivation).

mod common;

use navkit::Aabb;
use navkit::glam::Vec3;
use navkit::{
    BuildSettings, InputGeometry, NavMesh, NavMeshBuilder, Partition, PathOptions, PathStatus,
    QueryFilter, TriMesh,
};

const PARTITIONS: [Partition; 3] = [Partition::Watershed, Partition::Monotone, Partition::Layers];

/// A level as vertices and triangles.
#[derive(Default, Clone)]
struct Level {
    verts: Vec<f32>,
    tris: Vec<i32>,
}

impl Level {
    /// A horizontal rectangle (two triangles facing up) at height `y`.
    fn floor(&mut self, x0: f32, z0: f32, x1: f32, z1: f32, y: f32) {
        self.quad([x0, y, z0], [x0, y, z1], [x1, y, z1], [x1, y, z0]);
    }

    /// A quad from four corners, counter-clockwise seen from above.
    fn quad(&mut self, a: [f32; 3], b: [f32; 3], c: [f32; 3], d: [f32; 3]) {
        let n = (self.verts.len() / 3) as i32;
        for v in [a, b, c, d] {
            self.verts.extend_from_slice(&v);
        }
        self.tris
            .extend_from_slice(&[n, n + 1, n + 2, n, n + 2, n + 3]);
    }

    fn geometry(&self) -> InputGeometry {
        InputGeometry::from_mesh(TriMesh::new(self.verts.clone(), self.tris.clone()).unwrap())
    }
}

impl Level {
    /// The levels together.
    fn join(levels: &[Level]) -> Level {
        let mut out = Level::default();
        for l in levels {
            let n = (out.verts.len() / 3) as i32;
            out.verts.extend_from_slice(&l.verts);
            out.tris.extend(l.tris.iter().map(|&i| i + n));
        }
        out
    }
}

/// `storeys` storeys of strips like `../shared/hostile/layers-overflow/stacked.obj`: `strips`
/// strips 2.4 m wide and `length` long side by side, every other one 1.2 m higher (more than an
/// agent climbs), storeys 2.5 m apart.
fn strips(storeys: usize, strips: usize, length: f32) -> Vec<Level> {
    (0..storeys)
        .map(|k| {
            let mut level = Level::default();
            for s in 0..strips {
                let x = s as f32 * 2.4;
                let y = k as f32 * 2.5 + if s % 2 == 1 { 1.2 } else { 0.0 };
                level.floor(x, 0.0, x + 2.4, length, y);
            }
            level
        })
        .collect()
}

/// A column of `floors` thin square floors `side` m on a side, 2.3 m apart.
fn column(floors: usize, side: f32) -> Vec<Level> {
    (0..floors)
        .map(|k| {
            let mut level = Level::default();
            level.floor(0.0, 0.0, side, side, k as f32 * 2.3);
            level
        })
        .collect()
}

impl From<TriMesh> for Level {
    fn from(mesh: TriMesh) -> Level {
        Level {
            verts: mesh.verts,
            tris: mesh.tris,
        }
    }
}

/// Area (m², seen from above) and polygon count of each storey `spacing` m apart.
fn area_by_storey(nav: &NavMesh, spacing: f32, storeys: usize) -> Vec<(f32, usize)> {
    let mut out = vec![(0.0, 0); storeys];
    for tile in nav.tiles() {
        for poly in tile.polys() {
            let v: Vec<Vec3> = poly.vertices().collect();
            if v.len() < 3 {
                continue;
            }
            let low = v.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
            let k = ((low + 0.3) / spacing).floor() as usize;
            let mut twice = 0.0f32;
            for i in 0..v.len() {
                let (a, b) = (v[i], v[(i + 1) % v.len()]);
                twice += a.x * b.z - b.x * a.z;
            }
            out[k].0 += twice.abs() / 2.0;
            out[k].1 += 1;
        }
    }
    out
}

/// How a level is built.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Solo,
    Tiled(u32),
    TileCache(u32),
}

/// Builds `level` with `partition` as `kind`, on a grid of `bounds` (the level's own if
/// `None`).
fn build(level: &Level, bounds: Option<Aabb>, partition: Partition, kind: Kind) -> NavMesh {
    let geom = level.geometry();
    let settings = BuildSettings {
        partition,
        bounds,
        ..BuildSettings::default()
    };
    let b = NavMeshBuilder::new(&geom).settings(settings);
    let built = match kind {
        Kind::Solo => b.solo().map(|s| s.into_navmesh()),
        Kind::Tiled(t) => b.tile_size(t).tiled().map(|t| t.into_navmesh()),
        Kind::TileCache(t) => b.tile_size(t).tile_cache().map(|c| c.into_navmesh()),
    };
    built.unwrap_or_else(|e| panic!("{partition:?} {kind:?}: {e}"))
}

/// Checks the builds of a level of `storeys` storeys `spacing` m apart, each storey's walkable
/// area and polygons:
/// - solo, with every partition: equal to Recast's own result where it has room for the sweeps,
///   the same level on a grid `wider` times as wide (empty columns on the right, so the level's
///   cells are the same): Recast then runs as it is, without navkit widening anything;
/// - tiled and as a tile cache (`kinds`): every storey there, with the area of the solo build
///   within `tolerance` (tiles cut regions at their edges, which then filter differently).
fn check_storeys(
    whole: &Level,
    storeys: usize,
    spacing: f32,
    kinds: &[Kind],
    tolerance: Option<f32>,
) {
    // 3 m of empty grid around the level (so that no floor ends at the grid's edge, where
    // Recast's ledge filter sees no drop), and as much again on the right for the room.
    let own = whole.geometry().nav_bounds();
    let margin = Vec3::new(3.0, 0.0, 3.0);
    let tight = Aabb {
        min: own.min - margin,
        max: own.max + margin,
    };
    let mut room = tight;
    room.max.x += tight.max.x - tight.min.x;
    for partition in PARTITIONS {
        let tight = area_by_storey(
            &build(whole, Some(tight), partition, Kind::Solo),
            spacing,
            storeys,
        );
        let roomy = area_by_storey(
            &build(whole, Some(room), partition, Kind::Solo),
            spacing,
            storeys,
        );
        assert_eq!(tight, roomy, "{partition:?}: solo, without and with room");
        for &kind in kinds {
            let got = area_by_storey(&build(whole, None, partition, kind), spacing, storeys);
            for (k, (&(area, _), &(solo, _))) in got.iter().zip(&tight).enumerate() {
                assert!(
                    solo > 1.0 && area > 1.0,
                    "{partition:?} {kind:?}: storey {k}: {area} of {got:?}"
                );
                let Some(tolerance) = tolerance else { continue };
                assert!(
                    (area - solo).abs() <= tolerance * solo,
                    "{partition:?} {kind:?} storey {k}: {area:.2} m², solo {solo:.2} m²"
                );
            }
        }
    }
}

#[test]
fn the_shared_stacked_level_builds_as_recast_with_room_builds_it() {
    // ../shared/hostile/layers-overflow/stacked.obj: 8 storeys of 20 strips 1.5 m wide, 30 m
    // long. Its grid is 101 cells wide (solo) and a row crosses 8 x 20 strips: 160 sweeps.
    let whole = Level::from(
        TriMesh::load(common::shared().join("hostile/layers-overflow/stacked.obj")).unwrap(),
    );
    check_storeys(
        &whole,
        8,
        2.5,
        &[Kind::Tiled(48), Kind::TileCache(48)],
        None,
    );
}

#[test]
fn stacked_strips_build_as_recast_with_room_builds_them() {
    // 10 storeys of 12 strips 2.4 m wide, 24 m long: a row crosses 120 strips in a grid 96 cells
    // wide (solo) or 48 + 2 x 5 (tiles of 48).
    let whole = Level::join(&strips(10, 12, 24.0));
    check_storeys(
        &whole,
        10,
        2.5,
        &[Kind::Tiled(48), Kind::TileCache(48)],
        Some(0.05),
    );
}

#[test]
fn a_column_of_many_thin_floors_builds_as_recast_with_room_builds_it() {
    // 40 floors 9.6 m square in one column: 40 spans in each cell of a grid 32 cells wide
    // (solo), or 16 + 2 x 5 (tiles of 16). As a tile cache, 40 layers at each tile position:
    // Detour's `buildNavMeshTilesAt` builds only 32 of them (storeys 0-7 lost their tiles).
    let whole = Level::join(&column(40, 9.6));
    check_storeys(
        &whole,
        40,
        2.3,
        &[Kind::Tiled(16), Kind::TileCache(16)],
        Some(0.05),
    );
}

/// A helical ramp `turns` turns high around a hole of radius `inner` (ramp `outer - inner`
/// wide, rising `rise` m a turn), of `per_turn` flat quads a turn.
fn spiral(turns: usize, inner: f32, outer: f32, rise: f32, per_turn: usize) -> Level {
    let mut level = Level::default();
    let at = |r: f32, i: usize| {
        let a = i as f32 / per_turn as f32 * std::f32::consts::TAU;
        [r * a.cos(), i as f32 / per_turn as f32 * rise, r * a.sin()]
    };
    for i in 0..turns * per_turn {
        level.quad(
            at(inner, i),
            at(inner, i + 1),
            at(outer, i + 1),
            at(outer, i),
        );
    }
    level
}

#[test]
fn a_spiral_ramp_builds_with_every_partition_and_leads_to_the_top() {
    // 6 turns 3 m apart (more than an agent's height) of a ramp 3 m wide around a hole of 2 m:
    // a row through the middle crosses the ramp 12 times on each side of the hole, in a grid
    // 34 cells wide.
    let (turns, inner, rise) = (6, 2.0, 3.0);
    let level = spiral(turns, inner, 5.0, rise, 64);
    // Start half a radian into the first turn, end half a radian before the top, both in the
    // middle of the ramp (radius 3.5 m) and on its surface.
    let on_ramp = |a: f32| {
        Vec3::new(
            3.5 * a.cos(),
            a / std::f32::consts::TAU * rise,
            3.5 * a.sin(),
        )
    };
    let sweep = turns as f32 * std::f32::consts::TAU - 1.0;
    let (bottom, top) = (on_ramp(0.5), on_ramp(0.5 + sweep));
    // The shortest way up hugs the inner edge, an agent's radius (0.6 m) off it: a helix of
    // radius 2.6 m through the angle between the points, climbing rise / (2 pi) m a radian:
    // sqrt(2.6^2 + (3 / 2 pi)^2) m a radian (the way in from radius 3.5 m and out is short).
    let helix = sweep * (2.6f32.powi(2) + (rise / std::f32::consts::TAU).powi(2)).sqrt();
    // The layers partition is Recast's for this: the others grow regions along the ramp that
    // overlap themselves seen from above, and Recast then warns (below) and triangulates badly.
    let total = |nav: &NavMesh| {
        area_by_storey(nav, rise, turns + 1)
            .iter()
            .map(|a| a.0)
            .sum::<f32>()
    };
    let solo_area = total(&build(&level, None, Partition::Layers, Kind::Solo));
    for kind in [
        Kind::Solo,
        Kind::Tiled(32),
        Kind::Tiled(64),
        Kind::TileCache(32),
    ] {
        let nav = build(&level, None, Partition::Layers, kind);
        let area = total(&nav);
        // Measured: tiled 1.011, tile cache 1.032 times the solo area (tiles cut regions).
        assert!(
            (area / solo_area - 1.0).abs() < 0.05,
            "{kind:?}: {area} m², solo {solo_area} m²"
        );
        if matches!(kind, Kind::TileCache(_)) {
            // Detour links tiles at neighbouring positions only, never two layers of one
            // position: where the ramp passes from one layer to the next inside a tile, a tile
            // cache has no link (upstream's design), so no path is asked of it.
            continue;
        }
        let mut query = nav.query().unwrap();
        let path = query
            .path(
                bottom,
                top,
                &QueryFilter::default(),
                &PathOptions::default(),
            )
            .unwrap();
        let ratio = path.straight.length() / helix;
        assert_eq!(path.status(), PathStatus::Complete, "{kind:?}");
        // Measured 1.077 solo (Recast simplifies the inner edge to chords of up to 1.3 m and
        // its polygons' corners sit on them; the path's length is the helix's within that).
        assert!(
            (1.0..1.1).contains(&ratio),
            "{kind:?}: {ratio} times the helix"
        );
    }
    // The watershed says so; the monotone partition builds without a word.
    let geom = level.geometry();
    let solo = NavMeshBuilder::new(&geom).solo().unwrap();
    let warnings = &solo.report().warnings;
    assert!(
        warnings.iter().any(|w| w.contains("overlapping regions")),
        "{warnings:?}"
    );
    for kind in [Kind::Solo, Kind::Tiled(32)] {
        build(&level, None, Partition::Monotone, kind);
    }
}
