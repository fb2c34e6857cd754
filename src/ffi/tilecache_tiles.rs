//! Replacing the layers of a tile in a live tile cache (the tile rebuilt from changed
//! geometry): its old compressed layers removed, and the obstacles' lists of touched layers
//! brought up to date, since a removed layer's ref goes stale (its slot's salt changes) and a
//! new layer gets a new one.

use recastnavigation_sys as sys;

use super::tilecache::{OBSTACLE_PROCESSED, RawTileCache};
use super::validate::layer::MAX_LAYERS_PER_TILE;

const FAILURE: u32 = sys::DT_FAILURE;

impl RawTileCache {
    /// Removes every compressed layer of tile (`tx`, `ty`) (Detour frees their data): how
    /// many, or Detour's status if it refused one.
    pub(crate) fn remove_layers_at(&mut self, tx: i32, ty: i32) -> Result<usize, u32> {
        const MOST: usize = MAX_LAYERS_PER_TILE + 1;
        let mut refs = [0; MOST];
        // SAFETY: live tile cache; `refs` holds `MOST` refs and Detour writes at most that many.
        let n = unsafe {
            sys::dtTileCache_getTilesAt(self.as_mut_ptr(), tx, ty, refs.as_mut_ptr(), MOST as i32)
        };
        let n = usize::try_from(n).unwrap_or(0).min(MOST);
        for &r in &refs[..n] {
            let (mut data, mut size) = (std::ptr::null_mut(), 0);
            // SAFETY: live tile cache; `r` came from getTilesAt just now, and removeTile checks
            // it again (index, salt). Every layer was added with DT_COMPRESSEDTILE_FREE_DATA, so
            // Detour frees the data itself and hands back null; nothing else points into it.
            let st =
                unsafe { sys::dtTileCache_removeTile(self.as_mut_ptr(), r, &mut data, &mut size) };
            if st & FAILURE != 0 {
                return Err(st);
            }
        }
        Ok(n)
    }

    /// Lists again, for every placed obstacle, the layers its bounds touch (Detour's
    /// `queryTiles`, at most 8), as adding it did: after layers were replaced, so that the
    /// new layers are carved and no stale ref stays listed. Call it with no obstacle request
    /// or rebuild queued (the cache up to date).
    pub(crate) fn refresh_obstacle_touches(&mut self) {
        let count = self.parts().1.len();
        for idx in 0..count {
            if self.parts().1[idx].state != OBSTACLE_PROCESSED {
                continue;
            }
            let (touched, n) = self.tiles_touched_by(idx);
            let ob = &mut self.parts().1[idx];
            ob.touched = touched;
            ob.ntouched = n as u8;
        }
    }
}
