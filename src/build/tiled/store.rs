//! A content-addressed store of built tiles: a folder of files, one per [`TileKey`], that tiled
//! builds read before building a tile and write after, so that a build of an edited level (or
//! of the same level on another machine sharing the folder) builds only the tiles whose input
//! changed. Empty tile positions are stored too, so an unchanged level builds nothing.
//!
//! **Safe to share.** Many builds, threads or processes may use one store at once: an entry is
//! written to a temporary file beside it and renamed into place ([`crate::atomic_file`]), and
//! two writers of one key write the same bytes. A reader trusts nothing it finds: an entry
//! whose length, checksum, key, tile position or Detour data does not check out (a truncated
//! file, a killed writer's leftover, an entry of another format) is reported and the tile is
//! built again, replacing it.
//!
//! **Layout.** `DIR/ab/abcdef….tile`, the key's 64 hex digits (the first two name the
//! sub-folder). An entry is `NKTS`, the entry format (u32), the key (32 bytes), the tile's x
//! and z (i32), 1 if it holds Detour data or 0 for an empty position (u32), the data's length
//! (u64), the data, and a BLAKE3 checksum (32 bytes) of everything before it; little-endian.
//!
//! ```no_run
//! use navkit::{InputGeometry, NavMeshBuilder};
//! use navkit::build::tiled::TileStore;
//! let store = TileStore::open("tiles")?;
//! let geom = InputGeometry::load("world.gset")?;
//! let tiled = NavMeshBuilder::new(&geom).tile_store(&store).tiled()?;
//! let r = tiled.report();
//! println!("{} built, {} reused, hash {}", r.tiles_built, r.tiles_reused, r.data_hash);
//! # Ok::<(), navkit::Error>(())
//! ```

use std::path::{Path, PathBuf};

use super::tile_key::TileKey;
use crate::navmesh::TileCoord;
use crate::navmesh::mset::validate_tile_data;
use crate::{Error, Result};

const MAGIC: &[u8; 4] = b"NKTS";
/// The entry format written.
const ENTRY_FORMAT: u32 = 1;
/// Bytes before the data: magic, format, key, x, z, has-data, length.
const HEAD: usize = 4 + 4 + 32 + 4 + 4 + 4 + 8;
/// Bytes of the checksum after the data.
const SUM: usize = 32;

/// A folder of built tiles, addressed by [`TileKey`] (see the [module](self) docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileStore {
    dir: PathBuf,
}

/// What the store holds for a key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Lookup {
    /// A tile's Detour data, checked.
    Tile(Vec<u8>),
    /// The position is empty (no polygons).
    Empty,
    /// No entry.
    Missing,
    /// An entry that does not check out, and why.
    Corrupt(String),
}

impl TileStore {
    /// The store in `dir`, created if it does not exist. An error if `dir` is a file or cannot
    /// be created.
    pub fn open(dir: impl AsRef<Path>) -> Result<TileStore> {
        let dir = dir.as_ref();
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        if !dir.is_dir() {
            return Err(Error::InvalidArgument(format!(
                "tile store {}: not a folder",
                dir.display()
            )));
        }
        Ok(TileStore {
            dir: dir.to_path_buf(),
        })
    }

    /// The store's folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`.
    pub fn entry_path(&self, key: &TileKey) -> PathBuf {
        let hex = key.to_hex();
        self.dir.join(&hex[..2]).join(format!("{hex}.tile"))
    }

