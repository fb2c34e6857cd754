//! RecastDemo `.gset` geometry sets: parse (settings, off-mesh connections, convex volumes) and
//! validate; a set that passes is built on the mesh its `f` line names, which is always one of
//! three small meshes the target writes to a temporary folder (fuzzed paths would read
//! arbitrary files): the fixture level, a quad, or eight storeys of strips
//! ([`navkit_fuzz::stacked_mesh`]), with its settings and each partition, solo and
//! tiled, and as a tile cache. Every build either succeeds with tiles that pass navkit's own
//! validator or is refused with an error other than a validator one.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navkit::InputGeometry;
use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("navkit-fuzz-gset-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let level = navkit_fuzz::obj_text(&navkit_fuzz::level_mesh());
        std::fs::write(d.join("level.obj"), level).unwrap();
        std::fs::write(
            d.join("quad.obj"),
            "v 0 0 0\nv 9 0 0\nv 9 0 9\nv 0 0 9\nf 1 4 3 2\n",
        )
        .unwrap();
        let stacked = navkit_fuzz::obj_text(&navkit_fuzz::stacked_mesh(8));
        std::fs::write(d.join("stacked.obj"), stacked).unwrap();
        d
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    // Every `f` line names one of the three meshes (by its length: 4k + 1, the stacked
    // storeys; else even, the fixture level; odd, the quad).
    let text: String = text
        .split('\n')
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with('f') && t[1..].starts_with(char::is_whitespace) || t == "f" {
                match l.len() % 4 {
                    1 => "f stacked.obj",
                    0 | 2 => "f level.obj",
                    _ => "f quad.obj",
                }
                .to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let Ok(geom) = InputGeometry::from_gset_str(&text, &dir().join("fuzz.gset")) else {
        return;
    };
    if geom.validate().is_err() {
        return;
    }
    let again = geom.to_gset_string("level.obj");
    InputGeometry::from_gset_str(&again, &dir().join("again.gset"))
        .expect("navkit's own .gset output loads");
    let settings = geom.settings.clone().unwrap_or_default();
    navkit_fuzz::build_every_way(&geom, &settings);
});
