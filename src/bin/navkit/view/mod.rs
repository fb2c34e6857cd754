//! `navkit view`: a local web viewer. One page (HTML + JS + WebGL, embedded in the binary) and a
//! small JSON API over the navmesh of the input:
//!
//! - `GET /` the page;
//! - `GET /api/layers` the scene as named layers of triangles, lines and points (`positions` as
//!   flat `x, y, z` triples, `colors` as flat `r, g, b, a` bytes per vertex), the bounds and the
//!   counts; poly refs are decimal strings (they may be 64-bit, more than a JS number holds);
//! - `POST /api/path {"start": [x, y, z], "end": [x, y, z]}` the corridor, straight and smooth
//!   paths and their lengths, as `navkit path` computes them;
//! - `POST /api/build {"cell_size": 0.3, ...}` a rebuild with those settings (geometry only).

mod dynamic;
mod http;

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use glam::Vec3;
use serde_json::{Map, Value, json};

use navkit::build::{Budget, build_solo_with};
use navkit::navmesh::NavMesh;
use navkit::query::{NavMeshQuery, QueryFilter};
use navkit::{BuildSettings, Error, InputGeometry};

use crate::common::is_geometry;
use crate::exit::{CliError, CliResult, Outcome};
use crate::json::{num32, v3};
use http::{Request, Response};

/// The page, embedded at build time.
const PAGE: &str = include_str!("page.html");

/// The longest a rebuild asked for by the page may take.
const BUILD_TIME_LIMIT: Duration = Duration::from_secs(60);
/// The most grid cells a rebuild asked for by the page may have.
const BUILD_MAX_CELLS: u64 = 50_000_000;

// `navkit view` arguments.
#[derive(clap::Args)]
pub struct ViewArgs {
    /// MESH.obj, MESH.gltf, MESH.glb, GEOM.gset (built first), a saved navmesh or a saved tile
    /// cache (RecastDemo's TSET: obstacles and crowds work on it).
    pub input: PathBuf,
    /// The port to serve on (default: one the system chooses).
    #[arg(long, default_value_t = 0)]
    pub port: u16,
    /// The address to bind (default 127.0.0.1: only this machine can connect). Another address
    /// lets other machines on that network see the level and run builds.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Open the page in the default browser (`xdg-open`, `open` or `start`).
    #[arg(long)]
    pub open: bool,
}

/// What the server shows: the input, the settings of its navmesh and the navmesh.
struct State {
    geometry: Option<InputGeometry>,
    settings: BuildSettings,
    navmesh: NavMesh,
    build_ms: f64,
    source: String,
    /// Obstacles, the crowd and their tile cache (view/dynamic.rs).
    dynamic: dynamic::Dynamic,
}

impl State {
    /// The navmesh everything uses (layers, paths, hover): the tile cache's in dynamic mode.
    fn navmesh(&self) -> &NavMesh {
        self.dynamic.navmesh().unwrap_or(&self.navmesh)
    }
}

pub fn run(args: ViewArgs) -> CliResult {
    let state = load(&args.input)?;
    let listener = TcpListener::bind(SocketAddr::new(args.bind, args.port)).map_err(|e| {
        CliError::from(Error::InvalidArgument(format!(
            "cannot listen on {}:{}: {e}",
            args.bind, args.port
        )))
    })?;
    let addr = listener
        .local_addr()
        .map_err(|e| CliError::from(Error::InvalidArgument(format!("no local address: {e}"))))?;
    let host = match addr.ip() {
        IpAddr::V6(ip) => format!("[{ip}]"),
        IpAddr::V4(ip) => ip.to_string(),
    };
    let url = format!("http://{host}:{}/", addr.port());
    {
        use std::io::Write;
        out!("navkit view: serving {} at {url}", state.source);
        out!("Press Ctrl-C to stop.");
        let _ = std::io::stdout().flush();
    }
    if args.open {
        open_browser(&url);
    }
    let state = Arc::new(Mutex::new(state));
    http::serve(listener, move |req| route(&state, req));
    Ok(Outcome::Success)
}

