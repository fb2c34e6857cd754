//! Upstream's known tile-loading crash classes as regression tests (issue 11, part 5).
//!
//! The 2026 fuzzing reports against Detour's `dtNavMesh::addTile` (recastnavigation issues
//! #829 to #839) each name tile fields Detour follows without checking. Every class gets
//! crafted tiles here: a real tile of dungeon.obj, built by navkit with an off-mesh
//! connection, with exactly the named fields changed (byte offsets from the `dtMeshHeader` and
//! section layout, written out below and checked against the bindings' structs). Every public
//! entry point that takes tile bytes must refuse each one with [`Error::NavMeshData`] at the
//! changed field's offset and a message naming it: `validate_tile_data`,
//! `NavMesh::from_tile_data`, `NavMesh::add_tile` (beside the tile's real neighbours, which
//! must then still take the real tile), `read_mset`, `NavMesh::from_mset_bytes` and
//! `NavMesh::load`. The tile cache takes no navmesh tiles (its `TSET` files hold compressed
//! layers, validated on their own), so it has no entry point here.
//!
//! Many crafted tiles are made to pass the naive checks: sizes that only fit the data after
//! 32-bit wrap-around, indices below `vertCount` that still point at the wrong vertices, an
//! off-mesh connection naming a ground polygon, `maxLinkCount` consistent with the data but
//! smaller than the links the polygons need.

mod common;

use std::path::Path;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicUsize, Ordering};

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::navmesh::NavMesh;
use navkit::navmesh::mset::{NavMeshSet, RefWidth, read_mset, validate_tile_data, write_mset};
use navkit::{BuildSettings, Error, InputGeometry, OffMeshConnection, area, flags};

// ---------------------------------------------------------------------------------------
// Tile layout (Detour tile data as dtCreateNavMeshData writes it, for this build's poly refs).

/// `dtMeshHeader`: 25 four-byte fields.
mod hd {
    pub const MAGIC: usize = 0;
    pub const VERSION: usize = 4;
    pub const X: usize = 8;
    pub const Y: usize = 12;
    pub const LAYER: usize = 16;
    pub const POLY_COUNT: usize = 24;
    pub const VERT_COUNT: usize = 28;
    pub const MAX_LINK_COUNT: usize = 32;
    pub const DETAIL_MESH_COUNT: usize = 36;
    pub const DETAIL_VERT_COUNT: usize = 40;
    pub const DETAIL_TRI_COUNT: usize = 44;
    pub const BV_NODE_COUNT: usize = 48;
    pub const OFF_MESH_CON_COUNT: usize = 52;
    pub const OFF_MESH_BASE: usize = 56;
    pub const WALKABLE_CLIMB: usize = 68;
    pub const BMIN: usize = 72;
    pub const BMAX: usize = 84;
    pub const BV_QUANT_FACTOR: usize = 96;
    pub const SIZE: usize = 100;
}
/// `dtPoly`: firstLink, verts[6], neis[6], flags, vertCount, areaAndtype.
mod po {
    pub const VERTS: usize = 4;
    pub const NEIS: usize = 16;
    pub const VERT_COUNT: usize = 30;
    pub const AREA_AND_TYPE: usize = 31;
    pub const SIZE: usize = 32;
}
/// `dtLink`: 12 bytes with 32-bit refs, 16 with 64-bit ones (the `large-refs` feature).
const LINK_SIZE: usize = RefWidth::NATIVE.link_size();
/// `dtPolyDetail`: vertBase, triBase, vertCount, triCount (padded).
mod pd {
    pub const VERT_BASE: usize = 0;
    pub const TRI_BASE: usize = 4;
    pub const VERT_COUNT: usize = 8;
    pub const TRI_COUNT: usize = 9;
    pub const SIZE: usize = 12;
}
/// `dtBVNode`: bmin[3], bmax[3] (u16), i.
mod bv {
    pub const BMIN: usize = 0;
    pub const BMAX: usize = 6;
    pub const I: usize = 12;
    pub const SIZE: usize = 16;
}
/// `dtOffMeshConnection`: pos[6], rad, poly, flags, side, userId.
mod om {
    pub const POS: usize = 0;
    pub const POLY: usize = 28;
    pub const SIDE: usize = 31;
    pub const SIZE: usize = 36;
}

/// The header count that sizes each section, and the section's element size, in file order.
const SECTIONS: [(usize, usize); 8] = [
    (hd::VERT_COUNT, 12),
    (hd::POLY_COUNT, po::SIZE),
    (hd::MAX_LINK_COUNT, LINK_SIZE),
    (hd::DETAIL_MESH_COUNT, pd::SIZE),
    (hd::DETAIL_VERT_COUNT, 12),
    (hd::DETAIL_TRI_COUNT, 4),
    (hd::BV_NODE_COUNT, bv::SIZE),
    (hd::OFF_MESH_CON_COUNT, om::SIZE),
];
const VERTS: usize = 0;
const POLYS: usize = 1;
const LINKS: usize = 2;
const DETAIL_MESHES: usize = 3;
const DETAIL_VERTS: usize = 4;
const DETAIL_TRIS: usize = 5;
const BV_TREE: usize = 6;
const OFF_MESH_CONS: usize = 7;

/// `DT_EXT_LINK`: a neighbour code for a portal to another tile.
const EXT_LINK: u16 = 0x8000;
/// `DT_DETAIL_EDGE_BOUNDARY` in each edge field of a detail triangle's flags.
const ANY_BOUNDARY_EDGE: u8 = 0b01_0101;

/// Tile bytes with typed field access at computed offsets.
#[derive(Clone, Debug)]
struct Tile(Vec<u8>);

