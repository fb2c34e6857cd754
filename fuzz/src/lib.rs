//! Fixtures shared by the fuzz targets: a small hand-made level (a floor, a block, a ramp up to
//! a platform, an off-mesh link), built once per process, and helpers that turn fuzz bytes
//! into floats that include the hostile ones (NaN, infinities, huge and tiny values).

use arbitrary::{Arbitrary, Unstructured};
use glam::Vec3;
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder, OffMeshConnection, TriMesh};
use std::sync::OnceLock;

/// Vertices and triangles of the fixture level: a 24 x 24 floor at y = 0 around the origin, a
/// 4 x 4 block 3 high in it, a ramp from the floor up to a 6 x 6 platform at y = 2.
pub fn level_mesh() -> TriMesh {
    let mut verts: Vec<f32> = Vec::new();
    let mut tris: Vec<i32> = Vec::new();
    let mut quad = |verts: &mut Vec<f32>, q: [[f32; 3]; 4]| {
        let base = (verts.len() / 3) as i32;
        for p in q {
            verts.extend_from_slice(&p);
        }
        // Counter-clockwise seen from above (+y up) is what Recast calls walkable.
        tris.extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
    };
    quad(
        &mut verts,
        [
            [-12.0, 0.0, -12.0],
            [12.0, 0.0, -12.0],
            [12.0, 0.0, 12.0],
            [-12.0, 0.0, 12.0],
        ],
    );
    // The block's top and sides.
    let (b0, b1, h) = (-2.0f32, 2.0f32, 3.0f32);
    quad(
        &mut verts,
        [[b0, h, b0], [b1, h, b0], [b1, h, b1], [b0, h, b1]],
    );
    quad(
        &mut verts,
        [[b0, 0.0, b0], [b0, h, b0], [b1, h, b0], [b1, 0.0, b0]],
    );
    quad(
        &mut verts,
        [[b1, 0.0, b0], [b1, h, b0], [b1, h, b1], [b1, 0.0, b1]],
    );
    quad(
        &mut verts,
        [[b1, 0.0, b1], [b1, h, b1], [b0, h, b1], [b0, 0.0, b1]],
    );
    quad(
        &mut verts,
        [[b0, 0.0, b1], [b0, h, b1], [b0, h, b0], [b0, 0.0, b0]],
    );
    // Ramp (x 4..6, z from 4 to 8, rising to 2) and platform (x 4..10, z 8..14 would leave the
    // floor: keep it inside, z 8..11).
    quad(
        &mut verts,
        [
            [4.0, 0.0, 2.0],
            [6.0, 0.0, 2.0],
            [6.0, 2.0, 6.0],
            [4.0, 2.0, 6.0],
        ],
    );
    quad(
        &mut verts,
        [
            [3.0, 2.0, 6.0],
            [9.0, 2.0, 6.0],
            [9.0, 2.0, 11.0],
            [3.0, 2.0, 11.0],
        ],
    );
    TriMesh::new(verts, tris).expect("the fixture mesh is valid")
}

/// A multi-storey level: `storeys` floors 2.5 apart, each ten strips 1.5 wide and 30 long side
/// by side, every other strip 1.2 higher. Rows of such a grid hold more of Recast's sweep spans
/// than the grid is wide (upstream recastnavigation #317: what the monotone and layers
/// partitions and `rcBuildHeightfieldLayers` used to write past their buffers on).
pub fn stacked_mesh(storeys: usize) -> TriMesh {
    let mut verts: Vec<f32> = Vec::new();
    let mut tris: Vec<i32> = Vec::new();
    for k in 0..storeys {
        for i in 0..10 {
            let (x0, x1) = (i as f32 * 1.5, (i + 1) as f32 * 1.5);
            let y = k as f32 * 2.5 + if i % 2 == 1 { 1.2 } else { 0.0 };
            let base = (verts.len() / 3) as i32;
            verts.extend_from_slice(&[x0, y, 0.0, x0, y, 30.0, x1, y, 30.0, x1, y, 0.0]);
            // (x0, 0) -> (x0, 30) -> (x1, 30): counter-clockwise seen from above (+y up).
            tris.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    TriMesh::new(verts, tris).expect("the stacked mesh is valid")
}

/// The fixture level with one off-mesh link from the floor up onto the platform.
pub fn level_geometry() -> InputGeometry {
    let mut g = InputGeometry::from_mesh(level_mesh());
    g.off_mesh_connections.push(OffMeshConnection {
        start: Vec3::new(-6.0, 0.0, 8.0),
        end: Vec3::new(4.0, 2.0, 9.0),
        radius: 0.6,
        bidirectional: true,
        area: navkit::area::JUMP,
        flags: navkit::flags::for_area(navkit::area::JUMP),
        user_id: 1000,
    });
    g
}

/// The fixture level's geometry, made once.
pub fn level() -> &'static InputGeometry {
    static G: OnceLock<InputGeometry> = OnceLock::new();
    G.get_or_init(level_geometry)
}

/// The fixture level built solo with the default settings, once per process.
pub fn level_navmesh() -> &'static navkit::navmesh::NavMesh {
    static N: OnceLock<navkit::navmesh::NavMesh> = OnceLock::new();
    N.get_or_init(|| {
        NavMeshBuilder::new(level())
            .settings(BuildSettings::default())
            .solo()
            .expect("the fixture level builds")
            .into_navmesh()
    })
}

