//! Still pictures: `navkit::render` drawn from debug-draw layers, checked by their pixels (PNG)
//! and their text (SVG), and the `render`, `compare` and `simulate` commands' picture options
//! and errors.

mod common;

use std::process::Command;

use glam::Vec3;
use navkit::NavMeshBuilder;
use navkit::debug_draw::paths::PathKind;
use navkit::debug_draw::{Color, Dash};
use navkit::navmesh::NavMesh;
use navkit::render::{
    BACKGROUND, HEIGHT_FILL_ALPHA, POLY_FILL_ALPHA, PolyColors, RenderOptions, Scene, height_color,
};
use navkit::{BuildSettings, InputGeometry, TriMesh};

/// Horizontal quads `(x0, x1, z0, z1, y)` as one mesh.
fn quads(qs: &[(f32, f32, f32, f32, f32)]) -> InputGeometry {
    let mut verts = Vec::new();
    let mut tris = Vec::new();
    for &(x0, x1, z0, z1, y) in qs {
        let b = (verts.len() / 3) as i32;
        verts.extend([x0, y, z0, x0, y, z1, x1, y, z1, x1, y, z0]);
        tris.extend([b, b + 1, b + 2, b, b + 2, b + 3]);
    }
    InputGeometry::from_mesh(TriMesh::new(verts, tris).unwrap())
}

fn navmesh(geom: &InputGeometry) -> NavMesh {
    NavMeshBuilder::new(geom)
        .settings(BuildSettings::default())
        .solo()
        .unwrap()
        .into_navmesh()
}

/// A 20 x 20 floor at y = 0.
fn floor() -> NavMesh {
    navmesh(&quads(&[(0.0, 20.0, 0.0, 20.0, 0.0)]))
}

struct Image {
    w: usize,
    h: usize,
    px: Vec<[u8; 4]>,
}

impl Image {
    fn decode(bytes: &[u8]) -> Image {
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut reader = dec.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgba);
        let px = buf[..info.buffer_size()]
            .chunks(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect();
        Image {
            w: info.width as usize,
            h: info.height as usize,
            px,
        }
    }

    /// Pixels in rows `y0..y1`, columns `x0..x1` within `tol` of `rgb` in every channel.
    fn count(
        &self,
        rgb: [u8; 3],
        tol: i32,
        (x0, y0, x1, y1): (usize, usize, usize, usize),
    ) -> usize {
        let mut n = 0;
        for y in y0..y1.min(self.h) {
            for x in x0..x1.min(self.w) {
                let p = self.px[y * self.w + x];
                if (0..3).all(|k| (p[k] as i32 - rgb[k] as i32).abs() <= tol) {
                    n += 1;
                }
            }
        }
        n
    }
}

/// `c` drawn over the opaque `under` (source-over).
fn over(c: Color, under: [u8; 3]) -> [u8; 3] {
    let a = c.a() as f32 / 255.0;
    let m = |s: u8, d: u8| (s as f32 * a + d as f32 * (1.0 - a)).round() as u8;
    [m(c.r(), under[0]), m(c.g(), under[1]), m(c.b(), under[2])]
}

fn rgb(c: Color) -> [u8; 3] {
    [c.r(), c.g(), c.b()]
}

/// The ground polys' fill over the background (by area).
fn ground_fill() -> [u8; 3] {
    over(
        Color::area(navkit::area::GROUND).with_alpha(POLY_FILL_ALPHA),
        rgb(BACKGROUND),
    )
}

/// Rows of the legend: the first is at y = 26, one every 14 pixels; swatches at x 20..42.
fn legend_box(row: usize) -> (usize, usize, usize, usize) {
    (20, 26 + 14 * row, 43, 26 + 14 * row + 10)
}

