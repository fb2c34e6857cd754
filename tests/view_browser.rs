//! `navkit view` in a real browser: Debian's `chromium`, headless, with WebGL on SwiftShader.
//! On dungeon.obj and nav_test.obj the page loads without errors (its own record and chromium's
//! console log), the WebGL canvas is not blank (pixels of the screenshot), a scripted click pair
//! (`?test=x1,z1;x2,z2`: the page picks the navmesh below both points with its own ray picking
//! and asks for the paths) gives the length `navkit path` gives for the same points and draws
//! every kind of path, the hover names the poly with its area and flags, how the paths were
//! found (Detour's search nodes, the grid search, turn boundaries, grid cells) is drawn when
//! ticked, a stage layer toggled on changes the picture, a rebuild with another cell size changes the poly count, and a
//! refused build is shown on the page.
//! Screenshots of each step are kept in target/view-artifacts/. Without chromium the tests
//! fail, saying how to install it.

mod common;
#[path = "common/viewer.rs"]
mod viewer;

use std::process::Command;

use serde_json::Value;
use viewer::{Screenshot, Viewer, view_artifacts};

/// Runs headless chromium on `url` with `extra` arguments; returns stdout. The page's console
/// (chromium's `--enable-logging=stderr`) is kept in target/view-artifacts/console-N.log, and
/// any error in it (an uncaught exception, a failed request, `console.error`) fails the test.
fn run_chromium(url: &str, extra: &[&str]) -> String {
    let run = viewer::run_chromium(url, 15_000, extra);
    let console = &run.console;
    let log = view_artifacts().join(format!("console-{}.log", run.n));
    std::fs::write(&log, format!("{url}\n{}\n", console.join("\n"))).unwrap();
    let errors: Vec<&String> = console
        .iter()
        .filter(|l| {
            let l = l.to_ascii_lowercase();
            l.contains("uncaught") || l.contains("error") || l.contains("failed")
        })
        .collect();
    assert!(
        errors.is_empty(),
        "console errors on {url} ({}): {errors:?}",
        log.display()
    );
    run.stdout
}

/// The page's test result (`#test-result`) for `url`, after checking it saw no errors.
fn page_result(url: &str, what: &str) -> Value {
    let dom = run_chromium(url, &["--dump-dom"]);
    let errors = pre(&dom, "test-errors");
    assert!(errors.is_empty(), "{what}: errors in the page: {errors}");
    serde_json::from_str(&pre(&dom, "test-result"))
        .unwrap_or_else(|e| panic!("{what}: no test result ({e}): {dom}"))
}

/// A screenshot of `url`, kept as target/view-artifacts/NAME.png.
fn screenshot(url: &str, name: &str) -> Screenshot {
    let png = view_artifacts().join(format!("{name}.png"));
    let _ = std::fs::remove_file(&png);
    run_chromium(url, &[&format!("--screenshot={}", png.display())]);
    Screenshot::load(&png)
}

/// The text of `<pre id=ID>` in a dumped DOM.
fn pre(dom: &str, id: &str) -> String {
    viewer::pre_text(dom, id).unwrap_or_else(|| panic!("no #{id} in the page"))
}

/// The (x, z) of the centroids of navmesh triangles `a` and `b` of the served scene.
fn two_points(v: &Viewer) -> [[f64; 2]; 2] {
    let centroids = viewer::navmesh_centroids(v);
    let tris = centroids.len();
    let c = |t: usize| centroids[t];
    // The first pair from triangle tris/5 whose path (asked of the server, points picked from
    // above as the page will) is complete and longer than 5 m: islands are skipped.
    let a = c(tris / 5);
    for k in (1..20).rev() {
        let b = c(tris * k / 20);
        let answer = v.post_json(
            "/api/path",
            &serde_json::json!({"start": a, "end": b}).to_string(),
        );
        if answer["status"] == "complete" && answer["straight_length_m"].as_f64().unwrap() > 5.0 {
            return [[a[0], a[2]], [b[0], b[2]]];
        }
    }
    panic!("no connected pair of points found")
}

/// Pixels (sampled every 2) of the canvas (left of the 300-pixel panel) that differ between
/// two screenshots of the same size.
fn differing_pixels(a: &Screenshot, b: &Screenshot) -> usize {
    assert_eq!((a.width, a.height), (b.width, b.height));
    (0..a.height)
        .step_by(2)
        .flat_map(|y| {
            (0..a.width.saturating_sub(300))
                .step_by(2)
                .map(move |x| (x, y))
        })
        .filter(|&(x, y)| a.pixel(x, y) != b.pixel(x, y))
        .count()
}