/// A float that is usually small and sane but is sometimes NaN, infinite, huge, tiny,
/// negative zero or a raw bit pattern.
#[derive(Clone, Copy, Debug)]
pub struct F(pub f32);

impl<'a> Arbitrary<'a> for F {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let tag: u8 = u.arbitrary()?;
        Ok(F(match tag % 16 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => f32::MAX,
            4 => -f32::MAX,
            5 => f32::MIN_POSITIVE,
            6 => -0.0,
            7 => f32::from_bits(u.arbitrary()?),
            8 => 1e9 * (u.arbitrary::<i8>()? as f32),
            // Most of the time: a value of about the level's size, in steps of 1/16.
            _ => u.arbitrary::<i16>()? as f32 / 16.0,
        }))
    }
}

/// A point from three [`F`]s.
#[derive(Clone, Copy, Debug)]
pub struct P(pub Vec3);

impl<'a> Arbitrary<'a> for P {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let (x, y, z): (F, F, F) = u.arbitrary()?;
        Ok(P(Vec3::new(x.0, y.0, z.0)))
    }
}

/// A small count (most of the time) or any `usize`.
#[derive(Clone, Copy, Debug)]
pub struct Count(pub usize);

impl<'a> Arbitrary<'a> for Count {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let tag: u8 = u.arbitrary()?;
        Ok(Count(match tag % 8 {
            0 => 0,
            1 => usize::MAX,
            2 => u.arbitrary::<u32>()? as usize,
            _ => u.arbitrary::<u8>()? as usize,
        }))
    }
}

/// Solo builds whose grid has a side longer than this are not run by the targets (unless the
/// side is beyond Recast's 65,535, which the builder must refuse, quickly): a long thin walkable
/// strip makes Recast's contour and polygon-mesh stages superlinear in its length (found by the
/// `obj` target: a 7.5 m x 4 km strip takes seconds natively, over the 10 s timeout under
/// ASan). That is a build-budget matter, not memory safety.
pub const MAX_SOLO_SIDE: i64 = 2048;

/// Most grid cells of a build the targets run (the validators accept up to 2^28).
pub const MAX_CELLS: i64 = 1 << 18;

/// The grid's width and height in cells, when `geom` and `settings` pass validation (`None`:
/// the builds must refuse them, quickly).
fn valid_grid(geom: &InputGeometry, settings: &BuildSettings) -> Option<(i64, i64)> {
    if geom.validate().is_err() {
        return None;
    }
    let b = geom.mesh.bounds();
    let c = settings.to_config(b.min, b.max).ok()?;
    Some((i64::from(c.width), i64::from(c.height)))
}