#[test]
fn path_kinds_have_distinct_colours_and_dashes() {
    // Every pair of kinds differs in colour, clearly (at least 60 apart in RGB), and the
    // styles (colour, dash) are all different.
    let kinds = PathKind::ALL;
    for (i, a) in kinds.iter().enumerate() {
        for b in &kinds[i + 1..] {
            let (ca, _, da) = a.style();
            let (cb, _, db) = b.style();
            let d = (0..3)
                .map(|k| (rgb(ca)[k] as f32 - rgb(cb)[k] as f32).powi(2))
                .sum::<f32>()
                .sqrt();
            assert!(d >= 60.0, "{a:?} and {b:?} colours are {d:.0} apart");
            assert!((ca, da) != (cb, db));
        }
    }
    // The kinds use at least all three dash styles.
    for dash in [Dash::Solid, Dash::Dashed, Dash::Dotted] {
        assert!(kinds.iter().any(|k| k.style().2 == dash), "{dash:?}");
    }
}

#[test]
fn each_path_kind_is_drawn_in_its_legend_colour_and_no_other() {
    let nav = floor();
    let opts = RenderOptions {
        width: 600,
        ..RenderOptions::default()
    };
    // Expected pixels: the line's colour over the floor, the swatch's over the background.
    let on_floor = |k: PathKind| over(k.style().0, ground_fill());
    for kind in PathKind::ALL {
        let mut scene = Scene::with_navmesh(&nav, "one path");
        // A horizontal line: its middle pixels are fully covered.
        scene.add_path(
            kind,
            &[Vec3::new(3.0, 0.0, 10.3), Vec3::new(17.0, 0.0, 10.3)],
            format!("{kind:?}"),
        );
        assert_eq!(scene.legend.len(), 3, "ground, walls, the path");
        let img = Image::decode(&navkit::render::render_png(&scene, &opts).unwrap());
        let map = (0, 80, img.w, img.h);
        let own = img.count(on_floor(kind), 6, map);
        assert!(own >= 15, "{kind:?}: {own} pixels of its colour on the map");
        for other in PathKind::ALL.into_iter().filter(|&o| o != kind) {
            let n = img.count(on_floor(other), 6, map);
            assert_eq!(n, 0, "{kind:?} drawn: {n} pixels of {other:?}'s colour");
        }
        // Its legend row (the third) shows the same colour; there is no fourth row.
        let swatch = img.count(over(kind.style().0, rgb(BACKGROUND)), 6, legend_box(2));
        assert!(swatch >= 2, "{kind:?}: {swatch} swatch pixels");
        let row3 = legend_box(3);
        let blank = img.count(rgb(BACKGROUND), 0, row3);
        assert_eq!(blank, (row3.2 - row3.0) * (row3.3 - row3.1), "{kind:?}");
    }
}

#[test]
fn the_legend_lists_only_what_is_drawn() {
    let nav = floor();
    let mut scene = Scene::with_navmesh(&nav, "plain floor");
    let svg = navkit::render::render_svg(&scene, &RenderOptions::default()).unwrap();
    assert!(svg.contains("navmesh polys: ground"));
    assert!(svg.contains("walls"));
    for absent in [
        "water",
        "off-mesh",
        "start",
        "goal",
        "tile bounds",
        "obstacles",
        "grid",
    ] {
        assert!(!svg.contains(absent), "{absent} is listed but not drawn");
    }
    // Empty layers add nothing; start and goal do, with their coordinates.
    scene.add_path(PathKind::Smooth, &[], "an empty path");
    scene.add_endpoints(
        Some(Vec3::new(2.0, 0.0, 3.0)),
        Some(Vec3::new(15.0, 0.0, 16.5)),
        0.6,
    );
    let svg = navkit::render::render_svg(&scene, &RenderOptions::default()).unwrap();
    assert!(!svg.contains("an empty path") && !svg.contains("grid"));
    assert!(svg.contains("start (2.00, 0.00, 3.00)"), "{svg}");
    assert!(svg.contains("goal (15.00, 0.00, 16.50)"));
    // Start and goal are painted in their legend colours.
    let img =
        Image::decode(&navkit::render::render_png(&scene, &RenderOptions::default()).unwrap());
    for (row, layer_color) in [
        (2, Color::rgba(128, 25, 0, 192)),
        (3, Color::rgba(51, 102, 0, 129)),
    ] {
        let want = over(layer_color, rgb(BACKGROUND));
        let b = legend_box(row);
        let seen: Vec<[u8; 4]> = (b.1..b.3).map(|y| img.px[y * img.w + 31]).collect();
        assert!(
            img.count(want, 6, b) > 4,
            "row {row}: want {want:?}, column 31: {seen:?}"
        );
        let on_map = over(layer_color, ground_fill());
        assert!(
            img.count(on_map, 6, (0, 100, img.w, img.h)) > 4,
            "row {row} on the map"
        );
    }
    // Off-mesh links are listed where there are some: the demo level has one jump.
    let demo = navkit::InputGeometry::load("meshes/demo_level.gset").unwrap();
    let settings = demo.settings.clone().unwrap_or_default();
    let demo_nav = NavMeshBuilder::new(&demo)
        .settings(settings.clone())
        .solo()
        .unwrap()
        .into_navmesh();
    let svg = navkit::render::render_svg(
        &Scene::with_navmesh(&demo_nav, "demo"),
        &RenderOptions::default(),
    )
    .unwrap();
    assert!(svg.contains("off-mesh links (1;"), "the demo level's jump");
}