fn open_browser(url: &str) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else if cfg!(windows) {
        "explorer"
    } else {
        "xdg-open"
    };
    if let Err(e) = std::process::Command::new(opener).arg(url).spawn() {
        eprintln!("navkit view: could not open a browser with {opener} ({e}); open {url} yourself");
    }
}

fn load(input: &std::path::Path) -> navkit::Result<State> {
    let source = input.display().to_string();
    if is_geometry(input) {
        let geom = InputGeometry::load(input)?;
        let settings = geom.settings.clone().unwrap_or_default();
        let t = Instant::now();
        let navmesh = build_solo_with(&geom, &settings, &crate::common::budget())?.navmesh;
        Ok(State {
            geometry: Some(geom),
            settings,
            navmesh,
            build_ms: t.elapsed().as_secs_f64() * 1e3,
            source,
            dynamic: Default::default(),
        })
    } else if let Some((settings, navmesh, dynamic)) = dynamic::load_tile_cache(input)? {
        // RecastDemo's tile cache file: obstacles and crowds from the start.
        Ok(State {
            geometry: None,
            settings,
            navmesh,
            build_ms: 0.0,
            source,
            dynamic,
        })
    } else {
        Ok(State {
            geometry: None,
            settings: BuildSettings::default(),
            navmesh: NavMesh::load(input)?,
            build_ms: 0.0,
            source,
            dynamic: Default::default(),
        })
    }
}

fn route(state: &Mutex<State>, req: &Request) -> Response {
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(r) = dynamic::route(state, req) {
        return r;
    }
    match (req.method.as_str(), req.path.as_str()) {
        ("GET" | "HEAD", "/" | "/index.html") => Response {
            status: 200,
            content_type: "text/html; charset=utf-8",
            body: PAGE.as_bytes().to_vec(),
        },
        ("GET", "/favicon.ico") => Response {
            status: 204,
            content_type: "image/x-icon",
            body: Vec::new(),
        },
        ("GET", "/api/layers") => Response::json(200, &layers(&lock())),
        ("POST", "/api/path") => match parse_body(&req.body).and_then(|v| path_request(&v)) {
            Ok((start, end)) => Response::json(200, &path(&lock(), start, end)),
            Err(r) => r,
        },
        ("POST", "/api/build") => match parse_body(&req.body).and_then(|v| {
            let mut st = lock();
            let settings = settings_request(&st.settings, &v)?;
            rebuild(&mut st, settings)
        }) {
            Ok(v) => Response::json(200, &v),
            Err(r) => r,
        },
        (_, "/" | "/index.html" | "/api/layers" | "/api/path" | "/api/build") => Response::error(
            405,
            format!("{} is not allowed on {}", req.method, http::clip(&req.path)),
        ),
        _ => Response::error(
            404,
            format!(
                "no such page: {} (the viewer serves /, /api/layers, /api/path and /api/build, and no files)",
                http::clip(&req.path)
            ),
        ),
    }
}

fn parse_body(body: &[u8]) -> Result<Value, Response> {
    serde_json::from_slice(body)
        .map_err(|e| Response::error(400, format!("the body is not JSON: {e}")))
}

/// A point `[x, y, z]` of finite numbers.
fn point(v: &Value, key: &str) -> Result<Vec3, Response> {
    let bad = || {
        Response::error(
            400,
            format!("`{key}` must be [x, y, z], three finite numbers (at most 1e7 in size)"),
        )
    };
    let arr = v.get(key).and_then(Value::as_array).ok_or_else(bad)?;
    if arr.len() != 3 {
        return Err(bad());
    }
    let mut p = [0f32; 3];
    for (i, x) in arr.iter().enumerate() {
        let f = x.as_f64().ok_or_else(bad)?;
        if !f.is_finite() || f.abs() > 1e7 {
            return Err(bad());
        }
        p[i] = f as f32;
    }
    Ok(Vec3::from_array(p))
}