impl Tile {
    fn get<const N: usize>(&self, off: usize) -> [u8; N] {
        self.0[off..off + N].try_into().unwrap()
    }
    fn i32(&self, off: usize) -> i32 {
        i32::from_le_bytes(self.get(off))
    }
    fn u32(&self, off: usize) -> u32 {
        u32::from_le_bytes(self.get(off))
    }
    fn u16(&self, off: usize) -> u16 {
        u16::from_le_bytes(self.get(off))
    }
    fn f32(&self, off: usize) -> f32 {
        f32::from_le_bytes(self.get(off))
    }
    fn u8(&self, off: usize) -> u8 {
        self.0[off]
    }
    fn set_i32(&mut self, off: usize, v: i32) -> &mut Self {
        self.0[off..off + 4].copy_from_slice(&v.to_le_bytes());
        self
    }
    fn set_u32(&mut self, off: usize, v: u32) -> &mut Self {
        self.0[off..off + 4].copy_from_slice(&v.to_le_bytes());
        self
    }
    fn set_u16(&mut self, off: usize, v: u16) -> &mut Self {
        self.0[off..off + 2].copy_from_slice(&v.to_le_bytes());
        self
    }
    fn set_f32(&mut self, off: usize, v: f32) -> &mut Self {
        self.0[off..off + 4].copy_from_slice(&v.to_le_bytes());
        self
    }
    fn set_u8(&mut self, off: usize, v: u8) -> &mut Self {
        self.0[off] = v;
        self
    }
    fn count(&self, field: usize) -> usize {
        usize::try_from(self.i32(field)).unwrap()
    }

    /// Where each section starts, and (last) where the data ends, from the header counts.
    fn starts(&self) -> [usize; 9] {
        let mut s = [hd::SIZE; 9];
        for (k, (field, elem)) in SECTIONS.iter().enumerate() {
            // Every element size is a multiple of 4, so dtAlign4 changes nothing.
            s[k + 1] = s[k] + self.count(*field) * elem;
        }
        s
    }
    fn section(&self, k: usize) -> usize {
        self.starts()[k]
    }
    fn poly(&self, i: usize) -> usize {
        self.section(POLYS) + i * po::SIZE
    }
    fn detail(&self, i: usize) -> usize {
        self.section(DETAIL_MESHES) + i * pd::SIZE
    }
    fn tri(&self, t: usize) -> usize {
        self.section(DETAIL_TRIS) + 4 * t
    }
    fn node(&self, k: usize) -> usize {
        self.section(BV_TREE) + k * bv::SIZE
    }
    fn con(&self, c: usize) -> usize {
        self.section(OFF_MESH_CONS) + c * om::SIZE
    }
    fn ground(&self) -> usize {
        self.count(hd::OFF_MESH_BASE)
    }
    fn ground_verts(&self) -> usize {
        self.count(hd::VERT_COUNT) - 2 * self.count(hd::OFF_MESH_CON_COUNT)
    }
    fn poly_nv(&self, i: usize) -> usize {
        usize::from(self.u8(self.poly(i) + po::VERT_COUNT))
    }
    fn vertex(&self, v: usize) -> Vec3 {
        let o = self.section(VERTS) + 12 * v;
        Vec3::new(self.f32(o), self.f32(o + 4), self.f32(o + 8))
    }
    fn centroid(&self, i: usize) -> Vec3 {
        let nv = self.poly_nv(i);
        let sum: Vec3 = (0..nv)
            .map(|j| self.vertex(usize::from(self.u16(self.poly(i) + po::VERTS + 2 * j))))
            .sum();
        sum / nv as f32
    }
    /// Ground polygon edges, portal edges: what `maxLinkCount` must cover besides connections.
    fn edges_and_portals(&self) -> (usize, usize) {
        let (mut edges, mut portals) = (0, 0);
        for i in 0..self.ground() {
            for j in 0..self.poly_nv(i) {
                edges += 1;
                if self.u16(self.poly(i) + po::NEIS + 2 * j) & EXT_LINK != 0 {
                    portals += 1;
                }
            }
        }
        (edges, portals)
    }
    /// The links dtCreateNavMeshData reserves at least (each connection's start is in the tile).
    fn links_needed(&self) -> usize {
        let (edges, portals) = self.edges_and_portals();
        edges + 2 * portals + 2 * self.count(hd::OFF_MESH_CON_COUNT)
    }
    /// Changes a section's header count and inserts or removes whole elements at the end of
    /// the section, so that the layout stays consistent with the data size.
    fn resize(&mut self, k: usize, n: usize) -> &mut Self {
        let (field, elem) = SECTIONS[k];
        let end = self.section(k + 1);
        let old = self.count(field);
        if n < old {
            self.0.drain(end - (old - n) * elem..end);
        } else {
            let fill = vec![0u8; (n - old) * elem];
            self.0.splice(end..end, fill);
        }
        self.set_i32(field, i32::try_from(n).unwrap())
    }
}