#[test]
fn stacked_floors_are_coloured_by_height_with_a_bar() {
    // A bridge 4 units over the middle of a 30 x 30 floor.
    let geom = quads(&[(0.0, 30.0, 0.0, 30.0, 0.0), (12.0, 18.0, -2.0, 32.0, 4.0)]);
    let nav = navmesh(&geom);
    let scene = Scene::with_navmesh(&nav, "bridge");
    let opts = RenderOptions::default();
    let svg = navkit::render::render_svg(&scene, &opts).unwrap();
    assert!(svg.contains("ground height y (m)") && svg.contains("coloured by height"));
    let img = Image::decode(&navkit::render::render_png(&scene, &opts).unwrap());
    let low = over(
        height_color(0.0).with_alpha(HEIGHT_FILL_ALPHA),
        rgb(BACKGROUND),
    );
    let high = over(height_color(1.0).with_alpha(HEIGHT_FILL_ALPHA), low);
    let map = (0, 90, img.w, img.h);
    let (nl, nh) = (img.count(low, 4, map), img.count(high, 4, map));
    // The floor shows either side of the bridge, the bridge over it: both in large numbers,
    // the floor more (24 of 30 units are not under the bridge, minus the walls' margins).
    assert!(nl > 50_000 && nh > 20_000 && nl > nh, "{nl} low, {nh} high");
    // The area colour is gone from the map.
    assert_eq!(img.count(ground_fill(), 4, map), 0);
    // The bar runs low to high: its end colours appear in the band.
    let band = (0, 0, img.w, 80);
    assert!(img.count(rgb(height_color(0.02)), 6, band) > 10);
    assert!(img.count(rgb(height_color(0.98)), 6, band) > 10);

    // By area on request, and a single floor has no bar.
    let by_area = RenderOptions {
        colors: PolyColors::Area,
        ..opts
    };
    let svg = navkit::render::render_svg(&scene, &by_area).unwrap();
    assert!(!svg.contains("ground height"));
    let svg = navkit::render::render_svg(&Scene::with_navmesh(&floor(), "flat"), &opts).unwrap();
    assert!(!svg.contains("ground height"));
    // Height colouring forced on a flat floor still works (a single colour).
    let forced = RenderOptions {
        colors: PolyColors::Height,
        ..opts
    };
    let svg = navkit::render::render_svg(&Scene::with_navmesh(&floor(), "flat"), &forced).unwrap();
    assert!(svg.contains("ground height y (m)"));
}

/// The SVG's text elements: (x, y, text).
fn texts(svg: &str) -> Vec<(f32, f32, String)> {
    svg.lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("<text x=\"")?;
            let (x, rest) = rest.split_once("\" y=\"")?;
            let (y, rest) = rest.split_once('"')?;
            let text = rest.split_once('>')?.1.strip_suffix("</text>")?;
            Some((x.parse().ok()?, y.parse().ok()?, text.to_string()))
        })
        .collect()
}