fn path_request(v: &Value) -> Result<(Vec3, Vec3), Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object {start, end}"))?;
    if let Some(k) = obj.keys().find(|k| *k != "start" && *k != "end") {
        return Err(Response::error(
            400,
            format!("unknown field `{}` (expected start and end)", http::clip(k)),
        ));
    }
    Ok((point(v, "start")?, point(v, "end")?))
}

fn refs_json(refs: impl IntoIterator<Item = navkit::query::PolyRef>) -> Value {
    Value::Array(
        refs.into_iter()
            .map(|r| Value::String(r.to_u64().to_string()))
            .collect(),
    )
}

/// A path between two points, as `navkit path` finds it (default search box and filter).
fn path(st: &State, start: Vec3, end: Vec3) -> Value {
    let mut q = match NavMeshQuery::new(st.navmesh(), 2048) {
        Ok(q) => q,
        Err(e) => return json!({"status": "failed", "error": e.to_string()}),
    };
    let t = Instant::now();
    let answer = crate::path::find(&mut q, start, end, &QueryFilter::default(), None);
    let ms = t.elapsed().as_secs_f64() * 1e3;
    match answer.result() {
        Ok(fp) => json!({
            "status": crate::json::status(fp.path.is_complete()),
            "start": v3(start),
            "goal": v3(end),
            "start_ref": fp.start.poly.to_u64().to_string(),
            "goal_ref": fp.end.poly.to_u64().to_string(),
            "corridor": refs_json(fp.path.polys.iter().copied()),
            "straight": fp.straight.points.iter().map(|p| v3(p.pos)).collect::<Vec<_>>(),
            "straight_length_m": num32(fp.straight.length()),
            "smooth": fp.smooth.points.iter().map(|&p| v3(p)).collect::<Vec<_>>(),
            "smooth_length_m": num32(fp.smooth.length()),
            "query_ms": ms,
        }),
        Err(e) => json!({
            "status": "failed",
            "start": v3(start),
            "goal": v3(end),
            "error": e.to_string(),
        }),
    }
}

/// The settings the page may change: name, smallest and largest value, whole number or not.
const SETTINGS: &[(&str, f64, f64, bool)] = &[
    ("cell_size", 0.05, 100.0, false),
    ("cell_height", 0.05, 100.0, false),
    ("agent_height", 0.0, 1000.0, false),
    ("agent_radius", 0.0, 1000.0, false),
    ("agent_max_climb", 0.0, 1000.0, false),
    ("agent_max_slope", 0.0, 90.0, false),
    ("region_min_size", 0.0, 1.0e5, false),
    ("region_merge_size", 0.0, 1.0e5, false),
    ("edge_max_len", 0.0, 1.0e5, false),
    ("edge_max_error", 0.0, 1.0e3, false),
    ("verts_per_poly", 3.0, 6.0, true),
    ("detail_sample_dist", 0.0, 1.0e4, false),
    ("detail_sample_max_error", 0.0, 1.0e4, false),
];

/// `base` with the fields of a build request in place; every field checked.
fn settings_request(base: &BuildSettings, v: &Value) -> Result<BuildSettings, Response> {
    let obj = v
        .as_object()
        .ok_or_else(|| Response::error(400, "the body must be an object of settings"))?;
    let mut s = base.clone();
    for (key, value) in obj {
        let Some(&(name, lo, hi, whole)) = SETTINGS.iter().find(|(n, ..)| n == key) else {
            let names: Vec<&str> = SETTINGS.iter().map(|(n, ..)| *n).collect();
            return Err(Response::error(
                400,
                format!(
                    "unknown setting `{}` (known: {})",
                    http::clip(key),
                    names.join(", ")
                ),
            ));
        };
        let x = value
            .as_f64()
            .filter(|x| x.is_finite())
            .ok_or_else(|| Response::error(400, format!("`{name}` must be a finite number")))?;
        if x < lo || x > hi || (whole && x.fract() != 0.0) {
            return Err(Response::error(
                400,
                format!(
                    "`{name}` = {x} is out of range: {}from {lo} to {hi}",
                    if whole { "a whole number " } else { "" }
                ),
            ));
        }
        let f = x as f32;
        match name {
            "cell_size" => s.cell_size = f,
            "cell_height" => s.cell_height = f,
            "agent_height" => s.agent_height = f,
            "agent_radius" => s.agent_radius = f,
            "agent_max_climb" => s.agent_max_climb = f,
            "agent_max_slope" => s.agent_max_slope = f,
            "region_min_size" => s.region_min_size = f,
            "region_merge_size" => s.region_merge_size = f,
            "edge_max_len" => s.edge_max_len = f,
            "edge_max_error" => s.edge_max_error = f,
            "verts_per_poly" => s.verts_per_poly = x as u32,
            "detail_sample_dist" => s.detail_sample_dist = f,
            "detail_sample_max_error" => s.detail_sample_max_error = f,
            _ => unreachable!("every name in SETTINGS is matched"),
        }
    }
    s.validate()
        .map_err(|e| Response::error(400, format!("invalid settings: {e}")))?;
    Ok(s)
}

