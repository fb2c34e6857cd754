//! Shards of a tiled build, and their merge: a level's tiles cut into `N` parts built apart
//! (on other processes or machines), then put together into the navmesh one build makes, to
//! the byte.
//!
//! **Which tiles.** [`Shard`] `I/N` holds the tiles whose index in grid order `k` (row by row,
//! `k = z * tiles_x + x`) has `k * N / tiles == I`: runs of whole rows, so a shard's tiles are
//! near each other and its part of the level is small. Every tile is in exactly one shard.
//!
//! **Part files.** A shard's tiles are saved ([`TiledNavMesh::part_bytes`](super::TiledNavMesh))
//! as RecastDemo's `MSET` with the whole navmesh's parameters and that shard's tiles only (as
//! built, each with the tile ref of its grid slot), which RecastDemo loads, then a trailer it
//! ignores: `NKSHARD\0`, its format, the shard (`I`, `N`), the grid's size, the build's key (a
//! BLAKE3 hash of the geometry, settings and versions: [`build_key`]), the number of tiles and
//! a BLAKE3 hash of them, and a checksum of the trailer.
//!
//! **Merge.** [`merge_parts`] checks that the parts are of one build (the same key, grid and
//! parameters), that every shard is there once, that every tile is in its own shard's part and
//! in one only, and that each part holds the tiles its trailer counts and hashes; then it adds
//! the tiles in grid order, as a build does. Its [`Merged::data_hash`] equals the unsharded
//! build's [`TiledReport::data_hash`](super::TiledReport::data_hash).

use super::tile_key::versions;
use super::{TileGrid, data_hash};
use crate::geometry::InputGeometry;
use crate::navmesh::mset::{
    NavMeshParams, NavMeshSet, TileRecord, read_mset, validate_tile_data, write_mset,
};
use crate::navmesh::{NavMesh, TileCoord};
use crate::poly_ref::RefWidth;
use crate::settings::BuildSettings;
use crate::{Error, Result};

/// One of `count` shards of a tiled build (see the [module](self) docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Shard {
    /// Which shard, from 0.
    pub index: u32,
    /// How many shards.
    pub count: u32,
}

impl Shard {
    /// Shard `index` of `count`: an error unless `index < count`.
    pub fn new(index: u32, count: u32) -> Result<Shard> {
        if index >= count {
            return Err(Error::InvalidArgument(format!(
                "shard {index}/{count}: the index must be below the count (0 to {})",
                count.max(1) - 1
            )));
        }
        Ok(Shard { index, count })
    }

    /// The shard holding the tile at grid-order index `k` of `tiles`.
    fn of_index(k: usize, tiles: usize, count: u32) -> u32 {
        ((k as u128 * u128::from(count)) / tiles.max(1) as u128) as u32
    }

    /// The shard of `count` holding `tile` of `grid`.
    pub fn of(grid: &TileGrid, tile: TileCoord, count: u32) -> u32 {
        let k = tile.z as usize * grid.tiles_x as usize + tile.x as usize;
        Self::of_index(k, grid.tile_count(), count)
    }

    /// This shard's tiles of `grid`, in grid order.
    pub fn tiles(&self, grid: &TileGrid) -> Vec<TileCoord> {
        let n = grid.tile_count();
        grid.all_tiles()
            .into_iter()
            .enumerate()
            .filter(|&(k, _)| Self::of_index(k, n, self.count) == self.index)
            .map(|(_, t)| t)
            .collect()
    }
}

impl std::str::FromStr for Shard {
    type Err = Error;