#[test]
fn axes_are_labelled_with_world_coordinates() {
    // A floor from x = -10 to 30 and z = 5 to 25.
    let nav = navmesh(&quads(&[(-10.0, 30.0, 5.0, 25.0, 0.0)]));
    let svg = navkit::render::render_svg(
        &Scene::with_navmesh(&nav, "axes"),
        &RenderOptions::default(),
    )
    .unwrap();
    let numbers: Vec<(f32, f32, f32)> = texts(&svg)
        .into_iter()
        .filter_map(|(x, y, t)| Some((x, y, t.parse::<f32>().ok()?)))
        .collect();
    // x labels share the top row (the most common y); z labels are the rest.
    let top_y = numbers.iter().map(|n| n.1).fold(f32::MAX, f32::min);
    let xs: Vec<_> = numbers.iter().filter(|n| n.1 == top_y).collect();
    let zs: Vec<_> = numbers.iter().filter(|n| n.1 != top_y).collect();
    assert!(xs.len() >= 5, "{xs:?}");
    assert!(zs.len() >= 3, "{zs:?}");
    // The labels cover the level (the walls are eroded by the agent radius: 0.6 in).
    let xv: Vec<f32> = xs.iter().map(|n| n.2).collect();
    let zv: Vec<f32> = zs.iter().map(|n| n.2).collect();
    assert!(
        xv.contains(&0.0) && xv.iter().any(|&v| v <= -5.0) && xv.iter().any(|&v| v >= 25.0),
        "{xv:?}"
    );
    assert!(
        zv.iter().any(|&v| v <= 10.0) && zv.iter().any(|&v| v >= 20.0),
        "{zv:?}"
    );
    // Evenly stepped values at evenly spaced places: x grows rightwards, z downwards, at one
    // scale (labels are centred on x ticks by their width, so compare centres).
    let centre = |n: &(f32, f32, f32)| {
        let chars = if n.2 == n.2.trunc() {
            format!("{}", n.2 as i64)
        } else {
            format!("{}", n.2)
        };
        n.0 + chars.len() as f32 * 4.0
    };
    let sx = (centre(xs[1]) - centre(xs[0])) / (xs[1].2 - xs[0].2);
    assert!(sx > 0.0);
    for w in xs.windows(2) {
        let s = (centre(w[1]) - centre(w[0])) / (w[1].2 - w[0].2);
        assert!((s - sx).abs() < 0.05 * sx, "x scale {s} vs {sx}");
    }
    let sz = (zs[1].1 - zs[0].1) / (zs[1].2 - zs[0].2);
    assert!((sz - sx).abs() < 0.05 * sx, "z scale {sz} vs x scale {sx}");
    assert!(svg.contains(">x -&gt;</text>") && svg.contains(">z</text>"));
}

#[test]
fn the_library_refuses_bad_sizes_and_formats() {
    let scene = Scene::with_navmesh(&floor(), "x");
    for (w, m) in [(0, 1600), (100_000, 100_000), (1200, 50), (2000, 1600)] {
        let opts = RenderOptions {
            width: w,
            max_size: m,
            ..RenderOptions::default()
        };
        let e = navkit::render::render_png(&scene, &opts).unwrap_err();
        assert!(matches!(e, navkit::Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("picture"), "{e}");
    }
    let jpg = common::temp("refused.jpg");
    let e = navkit::render::save(&scene, &jpg, &RenderOptions::default()).unwrap_err();
    assert!(e.to_string().contains(".png or .svg"), "{e}");
    assert!(!jpg.exists(), "nothing is written");
    let upper = common::temp("UPPER.SVG");
    navkit::render::save(&scene, &upper, &RenderOptions::default()).unwrap();
    assert!(std::fs::read_to_string(&upper).unwrap().starts_with("<svg"));
}

fn navkit_code(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_navkit"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run navkit");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &std::path::Path) -> String {
    p.display().to_string()
}

