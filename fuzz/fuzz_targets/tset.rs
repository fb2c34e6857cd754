//! RecastDemo `TSET` tile-cache files: parse, validate, decompress the layers and build the
//! navmesh tiles; whatever loads gets an obstacle added and removed and is written back, and
//! the bytes written must load again.
#![no_main]

use glam::Vec3;
use libfuzzer_sys::fuzz_target;
use navkit::tilecache::{ObstacleShape, TileCache};

fuzz_target!(|data: &[u8]| {
    let Ok(mut tc) = TileCache::from_tset_bytes(data, &[]) else {
        return;
    };
    let again = tc.to_tset_bytes();
    TileCache::from_tset_bytes(&again, &[]).expect("navkit's own TSET output loads");
    let centre = tc
        .navmesh()
        .tile_bounds()
        .first()
        .map(|(_, b)| (b.min + b.max) * 0.5)
        .unwrap_or(Vec3::ZERO);
    let shape = ObstacleShape::Cylinder {
        pos: centre,
        radius: 1.0,
        height: 2.0,
    };
    if let Ok(o) = tc.add(&shape) {
        let _ = tc.update_until_done();
        let _ = tc.remove(o);
        let _ = tc.update_until_done();
    }
});