    /// `I/N`, as `--shard` takes it.
    fn from_str(s: &str) -> Result<Shard> {
        let bad = || {
            Error::InvalidArgument(format!(
                "shard `{s}`: expected I/N with 0 <= I < N (for example 0/3)"
            ))
        };
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let i: u32 = i.trim().parse().map_err(|_| bad())?;
        let n: u32 = n.trim().parse().map_err(|_| bad())?;
        Shard::new(i, n)
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The key of a whole build: BLAKE3 over navkit's and Recast's versions, the settings and the
/// geometry (vertices, triangles, areas, volumes, links). Parts with the same key are of one
/// build.
pub fn build_key(geom: &InputGeometry, settings: &BuildSettings) -> [u8; 32] {
    let mut digest = MeshDigest::default();
    for c in geom.mesh.verts.chunks_exact(3) {
        digest.vertex([c[0], c[1], c[2]]);
    }
    for t in geom.mesh.tris.chunks_exact(3) {
        digest.triangle([t[0], t[1], t[2]]);
    }
    digest.key(geom, settings)
}

/// The hashes of a mesh's vertices and triangles, fed one at a time as a file is read (or from
/// a mesh in memory: [`build_key`]).
#[derive(Default)]
pub(crate) struct MeshDigest {
    verts: blake3::Hasher,
    tris: blake3::Hasher,
    /// Triangles fed.
    pub triangles: usize,
}

impl MeshDigest {
    pub(crate) fn vertex(&mut self, xyz: [f32; 3]) {
        for c in xyz {
            self.verts.update(&c.to_le_bytes());
        }
    }

    pub(crate) fn triangle(&mut self, tri: [i32; 3]) {
        for i in tri {
            self.tris.update(&i.to_le_bytes());
        }
        self.triangles += 1;
    }

    /// The build key of the mesh fed, with `geom`'s areas, volumes and links, and `settings`.
    pub(crate) fn key(&self, geom: &InputGeometry, settings: &BuildSettings) -> [u8; 32] {
        let mut h = blake3::Hasher::new();
        h.update(b"navkit build\0");
        versions(&mut h);
        let settings = format!("{settings:?}");
        h.update(&(settings.len() as u64).to_le_bytes());
        h.update(settings.as_bytes());
        h.update(self.verts.finalize().as_bytes());
        h.update(self.tris.finalize().as_bytes());
        match &geom.triangle_areas {
            Some(a) => h.update(blake3::hash(a).as_bytes()),
            None => h.update(&[0; 32]),
        };
        let rest = format!("{:?}{:?}", geom.convex_volumes, geom.off_mesh_connections);
        h.update(blake3::hash(rest.as_bytes()).as_bytes());
        *h.finalize().as_bytes()
    }
}

const TRAILER_MAGIC: &[u8; 8] = b"NKSHARD\0";
const TRAILER_FORMAT: u32 = 1;
/// magic, format, index, count, tiles_x, tiles_z, key, tile count, tiles hash, checksum.
const TRAILER_LEN: usize = 8 + 4 * 5 + 32 + 4 + 32 + 32;

/// What a part file says of itself (its trailer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartInfo {
    /// The shard.
    pub shard: Shard,
    /// The tile grid's size in tiles (x, z).
    pub grid_tiles: (i32, i32),
    /// The build's key ([`build_key`]).
    pub build_key: [u8; 32],
    /// Tiles in the part (positions with polygons).
    pub tiles: u32,
    /// BLAKE3 over the part's tiles (x, z, length, data each), in grid order.
    pub tiles_hash: [u8; 32],
}

/// BLAKE3 over `tiles` (x, z, length, data each), in the order given.
fn tiles_hash<'a>(tiles: impl IntoIterator<Item = (TileCoord, &'a [u8])>) -> [u8; 32] {
    let mut h = blake3::Hasher::new();
    for (t, d) in tiles {
        h.update(&t.x.to_le_bytes());
        h.update(&t.z.to_le_bytes());
        h.update(&(d.len() as u64).to_le_bytes());
        h.update(d);
    }
    *h.finalize().as_bytes()
}

