//! `navkit view` as a child process, and raw HTTP requests to it.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running `navkit view`; killed when dropped.
pub struct Viewer {
    child: Child,
    pub addr: SocketAddr,
    /// The URL it printed, with its token (`http://127.0.0.1:PORT/?token=...`): add page
    /// parameters with `&`.
    pub url: String,
    /// The secret token of its URL.
    pub token: String,
}

impl Viewer {
    /// Starts `navkit view INPUT --port 0` and reads the URL it prints.
    pub fn start(input: &std::path::Path) -> Viewer {
        Viewer::start_in(input, std::path::Path::new(env!("CARGO_MANIFEST_DIR")), &[])
    }

    /// [`Viewer::start`] with global options before `view` (e.g. `--max-memory 64M`).
    pub fn start_with(input: &std::path::Path, options: &[&str]) -> Viewer {
        Viewer::start_in(
            input,
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
            options,
        )
    }

    /// [`Viewer::start_with`] in the working directory `dir` (where its saves go).
    pub fn start_in(input: &std::path::Path, dir: &std::path::Path, options: &[&str]) -> Viewer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_navkit"))
            .args(options)
            .args(["view", &input.display().to_string(), "--port", "0"])
            .current_dir(dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start navkit view");
        let stdout = child.stdout.take().expect("stdout");
        let mut line = String::new();
        let mut reader = BufReader::new(stdout);
        reader.read_line(&mut line).expect("read the URL line");
        // Keep reading what it prints (closing the pipe would end it).
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no URL in `{line}`"))
            .to_string();
        let (host_port, rest) = url
            .trim_start_matches("http://")
            .split_once('/')
            .unwrap_or_else(|| panic!("no path in `{url}`"));
        let addr: SocketAddr = host_port.parse().expect("address in the URL");
        assert!(addr.ip().is_loopback(), "binds loopback by default: {addr}");
        let token = rest
            .strip_prefix("?token=")
            .unwrap_or_else(|| panic!("no token in `{url}`"))
            .to_string();
        Viewer {
            child,
            addr,
            url,
            token,
        }
    }

    /// The `Host` and token header lines of the page's own requests (each ending in CRLF), for
    /// raw requests.
    pub fn auth(&self) -> String {
        format!("Host: {}\r\nX-Navkit-Token: {}\r\n", self.addr, self.token)
    }

    /// Sends raw bytes, closes the write side and returns (status, body). The status is 0 if the
    /// answer has no status line.
    pub fn raw(&self, bytes: &[u8]) -> (u16, String) {
        let mut s = TcpStream::connect(self.addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(30))).unwrap();
        // The server may answer (and stop reading) before everything is sent: ignore a write
        // error and read what it said.
        let _ = s.write_all(bytes);
        let _ = s.shutdown(std::net::Shutdown::Write);
        let mut answer = Vec::new();
        let _ = s.read_to_end(&mut answer);
        parse(&answer)
    }

    /// A GET.
    pub fn get(&self, path: &str) -> (u16, String) {
        self.raw(format!("GET {path} HTTP/1.1\r\n{}\r\n", self.auth()).as_bytes())
    }

    /// A POST of `body`.
    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        self.raw(
            format!(
                "POST {path} HTTP/1.1\r\n{}Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                self.auth(),
                body.len()
            )
            .as_bytes(),
        )
    }

    /// A POST whose answer must be 200 with JSON.
    pub fn post_json(&self, path: &str, body: &str) -> serde_json::Value {
        let (status, text) = self.post(path, body);
        assert_eq!(status, 200, "POST {path} {body}: {text}");
        serde_json::from_str(&text).expect("JSON answer")
    }
}

/// A 4xx whose body is `{"error": {"status", "message"}}` with a message.
pub fn assert_refused(what: &str, (status, body): (u16, String), expected: u16) {
    assert_eq!(status, expected, "{what}: {body}");
    let v: serde_json::Value =
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
    let message = v["error"]["message"].as_str().unwrap_or("");
    assert!(message.len() > 10, "{what}: a message: {body}");
    assert_eq!(v["error"]["status"], expected, "{what}");
}