fn settings_json(s: &BuildSettings) -> Value {
    let mut m = Map::new();
    let all = [
        s.cell_size,
        s.cell_height,
        s.agent_height,
        s.agent_radius,
        s.agent_max_climb,
        s.agent_max_slope,
        s.region_min_size,
        s.region_merge_size,
        s.edge_max_len,
        s.edge_max_error,
        s.verts_per_poly as f32,
        s.detail_sample_dist,
        s.detail_sample_max_error,
    ];
    for ((name, ..), x) in SETTINGS.iter().zip(all) {
        m.insert((*name).to_string(), num32(x));
    }
    Value::Object(m)
}

fn rebuild(st: &mut State, settings: BuildSettings) -> Result<Value, Response> {
    let Some(geom) = st.geometry.as_ref() else {
        return Err(Response::error(
            422,
            "the viewer was started on a saved navmesh: there is no geometry to rebuild from",
        ));
    };
    let budget = Budget::new()
        .time_limit(BUILD_TIME_LIMIT)
        .max_cells(BUILD_MAX_CELLS);
    let t = Instant::now();
    match build_solo_with(geom, &settings, &budget) {
        Ok(built) => {
            st.navmesh = built.navmesh;
            st.settings = settings;
            st.build_ms = t.elapsed().as_secs_f64() * 1e3;
            let dynamic = dynamic::after_rebuild(st);
            Ok(
                json!({"counts": counts(st), "settings": settings_json(&st.settings), "build_ms": st.build_ms, "dynamic": dynamic}),
            )
        }
        Err(e) => Err(Response::error(422, format!("the build failed: {e}"))),
    }
}

fn counts(st: &State) -> Value {
    let polys = st.navmesh().polys();
    let mut detail_tris = 0usize;
    for tile in st.navmesh().tiles() {
        for poly in tile.polys() {
            detail_tris += poly.detail().map_or(0, |d| d.triangle_count());
        }
    }
    json!({
        "tiles": st.navmesh().tile_count(),
        "polys": polys.iter().filter(|p| !p.off_mesh).count(),
        "off_mesh_connections": polys.iter().filter(|p| p.off_mesh).count(),
        "detail_tris": detail_tris,
        "input_tris": st.geometry.as_ref().map_or(0, |g| g.mesh.tri_count()),
        "input_verts": st.geometry.as_ref().map_or(0, |g| g.mesh.vert_count()),
    })
}

/// An area's colour, after RecastDemo's (ground 0 and walkable 63 blue; others hashed to a hue).
fn area_color(area: u8) -> [u8; 4] {
    match area {
        0 | 63 => [0, 192, 255, 150],
        a => {
            let h = u32::from(a).wrapping_mul(2_654_435_761);
            [
                (h >> 24) as u8 | 64,
                (h >> 16) as u8 | 64,
                (h >> 8) as u8 | 64,
                160,
            ]
        }
    }
}