/// A part file's bytes: `params`, the shard's `tiles` (as built, in grid order) with their
/// grid slots' tile refs, and the trailer.
pub(crate) fn write_part(
    params: &NavMeshParams,
    grid: &TileGrid,
    shard: Shard,
    key: [u8; 32],
    tiles: &[(TileCoord, &[u8])],
) -> Result<Vec<u8>> {
    let layout = params.ref_layout();
    let mut records = Vec::with_capacity(tiles.len());
    for &(t, d) in tiles {
        let slot = t.z as u32 * grid.tiles_x as u32 + t.x as u32;
        let tile_ref = layout.encode(1, slot, 0).ok_or_else(|| {
            Error::InvalidArgument(format!("tile slot {slot} does not fit the navmesh's refs"))
        })?;
        records.push(TileRecord {
            tile_ref,
            data: d.to_vec(),
        });
    }
    let mut out = write_mset(&NavMeshSet {
        params: *params,
        tiles: records,
        ref_width: RefWidth::NATIVE,
    });
    let start = out.len();
    out.extend_from_slice(TRAILER_MAGIC);
    for v in [TRAILER_FORMAT, shard.index, shard.count] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&grid.tiles_x.to_le_bytes());
    out.extend_from_slice(&grid.tiles_z.to_le_bytes());
    out.extend_from_slice(&key);
    out.extend_from_slice(&(tiles.len() as u32).to_le_bytes());
    out.extend_from_slice(&tiles_hash(tiles.iter().copied()));
    let sum = blake3::hash(&out[start..]);
    out.extend_from_slice(sum.as_bytes());
    Ok(out)
}

/// A part file read back: its navmesh set and trailer.
#[derive(Clone, Debug, PartialEq)]
pub struct Part {
    /// The navmesh parameters and the shard's tiles.
    pub set: NavMeshSet,
    /// The trailer.
    pub info: PartInfo,
}

impl Part {
    /// Reads a part file's bytes: an [`Error::NavMeshData`]-style error (via [`read_mset`]) for
    /// a damaged `MSET`, an [`Error::InvalidArgument`] for a missing or damaged trailer.
    pub fn from_bytes(bytes: &[u8]) -> Result<Part> {
        let bad = |why: &str| Error::InvalidArgument(format!("not a navkit shard part: {why}"));
        if bytes.len() < TRAILER_LEN {
            return Err(bad("too short for the shard trailer"));
        }
        let (mset, tr) = bytes.split_at(bytes.len() - TRAILER_LEN);
        if &tr[..8] != TRAILER_MAGIC {
            return Err(bad(
                "no NKSHARD trailer (a whole navmesh, or a truncated part?)",
            ));
        }
        let (body, sum) = tr.split_at(TRAILER_LEN - 32);
        if blake3::hash(body).as_bytes() != sum {
            return Err(bad("the trailer's checksum does not match (damaged)"));
        }
        let u = |i: usize| u32::from_le_bytes(tr[i..i + 4].try_into().unwrap_or_default());
        if u(8) != TRAILER_FORMAT {
            return Err(bad(&format!(
                "trailer format {}, this navkit reads {TRAILER_FORMAT}",
                u(8)
            )));
        }
        let shard = Shard::new(u(12), u(16))?;
        let arr = |i: usize| -> [u8; 32] { tr[i..i + 32].try_into().unwrap_or_default() };
        let info = PartInfo {
            shard,
            grid_tiles: (u(20) as i32, u(24) as i32),
            build_key: arr(28),
            tiles: u(60),
            tiles_hash: arr(64),
        };
        let set = read_mset(mset)?;
        Ok(Part { set, info })
    }

    /// Reads the part file at `path` ([`Part::from_bytes`], errors naming the file).
    pub fn load(path: impl AsRef<std::path::Path>) -> Result<Part> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
        Part::from_bytes(&bytes).map_err(|e| e.in_file(path))
    }
}

/// The navmesh made of every shard's part.
#[derive(Debug)]
pub struct Merged {
    /// The navmesh, its tiles added in grid order.
    pub navmesh: NavMesh,
    /// [`data_hash`] of the tiles as built, in grid order: the unsharded build's.
    pub data_hash: String,
    /// Tiles in the navmesh.
    pub tiles: usize,
    /// Shards merged.
    pub shards: u32,
}

fn mismatch(what: String) -> Error {
    Error::InvalidArgument(format!("the parts do not merge: {what}"))
}

