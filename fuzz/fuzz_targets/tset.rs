//! RecastDemo `TSET` tile-cache files: parse, validate, decompress the layers (FastLZ, as
//! RecastDemo writes them, or LZ4) and build the navmesh tiles; whatever loads gets an obstacle
//! added and removed and is written back, in its own format and in the other, and the bytes
//! written must load again; its layers are decoded and built again by Detour's tile steps (also
//! with grids overwritten from the input). The input also goes to the FastLZ decoder directly:
//! whatever it accepts, RecastDemo's fastlz.c must decode to the same bytes, and the input
//! compressed by fastlz.c (both levels) must decode back to itself.
#![no_main]

use glam::Vec3;
use libfuzzer_sys::fuzz_target;
use navkit::tilecache::{
    LayerCompression, ObstacleShape, TileCache, decompress_layer_grids, fastlz, read_tset,
};

fuzz_target!(|data: &[u8]| {
    fastlz_decoder(data);
    let Ok(mut tc) = TileCache::from_tset_bytes(data, &[]) else {
        return;
    };
    let again = tc.to_tset_bytes();
    TileCache::from_tset_bytes(&again, &[]).expect("navkit's own TSET output loads");
    // Converted to either format, the file loads and holds the same layers: the same refs and
    // layer headers, grids that decompress to the same bytes.
    let original = read_tset(&again).unwrap();
    let cells = (original.cache.width * original.cache.height) as usize;
    for c in LayerCompression::ALL {
        let converted = tc.to_tset_bytes_with(c).expect("a loaded cache converts");
        let back = TileCache::from_tset_bytes(&converted, &[]).expect("a converted TSET loads");
        assert_eq!(back.layer_compression(), c);
        let set = read_tset(&converted).unwrap();
        assert_eq!(set.tiles.len(), original.tiles.len());
        for ((ra, da), (rb, db)) in original.tiles.iter().zip(&set.tiles) {
            assert_eq!((ra, &da[..56]), (rb, &db[..56]));
            assert_eq!(
                decompress_layer_grids(&da[56..], cells, original.compression).unwrap(),
                decompress_layer_grids(&db[56..], cells, c).unwrap()
            );
        }
    }
    // The layers decoded (the debug-draw view of a tile cache) and built again by Detour's
    // tile steps, as loaded and with grids overwritten from the input: the decoded layer's
    // fields are public, so `build` must refuse whatever the tile cache would.
    if let Ok(layers) = tc.decode_layers() {
        for (i, mut layer) in layers.into_iter().take(4).enumerate() {
            let _ = layer.build();
            let noise = data.get(i * 97..).unwrap_or(&[]);
            for (cell, &b) in layer.cons.iter_mut().zip(noise) {
                *cell ^= b;
            }
            for (cell, &b) in layer.areas.iter_mut().zip(noise.iter().rev()) {
                *cell ^= b;
            }
            let _ = layer.build();
        }
    }
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

/// The input as a FastLZ stream (its output bound from its first two bytes) and as data.
fn fastlz_decoder(data: &[u8]) {
    if data.len() > 1 << 16 {
        return;
    }
    let max_out = data
        .get(..2)
        .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]])))
        .unwrap_or(0);
    let stream = data.get(2..).unwrap_or(&[]);
    if let Ok(ours) = fastlz::decompress(stream, max_out) {
        assert!(ours.len() <= max_out);
        let (n, theirs) = fastlz::reference_decompress(stream, max_out).unwrap();
        assert_eq!(n as usize, ours.len(), "fastlz.c decodes to another length");
        assert_eq!(theirs, ours, "fastlz.c decodes to other bytes");
    }
    for level in [1, 2] {
        let packed = fastlz::compress_level(level, data).unwrap();
        assert_eq!(fastlz::decompress(&packed, data.len()).unwrap(), data);
    }
}