/// The scene as layers. Each layer: `name`, `kind` (`tris`, `lines` or `points`), `positions`
/// (flat xyz), `colors` (flat rgba bytes, one per vertex), and for the navmesh triangles the
/// poly ref of each triangle (`refs`, decimal strings).
fn layers(st: &State) -> Value {
    let mut out = Vec::new();
    let round = |x: f32| num32(x);
    if let Some(g) = &st.geometry {
        let m = &g.mesh;
        let mut pos = Vec::with_capacity(m.tris.len() * 3);
        let mut col = Vec::with_capacity(m.tris.len() * 4);
        for tri in m.tris.chunks_exact(3) {
            let v = |i: i32| {
                let i = i as usize * 3;
                Vec3::new(m.verts[i], m.verts[i + 1], m.verts[i + 2])
            };
            let (a, b, c) = (v(tri[0]), v(tri[1]), v(tri[2]));
            let n = (b - a).cross(c - a).normalize_or_zero();
            // RecastDemo's: walkable slopes lighter, the rest darker, shaded by the normal.
            let walkable = n.y >= st.settings.agent_max_slope.to_radians().cos();
            let shade = 0.6 + 0.4 * n.y.abs();
            let base: [f32; 3] = if walkable {
                [200.0, 190.0, 170.0]
            } else {
                [150.0, 120.0, 110.0]
            };
            for p in [a, b, c] {
                pos.extend([round(p.x), round(p.y), round(p.z)]);
                col.extend([
                    json!((base[0] * shade) as u8),
                    json!((base[1] * shade) as u8),
                    json!((base[2] * shade) as u8),
                    json!(110),
                ]);
            }
        }
        out.push(json!({"name": "geometry", "kind": "tris", "positions": pos, "colors": col}));
    }
    let (mut tp, mut tc, mut trefs) = (Vec::new(), Vec::new(), Vec::new());
    let (mut lp, mut lc) = (Vec::new(), Vec::new());
    let (mut op, mut oc) = (Vec::new(), Vec::new());
    for tile in st.navmesh().tiles() {
        for poly in tile.polys() {
            let r = poly.poly_ref().to_u64().to_string();
            let color = area_color(poly.area());
            if let Some(d) = poly.detail() {
                for t in d.triangles() {
                    for p in t.verts {
                        tp.extend([round(p.x), round(p.y), round(p.z)]);
                        tc.extend(color.map(|c| json!(c)));
                    }
                    trefs.push(Value::String(r.clone()));
                }
                let verts: Vec<Vec3> = poly.vertices().collect();
                for (i, &a) in verts.iter().enumerate() {
                    let b = verts[(i + 1) % verts.len()];
                    for p in [a, b] {
                        lp.extend([round(p.x), round(p.y), round(p.z)]);
                        lc.extend([json!(0), json!(48), json!(64), json!(200)]);
                    }
                }
            } else {
                for p in poly.vertices() {
                    op.extend([round(p.x), round(p.y), round(p.z)]);
                    oc.extend([json!(255), json!(196), json!(0), json!(255)]);
                }
            }
        }
    }
    out.push(
        json!({"name": "navmesh", "kind": "tris", "positions": tp, "colors": tc, "refs": trefs}),
    );
    out.push(json!({"name": "poly outlines", "kind": "lines", "positions": lp, "colors": lc}));
    out.push(json!({"name": "off-mesh links", "kind": "lines", "positions": op, "colors": oc}));
    let (bmin, bmax) = match &st.geometry {
        Some(g) => {
            let b = g.mesh.bounds();
            (b.min, b.max)
        }
        None => navmesh_bounds(st.navmesh()),
    };
    json!({
        "source": st.source,
        "bmin": v3(bmin),
        "bmax": v3(bmax),
        "counts": counts(st),
        "settings": settings_json(&st.settings),
        "can_rebuild": st.geometry.is_some(),
        "build_ms": st.build_ms,
        "layers": out,
    })
}

fn navmesh_bounds(nav: &NavMesh) -> (Vec3, Vec3) {
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    for p in nav.polys() {
        for v in p.verts {
            lo = lo.min(v);
            hi = hi.max(v);
        }
    }
    if lo.x > hi.x {
        (Vec3::ZERO, Vec3::ONE)
    } else {
        (lo, hi)
    }
}
