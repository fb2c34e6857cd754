//! Geometry + settings -> build: an arbitrary small mesh (with off-mesh connections and convex
//! volumes; a quarter of them on storeys of strips, [`navkit_fuzz::stacked_mesh`]) and arbitrary
//! settings (any partition), hostile values included, built solo, tiled and as a tile
//! cache. Settings validation and the geometry checks must refuse what Recast cannot take,
//! with an error, before Recast sees it. Builds whose grid validation accepts but which are
//! merely big (more than 2^18 cells, or 4096 tiles) are not run, to keep one execution short;
//! everything that validation refuses is still handed to the builders, which must refuse it
//! too, quickly. Every build either succeeds with tiles that pass navkit's own validator or is
//! refused with an error other than a validator one (`Error::NavMeshData`).
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use glam::Vec3;
use libfuzzer_sys::fuzz_target;
use navkit::tilecache::TileCacheSettings;
use navkit::{
    Aabb, BuildSettings, ConvexVolume, InputGeometry, NavMeshBuilder, OffMeshConnection, Partition,
    TriMesh,
};
use navkit_fuzz::F;

/// A coordinate: mostly a level-sized value, sometimes a hostile float.
fn coord(u: &mut Unstructured) -> arbitrary::Result<f32> {
    let tag: u8 = u.arbitrary()?;
    Ok(if tag.is_multiple_of(16) {
        F::arbitrary(u)?.0
    } else {
        u.arbitrary::<i8>()? as f32 / 4.0
    })
}

fn point(u: &mut Unstructured) -> arbitrary::Result<Vec3> {
    Ok(Vec3::new(coord(u)?, coord(u)?, coord(u)?))
}

/// A setting: usually its default scaled by 1/8 .. 4, sometimes any value.
fn setting(u: &mut Unstructured, default: f32) -> arbitrary::Result<f32> {
    let tag: u8 = u.arbitrary()?;
    Ok(match tag % 8 {
        0 => F::arbitrary(u)?.0,
        1 => default,
        _ => default * (1 + u.arbitrary::<u8>()? % 32) as f32 / 8.0,
    })
}

#[derive(Debug)]
struct Input {
    geom: InputGeometry,
    settings: BuildSettings,
    cache: TileCacheSettings,
    tile_size: Option<u32>,
}

