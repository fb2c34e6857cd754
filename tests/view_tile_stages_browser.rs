//! `navkit view` in headless chromium on a tiled navmesh: the build stages are those of one tile
//! (RecastDemo's Tile Mesh sample). The tile asked for in the URL is the one drawn (its regions
//! have the library's compact span count for that tile, the panel names it, its outline is in the
//! picture), the tile tool picks another tile with a click without moving the path's ends, and
//! without a choice the stages follow the path's start.
//! Screenshot: target/view-artifacts/tile-stages-dungeon-regions.png.

mod common;
#[path = "common/viewer.rs"]
mod viewer;

use navkit::build::Budget;
use navkit::build::tiled::{TileGrid, TileStages};
use navkit::{BuildSettings, InputGeometry, NavMeshBuilder, TileCoord};
use serde_json::Value;
use viewer::{Screenshot, Viewer, view_artifacts};

/// chromium's stdout for `url`, after checking the page's console shows no error.
fn chromium(url: &str, extra: &[&str]) -> String {
    let run = viewer::run_chromium(url, 15_000, extra);
    let log = view_artifacts().join(format!("tile-stages-console-{}.log", run.n));
    std::fs::write(&log, format!("{url}\n{}\n", run.console.join("\n"))).unwrap();
    let errors: Vec<&String> = run
        .console
        .iter()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("uncaught") || l.contains("error") || l.contains("failed")
        })
        .collect();
    assert!(errors.is_empty(), "console errors on {url}: {errors:?}");
    run.stdout
}

fn pre(dom: &str, id: &str) -> Value {
    let text = viewer::pre_text(dom, id).unwrap_or_else(|| panic!("no #{id} in the page: {dom}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("#{id}: {e}: {text}"))
}

#[test]
fn the_stages_shown_are_those_of_the_tile_asked_for_or_picked() {
    let mesh = common::mesh("dungeon.obj");
    let geom = InputGeometry::load(&mesh).unwrap();
    let settings = BuildSettings {
        tile_size: 32,
        ..BuildSettings::default()
    };
    let (bmin, bmax) = geom.mesh.bounds().into();
    let grid = TileGrid::new(bmin, bmax, &settings).unwrap();
    let tiled = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .tiled()
        .unwrap();
    let lib = |t: TileCoord| -> TileStages { tiled.tile_stages(t, &Budget::default()).unwrap() };
    // The tile with the most polygons, and the centre tile (what shows without a choice).
    let (busiest, stages) = grid
        .all_tiles()
        .into_iter()
        .map(|t| (t, lib(t)))
        .max_by_key(|(_, s)| s.counts.polymesh_polys)
        .unwrap();
    let centre = TileCoord::new(grid.tiles_x / 2, grid.tiles_z / 2);
    assert_ne!(busiest, centre);
    let v = Viewer::start(&mesh);

    // 1. The busiest tile's regions and contours, from above, close up.
    let b = grid.tile_bounds(busiest);
    let mid = (b.min + b.max) * 0.5;
    let url = format!(
        "{}&fresh=1&rebuild=mode:tiled,tile_size:32&show=stage.regions,stage.contours\
         &hide=navmesh.polys,navmesh.outlines&stagetile={},{}&top=1&at={},{}&zoom=0.16",
        v.url, busiest.x, busiest.z, mid.x, mid.z
    );
    let dom = chromium(&url, &["--dump-dom"]);
    let result = pre(&dom, "test-result");
    assert_eq!(
        result["drawn"]["stage.regions"],
        6 * stages.stages.compact.spans.len(),
        "{result}"
    );
    let named = format!(
        "the stages of tile ({}, {}) of the {} x {} tiled build",
        busiest.x, busiest.z, grid.tiles_x, grid.tiles_z
    );
    assert!(dom.contains(&named), "the panel names the tile: {named}");
    assert!(
        dom.contains(&format!(
            "showing tile ({}, {}) of {} x {}; {} polys",
            busiest.x, busiest.z, grid.tiles_x, grid.tiles_z, stages.counts.polymesh_polys
        )),
        "the tile control"
    );
    let png = view_artifacts().join("tile-stages-dungeon-regions.png");
    let _ = std::fs::remove_file(&png);
    chromium(&url, &[&format!("--screenshot={}", png.display())]);
    let shot = Screenshot::load(&png);
    // The tile's outline: bright yellow (255, 220, 40) lines in the view (left of the panel).
    let yellow = (0..shot.height)
        .flat_map(|y| (0..shot.width * 3 / 4).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let [r, g, b] = shot.pixel(x, y);
            r > 230 && g > 190 && b < 90
        })
        .count();
    assert!(yellow > 500, "{yellow} pixels of the tile's outline");

    // 2. Without a choice: the centre tile; the tile tool then picks the busiest by a click.
    let pick = stages
        .stages
        .poly_mesh
        .polys
        .first()
        .map(|p| {
            let n = p.len() as f32;
            p.iter()
                .map(|&i| stages.stages.poly_mesh.vertex(usize::from(i)).unwrap())
                .sum::<glam::Vec3>()
                / n
        })
        .unwrap();
    let url = format!(
        "{}&fresh=1&rebuild=mode:tiled,tile_size:32&show=stage.regions&top=1&picktile={},{}",
        v.url, pick.x, pick.z
    );
    let dom = chromium(&url, &["--dump-dom"]);
    let r = pre(&dom, "stage-tile-result");
    assert_eq!(r["before"], serde_json::json!([centre.x, centre.z]), "{r}");
    assert_eq!(
        r["regions_before"],
        6 * lib(centre).stages.compact.spans.len(),
        "{r}"
    );
    assert_eq!(r["picking"], true, "{r}");
    assert_eq!(r["after"], serde_json::json!([busiest.x, busiest.z]), "{r}");
    assert_eq!(
        r["regions_after"],
        6 * stages.stages.compact.spans.len(),
        "{r}"
    );
    assert_eq!(r["picking_after"], false, "{r}");
    assert_eq!(
        r["path_ends"], 0,
        "the click picked a tile, not a path end: {r}"
    );
    assert!(r["note"].as_str().unwrap().starts_with(&named), "{r}");

    // 3. Without a choice, a path's start in the busiest tile: its stages follow the start.
    let other = lib(centre);
    let goal = other
        .stages
        .poly_mesh
        .vertex(usize::from(other.stages.poly_mesh.polys[0][0]));
    let goal = goal.unwrap();
    let url = format!(
        "{}&fresh=1&rebuild=mode:tiled,tile_size:32&show=stage.regions&top=1\
         &test={},{};{},{}&stagetileresult=1",
        v.url, pick.x, pick.z, goal.x, goal.z
    );
    let dom = chromium(&url, &["--dump-dom"]);
    let r = pre(&dom, "stage-tile-result");
    assert_eq!(r["after"], serde_json::json!([busiest.x, busiest.z]), "{r}");
    assert_eq!(r["path_ends"], 2, "{r}");
    assert!(
        r["panel"].as_str().unwrap().contains("under the start"),
        "{r}"
    );
    assert_eq!(
        r["regions_after"],
        6 * stages.stages.compact.spans.len(),
        "{r}"
    );
}