impl Drop for Viewer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse(answer: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(answer);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

// ---- Headless chromium (Debian's), for the browser tests: a self-contained block ----

/// Debian's chromium, or a panic saying how to install it.
pub fn chromium_path() -> std::path::PathBuf {
    for name in ["chromium", "chromium-browser"] {
        if let Ok(out) = Command::new("sh")
            .args(["-c", &format!("command -v {name}")])
            .output()
            && out.status.success()
        {
            return std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        }
    }
    panic!(
        "the browser tests need Debian's chromium, which is not installed: run \
         scripts/ensure-deps.sh as root, or `sudo apt-get install -y chromium`"
    );
}

/// target/view-artifacts/, made if missing.
pub fn view_artifacts() -> std::path::PathBuf {
    let d = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/view-artifacts");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// What a chromium run printed: stdout (`--dump-dom`'s page), the page's console lines
/// (chromium's `--enable-logging=stderr`) and the run's number in this test process.
pub struct ChromiumRun {
    pub stdout: String,
    pub console: Vec<String>,
    pub n: usize,
}

/// Runs headless chromium (WebGL on SwiftShader, a fresh profile, the console logged) on `url`
/// for at most `budget_ms` of virtual time, with `extra` arguments. The one chromium launcher
/// of the browser tests.
pub fn run_chromium(url: &str, budget_ms: u32, extra: &[&str]) -> ChromiumRun {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static RUN: AtomicUsize = AtomicUsize::new(0);
    let n = RUN.fetch_add(1, Ordering::SeqCst);
    let profile = std::env::temp_dir().join(format!(
        "navkit-chromium-{}-{n}-{}",
        std::process::id(),
        url.len()
    ));
    let out = Command::new(chromium_path())
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu-sandbox",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--no-first-run",
            "--window-size=1200,800",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--virtual-time-budget={budget_ms}"))
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(url)
        .output()
        .expect("run chromium");
    let _ = std::fs::remove_dir_all(&profile);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "chromium failed: {stderr}");
    ChromiumRun {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        console: stderr
            .lines()
            .filter(|l| l.contains(":CONSOLE"))
            .map(str::to_owned)
            .collect(),
        n,
    }
}

/// [`run_chromium`]'s stdout.
pub fn run_headless(url: &str, budget_ms: u32, extra: &[&str]) -> String {
    run_chromium(url, budget_ms, extra).stdout
}

/// The text of `<pre id=ID>` in a dumped DOM (the first `<pre id="ID" ...>`).
pub fn pre_text(dom: &str, id: &str) -> Option<String> {
    let start = dom.find(&format!("<pre id=\"{id}\""))?;
    let from = dom[start..].find('>')? + start + 1;
    let to = dom[from..].find("</pre>")? + from;
    Some(
        dom[from..to]
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// A decoded screenshot, RGB.
pub struct Screenshot {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

impl Screenshot {
    /// Decodes a PNG with the `png` crate.
    pub fn load(path: &std::path::Path) -> Screenshot {
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
        Screenshot {
            width: info.width as usize,
            height: info.height as usize,
            rgb,
        }
    }

    /// The pixel at (x, y).
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }
}

// ---- The viewer's layer entries (self-contained: the page's format, see view/encode.rs) ----

/// The flat `x, y, z` positions of an `/api/layers` entry (base64 little-endian `f32`s, or a
/// plain array).
pub fn entry_positions(entry: &serde_json::Value) -> Vec<f32> {
    use base64::Engine as _;
    if let Some(b) = entry["positions_b64"].as_str() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b)
            .expect("base64 positions");
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    } else {
        entry["positions"]
            .as_array()
            .map(|a| a.iter().map(|x| x.as_f64().unwrap() as f32).collect())
            .unwrap_or_default()
    }
}

/// The entries named `name` of a scene (`{"layers": [...]}`).
pub fn entries<'a>(scene: &'a serde_json::Value, name: &str) -> Vec<&'a serde_json::Value> {
    scene["layers"]
        .as_array()
        .map(|a| a.iter().filter(|l| l["name"] == name).collect())
        .unwrap_or_default()
}

/// The vertices of the entries named `name` of a scene (with `kind`, if given).
pub fn vertex_count(scene: &serde_json::Value, name: &str, kind: Option<&str>) -> u64 {
    entries(scene, name)
        .iter()
        .filter(|e| kind.is_none_or(|k| e["kind"] == k))
        .map(|e| e["count"].as_u64().unwrap())
        .sum()
}

/// The centroids of the served navmesh's triangles (the first `navmesh.polys` triangle entry of
/// `/api/layers`), in order.
pub fn navmesh_centroids(v: &Viewer) -> Vec<[f64; 3]> {
    let (_, body) = v.get("/api/layers");
    let scene: serde_json::Value = serde_json::from_str(&body).unwrap();
    let nav = entries(&scene, "navmesh.polys")
        .into_iter()
        .find(|l| l["kind"] == "tris")
        .expect("a navmesh.polys triangle entry");
    let p: Vec<f64> = entry_positions(nav).into_iter().map(f64::from).collect();
    p.chunks_exact(9)
        .map(|q| {
            [
                (q[0] + q[3] + q[6]) / 3.0,
                (q[1] + q[4] + q[7]) / 3.0,
                (q[2] + q[5] + q[8]) / 3.0,
            ]
        })
        .collect()
}
