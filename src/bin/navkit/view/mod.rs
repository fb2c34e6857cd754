//! `navkit view`: a local web viewer, RecastDemo's view in the browser. One page (HTML + JS +
//! WebGL, embedded in the binary, nothing fetched from elsewhere) and a small JSON API over the
//! input and its navmesh:
//!
//! - `GET /` the page;
//! - `GET /api/layers` the scene: [`navkit::debug_draw`]'s layers of the geometry and the
//!   navmesh (format in [`encode`]; poly refs as decimal strings, since they may be 64-bit), the
//!   bounds, the counts, the settings with the panel's field table, the last build's report;
//! - `GET /api/stages` the Recast stages of the current settings (names and sizes; of one
//!   tile when the navmesh is tiled, `POST {"tile": [x, z]}` for another) and
//!   `POST /api/stages {"layers": [...], "tile": [x, z]}` their layers ([`stages`]);
//! - `POST /api/path {"start": [x, y, z], "end": [x, y, z], "filter": {...}}` every kind of
//!   path between two points ([`paths`]);
//! - `POST /api/build {"cell_size": 0.3, "partition": "monotone", "mode": "tiled", ...}` a
//!   rebuild with those settings ([`settings`]);
//! - tile-cache obstacles, a live crowd, scenarios and saving under `/api/dynamic`,
//!   `/api/obstacles/...`, `/api/crowd/...`, `/api/scenario`, `/api/save` and the downloads,
//!   with the page's script `/dynamic.js` ([`dynamic`]).
//!
//! Every answer is bounded and every bad request gets a 4xx with a message ([`http`]). Only the
//! page's own requests are answered: the URL printed at start carries a secret token that every
//! API request must send, the `Host` must be this server's address and the `Origin` (if any)
//! its own, and a request that is not a GET must be JSON ([`http::Access`]). A build runs on
//! the requesting connection's thread, off the state lock: the others are answered from the
//! current navmesh meanwhile, and the next build cancels it ([`settings::build_request`]); so
//! does a tile cache's build ([`dynamic`]).

mod dynamic;
mod encode;
mod grid;
mod http;
mod paths;
mod scene;
mod settings;
mod stages;

use std::net::{IpAddr, SocketAddr, TcpListener};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use navkit::NavMeshBuilder;
use navkit::build::tiled::TiledNavMesh;
use navkit::grid::mesh::MeshGrid;
use navkit::navmesh::NavMesh;
use navkit::{BuildSettings, Error, InputGeometry};

use crate::common::is_geometry;
use crate::exit::{CliError, CliResult, Outcome};
use http::{Request, Response};
use paths::{path, path_request};
use scene::layers;

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

/// What the server shows: the input, the settings of its navmesh, the navmesh and what the
/// last build reported, and what is computed from them on request (kept until the next build).
pub(crate) struct State {
    /// The level's geometry (shared with a build in flight).
    geometry: Option<Arc<InputGeometry>>,
    settings: BuildSettings,
    /// Built tiled (`TiledNavMesh`) rather than solo.
    tiled: bool,
    navmesh: NavMesh,
    /// The last build's report: `mode`, `total_ms`, `stages_ms`, `counts`, `warnings`, `grid`.
    build: Value,
    /// The stage layers of the current settings, once asked.
    stages: Option<Arc<stages::Stages>>,
    /// The tiled build whose tiles' stages are shown, once asked (tiled navmeshes).
    stage_tiles: Option<TiledNavMesh>,
    /// The grid of the grid paths, once asked.
    grid: Option<MeshGrid>,
    grid_ms: f64,
    source: String,
    /// Obstacles, the crowd and their tile cache (view/dynamic.rs).
    dynamic: dynamic::Dynamic,
    /// The file the viewer was started on (never saved over).
    input: PathBuf,
    /// The build in flight, if any ([`settings::build_request`]).
    building: Option<settings::InFlight>,
    /// The number of the next build.
    next_build: u64,
}

impl State {
    /// The navmesh everything the viewer shows and queries (layers, paths, hover) uses: the
    /// tile cache's in dynamic mode (obstacles, crowd), else the built or loaded one.
    pub(crate) fn navmesh(&self) -> &NavMesh {
        self.dynamic.navmesh().unwrap_or(&self.navmesh)
    }

    /// Replaces the navmesh (after a build), dropping what was computed from the old one.
    fn set_navmesh(&mut self, navmesh: NavMesh) {
        self.navmesh = navmesh;
        self.navmesh_changed();
    }

    /// Drops what was computed for the navmesh shown (stages, grid): called when it changes,
    /// by a build or in dynamic mode (obstacles, a new tile cache, a scenario).
    fn navmesh_changed(&mut self) {
        self.stages = None;
        self.stage_tiles = None;
        self.grid = None;
    }
}