/// `mesh` as OBJ text (`v` and `f` lines, 1-based).
pub fn obj_text(mesh: &TriMesh) -> String {
    let mut obj = String::new();
    for v in mesh.verts.chunks(3) {
        obj += &format!("v {} {} {}\n", v[0], v[1], v[2]);
    }
    for t in mesh.tris.chunks(3) {
        obj += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    obj
}

/// Most tiles of a tiled build or tile cache the targets run.
pub const MAX_TILES: i64 = 1024;

/// True when `settings` and `geom` pass validation but a tiled build or tile cache with tiles of
/// `tile_size` cells would merely be slow: more than [`MAX_CELLS`] cells or [`MAX_TILES`] tiles.
pub fn tiled_too_slow(geom: &InputGeometry, settings: &BuildSettings, tile_size: u32) -> bool {
    let Some((w, h)) = valid_grid(geom, settings) else {
        return false;
    };
    let ts = i64::from(tile_size.max(1));
    w * h > MAX_CELLS || (w / ts + 1) * (h / ts + 1) > MAX_TILES
}

/// Builds `geom` with `settings` with each partition (watershed, monotone, layers), solo and
/// tiled, and as tile caches (`rcBuildHeightfieldLayers`, with the default cache settings and with
/// tiles of 8 cells), and checks each build with [`assert_build_sound`]. Builds that would merely
/// be slow ([`solo_too_slow`], [`tiled_too_slow`]) are left out.
pub fn build_every_way(geom: &InputGeometry, settings: &BuildSettings) {
    use navkit::Partition;
    use navkit::tilecache::TileCacheSettings;
    for partition in [Partition::Watershed, Partition::Monotone, Partition::Layers] {
        let s = BuildSettings {
            partition,
            ..settings.clone()
        };
        let b = NavMeshBuilder::new(geom).settings(s.clone()).threads(1);
        if !solo_too_slow(geom, &s) {
            let what = format!("solo ({partition:?})");
            assert_build_sound(&b.solo(), |b| b.navmesh(), &what);
        }
        if !tiled_too_slow(geom, &s, s.tile_size) {
            let what = format!("tiled ({partition:?}, tiles of {})", s.tile_size);
            assert_build_sound(&b.tiled(), |t| t.navmesh(), &what);
        }
    }
    // The default tile size, and tiles of 8 cells: small layers are where Detour's contour walk
    // gives rings that run over themselves, which Detour's polygon mesh builder (replaced by
    // navkit's) turned into garbage (h4's sweep: 1-5 in 2,000 small levels).
    for tile_size in [TileCacheSettings::default().tile_size, 8] {
        let cache = TileCacheSettings {
            tile_size,
            ..TileCacheSettings::default()
        };
        if !tiled_too_slow(geom, settings, cache.tile_size) {
            let b = NavMeshBuilder::new(geom)
                .settings(settings.clone())
                .cache_settings(cache)
                .threads(1);
            let what = format!("tile cache (tiles of {tile_size})");
            assert_build_sound(&b.tile_cache(), |c| c.navmesh(), &what);
        }
    }
}

/// True when `settings` and `geom` pass validation but the solo build would merely be slow:
/// more than [`MAX_CELLS`] cells, or a side from [`MAX_SOLO_SIDE`] to 65,535 cells.
pub fn solo_too_slow(geom: &InputGeometry, settings: &BuildSettings) -> bool {
    let Some((w, h)) = valid_grid(geom, settings) else {
        return false;
    };
    let side = w.max(h);
    w * h > MAX_CELLS || (side > MAX_SOLO_SIDE && side <= 65_535)
}

/// Every tile of `navmesh` passes navkit's own tile validator (the one `NavMesh::add_tile` and
/// the MSET loader run): what a build produced must load again (issue 19: no build ends in data
/// its own checks refuse). `what` names the build in the panic message.
pub fn assert_tiles_valid(navmesh: &navkit::NavMesh, what: &str) {
    for tile in navmesh.tiles() {
        if let Err(e) = navkit::navmesh::validate::validate_tile_data(tile.data()) {
            panic!(
                "{what}: the built tile {:?} fails validation: {e}",
                tile.header()
            );
        }
    }
}

/// A build either succeeds with tiles that pass the validator, or is refused with any error
/// but a validator one (`Error::NavMeshData`): every setting and geometry the builders cannot
/// take must be refused up front, naming what is wrong.
pub fn assert_build_sound<T>(
    result: &navkit::Result<T>,
    navmesh: impl Fn(&T) -> &navkit::NavMesh,
    what: &str,
) {
    match result {
        Ok(built) => assert_tiles_valid(navmesh(built), what),
        Err(e @ navkit::Error::NavMeshData { .. }) => {
            panic!("{what}: the build ended in a validator error: {e}")
        }
        Err(_) => {}
    }
}