#[test]
fn picture_options_are_checked_with_a_message() {
    let gset = "meshes/demo_level.gset";
    let mesh = s(&common::mesh("dungeon.obj"));
    let out = s(&common::temp("opts.png"));
    let jpg = common::temp("x.jpg");
    let jpg_s = s(&jpg);
    let cases: Vec<(Vec<&str>, i32, &[&str])> = vec![
        (
            vec!["render", gset, "-o", &out, "--width", "0"],
            2,
            &["--width", "200..=8192"],
        ),
        (
            vec!["render", gset, "-o", &out, "--width", "100000"],
            2,
            &["--width", "200..=8192"],
        ),
        (
            vec!["render", gset, "-o", &out, "--max-size", "50"],
            2,
            &["--max-size", "200..=8192"],
        ),
        (
            vec!["render", gset, "-o", &out, "--width", "2000"],
            2,
            &["--width 2000 is more than --max-size 1600"],
        ),
        (
            vec!["render", gset, "-o", &out, "--paths", "wiggly"],
            2,
            &["wiggly", "straight"],
        ),
        (
            vec!["render", gset, "-o", &out, "--color", "pink"],
            2,
            &["pink", "height"],
        ),
        (
            vec!["render", gset, "-o", &jpg_s],
            1,
            &["x.jpg", "must end in"],
        ),
        (
            vec!["compare", gset, "--random", "1", "-o", &jpg_s],
            1,
            &["x.jpg", "must end in"],
        ),
        (
            vec!["compare", gset, "--random", "1", "-o", &out, "--width", "0"],
            2,
            &["--width"],
        ),
        (
            vec!["simulate", &mesh, "-o", &jpg_s],
            1,
            &["x.jpg", "must end in"],
        ),
        (
            vec!["simulate", &mesh, "-o", &out, "--max-size", "9000"],
            2,
            &["--max-size"],
        ),
    ];
    for (args, code, words) in cases {
        let (c, _, stderr) = navkit_code(&args);
        assert_eq!(c, code, "{args:?}: {stderr}");
        for w in words {
            assert!(stderr.contains(w), "{args:?}: {w:?} not in {stderr}");
        }
        assert!(!jpg.exists(), "{args:?} wrote a .jpg");
    }
}

/// Width and height from a PNG's header.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x89PNG\r\n\x1a\n");
    (
        u32::from_be_bytes(b[16..20].try_into().unwrap()),
        u32::from_be_bytes(b[20..24].try_into().unwrap()),
    )
}

#[test]
fn a_tall_level_fits_under_the_size_cap() {
    // A corridor 4 wide and 300 long (the shape that gave 1200 x 15331 pictures).
    let obj = common::temp("tall.obj");
    std::fs::write(
        &obj,
        "v 0 0 0\nv 4 0 0\nv 4 0 300\nv 0 0 300\nf 1 3 2\nf 1 4 3\n",
    )
    .unwrap();
    let png = common::temp("tall.png");
    let (c, _, stderr) = navkit_code(&["render", &s(&obj), "-o", &s(&png)]);
    assert_eq!(c, 0, "{stderr}");
    let (w, h) = png_size(&png);
    assert_eq!((w, h), (1200, 1600));
    let (c, _, stderr) = navkit_code(&["render", &s(&obj), "-o", &s(&png), "--max-size", "700"]);
    assert_eq!(c, 0, "{stderr}");
    assert_eq!(png_size(&png), (700, 700));
    let (c, _, stderr) = navkit_code(&[
        "render",
        &s(&obj),
        "-o",
        &s(&png),
        "--max-size",
        "3000",
        "--width",
        "400",
    ]);
    assert_eq!(c, 0, "{stderr}");
    assert_eq!(png_size(&png), (400, 3000));
    // The SVG the same.
    let svg = common::temp("tall.svg");
    let (c, _, stderr) = navkit_code(&["render", &s(&obj), "-o", &s(&svg)]);
    assert_eq!(c, 0, "{stderr}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(
        text.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="1600""#),
        "{}",
        &text[..120]
    );
    // A wide level keeps the width and a small height.
    let wide = common::temp("wide.obj");
    std::fs::write(
        &wide,
        "v 0 0 0\nv 300 0 0\nv 300 0 4\nv 0 0 4\nf 1 3 2\nf 1 4 3\n",
    )
    .unwrap();
    let (c, _, stderr) = navkit_code(&["render", &s(&wide), "-o", &s(&png)]);
    assert_eq!(c, 0, "{stderr}");
    let (w, h) = png_size(&png);
    assert!(w == 1200 && h < 200, "{w} x {h}");
}