impl<'a> Arbitrary<'a> for Input {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let nv = u.int_in_range(0..=48)?;
        let mut verts = Vec::with_capacity(nv * 3);
        for _ in 0..nv {
            verts.extend_from_slice(&point(u)?.to_array());
        }
        let nt = u.int_in_range(0..=48)?;
        let mut tris = Vec::with_capacity(nt * 3);
        for _ in 0..nt * 3 {
            // Mostly valid indices, sometimes any.
            let i: u8 = u.arbitrary()?;
            tris.push(if i == 255 {
                u.arbitrary::<i32>()?
            } else {
                i32::from(i) % (nv.max(1) as i32)
            });
        }
        // A quarter of the inputs stand on 2..=8 storeys of strips as well (multi-storey rows:
        // more sweep spans than the grid is wide, for the monotone and layers partitions and
        // the tile cache's heightfield layers).
        if u.arbitrary::<u8>()? % 4 == 0 {
            let stacked = navkit_fuzz::stacked_mesh(u.int_in_range(2..=8)?);
            let base = (verts.len() / 3) as i32;
            verts.extend_from_slice(&stacked.verts);
            tris.extend(stacked.tris.iter().map(|&i| i + base));
        }
        let mesh = TriMesh {
            verts,
            tris,
            source: None,
            warnings: Vec::new(),
        };
        let mut geom = InputGeometry::from_mesh(mesh);
        for i in 0..u.int_in_range(0..=3)? {
            geom.off_mesh_connections.push(OffMeshConnection {
                start: point(u)?,
                end: point(u)?,
                radius: setting(u, 0.6)?,
                bidirectional: u.arbitrary()?,
                area: u.arbitrary::<u8>()? % 70,
                flags: u.arbitrary()?,
                user_id: 1000 + i,
            });
        }
        for _ in 0..u.int_in_range(0..=2)? {
            let n = u.int_in_range(0..=14)?;
            let mut vs = Vec::with_capacity(n);
            for _ in 0..n {
                vs.push(point(u)?);
            }
            geom.convex_volumes.push(ConvexVolume {
                verts: vs,
                hmin: coord(u)?,
                hmax: coord(u)?,
                area: u.arbitrary::<u8>()? % 70,
            });
        }
        let d = BuildSettings::default();
        let settings = BuildSettings {
            cell_size: setting(u, d.cell_size)?,
            cell_height: setting(u, d.cell_height)?,
            agent_height: setting(u, d.agent_height)?,
            agent_radius: setting(u, d.agent_radius)?,
            agent_max_climb: setting(u, d.agent_max_climb)?,
            agent_max_slope: setting(u, d.agent_max_slope)?,
            region_min_size: setting(u, d.region_min_size)?,
            region_merge_size: setting(u, d.region_merge_size)?,
            edge_max_len: setting(u, d.edge_max_len)?,
            edge_max_error: setting(u, d.edge_max_error)?,
            verts_per_poly: if u.arbitrary::<u8>()? == 0 {
                u.arbitrary()?
            } else {
                u.int_in_range(2..=7)?
            },
            detail_sample_dist: setting(u, d.detail_sample_dist)?,
            detail_sample_max_error: setting(u, d.detail_sample_max_error)?,
            partition: match u.arbitrary::<u8>()? % 3 {
                0 => Partition::Watershed,
                1 => Partition::Monotone,
                _ => Partition::Layers,
            },
            bounds: if u.arbitrary::<u8>()? % 4 == 0 {
                Some(Aabb {
                    min: point(u)?,
                    max: point(u)?,
                })
            } else {
                None
            },
            tile_size: u.arbitrary::<u8>()?.into(),
            filter_low_hanging_obstacles: u.arbitrary()?,
            filter_ledge_spans: u.arbitrary()?,
            filter_walkable_low_height_spans: u.arbitrary()?,
        };
        let cache = TileCacheSettings {
            tile_size: u.arbitrary::<u8>()?.into(),
            expected_layers_per_tile: u.arbitrary::<u8>()?.into(),
            max_obstacles: u.arbitrary::<u16>()?.into(),
            layer_compression: if u.arbitrary()? {
                navkit::tilecache::LayerCompression::Lz4
            } else {
                navkit::tilecache::LayerCompression::FastLz
            },
        };
        let tile_size = if u.arbitrary()? {
            Some(if u.arbitrary()? {
                u.arbitrary()?
            } else {
                u.arbitrary::<u8>()?.into()
            })
        } else {
            None
        };
        Ok(Input {
            geom,
            settings,
            cache,
            tile_size,
        })
    }
}

fuzz_target!(|input: Input| {
    let Input {
        geom,
        settings,
        cache,
        tile_size,
    } = input;
    let valid = settings.validate().is_ok() && geom.validate().is_ok();
    // Skip builds that are valid but merely large.
    if valid {
        let b = geom.mesh.bounds();
        if let Ok(c) = settings.to_config(b.min, b.max) {
            let cells = i64::from(c.width) * i64::from(c.height);
            if cells > navkit_fuzz::MAX_CELLS {
                return;
            }
            let ts = i64::from(tile_size.unwrap_or(settings.tile_size).max(1));
            let ts_cache = i64::from(cache.tile_size.max(1));
            let tiles = |t: i64| (i64::from(c.width) / t + 1) * (i64::from(c.height) / t + 1);
            if tiles(ts) > 4096 || tiles(ts_cache) > 4096 {
                return;
            }
        }
    }
    let mut b = NavMeshBuilder::new(&geom)
        .settings(settings)
        .cache_settings(cache)
        .threads(1);
    if let Some(ts) = tile_size {
        b = b.tile_size(ts);
    }
    // Tiled builds stay fast on long thin grids; a solo build does not.
    let solo = if navkit_fuzz::solo_too_slow(&geom, &b.build_settings()) {
        Err(navkit::Error::InvalidArgument("not run".into()))
    } else {
        b.solo()
    };
    let tiled = b.tiled();
    let cache = b.tile_cache();
    navkit_fuzz::assert_build_sound(&solo, |b| b.navmesh(), "solo");
    navkit_fuzz::assert_build_sound(&tiled, |t| t.navmesh(), "tiled");
    navkit_fuzz::assert_build_sound(&cache, |c| c.navmesh(), "tile cache");
    if !valid {
        assert!(solo.is_err(), "solo build accepted invalid input");
        assert!(tiled.is_err(), "tiled build accepted invalid input");
        assert!(cache.is_err(), "tile cache build accepted invalid input");
    }
});