/// The state, locked (also after a request panicked holding it).
fn lock(state: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The secret of this run: 128 bits from the operating system's generator, in hex.
fn new_token() -> navkit::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| {
        Error::InvalidArgument(format!("no random numbers for the viewer's token: {e}"))
    })?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

pub fn run(args: ViewArgs) -> CliResult {
    let state = load(&args.input)?;
    let token = new_token()?;
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
    let url = format!("http://{host}:{}/?token={token}", addr.port());
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
    let access = http::Access::new(token, addr.ip(), addr.port());
    http::serve(listener, access, move |req| route(&state, req));
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
    let input_path = input.to_path_buf();
    if is_geometry(input) {
        let geom = crate::common::load_input(input)?;
        let settings = geom.settings.clone().unwrap_or_default();
        let built = NavMeshBuilder::new(&geom)
            .settings(settings.clone())
            .budget(crate::common::budget())
            .solo()?;
        let build = settings::solo_report(built.report());
        let st = State {
            geometry: Some(Arc::new(geom)),
            settings,
            tiled: false,
            navmesh: built.into_navmesh(),
            build,
            stages: None,
            stage_tiles: None,
            grid: None,
            grid_ms: 0.0,
            source,
            dynamic: Default::default(),
            input: input_path,
            building: None,
            next_build: 1,
        };
        Ok(st)
    } else if let Some((settings, navmesh, dynamic)) = dynamic::load_tile_cache(input)? {
        // RecastDemo's tile cache file: obstacles and crowds from the start.
        Ok(State {
            geometry: None,
            settings,
            tiled: true,
            navmesh,
            build: json!({"mode": "loaded", "total_ms": 0.0, "warnings": []}),
            stages: None,
            stage_tiles: None,
            grid: None,
            grid_ms: 0.0,
            source,
            dynamic,
            input: input_path,
            building: None,
            next_build: 1,
        })
    } else {
        Ok(State {
            geometry: None,
            settings: BuildSettings::default(),
            tiled: false,
            navmesh: NavMesh::load(input)?,
            build: json!({"mode": "loaded", "total_ms": 0.0, "warnings": []}),
            stages: None,
            stage_tiles: None,
            grid: None,
            grid_ms: 0.0,
            source,
            dynamic: Default::default(),
            input: input_path,
            building: None,
            next_build: 1,
        })
    }
}

/// The routes and the methods they answer.
const ROUTES: [(&str, &str); 6] = [
    ("/", "GET"),
    ("/api/layers", "GET"),
    ("/api/grid", "GET"),
    ("/api/stages", "GET or POST"),
    ("/api/path", "POST"),
    ("/api/build", "POST"),
];

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
        ("GET", "/api/grid") => match grid::layers(&mut lock()) {
            Ok(v) => Response::json(200, &v),
            Err(r) => r,
        },
        ("GET", "/api/stages") => match stages::list(&mut lock(), stages::TileChoice::Default) {
            Ok(v) => Response::json(200, &v),
            Err(r) => r,
        },
        ("POST", "/api/stages") => {
            match parse_body(&req.body).and_then(|v| stages::send(&mut lock(), &v)) {
                Ok(v) => Response::json(200, &v),
                Err(r) => r,
            }
        }
        ("POST", "/api/path") => match parse_body(&req.body).and_then(|v| path_request(&v)) {
            Ok(p) => Response::json(200, &path(&mut lock(), &p)),
            Err(r) => r,
        },
        ("POST", "/api/build") => {
            match parse_body(&req.body).and_then(|v| settings::build_request(state, &v)) {
                Ok(v) => Response::json(200, &v),
                Err(r) => r,
            }
        }
        (method, path) => match ROUTES
            .iter()
            .chain(&dynamic::ROUTES)
            .find(|(p, _)| *p == path || (path == "/index.html" && *p == "/"))
        {
            Some((_, allowed)) => Response::error(
                405,
                format!(
                    "{} is not allowed on {} (use {allowed})",
                    http::clip(method),
                    http::clip(path)
                ),
            ),
            None => Response::error(
                404,
                format!(
                    "no such page: {} (the viewer serves {}, and no files)",
                    http::clip(path),
                    ROUTES
                        .iter()
                        .chain(&dynamic::ROUTES)
                        .map(|(p, _)| *p)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        },
    }
}

fn parse_body(body: &[u8]) -> Result<Value, Response> {
    serde_json::from_slice(body)
        .map_err(|e| Response::error(400, format!("the body is not JSON: {e}")))
}