#[test]
fn render_draws_one_path_kind_by_default_and_compare_all() {
    let gset = "meshes/demo_level.gset";
    let svg = common::temp("kinds.svg");
    let ends = ["--from", "2,0,2", "--to", "33,2.5,6"];
    let run = |cmd: &str, extra: &[&str]| {
        let mut args = vec![cmd, gset];
        args.extend(ends);
        args.extend(["-o", svg.to_str().unwrap()]);
        args.extend(extra);
        let (c, _, stderr) = navkit_code(&args);
        assert_eq!(c, 0, "{args:?}: {stderr}");
        std::fs::read_to_string(&svg).unwrap()
    };
    // The stroke colours of the paths drawn.
    let strokes = |text: &str| -> Vec<String> {
        PathKind::ALL
            .iter()
            .map(|k| {
                let c = k.style().0;
                format!("stroke=\"#{:02x}{:02x}{:02x}\"", c.r(), c.g(), c.b())
            })
            .filter(|st| text.contains(st.as_str()))
            .collect()
    };
    let one = run("render", &[]);
    assert_eq!(strokes(&one).len(), 1, "render: the straight path only");
    assert!(one.contains("navmesh straight path"));
    let two = run("render", &["--paths", "smooth,spline"]);
    assert_eq!(strokes(&two).len(), 2);
    assert!(two.contains("navmesh smooth path") && two.contains("spline through"));
    assert!(!two.contains("navmesh straight path"));
    let all = run("compare", &[]);
    assert_eq!(
        strokes(&all).len(),
        6,
        "compare: every kind (the optimal path too)"
    );
    assert!(!all.contains("walkable grid cells"));
}

#[test]
fn simulate_shows_each_trajectory_colour_in_its_legend() {
    let mesh = s(&common::mesh("nav_test.obj"));
    let svg = common::temp("sim-colours.svg");
    let (c, _, stderr) = navkit_code(&[
        "simulate",
        &mesh,
        "--agents",
        "5",
        "--seconds",
        "5",
        "-o",
        &s(&svg),
    ]);
    assert_eq!(c, 0, "{stderr}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("agent trajectories (5, one colour per agent"));
    // Agent i's trajectory is drawn in duIntToCol(i + 1), and the legend's swatch shows the
    // same five colours (one box each).
    for i in 1..=5u32 {
        let c = Color::from_int(i, 220);
        let hex = format!("#{:02x}{:02x}{:02x}", c.r(), c.g(), c.b());
        assert!(
            text.contains(&format!("stroke=\"{hex}\"")),
            "agent {i}'s trajectory in {hex}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("<rect") && l.contains(&format!("fill=\"{hex}\""))),
            "agent {i}'s colour {hex} in the legend"
        );
    }
    // The goals are listed (reached or not, with their counts).
    assert!(text.contains("goals reached (") || text.contains("goals not reached ("));
}

#[test]
fn zoom_frames_the_paths_not_the_tile_bounds() {
    let gset = "meshes/demo_level.gset";
    let svg = common::temp("zoom.svg");
    let args = [
        "render", gset, "--from", "2,0,2", "--to", "8,0,3", "--tiled", "--zoom", "-o",
    ];
    let mut a = args.to_vec();
    let out = s(&svg);
    a.push(&out);
    let (c, _, stderr) = navkit_code(&a);
    assert_eq!(c, 0, "{stderr}");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("tile bounds ("), "tiles drawn");
    // The labels span the path (x 2 to 8, z 2 to 3) and 3 units around it, not the level
    // (x 0 to 40, z 0 to 30).
    let labels: Vec<f32> = texts(&text)
        .into_iter()
        .filter_map(|(_, _, t)| t.parse::<f32>().ok())
        .collect();
    assert!(labels.len() >= 4, "{labels:?}");
    assert!(
        labels.iter().all(|&v| (-1.5..=11.5).contains(&v)),
        "{labels:?}"
    );
}