/// Checks that `parts` are every shard of one build, each once.
fn check_parts(parts: &[Part]) -> Result<()> {
    let first = parts
        .first()
        .ok_or_else(|| mismatch("no parts given".into()))?;
    let count = first.info.shard.count;
    let mut seen = vec![0u32; count as usize];
    for (i, p) in parts.iter().enumerate() {
        if p.info.build_key != first.info.build_key
            || p.info.shard.count != count
            || p.info.grid_tiles != first.info.grid_tiles
            || p.set.params != first.set.params
        {
            return Err(mismatch(format!(
                "part {i} (shard {}) is of another build than part 0 (shard {}): its build key, \
                 shard count, grid or navmesh parameters differ",
                p.info.shard, first.info.shard
            )));
        }
        seen[p.info.shard.index as usize] += 1;
    }
    let missing: Vec<_> = (0..count).filter(|&s| seen[s as usize] == 0).collect();
    let doubled: Vec<_> = (0..count).filter(|&s| seen[s as usize] > 1).collect();
    if !missing.is_empty() || !doubled.is_empty() {
        return Err(mismatch(format!(
            "of {count} shards, missing {missing:?}, given more than once {doubled:?}"
        )));
    }
    Ok(())
}

/// Merges every shard's part into the navmesh (see the [module](self) docs).
pub fn merge_parts(parts: &[Part]) -> Result<Merged> {
    check_parts(parts)?;
    let first = &parts[0];
    let (tx, tz) = first.info.grid_tiles;
    if tx <= 0 || tz <= 0 || (tx as u64) * (tz as u64) > u64::from(u32::MAX) {
        return Err(mismatch(format!("a grid of {tx} x {tz} tiles")));
    }
    let count = first.info.shard.count;
    let total = tx as usize * tz as usize;
    let mut slots: Vec<Option<&[u8]>> = vec![None; total];
    for p in parts {
        let mut mine = Vec::with_capacity(p.set.tiles.len());
        for r in &p.set.tiles {
            let info = validate_tile_data(&r.data)?;
            let t = TileCoord::new(info.x, info.y);
            if info.layer != 0 || !(0..tx).contains(&t.x) || !(0..tz).contains(&t.z) {
                return Err(mismatch(format!(
                    "shard {} holds tile ({}, {}, layer {}), outside the {tx} x {tz} grid",
                    p.info.shard, t.x, t.z, info.layer
                )));
            }
            let k = t.z as usize * tx as usize + t.x as usize;
            let owner = Shard::of_index(k, total, count);
            if owner != p.info.shard.index {
                return Err(mismatch(format!(
                    "tile ({}, {}) belongs to shard {owner}/{count} but is in shard {}",
                    t.x, t.z, p.info.shard
                )));
            }
            if slots[k].replace(&r.data).is_some() {
                return Err(mismatch(format!(
                    "tile ({}, {}) is in shard {} twice",
                    t.x, t.z, p.info.shard
                )));
            }
            mine.push((k, t, r.data.as_slice()));
        }
        mine.sort_by_key(|m| m.0);
        let hash = tiles_hash(mine.iter().map(|&(_, t, d)| (t, d)));
        if mine.len() != p.info.tiles as usize || hash != p.info.tiles_hash {
            return Err(mismatch(format!(
                "shard {} holds {} tiles where its trailer says {} (or their bytes changed): a \
                 tile is missing or damaged",
                p.info.shard,
                mine.len(),
                p.info.tiles
            )));
        }
    }
    let mut navmesh = NavMesh::new(&first.set.params)?;
    let mut tiles = Vec::new();
    for (k, d) in slots.iter().enumerate() {
        if let Some(d) = d {
            navmesh.add_tile(d)?;
            let t = TileCoord::new((k % tx as usize) as i32, (k / tx as usize) as i32);
            tiles.push((t, *d));
        }
    }
    Ok(Merged {
        tiles: tiles.len(),
        data_hash: data_hash(tiles),
        navmesh,
        shards: count,
    })
}