    /// What the store holds for `key`, which names `tile`.
    pub(crate) fn get(&self, key: &TileKey, tile: TileCoord) -> Lookup {
        let path = self.entry_path(key);
        match std::fs::read(&path) {
            Ok(bytes) => match decode(&bytes, key, tile) {
                Ok(Some(data)) => Lookup::Tile(data),
                Ok(None) => Lookup::Empty,
                Err(why) => Lookup::Corrupt(format!("{}: {why}", path.display())),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Lookup::Missing,
            Err(e) => Lookup::Corrupt(format!("{}: {e}", path.display())),
        }
    }

    /// Stores what `tile` (keyed `key`) was built into: its data, or `None` for an empty
    /// position.
    pub(crate) fn put(&self, key: &TileKey, tile: TileCoord, data: Option<&[u8]>) -> Result<()> {
        let path = self.entry_path(key);
        if let Some(sub) = path.parent() {
            std::fs::create_dir_all(sub).map_err(|e| Error::io(sub, e))?;
        }
        crate::atomic_file::write(&path, &encode(key, tile, data))
    }
}

/// An entry's bytes.
fn encode(key: &TileKey, tile: TileCoord, data: Option<&[u8]>) -> Vec<u8> {
    let d = data.unwrap_or(&[]);
    let mut out = Vec::with_capacity(HEAD + d.len() + SUM);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&ENTRY_FORMAT.to_le_bytes());
    out.extend_from_slice(&key.0);
    out.extend_from_slice(&tile.x.to_le_bytes());
    out.extend_from_slice(&tile.z.to_le_bytes());
    out.extend_from_slice(&u32::from(data.is_some()).to_le_bytes());
    out.extend_from_slice(&(d.len() as u64).to_le_bytes());
    out.extend_from_slice(d);
    let sum = blake3::hash(&out);
    out.extend_from_slice(sum.as_bytes());
    out
}

/// The data of an entry for `key` at `tile` (`None`: an empty position), or what is wrong.
fn decode(
    bytes: &[u8],
    key: &TileKey,
    tile: TileCoord,
) -> std::result::Result<Option<Vec<u8>>, String> {
    if bytes.len() < HEAD + SUM {
        return Err(format!("{} bytes, shorter than any entry", bytes.len()));
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap_or_default());
    if &bytes[..4] != MAGIC {
        return Err("not a navkit tile-store entry (no NKTS)".into());
    }
    if u32_at(4) != ENTRY_FORMAT {
        return Err(format!(
            "entry format {}, this navkit reads {ENTRY_FORMAT}",
            u32_at(4)
        ));
    }
    let (body, sum) = bytes.split_at(bytes.len() - SUM);
    if blake3::hash(body).as_bytes() != sum {
        return Err("checksum mismatch (truncated or damaged)".into());
    }
    if bytes[8..40] != key.0 {
        return Err("holds another key".into());
    }
    let (x, z) = (u32_at(40) as i32, u32_at(44) as i32);
    if (x, z) != (tile.x, tile.z) {
        return Err(format!(
            "holds tile ({x}, {z}), not ({}, {})",
            tile.x, tile.z
        ));
    }
    let len = u64::from_le_bytes(bytes[52..60].try_into().unwrap_or_default());
    if len != (body.len() - HEAD) as u64 {
        return Err(format!(
            "says {len} bytes of data, holds {}",
            body.len() - HEAD
        ));
    }
    let data = &body[HEAD..];
    match u32_at(48) {
        0 if data.is_empty() => Ok(None),
        1 => {
            let info = validate_tile_data(data).map_err(|e| e.to_string())?;
            if (info.x, info.y, info.layer) != (tile.x, tile.z, 0) {
                return Err("its Detour data is of another tile".into());
            }
            Ok(Some(data.to_vec()))
        }
        f => Err(format!("bad data flag {f}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_damage_is_found() {
        let key = TileKey([7; 32]);
        let t = TileCoord::new(3, 4);
        let e = encode(&key, t, None);
        assert_eq!(decode(&e, &key, t), Ok(None));
        assert!(
            decode(&e, &TileKey([8; 32]), t)
                .unwrap_err()
                .contains("another key")
        );
        assert!(decode(&e, &key, TileCoord::new(3, 5)).is_err());
        for cut in [0, 10, e.len() - 1] {
            assert!(decode(&e[..cut], &key, t).is_err(), "cut at {cut}");
        }
        let mut flipped = e.clone();
        flipped[50] ^= 1;
        assert!(decode(&flipped, &key, t).unwrap_err().contains("checksum"));
        // Data that is not a tile is refused even with a good checksum.
        let bad = encode(&key, t, Some(b"not a tile"));
        assert!(decode(&bad, &key, t).is_err());
    }
}
