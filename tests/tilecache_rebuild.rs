//! `TileCache::rebuild_tiles`: a built tile cache whose level changed (a pillar added to
//! RecastDemo's dungeon and nav_test) rebuilds only the tiles the change reaches, and then has
//! exactly the layers and navmesh polygons of a cache built from the changed level with the same
//! obstacles; the obstacles carve the new layers and their removal restores them; the tiles
//! outside keep their refs. Bad calls are errors.

mod common;

use glam::Vec3;
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::tilecache::{ObstacleShape, TileCache, TileCacheSettings};
use navkit::{Aabb, BuildSettings, Error, InputGeometry, NavMeshBuilder, TileCoord};

fn cache(geom: &InputGeometry) -> TileCache {
    NavMeshBuilder::new(geom)
        .settings(BuildSettings::default())
        .cache_settings(TileCacheSettings::default())
        .tile_cache()
        .unwrap()
}

/// A floor point of `cache`'s navmesh near the level's centre, offset by `dx` along x.
fn floor_point(cache: &TileCache, geom: &InputGeometry, dx: f32) -> Vec3 {
    let b = geom.mesh.bounds();
    let mut q = NavMeshQuery::new(cache.navmesh(), 2048).unwrap();
    let near = b.center() + Vec3::new(dx, 0.0, 0.0);
    let ext = Vec3::new(8.0, b.size().y, 8.0);
    q.find_nearest_poly(near, ext, &QueryFilter::default())
        .unwrap()
        .point
}

/// `geom` with a closed box from `min` to `max` added (12 triangles, outward winding).
fn with_box(geom: &InputGeometry, min: Vec3, max: Vec3) -> InputGeometry {
    let mut g = geom.clone();
    let base = (g.mesh.verts.len() / 3) as i32;
    for i in 0..8 {
        let x = if i & 1 == 0 { min.x } else { max.x };
        let y = if i & 2 == 0 { min.y } else { max.y };
        let z = if i & 4 == 0 { min.z } else { max.z };
        g.mesh.verts.extend([x, y, z]);
    }
    let faces = [
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ];
    for [a, b, c, d] in faces {
        g.mesh.tris.extend([a, b, c, a, c, d].map(|v| base + v));
    }
    g
}

/// Everything of a cache that does not depend on the order tiles were added: its compressed
/// layers (sorted; each names its tile and layer), and per navmesh tile (by position) its
/// header, vertices, polygons (vertices, neighbours, area, flags), detail mesh and BV tree.
fn fingerprint(cache: &TileCache) -> (Vec<Vec<u8>>, Vec<String>) {
    let mut layers: Vec<Vec<u8>> = cache
        .to_tile_cache_set()
        .tiles
        .into_iter()
        .map(|(_, d)| d)
        .collect();
    layers.sort();
    let nav = cache.navmesh();
    let mut tiles: Vec<(TileCoord, String)> = nav
        .tiles()
        .map(|t| {
            let polys: Vec<_> = t
                .polys()
                .map(|p| {
                    (
                        p.vertex_indices().to_vec(),
                        p.neis().to_vec(),
                        p.area(),
                        p.flags(),
                    )
                })
                .collect();
            let bv: Vec<_> = t.bv_nodes().map(|n| format!("{n:?}")).collect();
            let text = format!(
                "{:?} {:?} {polys:?} {:?} {:?} {bv:?}",
                t.header(),
                t.vertices(),
                t.detail_vertices(),
                t.detail_triangles()
            );
            (t.coord(), text)
        })
        .collect();
    tiles.sort_by_key(|(c, _)| (c.z, c.x, c.layer));
    (
        layers,
        tiles
            .into_iter()
            .map(|(c, s)| format!("{c:?} {s}"))
            .collect(),
    )
}

fn assert_same(a: &TileCache, b: &TileCache, what: &str) {
    let (la, ta) = fingerprint(a);
    let (lb, tb) = fingerprint(b);
    assert_eq!(la.len(), lb.len(), "{what}: layer count");
    assert!(la == lb, "{what}: compressed layers differ");
    assert_eq!(ta.len(), tb.len(), "{what}: navmesh tile count");
    for (x, y) in ta.iter().zip(&tb) {
        assert!(
            x == y,
            "{what}: navmesh tile differs: {}",
            &x[..x.len().min(200)]
        );
    }
}

/// The tiles of `cache` whose border-expanded bounds reach `b` (the agent radius plus three
/// cells, plus one cell of slack, as bevy_navkit and the tiled build's docs say).
fn reached(cache: &TileCache, b: Aabb) -> Vec<TileCoord> {
    let s = BuildSettings::default();
    let reach = ((s.agent_radius / s.cell_size).ceil() + 4.0) * s.cell_size;
    let grow = Vec3::new(reach, 0.0, reach);
    cache
        .grid()
        .unwrap()
        .tiles_in_box(Aabb::new(b.min - grow, b.max + grow))
}