#[test]
fn layout_constants_match_the_bindings() {
    use recastnavigation_sys::{dtBVNode, dtLink, dtMeshHeader, dtOffMeshConnection, dtPoly};
    use recastnavigation_sys::{dtPolyDetail, dtPolyRef};
    use std::mem::{offset_of, size_of};
    assert_eq!(size_of::<dtPolyRef>(), RefWidth::NATIVE.bytes());
    assert_eq!(size_of::<dtMeshHeader>(), hd::SIZE);
    assert_eq!(offset_of!(dtMeshHeader, polyCount), hd::POLY_COUNT);
    assert_eq!(offset_of!(dtMeshHeader, maxLinkCount), hd::MAX_LINK_COUNT);
    assert_eq!(offset_of!(dtMeshHeader, offMeshBase), hd::OFF_MESH_BASE);
    assert_eq!(offset_of!(dtMeshHeader, walkableClimb), hd::WALKABLE_CLIMB);
    assert_eq!(offset_of!(dtMeshHeader, bmin), hd::BMIN);
    assert_eq!(offset_of!(dtMeshHeader, bmax), hd::BMAX);
    assert_eq!(offset_of!(dtMeshHeader, bvQuantFactor), hd::BV_QUANT_FACTOR);
    assert_eq!(size_of::<dtPoly>(), po::SIZE);
    assert_eq!(offset_of!(dtPoly, verts), po::VERTS);
    assert_eq!(offset_of!(dtPoly, neis), po::NEIS);
    assert_eq!(offset_of!(dtPoly, vertCount), po::VERT_COUNT);
    assert_eq!(offset_of!(dtPoly, areaAndtype), po::AREA_AND_TYPE);
    assert_eq!(size_of::<dtLink>(), LINK_SIZE);
    assert_eq!(size_of::<dtPolyDetail>(), pd::SIZE);
    assert_eq!(offset_of!(dtPolyDetail, triBase), pd::TRI_BASE);
    assert_eq!(offset_of!(dtPolyDetail, triCount), pd::TRI_COUNT);
    assert_eq!(size_of::<dtBVNode>(), bv::SIZE);
    assert_eq!(offset_of!(dtBVNode, bmax), bv::BMAX);
    assert_eq!(offset_of!(dtBVNode, i), bv::I);
    assert_eq!(size_of::<dtOffMeshConnection>(), om::SIZE);
    assert_eq!(offset_of!(dtOffMeshConnection, poly), om::POLY);
    assert_eq!(offset_of!(dtOffMeshConnection, side), om::SIDE);
}

// ---------------------------------------------------------------------------------------
// The real tile and its navmesh.

struct Fixture {
    /// The tiled dungeon navmesh, as read back from the MSET file navkit writes.
    set: NavMeshSet,
    /// The tile holding the off-mesh connection.
    target: usize,
    /// The navmesh without the target tile, as an MSET file.
    without_target: Vec<u8>,
}

impl Fixture {
    fn tile(&self) -> Tile {
        Tile(self.set.tiles[self.target].data.clone())
    }

    /// The MSET file with the target tile's data replaced, and where that data starts.
    fn mset_with(&self, data: &[u8]) -> (Vec<u8>, usize) {
        let mut set = self.set.clone();
        set.tiles[self.target].data = data.to_vec();
        let record = navkit::navmesh::mset::tile_record_size(set.ref_width);
        let before: usize = set.tiles[..self.target]
            .iter()
            .map(|t| record + t.data.len())
            .sum();
        (write_mset(&set), 40 + before + record)
    }
}

fn tiled(geom: InputGeometry) -> NavMeshSet {
    let nav = NavMeshBuilder::new(&geom)
        .settings(BuildSettings::default())
        .threads(1)
        .tiled()
        .unwrap();
    read_mset(&nav.navmesh().to_mset_bytes()).unwrap()
}

/// dungeon.obj built tiled, with one off-mesh connection between two polygons of its fullest
/// tile (their centroids), so that one tile has every section: portals, detail meshes, a BV
/// tree and an off-mesh connection.
fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let mut geom = InputGeometry::load(common::mesh("dungeon.obj")).unwrap();
        let plain = tiled(geom.clone());
        let fullest = plain
            .tiles
            .iter()
            .map(|t| Tile(t.data.clone()))
            .max_by_key(|t| t.count(hd::POLY_COUNT))
            .unwrap();
        geom.off_mesh_connections.push(OffMeshConnection {
            start: fullest.centroid(0),
            end: fullest.centroid(fullest.ground() - 1),
            radius: 0.6,
            bidirectional: true,
            area: area::JUMP,
            flags: flags::JUMP,
            user_id: 1000,
        });
        let set = tiled(geom);
        let target = set
            .tiles
            .iter()
            .position(|t| Tile(t.data.clone()).count(hd::OFF_MESH_CON_COUNT) == 1)
            .expect("a tile with the off-mesh connection");
        let mut without = set.clone();
        without.tiles.remove(target);
        Fixture {
            without_target: write_mset(&without),
            set,
            target,
        }
    })
}

// ---------------------------------------------------------------------------------------
// Every entry point must refuse.

static FILES: AtomicUsize = AtomicUsize::new(0);

fn expect_refusal<T>(
    entry: &str,
    r: navkit::Result<T>,
    at: usize,
    needle: &str,
    file: Option<&Path>,
) {
    match r {
        Err(Error::NavMeshData {
            path,
            offset,
            message,
        }) => {
            assert!(
                message.contains(needle),
                "{entry}: message should name {needle:?}: {message}"
            );
            assert_eq!(offset, at, "{entry}: offset of {message}");
            assert_eq!(path.as_deref(), file, "{entry}: file of {message}");
        }
        Err(e) => panic!("{entry}: refused with the wrong kind of error: {e:?}"),
        Ok(_) => panic!("{entry}: accepted a crafted tile (expected {needle:?} at byte {at})"),
    }
}