fn check_mesh(name: &str) {
    let mesh = common::mesh(name);
    let v = Viewer::start(&mesh);
    let [a, b] = two_points(&v);
    let stem = name.trim_end_matches(".obj");
    let pair = format!("test={},{};{},{}", a[0], a[1], b[0], b[1]);

    // 1. The page's own result of the click pair (mouse events at the two points' pixels,
    // through the page's picking and click handling) and the hover over the start.
    let url = format!(
        "{}&top=1&click=1&nk=1&{pair}&hover={},{}",
        v.url, a[0], a[1]
    );
    let result = page_result(&url, name);
    // The page's hooks for other scripts (window.NK) are there and work.
    assert_eq!(
        result["nk"],
        serde_json::json!([
            "pick",
            "setOverlay",
            "redraw",
            "reloadScene",
            "onClick",
            "panel",
            "state"
        ])
    );
    assert_eq!(result["overlay_vertices"], 2);
    assert_eq!(result["overlay_removed"], true);
    assert_eq!(result["panel"], true);
    let picked = result["picked"].as_array().unwrap();
    assert!(
        picked.iter().all(|p| p.is_array()),
        "{name}: both points on the navmesh: {result}"
    );
    let fmt = |p: &Value| {
        let p = p.as_array().unwrap();
        format!("{},{},{}", p[0], p[1], p[2])
    };
    let out = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(["path", &mesh.display().to_string(), "--json"])
        .arg(format!("--from={}", fmt(&picked[0])))
        .arg(format!("--to={}", fmt(&picked[1])))
        .output()
        .unwrap();
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["status"], "complete", "{name}: {result}");
    assert_eq!(result["status"], cli["status"], "{name}");
    assert_eq!(
        result["straight_length_m"], cli["straight_length_m"],
        "{name}: the page's path is navkit path's"
    );
    assert_eq!(result["smooth_length_m"], cli["smooth_length_m"], "{name}");
    assert_eq!(
        result["corridor"].as_u64().unwrap() as usize,
        cli["polys"].as_array().unwrap().len(),
        "{name}"
    );
    assert!(
        result["straight_length_m"].as_f64().unwrap() > 1.0,
        "{name}: {result}"
    );
    // Every kind of path drawn: the grid path found, the follower arrived.
    let kinds = result["path_layers"].as_array().unwrap();
    for k in [
        "path.corridor",
        "path.straight",
        "path.smooth",
        "path.spline",
        "path.grid",
        "path.trajectory",
        "path.grid_trajectory",
        "path.optimal",
    ] {
        assert!(kinds.iter().any(|x| x == k), "{name}: {k} in {kinds:?}");
    }
    assert!(result["grid_length_m"].as_f64().unwrap() > 1.0, "{result}");
    // The table: a row per kind (and one for navkit path's whole query), the straight path's
    // length as the server gave it.
    let table = result["table"].as_array().unwrap();
    let labels: Vec<&str> = table.iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(
        labels,
        [
            "corridor",
            "straight",
            "smooth",
            "spline",
            "grid A*",
            "follower (straight)",
            "follower (grid)",
            "optimal",
            "turn boundaries",
            "Detour's search nodes",
            "grid A* search",
            "all of navkit path"
        ]
    );
    // How the paths were found: drawn by the page, off until ticked.
    for k in ["follower.boundaries", "path.search_nodes", "grid.search"] {
        assert!(
            result["path_vertices"][k].as_u64().unwrap_or(0) > 4,
            "{name}: {k}: {}",
            result["path_vertices"]
        );
        assert_eq!(result["path_shown"][k], false, "{name}: {k}");
    }
    let straight = format!("{:.3} m", result["straight_length_m"].as_f64().unwrap());
    assert_eq!(table[1][1], straight.as_str(), "{name}: {table:?}");
    // The last column: each kind's xz length over the optimal path's, as the server gave it
    // (`navkit compare`'s `over_optimal`); the straight path is never shorter than the optimum.
    let over = &result["over_optimal"];
    let ratio = over["straight"].as_f64().unwrap();
    assert!(ratio >= 1.0 - 1e-5, "{name}: {over}");
    assert_eq!(
        table[1][3],
        format!("{ratio:.3}").as_str(),
        "{name}: {table:?}"
    );
    assert_eq!(table[7][3], "1.000", "{name}: {table:?}");
    assert!(
        result["optimal_length_xz_m"].as_f64().unwrap() > 1.0,
        "{result}"
    );
    assert_eq!(result["follower_arrived"], true, "{result}");
    // The hover names the poly under the start, its area and flags.
    let hover = result["hover"].as_str().unwrap();
    assert!(
        result["hover_ref"]
            .as_str()
            .is_some_and(|r| r.parse::<u64>().is_ok())
            && hover.contains("area 0 ground")
            && hover.contains("flags 0x1 walk"),
        "{name}: hover: {hover}"
    );

    // 2. The screenshot of the paths: the canvas is not blank and the navmesh's blue is drawn.
    let img = screenshot(&url, &format!("{stem}-1-path"));
    let (w, h) = (img.width, img.height);
    let background = img.pixel(w - 310, 5);
    let mut differing = 0usize;
    let mut total = 0usize;
    for y in (0..h).step_by(4) {
        for x in (0..w.saturating_sub(300)).step_by(4) {
            total += 1;
            if img.pixel(x, y) != background {
                differing += 1;
            }
        }
    }
    assert!(
        differing * 10 > total,
        "{name}: the canvas is blank: {differing} of {total} sampled pixels differ from the background"
    );
    let blue = (0..h)
        .step_by(2)
        .flat_map(|y| (0..w.saturating_sub(300)).step_by(2).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let [r, g, b] = img.pixel(x, y);
            b > 120 && b > r + 40 && g > r
        })
        .count();
    assert!(blue > 500, "{name}: navmesh pixels: {blue}");

    // 2b. Ticked, the search layers are drawn: Detour's nodes and the grid A*'s cells in
    // RecastDemo's node amber, the grid's cells under them.
    let amber = |img: &Screenshot| {
        (0..img.height)
            .step_by(2)
            .flat_map(|y| (0..img.width - 300).step_by(2).map(move |x| (x, y)))
            .filter(|&(x, y)| {
                let [r, g, b] = img.pixel(x, y);
                r > 200 && (150..=215).contains(&g) && b < 80
            })
            .count()
    };
    let search = screenshot(
        &format!(
            "{}&top=1&{pair}&show=path.search_nodes,follower.boundaries,grid.search,grid.cells",
            v.url
        ),
        &format!("{stem}-7-search"),
    );
    let (before, after) = (amber(&img), amber(&search));
    assert!(
        after > 60 && after > 5 * before,
        "{name}: search nodes' amber pixels: {before} before, {after} ticked"
    );

    // 3. A stage layer toggled on draws something: the regions over the same view.
    let plain = screenshot(&format!("{}&top=1", v.url), &format!("{stem}-2-plain"));
    let url = format!("{}&top=1&show=stage.regions", v.url);
    let regions = screenshot(&url, &format!("{stem}-3-regions"));
    let changed = differing_pixels(&plain, &regions);
    assert!(
        changed > 2000,
        "{name}: the regions layer changed {changed} pixels"
    );

    // 4. The 3D view of the paths (orbit camera), with the stages' poly mesh: drawn.
    let url = format!("{}&{pair}&show=stage.poly_mesh&pitch=0.7", v.url);
    let img = screenshot(&url, &format!("{stem}-4-3d"));
    let background = img.pixel(img.width - 310, img.height - 5);
    let drawn = (0..img.height)
        .step_by(4)
        .flat_map(|y| (0..img.width - 300).step_by(4).map(move |x| (x, y)))
        .filter(|&(x, y)| img.pixel(x, y) != background)
        .count();
    assert!(drawn > 5000, "{name}: the 3D view: {drawn} pixels drawn");

    // 5. A rebuild with another cell size changes the poly count (and the picture).
    let url = format!("{}&top=1&rebuild=cell_size:0.6", v.url);
    let result = page_result(&url, name);
    assert_ne!(
        result["polys_before"], result["polys_after"],
        "{name}: {result}"
    );
    assert_eq!(result["polys"], result["polys_after"]);
    let rebuilt = screenshot(&format!("{}&top=1", v.url), &format!("{stem}-5-rebuilt"));
    assert!(
        differing_pixels(&plain, &rebuilt) > 500,
        "{name}: the rebuilt navmesh looks the same"
    );

    // 6. A refused build is shown on the page, saying which setting, and changes nothing.
    let url = format!("{}&top=1&rebuild=agent_height:900", v.url);
    let result = page_result(&url, name);
    let message = result["message"].as_str().unwrap_or("");
    assert!(
        message.contains("agent_height") && message.contains("at most 255"),
        "{name}: {result}"
    );
    assert_eq!(result["polys_before"], result["polys_after"]);
    screenshot(&url, &format!("{stem}-6-refused"));
}

#[test]
fn dungeon_in_chromium() {
    check_mesh("dungeon.obj");
}

#[test]
fn nav_test_in_chromium() {
    check_mesh("nav_test.obj");
}