fn refs_outside(cache: &TileCache, inside: &[TileCoord]) -> Vec<(TileCoord, u64)> {
    let mut v: Vec<_> = cache
        .navmesh()
        .tiles()
        .filter(|t| {
            !inside
                .iter()
                .any(|c| (c.x, c.z) == (t.coord().x, t.coord().z))
        })
        .map(|t| (t.coord(), t.tile_ref()))
        .collect();
    v.sort_by_key(|(c, _)| (c.z, c.x, c.layer));
    v
}

fn pillar_edit(name: &str) {
    let geom = InputGeometry::load(common::mesh(name)).unwrap();
    let mut edited = cache(&geom);
    let p = floor_point(&edited, &geom, 0.0);
    let top = (p.y + 2.0).min(geom.mesh.bounds().max.y);
    let (pmin, pmax) = (
        p - Vec3::new(0.6, 0.2, 0.6),
        Vec3::new(p.x + 0.6, top, p.z + 0.6),
    );
    let changed = with_box(&geom, pmin, pmax);
    assert_eq!(
        changed.mesh.bounds(),
        geom.mesh.bounds(),
        "{name}: the pillar stays inside"
    );
    // An obstacle beside the pillar, placed before the edit.
    let q = floor_point(&edited, &geom, 1.5);
    let barrel = ObstacleShape::Cylinder {
        pos: q,
        radius: 0.5,
        height: 2.0,
    };
    let ob = edited.add(&barrel).unwrap();
    edited.update_until_done().unwrap();

    let tiles = reached(&edited, Aabb::new(pmin, pmax));
    assert!(!tiles.is_empty() && tiles.len() < edited.grid().unwrap().tile_count());
    let before = refs_outside(&edited, &tiles);
    let built = edited.rebuild_tiles(&changed, &tiles).unwrap();
    assert!(
        built >= tiles.len() / 2,
        "{name}: {built} navmesh tiles for {tiles:?}"
    );
    assert_eq!(
        refs_outside(&edited, &tiles),
        before,
        "{name}: tiles outside kept"
    );

    let mut fresh = cache(&changed);
    let fresh_ob = fresh.add(&barrel).unwrap();
    fresh.update_until_done().unwrap();
    assert_same(&edited, &fresh, &format!("{name}: pillar and barrel"));
    // The pillar is really there: the fresh build without it differs.
    let mut plain = cache(&geom);
    plain.add(&barrel).unwrap();
    plain.update_until_done().unwrap();
    assert!(
        fingerprint(&plain) != fingerprint(&edited),
        "{name}: the edit changed nothing"
    );

    // The barrel's removal restores the rebuilt layers too.
    edited.remove(ob).unwrap();
    edited.update_until_done().unwrap();
    fresh.remove(fresh_ob).unwrap();
    fresh.update_until_done().unwrap();
    assert_same(&edited, &fresh, &format!("{name}: pillar, barrel removed"));

    // And the pillar's removal (the tiles rebuilt from the old level) restores the original.
    edited.rebuild_tiles(&geom, &tiles).unwrap();
    assert_same(&edited, &cache(&geom), &format!("{name}: pillar removed"));
}

#[test]
fn a_pillar_added_to_dungeon_rebuilds_its_tiles_as_a_fresh_cache() {
    pillar_edit("dungeon.obj");
}

#[test]
fn a_pillar_added_to_nav_test_rebuilds_its_tiles_as_a_fresh_cache() {
    pillar_edit("nav_test.obj");
}

#[test]
fn bad_rebuilds_are_errors_that_say_why() {
    let geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
    let mut c = cache(&geom);
    let grid = c.grid().unwrap();
    let off = TileCoord::new(grid.tiles_x, 0);
    let e = c.rebuild_tiles(&geom, &[off]).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(ref m) if m.contains("outside")),
        "{e}"
    );

    let b = geom.mesh.bounds();
    let above = with_box(&geom, b.max - Vec3::ONE, b.max + Vec3::ONE);
    let e = c
        .rebuild_tiles(&above, &[TileCoord::new(0, 0)])
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(ref m) if m.contains("bounds")),
        "{e}"
    );

    let mut loaded = TileCache::from_tset_bytes(&c.to_tset_bytes(), &[]).unwrap();
    assert!(loaded.grid().is_none());
    let e = loaded
        .rebuild_tiles(&geom, &[TileCoord::new(0, 0)])
        .unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(ref m) if m.contains("loaded")),
        "{e}"
    );

    // Nothing changed by the refusals: a rebuild of every tile from the same level is a no-op.
    let all = grid.all_tiles();
    c.rebuild_tiles(&geom, &all).unwrap();
    assert_same(
        &c,
        &cache(&geom),
        "dungeon, every tile rebuilt from the same level",
    );
}