/// `data` must be refused by every entry point with `Error::NavMeshData` at byte `at` of the
/// tile (byte `start + at` of an MSET file whose tile data starts at `start`), with a message
/// containing `needle`.
fn refused(data: &[u8], at: usize, needle: &str) {
    let f = fixture();
    expect_refusal(
        "validate_tile_data",
        validate_tile_data(data),
        at,
        needle,
        None,
    );
    expect_refusal(
        "NavMesh::from_tile_data",
        NavMesh::from_tile_data(data),
        at,
        needle,
        None,
    );
    // Beside the real neighbours, where addTile would link it to them; the refusal leaves
    // the navmesh as it was, so the real tile still goes in.
    let mut nav = NavMesh::from_mset_bytes(&f.without_target).unwrap();
    let tiles = nav.tile_count();
    expect_refusal("NavMesh::add_tile", nav.add_tile(data), at, needle, None);
    assert_eq!(nav.tile_count(), tiles);
    nav.add_tile(&f.set.tiles[f.target].data).unwrap();
    assert_eq!(nav.tile_count(), tiles + 1);

    if data.is_empty() {
        // An MSET tile record of size 0 is RecastDemo's end marker, refused as such.
        return;
    }
    let (file, start) = f.mset_with(data);
    expect_refusal("read_mset", read_mset(&file), start + at, needle, None);
    expect_refusal(
        "NavMesh::from_mset_bytes",
        NavMesh::from_mset_bytes(&file),
        start + at,
        needle,
        None,
    );
    let path = common::temp(&format!(
        "upstream-tile-{}.bin",
        FILES.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, &file).unwrap();
    expect_refusal(
        "NavMesh::load",
        NavMesh::load(&path),
        start + at,
        needle,
        Some(&path),
    );
    std::fs::remove_file(&path).unwrap();
}

/// The tile with `edit` applied must be refused everywhere at `at` (computed on the original
/// tile) with `needle`.
fn refused_after(edit: impl FnOnce(&mut Tile), at: usize, needle: &str) {
    let mut t = fixture().tile();
    edit(&mut t);
    refused(&t.0, at, needle);
}

#[test]
fn the_real_tile_loads_everywhere() {
    let f = fixture();
    let t = f.tile();
    let s = t.starts();
    assert_eq!(s[8], t.0.len(), "layout from the header counts");
    assert_eq!(t.count(hd::OFF_MESH_CON_COUNT), 1);
    assert_eq!(t.ground(), t.count(hd::POLY_COUNT) - 1);
    assert!(t.count(hd::BV_NODE_COUNT) > 0);
    assert!(t.count(hd::DETAIL_VERT_COUNT) > 0);
    assert!(t.edges_and_portals().1 > 0, "the tile has portals");
    assert!(t.count(hd::MAX_LINK_COUNT) >= t.links_needed());

    let info = validate_tile_data(&t.0).unwrap();
    assert_eq!(info.off_mesh_con_count, 1);
    assert_eq!(info.poly_count, t.count(hd::POLY_COUNT));
    let solo = NavMesh::from_tile_data(&t.0).unwrap();
    assert_eq!(solo.tile_count(), 1);
    assert_eq!(solo.polys().iter().filter(|p| p.off_mesh).count(), 1);
    let mut nav = NavMesh::from_mset_bytes(&f.without_target).unwrap();
    nav.add_tile(&t.0).unwrap();
    assert_eq!(nav.tile_count(), f.set.tiles.len());
    let (file, _) = f.mset_with(&t.0);
    assert_eq!(read_mset(&file).unwrap(), f.set);
    let nav = NavMesh::from_mset_bytes(&file).unwrap();
    assert_eq!(nav.tile_count(), f.set.tiles.len());
}

/// The new `maxLinkCount` rule, and everything else, on tiles upstream's own
/// dtCreateNavMeshData wrote: RecastDemo's dungeon MSET file. It was written with 64-bit poly
/// refs (16-byte tile records in the file, 16-byte `dtLink`s in the tiles); with each links
/// section re-sized to this build's links (contents do not matter: addTile rebuilds them; the
/// same as navkit's conversion, `convert_tile_data`, does) every tile must pass, its links
/// covering what it needs.
#[test]
fn recastdemo_tiles_pass_with_this_builds_links() {
    const LINK64_SIZE: usize = 16;
    let path = common::shared().join("meshes/recastdemo-files/dungeon_all_tiles_navmesh.bin");
    let file = std::fs::read(path).unwrap();
    let num_tiles = i32::from_le_bytes(file[8..12].try_into().unwrap());
    assert_eq!(num_tiles, 41);
    let mut pos = 40;
    for k in 0..num_tiles {
        let size = i32::from_le_bytes(file[pos + 8..pos + 12].try_into().unwrap()) as usize;
        // The record is a `{ dtTileRef tileRef; int dataSize; }`, padded to 16 bytes.
        let data = &file[pos + 16..pos + 16 + size];
        pos += 16 + size;
        let t = Tile(data.to_vec());
        let links = t.section(LINKS);
        let n = t.count(hd::MAX_LINK_COUNT);
        let mut d = data[..links].to_vec();
        d.resize(links + n * LINK_SIZE, 0);
        d.extend_from_slice(&data[links + n * LINK64_SIZE..]);
        let t = Tile(d);
        assert_eq!(t.starts()[8], t.0.len(), "tile {k}");
        // No off-mesh connections here: exactly one link per edge and two more per portal.
        assert_eq!(t.count(hd::OFF_MESH_CON_COUNT), 0);
        assert_eq!(n, t.links_needed(), "tile {k}");
        let info = validate_tile_data(&t.0).unwrap_or_else(|e| panic!("tile {k}: {e}"));
        assert_eq!(info.max_link_count, n);
        NavMesh::from_tile_data(&t.0).unwrap();
    }
    assert_eq!(pos, file.len());
}

// ---------------------------------------------------------------------------------------
// One test per upstream report.

/// #829: data shorter than the header. Detour reads `magic` (and then the rest of the header)
/// before looking at the size, so a 1-byte input is read 3 bytes past its end.
#[test]
fn upstream_829_short_input_before_magic() {
    let t = fixture().tile();
    validate_tile_data(&[]).unwrap_err();
    refused(&[], 0, "shorter than the 100-byte dtMeshHeader");
    refused(b"D", 1, "shorter than the 100-byte dtMeshHeader");
    for len in [1, 2, 3, 4, 8, 56, 99] {
        refused(&t.0[..len], len, "shorter than the 100-byte dtMeshHeader");
    }
    // The magic and version themselves, on data of the right size.
    refused_after(
        |t| {
            t.set_u32(hd::MAGIC, 0x44);
        },
        hd::MAGIC,
        "tile magic is 0x00000044",
    );
    refused_after(
        |t| {
            t.set_i32(hd::VERSION, 6);
        },
        hd::VERSION,
        "tile version is 6",
    );
    // A complete header with nothing after it: every section runs past the end.
    refused(&t.0[..hd::SIZE], hd::SIZE, "verts section (vertCount");
    // One byte short: the last section.
    let n = t.0.len();
    refused(
        &t.0[..n - 1],
        t.section(OFF_MESH_CONS),
        "offMeshCons section (offMeshConCount 1",
    );
}

/// #830: `maxLinkCount` sizes the links section Detour builds its free list in, and is
/// trusted: a larger count than the data holds writes past the tile; a count smaller than the
/// links the polygons need (the data shrunk to match, so the size adds up) leaves Detour short
/// of links; zero makes it write `links[-1]`.
#[test]
fn upstream_830_max_link_count() {
    let t = fixture().tile();
    let links = t.section(LINKS);
    let have = t.count(hd::MAX_LINK_COUNT);
    refused_after(
        |t| {
            t.set_i32(hd::MAX_LINK_COUNT, (have + 100_000) as i32);
        },
        links,
        "links section (maxLinkCount",
    );
    refused_after(
        |t| {
            t.set_i32(hd::MAX_LINK_COUNT, i32::MAX);
        },
        links,
        "links section (maxLinkCount 2147483647",
    );
    refused_after(
        |t| {
            t.resize(LINKS, 0);
        },
        hd::MAX_LINK_COUNT,
        "maxLinkCount is 0",
    );
    let need = t.links_needed();
    for n in [1, need / 2, need - 1] {
        refused_after(
            |t| {
                t.resize(LINKS, n);
            },
            hd::MAX_LINK_COUNT,
            &format!("maxLinkCount is {n}, fewer than the {need} links"),
        );
    }
    // Exactly the links needed is a valid tile.
    let mut exact = t.clone();
    exact.resize(LINKS, need);
    assert_eq!(validate_tile_data(&exact.0).unwrap().max_link_count, need);
}

/// #831: an off-mesh connection's `poly` index is used to find its polygon when the tile is
/// added (`&polys[con->poly]`), unchecked against `polyCount`. It must name exactly the
/// connection's own off-mesh polygon: not one past the end, not a ground polygon.
#[test]
fn upstream_831_off_mesh_poly_index() {
    let t = fixture().tile();
    let at = t.con(0) + om::POLY;
    let poly_count = t.count(hd::POLY_COUNT) as u16;
    let ground = t.ground() as u16;
    for bad in [poly_count, poly_count + 1, 0xffff, 0, ground - 1] {
        refused_after(
            |t| {
                t.set_u16(at, bad);
            },
            at,
            &format!("off-mesh connection 0 poly index {bad}, expected offMeshBase"),
        );
    }
    // The connection names its poly, but that poly is a ground poly.
    let p = t.poly(t.ground()) + po::AREA_AND_TYPE;
    refused_after(
        |t| {
            let v = t.u8(p) & 0x3f;
            t.set_u8(p, v);
        },
        p,
        "has type 0, expected 1",
    );
    // The header says there are no off-mesh polys, yet has a connection.
    refused_after(
        |t| {
            t.set_i32(hd::OFF_MESH_BASE, i32::from(poly_count));
        },
        hd::OFF_MESH_CON_COUNT,
        "offMeshConCount is 1, but polyCount",
    );
}

/// #832: out-of-range indices in the tile become out-of-bounds pointers that Detour's vector
/// math reads (`dtVsub`, `dtVcopy`, `dtOverlapQuantBounds`, `dtDistancePtSegSqr2D`): polygon
/// vertex indices, detail sub-mesh ranges and triangle indices, BV tree node indices. Also the
/// values that math reads: non-finite or absurd coordinates.
#[test]
fn upstream_832_out_of_bounds_pointers_into_vector_math() {
    let t = fixture().tile();
    let vert_count = t.count(hd::VERT_COUNT);
    let gv = t.ground_verts();

    // Polygon vertex indices: past the end, and (below vertCount, passing a naive check) at
    // the off-mesh connection's end points.
    let at = t.poly(0) + po::VERTS;
    for bad in [vert_count, gv, 0xffff] {
        refused_after(
            |t| {
                t.set_u16(at, bad as u16);
            },
            at,
            &format!("poly 0 vertex 0 index {bad} >= {gv}"),
        );
    }

    // Detail meshes: find one with its own vertices.
    let i = (0..t.ground())
        .find(|&i| t.u8(t.detail(i) + pd::VERT_COUNT) > 0)
        .expect("a detail mesh with extra vertices");
    let d = t.detail(i);
    let dv = usize::from(t.u8(d + pd::VERT_COUNT));
    let dt = usize::from(t.u8(d + pd::TRI_COUNT));
    let dvc = t.count(hd::DETAIL_VERT_COUNT);
    let dtc = t.count(hd::DETAIL_TRI_COUNT);
    // vertBase one too far, and so far that vertBase + vertCount wraps 32 bits.
    for bad in [(dvc - dv + 1) as u32, u32::MAX] {
        refused_after(
            |t| {
                t.set_u32(d + pd::VERT_BASE, bad);
            },
            d + pd::VERT_BASE,
            &format!("detail mesh {i} vertices {bad}.."),
        );
    }
    for bad in [(dtc - dt + 1) as u32, u32::MAX] {
        refused_after(
            |t| {
                t.set_u32(d + pd::TRI_BASE, bad);
            },
            d + pd::TRI_BASE,
            &format!("detail mesh {i} triangles {bad}.."),
        );
    }
    // A triangle index past the polygon's vertices plus the detail vertices.
    let tri = t.tri(t.u32(d + pd::TRI_BASE) as usize);
    let limit = t.poly_nv(i) + dv;
    for bad in [limit, 0xff] {
        refused_after(
            |t| {
                t.set_u8(tri + 1, bad as u8);
            },
            tri + 1,
            &format!("vertex 1 index {bad} >= {limit}"),
        );
    }

    // BV tree: a leaf naming a poly past the ground polys, an escape jumping past the tree,
    // and inverted bounds.
    let nodes = t.count(hd::BV_NODE_COUNT);
    let ground = t.ground();
    let leaf = (0..nodes).find(|&k| t.i32(t.node(k) + bv::I) >= 0).unwrap();
    let at = t.node(leaf) + bv::I;
    for bad in [ground as i32, i32::MAX] {
        refused_after(
            |t| {
                t.set_i32(at, bad);
            },
            at,
            &format!("BV node {leaf} is a leaf for poly {bad} >= ground poly count {ground}"),
        );
    }
    let inner = (0..nodes).find(|&k| t.i32(t.node(k) + bv::I) < 0).unwrap();
    let at = t.node(inner) + bv::I;
    for bad in [-((nodes - inner + 1) as i32), i32::MIN] {
        refused_after(
            |t| {
                t.set_i32(at, bad);
            },
            at,
            &format!("BV node {inner} escape index {bad}"),
        );
    }
    let at = t.node(0) + bv::BMAX;
    refused_after(
        |t| {
            let lo = t.u16(t.node(0) + bv::BMIN);
            t.set_u16(t.node(0) + bv::BMIN, lo.max(1));
            t.set_u16(t.node(0) + bv::BMAX, lo.max(1) - 1);
        },
        at,
        "BV node 0 bmax[0]",
    );

    // Coordinates: vertices, detail vertices and off-mesh end points.
    let v = t.section(VERTS);
    for (bad, what) in [
        (f32::NAN, "not finite"),
        (f32::INFINITY, "not finite"),
        (1.0e20, "beyond"),
    ] {
        refused_after(
            |t| {
                t.set_f32(v, bad);
            },
            v,
            &format!("vertex 0[0] is {bad}, {what}"),
        );
    }
    let dv0 = t.section(DETAIL_VERTS) + 4;
    refused_after(
        |t| {
            t.set_f32(dv0, f32::NEG_INFINITY);
        },
        dv0,
        "detail vertex 0[1] is -inf, not finite",
    );
    let end = t.con(0) + om::POS + 12 + 8;
    refused_after(
        |t| {
            t.set_f32(end, f32::NAN);
        },
        end,
        "off-mesh connection 0 end point 1[2] is NaN",
    );
}

/// #833: when a tile is added, the off-mesh connections of its neighbours (and its own) are
/// linked by their `poly` index (`&target->polys[targetCon->poly]`), unchecked. A tile whose
/// connection has an extreme poly index, or whose off-mesh poly does not use its own vertices,
/// must never reach its neighbours.
#[test]
fn upstream_833_neighbour_off_mesh_poly() {
    let t = fixture().tile();
    let at = t.con(0) + om::POLY;
    for bad in [0x7fff_u16, 0x8000, 0xfffe] {
        refused_after(
            |t| {
                t.set_u16(at, bad);
            },
            at,
            &format!("off-mesh connection 0 poly index {bad}"),
        );
    }
    // The off-mesh poly's end vertex is a ground vertex instead of its own.
    let p = t.poly(t.ground());
    let own = t.ground_verts() + 1;
    refused_after(
        |t| {
            t.set_u16(p + po::VERTS + 2, 0);
        },
        p + po::VERTS + 2,
        &format!("vertex 1 index 0, expected its own vertex {own}"),
    );
    // A side code that is no direction.
    refused_after(
        |t| {
            t.set_u8(t.con(0) + om::SIDE, 8);
        },
        t.con(0) + om::SIDE,
        "off-mesh connection 0 side 8",
    );
    // The off-mesh poly claims neighbours.
    refused_after(
        |t| {
            t.set_u16(p + po::NEIS, 1);
        },
        p + po::NEIS,
        "edge 0 has neighbour 0x0001, must be 0",
    );
}

/// #834: a detail sub-mesh without triangles, or without a triangle edge flagged as a
/// polygon boundary, leaves Detour's closest-point-on-detail-edges search with null vertex
/// pointers (`dtVlerp` on null); counts that do not match the polygons misplace the detail
/// arrays.
#[test]
fn upstream_834_null_detail_vertices() {
    let t = fixture().tile();
    let d = t.detail(0);
    refused_after(
        |t| {
            t.set_u8(d + pd::TRI_COUNT, 0);
        },
        d + pd::TRI_COUNT,
        "detail mesh 0 has no triangles",
    );
    refused_after(
        |t| {
            let base = t.u32(d + pd::TRI_BASE) as usize;
            for k in 0..usize::from(t.u8(d + pd::TRI_COUNT)) {
                let f = t.tri(base + k) + 3;
                let v = t.u8(f) & !ANY_BOUNDARY_EDGE;
                t.set_u8(f, v);
            }
        },
        d + pd::TRI_BASE,
        "detail mesh 0 has no triangle edge flagged DT_DETAIL_EDGE_BOUNDARY",
    );
    // One detail mesh fewer than ground polys, the data shrunk to match.
    let ground = t.ground();
    refused_after(
        |t| {
            t.resize(DETAIL_MESHES, ground - 1);
        },
        hd::DETAIL_MESH_COUNT,
        &format!(
            "detailMeshCount is {}, must equal the number of ground polys",
            ground - 1
        ),
    );
    refused_after(
        |t| {
            t.set_i32(
                hd::DETAIL_VERT_COUNT,
                t.i32(hd::DETAIL_VERT_COUNT) + 100_000,
            );
        },
        t.section(DETAIL_VERTS),
        "detailVerts section (detailVertCount",
    );
}

/// #835: `dtPoly::vertCount` bounds the loops over a polygon's `verts` and `neis`
/// (`connectIntLinks` and everything after it); a count beyond `DT_VERTS_PER_POLYGON` reads
/// past the polygon, and neighbour codes index the polygon array.
#[test]
fn upstream_835_poly_vert_count() {
    let t = fixture().tile();
    let at = t.poly(0) + po::VERT_COUNT;
    for bad in [7u8, 0xff, 2, 0] {
        refused_after(
            |t| {
                t.set_u8(at, bad);
            },
            at,
            &format!("ground poly 0 has vertCount {bad}, must be in 3..=6"),
        );
    }
    let om_poly = t.ground();
    let at = t.poly(om_poly) + po::VERT_COUNT;
    refused_after(
        |t| {
            t.set_u8(at, 6);
        },
        at,
        &format!("off-mesh poly {om_poly} has vertCount 6, must be 2"),
    );

    // Neighbours: find a ground poly edge with an internal neighbour.
    let ground = t.ground();
    let (i, j, b) = (0..ground)
        .flat_map(|i| (0..t.poly_nv(i)).map(move |j| (i, j)))
        .find_map(|(i, j)| {
            let n = t.u16(t.poly(i) + po::NEIS + 2 * j);
            (n != 0 && n & EXT_LINK == 0).then(|| (i, j, usize::from(n) - 1))
        })
        .expect("an internal neighbour");
    let at = t.poly(i) + po::NEIS + 2 * j;
    // Past the ground polys (the first off-mesh poly), and far past every poly.
    for bad in [ground + 1, 0x7fff] {
        refused_after(
            |t| {
                t.set_u16(at, bad as u16);
            },
            at,
            &format!(
                "poly {i} edge {j} neighbour index {} >= ground poly count {ground}",
                bad - 1
            ),
        );
    }
    refused_after(
        |t| {
            t.set_u16(at, (i + 1) as u16);
        },
        at,
        &format!("poly {i} edge {j} is its own neighbour"),
    );
    // Another ground poly, which does not link back.
    let c = (0..ground).find(|&c| c != i && c != b).unwrap();
    refused_after(
        |t| {
            t.set_u16(at, (c + 1) as u16);
        },
        at,
        &format!("has neighbour poly {c}, but poly {c} has no edge"),
    );
    refused_after(
        |t| {
            t.set_u16(at, EXT_LINK | 1);
        },
        at,
        "an external link must be DT_EXT_LINK | side with side 0, 2, 4 or 6",
    );
}

/// #836: the polygon array's place in the tile comes from counts nobody checked, so a
/// crafted header leaves Detour's `polys` pointer outside the data (or null) and the first
/// `poly->getType()` faults.
#[test]
fn upstream_836_polys_outside_the_data() {
    let t = fixture().tile();
    let polys = t.section(POLYS);
    refused_after(
        |t| {
            t.set_i32(hd::POLY_COUNT, i32::MAX);
        },
        polys,
        "polys section (polyCount 2147483647",
    );
    refused_after(
        |t| {
            t.set_i32(hd::POLY_COUNT, -1);
        },
        hd::POLY_COUNT,
        "tile polyCount is -1, must be >= 0",
    );
    // A vertex count so large the polys start far past the data.
    refused_after(
        |t| {
            t.set_i32(hd::VERT_COUNT, 1 << 28);
        },
        t.section(VERTS),
        "verts section (vertCount 268435456",
    );
    let poly_count = t.count(hd::POLY_COUNT);
    for bad in [0, poly_count as i32 + 1] {
        refused_after(
            |t| {
                t.set_i32(hd::OFF_MESH_BASE, bad);
            },
            hd::OFF_MESH_BASE,
            &format!("tile offMeshBase is {bad}, must be in 1..=polyCount ({poly_count})"),
        );
    }
}

/// #837: the BV tree query quantises `bvQuantFactor * (point - bmin)` to `unsigned short`;
/// both come from the header, and a product out of range (or NaN) is undefined behaviour.
#[test]
fn upstream_837_bv_quant_factor() {
    let t = fixture().tile();
    for (bad, needle) in [
        (f32::NAN, "bvQuantFactor is NaN"),
        (f32::INFINITY, "bvQuantFactor is inf"),
        (0.0, "bvQuantFactor is 0"),
        (-1.0, "bvQuantFactor is -1"),
        (1.0e30, "does not fit the 16-bit BV tree coordinates"),
    ] {
        refused_after(
            |t| {
                t.set_f32(hd::BV_QUANT_FACTOR, bad);
            },
            hd::BV_QUANT_FACTOR,
            needle,
        );
    }
    // Just too big for the tile's widest extent.
    let extent = (0..3)
        .map(|a| t.f32(hd::BMAX + 4 * a) - t.f32(hd::BMIN + 4 * a))
        .fold(0.0f32, f32::max);
    refused_after(
        |t| {
            t.set_f32(hd::BV_QUANT_FACTOR, 65536.0 / extent);
        },
        hd::BV_QUANT_FACTOR,
        "does not fit the 16-bit BV tree coordinates",
    );
    // The bounds the factor multiplies.
    for (off, bad, name) in [
        (hd::BMIN, f32::NAN, "tile bmin[0]"),
        (hd::BMIN, -1.16057e28, "tile bmin[0]"),
        (hd::BMAX + 8, f32::INFINITY, "tile bmax[2]"),
        (hd::WALKABLE_CLIMB, f32::NAN, "tile walkableClimb"),
    ] {
        refused_after(
            |t| {
                t.set_f32(off, bad);
            },
            off,
            &format!("{name} is {bad}, "),
        );
    }
    refused_after(
        |t| {
            let hi = t.f32(hd::BMAX + 4);
            t.set_f32(hd::BMIN + 4, hi + 1.0);
        },
        hd::BMAX + 4,
        "tile bmax[1]",
    );
}

/// #838: signed `int` arithmetic on header fields overflows: `maxLinkCount - 1` at
/// `INT_MIN`, and the neighbour tile coordinates `x +- 1`, `y +- 1` at the extremes.
#[test]
fn upstream_838_signed_overflow() {
    refused_after(
        |t| {
            t.set_u32(hd::MAX_LINK_COUNT, 0x8000_0000);
        },
        hd::MAX_LINK_COUNT,
        "tile maxLinkCount is -2147483648, must be >= 0",
    );
    for (off, name) in [(hd::X, "x"), (hd::Y, "y")] {
        for bad in [i32::MIN, i32::MAX] {
            refused_after(
                |t| {
                    t.set_i32(off, bad);
                },
                off,
                &format!("tile {name} is {bad}; neighbour lookups would overflow"),
            );
        }
    }
    refused_after(
        |t| {
            t.set_i32(hd::LAYER, -1);
        },
        hd::LAYER,
        "tile layer is -1, must be >= 0",
    );
    for (off, name) in [
        (hd::POLY_COUNT, "polyCount"),
        (hd::VERT_COUNT, "vertCount"),
        (hd::DETAIL_MESH_COUNT, "detailMeshCount"),
        (hd::DETAIL_VERT_COUNT, "detailVertCount"),
        (hd::DETAIL_TRI_COUNT, "detailTriCount"),
        (hd::BV_NODE_COUNT, "bvNodeCount"),
        (hd::OFF_MESH_CON_COUNT, "offMeshConCount"),
        (hd::OFF_MESH_BASE, "offMeshBase"),
    ] {
        refused_after(
            |t| {
                t.set_i32(off, i32::MIN);
            },
            off,
            &format!("tile {name} is -2147483648, must be >= 0"),
        );
    }
}

/// #839: Detour advances its pointer over the sections by sizes computed from the counts and
/// never compares them with the data size, so an extreme count moves the pointer anywhere
/// (or wraps it). The crafted counts here make every section size, computed in 32 bits, come
/// out exactly as in the real tile: the layout adds up only after wrap-around.
#[test]
fn upstream_839_section_size_overflow() {
    let t = fixture().tile();
    // The reported field: bvNodeCount at its maximum.
    refused_after(
        |t| {
            t.set_i32(hd::BV_NODE_COUNT, i32::MAX);
        },
        t.section(BV_TREE),
        "bvTree section (bvNodeCount 2147483647",
    );
    /// The data size the header counts give when each size and the running total are
    /// computed in 32 bits.
    fn wrapped_end(t: &Tile) -> u32 {
        SECTIONS.iter().fold(hd::SIZE as u32, |at, (field, elem)| {
            at.wrapping_add((t.i32(*field) as u32).wrapping_mul(*elem as u32))
        })
    }
    assert_eq!(wrapped_end(&t) as usize, t.0.len());
    let names = [
        "verts section (vertCount",
        "polys section (polyCount",
        "links section (maxLinkCount",
        "detailMeshes section (detailMeshCount",
        "detailVerts section (detailVertCount",
        "detailTris section (detailTriCount",
        "bvTree section (bvNodeCount",
        "offMeshCons section (offMeshConCount",
    ];
    for (k, (field, elem)) in SECTIONS.iter().enumerate() {
        // The smallest k with elem * k a multiple of 2^32.
        let add = (1u64 << 32) / gcd(*elem as u64, 1 << 32);
        let mut c = t.clone();
        let n = t.i32(*field) as i64 + add as i64;
        c.set_i32(*field, i32::try_from(n).unwrap());
        assert_eq!(wrapped_end(&c) as usize, t.0.len(), "{}", names[k]);
        refused(&c.0, t.section(k), &format!("{} {n}", names[k]));
    }
    // Three sections, each under 2 GiB (no single size overflows an int), whose sizes add up
    // to exactly 4 GiB.
    let mut c = t.clone();
    for (field, add) in [
        (hd::VERT_COUNT, 1 << 27),
        (hd::POLY_COUNT, 1 << 25),
        (hd::BV_NODE_COUNT, 3 << 25),
    ] {
        c.set_i32(field, t.i32(field) + add);
    }
    assert_eq!(wrapped_end(&c) as usize, t.0.len());
    refused(&c.0, t.section(VERTS), "verts section (vertCount");
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { gcd(b, a % b) }
}
