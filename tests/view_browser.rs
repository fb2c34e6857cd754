//! `navkit view` in a real browser: Debian's `chromium`, headless, with WebGL on SwiftShader.
//! On dungeon.obj and nav_test.obj the page loads without errors, the WebGL canvas is not blank
//! (pixels of the screenshot), and a scripted click pair (`?test=x1,z1;x2,z2`: the page picks
//! the navmesh below both points with its own ray picking and asks for the path) gives the
//! length `navkit path` gives for the same points. Screenshots are kept in
//! target/view-artifacts/. Without chromium the tests fail, saying how to install it.

mod common;
#[path = "common/viewer.rs"]
mod viewer;

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use viewer::Viewer;

fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser"] {
        if let Ok(out) = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            && out.status.success()
        {
            return PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        }
    }
    panic!(
        "the browser tests need Debian's chromium, which is not installed: run \
         scripts/ensure-deps.sh as root, or `sudo apt-get install -y chromium`"
    );
}

fn artifacts() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/view-artifacts");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs headless chromium on `url` with `extra` arguments; returns stdout.
fn run_chromium(url: &str, extra: &[&str]) -> String {
    static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = RUN.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let profile = common::temp(&format!("chromium-profile-{n}"));
    let out = Command::new(chromium())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu-sandbox",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--no-first-run",
            "--window-size=1200,800",
            "--virtual-time-budget=8000",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium");
    assert!(
        out.status.success(),
        "chromium failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of `<pre id=ID>` in a dumped DOM.
fn pre(dom: &str, id: &str) -> String {
    let start = format!("<pre id=\"{id}\">");
    let from = dom
        .find(&start)
        .unwrap_or_else(|| panic!("no #{id} in the page"))
        + start.len();
    let to = dom[from..].find("</pre>").unwrap() + from;
    dom[from..to]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// The (x, z) of the centroids of navmesh triangles `a` and `b` of the served scene.
fn two_points(v: &Viewer) -> [[f64; 2]; 2] {
    let (_, body) = v.get("/api/layers");
    let scene: Value = serde_json::from_str(&body).unwrap();
    let nav = scene["layers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["name"] == "navmesh")
        .unwrap();
    let p: Vec<f64> = nav["positions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    let tris = p.len() / 9;
    let c = |t: usize| {
        let q = &p[t * 9..t * 9 + 9];
        [
            (q[0] + q[3] + q[6]) / 3.0,
            (q[1] + q[4] + q[7]) / 3.0,
            (q[2] + q[5] + q[8]) / 3.0,
        ]
    };
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

fn check_mesh(name: &str) {
    let mesh = common::mesh(name);
    let v = Viewer::start(&mesh);
    let [a, b] = two_points(&v);
    let url = format!("{}?top=1&test={},{};{},{}", v.url, a[0], a[1], b[0], b[1]);
    let stem = name.trim_end_matches(".obj");

    // The page's own result of the click pair, and the errors it saw.
    let dom = run_chromium(&url, &["--dump-dom"]);
    let errors = pre(&dom, "test-errors");
    assert!(errors.is_empty(), "{name}: errors in the page: {errors}");
    let result: Value = serde_json::from_str(&pre(&dom, "test-result"))
        .unwrap_or_else(|e| panic!("{name}: no test result ({e}): {dom}"));
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
    assert!(
        result["straight_length_m"].as_f64().unwrap() > 1.0,
        "{name}: {result}"
    );

    // The screenshot: the canvas (left of the 260-pixel panel) is not blank.
    let png = artifacts().join(format!("{stem}-path.png"));
    let _ = std::fs::remove_file(&png);
    run_chromium(&url, &[&format!("--screenshot={}", png.display())]);
    let img = decode_png(&png);
    let (w, h) = (img.width, img.height);
    let background = img.pixel(5, 5);
    let mut differing = 0usize;
    let mut total = 0usize;
    for y in (0..h).step_by(4) {
        for x in (0..w.saturating_sub(270)).step_by(4) {
            total += 1;
            if img.pixel(x, y) != background {
                differing += 1;
            }
        }
    }
    assert!(
        differing * 10 > total,
        "{name}: the canvas is blank: {differing} of {total} sampled pixels differ from the background ({})",
        png.display()
    );
    // The navmesh's blue is drawn.
    let blue = (0..h)
        .step_by(2)
        .flat_map(|y| (0..w.saturating_sub(270)).step_by(2).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let [r, g, b] = img.pixel(x, y);
            b > 120 && b > r + 40 && g > r
        })
        .count();
    assert!(blue > 500, "{name}: navmesh pixels: {blue}");
}

struct Png {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Png {
    fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

/// Decodes the screenshot with the `png` crate the dev-dependencies already carry.
fn decode_png(path: &std::path::Path) -> Png {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = info.color_type.samples();
    let rgb = buf[..info.buffer_size()]
        .chunks(channels)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    Png {
        width: info.width as usize,
        height: info.height as usize,
        rgb,
    }
}

#[test]
fn dungeon_in_chromium() {
    check_mesh("dungeon.obj");
}

#[test]
fn nav_test_in_chromium() {
    check_mesh("nav_test.obj");
}