#[test]
fn compare_draws_grid_cells_and_turn_boundaries_from_debug_draw() {
    use navkit::debug_draw::paths::GRID_TRAJECTORY_COLOR;
    use navkit::debug_draw::{follower as dfol, grid as dgrid};

    use navkit::render::{ComparisonPaths, comparison_scene};
    use navkit::tools::compare::{CompareSettings, Comparer};

    // The turn boundaries' colours stand apart from every path kind's (the trajectories they
    // cross included), as the kinds do from each other.
    let lines = PathKind::ALL
        .map(|k| (format!("{k:?}"), k.style().0))
        .into_iter()
        .chain([("grid trajectory".to_string(), GRID_TRAJECTORY_COLOR)]);
    for (k, kc) in lines {
        for c in [dfol::TURN_COLOR, dfol::SLOW_COLOR, dfol::FINISH_COLOR] {
            let d = (0..3)
                .map(|i| (rgb(c)[i] as f32 - rgb(kc)[i] as f32).powi(2))
                .sum::<f32>()
                .sqrt();
            assert!(d >= 60.0, "{c:?} and {k} are {d:.0} apart");
        }
    }
    let geom = InputGeometry::load("meshes/demo_level.gset").unwrap();
    let settings = geom.settings.clone().unwrap_or_default();
    let nav = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .solo()
        .unwrap()
        .into_navmesh();
    let grid = NavMeshBuilder::new(&geom)
        .settings(settings.clone())
        .grid()
        .unwrap();
    let mut cmp = Comparer::new(&nav, Some(&grid), CompareSettings::default()).unwrap();
    let c = cmp
        .compare(Vec3::new(2.0, 0.0, 2.0), Vec3::new(33.0, 2.5, 6.0))
        .unwrap();
    let nf = &c.navmesh.as_ref().unwrap().follower.as_ref().unwrap().path;
    let gf = &c.grid.as_ref().unwrap().follower.as_ref().unwrap().path;
    let paths = ComparisonPaths {
        grid_cells: true,
        ..ComparisonPaths::ALL
    };
    let scene = comparison_scene(&nav, Some(&grid), Some(&c), "demo", paths);
    let label = |start: &str| {
        scene
            .legend
            .iter()
            .find(|e| e.label.starts_with(start))
            .map(|e| e.label.clone())
            .unwrap_or_else(|| panic!("no legend entry {start}"))
    };
    // The cells layer is debug_draw's: one square (2 triangles) per walkable span, 0.6 of
    // the cell across, at its span's floor, in its area's colour.
    let walkable = grid.walkable_count();
    assert!(label("walkable grid cells").starts_with(&format!("walkable grid cells ({walkable},")));
    let cells = scene.overlays.layer(dgrid::CELLS_LAYER).unwrap();
    let dd = dgrid::mesh_cells(&grid);
    assert_eq!(cells.triangles().count(), 2 * walkable);
    assert_eq!(dd.triangles().count(), 2 * walkable);
    let cs = grid.cell_size();
    for (k, ((t, c), (u, d))) in cells.triangles().zip(dd.triangles()).enumerate() {
        let area = |t: [Vec3; 3]| (t[1] - t[0]).cross(t[2] - t[0]).length() / 2.0;
        assert!((area(t) - 0.36 * cs * cs / 2.0).abs() < 1e-4);
        assert!((area(u) - cs * cs / 2.0).abs() < 1e-4);
        // The same centre and floor as the full cell (a quad's first triangle has its
        // diagonal from corner 0 to corner 2).
        let centre = |t: [Vec3; 3]| (t[0] + t[2]) / 2.0;
        assert!(k % 2 == 1 || (centre(t) - centre(u)).length() < 1e-3);
        assert_eq!((c.r(), c.g(), c.b()), (d.r(), d.g(), d.b()));
    }
    // Turn boundaries: debug_draw's, one line per boundary of both followers' paths, and one
    // look point each.
    let n = nf.boundaries.len() + gf.boundaries.len();
    assert!(n >= 4);
    assert!(label("turn boundaries").starts_with(&format!("turn boundaries ({n};")));
    let b = scene.overlays.layer(dfol::BOUNDARIES_LAYER).unwrap();
    let mut want = dfol::boundaries(nf, 1.2);
    want.primitives.extend(dfol::boundaries(gf, 1.2).primitives);
    assert_eq!(b.primitives, want.primitives);
    assert_eq!(b.lines().count(), n);
    assert_eq!(b.points().count(), n);
    // Two finish lines (magenta, the label says so), the other lines blue or orange.
    let finish = b.lines().filter(|l| l.2 == dfol::FINISH_COLOR).count();
    assert_eq!(finish, 2);
    assert!(label("turn boundaries").contains("magenta: finish line"));
}
