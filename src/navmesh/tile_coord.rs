//! [`TileCoord`]: where a tile sits in a navmesh's tile grid.

/// A tile's position in the tile grid: column `x`, row `z` (Detour's tile `y`: the grid lies in
/// the xz plane) and `layer` (0 for tiled navmeshes; tile caches stack one tile per floor).
///
/// ```
/// use navkit::TileCoord;
/// let t = TileCoord::new(3, 7);
/// assert_eq!((t.x, t.z, t.layer), (3, 7, 0));
/// assert_eq!(t.with_layer(2).to_string(), "(3, 7, 2)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct TileCoord {
    /// Column (along x).
    pub x: i32,
    /// Row (along z; Detour calls it the tile's y).
    pub z: i32,
    /// Layer (0 unless several tiles share a column, as in a tile cache).
    pub layer: i32,
}

impl TileCoord {
    /// Column `x`, row `z`, layer 0.
    pub const fn new(x: i32, z: i32) -> Self {
        TileCoord { x, z, layer: 0 }
    }

    /// The same column and row on another layer.
    pub const fn with_layer(self, layer: i32) -> Self {
        TileCoord { layer, ..self }
    }
}

impl std::fmt::Display for TileCoord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.z, self.layer)
    }
}
