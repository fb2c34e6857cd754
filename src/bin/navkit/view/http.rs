//! A small, careful HTTP/1.1 server on `std::net`: one request per connection (`Connection:
//! close`), bounded head and body sizes, a deadline for the whole request and one for the
//! answer, a cap on connections served at once, and every request answered (a 4xx with a
//! message for anything malformed, a 500 if a handler panics). It serves no files: routes are
//! matched exactly, so no path can reach the disk.
//!
//! Access ([`Access`], what local notebook and dev servers do): the `Host` header must name the
//! address served (or `localhost`), a request with another `Origin` is refused, a request that
//! is not a GET must be `Content-Type: application/json`, and every API request must carry the
//! secret token made at start (`X-Navkit-Token` header or `token` query parameter) - so a page
//! of another site, or a name rebound to 127.0.0.1, changes and reads nothing.
//!
//! The listening thread only accepts: each connection's reading, waiting and writing happens
//! on its own thread, under deadlines, and past the cap of threads the refusal is one
//! non-blocking write. Slow clients lose their slot at the request deadline.
//!
//! This file is also compiled into the fuzz target `viewer_http` (`#[path]`): it uses only
//! `std` and `serde_json`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{IpAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The longest request line plus headers accepted (431 beyond).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// The most headers accepted (431 beyond).
pub const MAX_HEADERS: usize = 64;
/// The largest request body accepted (413 beyond).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Connections served at once (reading their request, handled or answered).
pub const MAX_CONNECTIONS: usize = 64;
/// Connections that may wait for one of those slots (up to [`SLOT_WAIT`], then a 503);
/// past these, a 503 is written without waiting.
pub const MAX_WAITING: usize = 64;
/// How long a client may take to send its whole request (head and body) once it has a slot.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(5);
/// How long a connection may wait for a slot: longer than [`REQUEST_DEADLINE`], by which the
/// slowest client holding one has sent its request or lost it.
pub const SLOT_WAIT: Duration = Duration::from_secs(10);
/// How long a client may take to read the whole answer.
pub const ANSWER_DEADLINE: Duration = Duration::from_secs(30);
/// The header that carries the token (or the `token` query parameter).
pub const TOKEN_HEADER: &str = "x-navkit-token";

/// A parsed request.
pub struct Request {
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    /// The query string, without its `?` (empty without one).
    pub query: String,
    /// The headers in order, names in lower case, values trimmed.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The value of the header `name` (lower case), if it came once; `Err` if it came twice.
    pub fn header(&self, name: &str) -> Result<Option<&str>, Response> {
        let mut found = self.headers.iter().filter(|(n, _)| n == name);
        let first = found.next().map(|(_, v)| v.as_str());
        if found.next().is_some() {
            return Err(Response::error(400, format!("two `{name}` headers")));
        }
        Ok(first)
    }

    /// The value of the query parameter `name` (undecoded), if any.
    pub fn query_param(&self, name: &str) -> Option<&str> {
        self.query
            .split('&')
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
    }
}

/// An answer.
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
}

impl Response {
    /// A JSON answer.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            content_type: "application/json",
            body: value.to_string().into_bytes(),
        }
    }

    /// An error: `{"error": {"status": N, "message": "..."}}`.
    pub fn error(status: u16, message: impl Into<String>) -> Response {
        Response::json(
            status,
            &serde_json::json!({"error": {"status": status, "message": message.into()}}),
        )
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        505 => "HTTP Version Not Supported",
        _ => "",
    }
}

fn head_of(r: &Response) -> String {
    format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    )
}

/// Writes `bytes` by `deadline` (each write waits at most what is left of it).
fn write_by(stream: &mut TcpStream, bytes: &[u8], deadline: Instant) -> std::io::Result<()> {
    let mut rest = bytes;
    while !rest.is_empty() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        stream.set_write_timeout(Some(left))?;
        let n = stream.write(&rest[..rest.len().min(64 * 1024)])?;
        if n == 0 {
            return Err(std::io::ErrorKind::WriteZero.into());
        }
        rest = &rest[n..];
    }
    Ok(())
}

fn write_response(stream: &mut TcpStream, r: &Response) {
    let deadline = Instant::now() + ANSWER_DEADLINE;
    if write_by(stream, head_of(r).as_bytes(), deadline).is_err()
        || write_by(stream, &r.body, deadline).is_err()
    {
        return;
    }
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Drain what the client still sends (briefly: a second at most, whatever it sends), so
    // closing does not reset the connection before it has read the answer.
    let until = Instant::now() + Duration::from_secs(1);
    let mut sink = [0u8; 4096];
    let mut drained = 0usize;
    while drained <= MAX_BODY_BYTES {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            break;
        }
        match stream.read(&mut sink) {
            Ok(n) if n > 0 => drained += n,
            _ => break,
        }
    }
}

/// A connection read under a deadline: each read waits at most what is left of it, and fails
/// with `TimedOut` once it has passed, however the client trickles its bytes.
struct ByDeadline<'a> {
    stream: &'a TcpStream,
    deadline: Instant,
}

impl Read for ByDeadline<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        self.stream.set_read_timeout(Some(left))?;
        let mut stream = self.stream;
        stream.read(buf)
    }
}

/// Reads one request by `deadline`; `Err` is the answer to give instead.
fn read_request(stream: &TcpStream, deadline: Instant) -> Result<Request, Response> {
    read_request_from(ByDeadline { stream, deadline })
}

/// Parses one request from `bytes` (what a client sent), as the server does; `Err` is the
/// answer it would give instead. For the fuzz target (fuzz/fuzz_targets/viewer_http.rs).
#[allow(dead_code)]
pub fn parse_request(bytes: &[u8]) -> Result<Request, Response> {
    read_request_from(bytes)
}

fn read_request_from(input: impl Read) -> Result<Request, Response> {
    let mut reader = BufReader::new(input.take((MAX_HEAD_BYTES + MAX_BODY_BYTES + 1) as u64));
    let lines = read_head(&mut reader)?;
    let (method, target) = parse_request_line(&lines[0])?;
    let headers = parse_headers(&lines[1..])?;
    let content_length = content_length(&headers)?;
    let mut body = Vec::new();
    if let Some(n) = content_length {
        body.resize(n, 0);
        reader.read_exact(&mut body).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                Response::error(408, "the body did not arrive in time")
            }
            _ => Response::error(400, "the body is shorter than its Content-Length"),
        })?;
    } else if method == "POST" || method == "PUT" {
        return Err(Response::error(411, "a POST needs a Content-Length"));
    }
    let target = target.split('#').next().unwrap_or("/");
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body,
    })
}

/// The request line and the header lines, up to the empty line that ends them (at least the
/// request line: empty lines before it are skipped), without their line ends.
fn read_head(reader: &mut impl BufRead) -> Result<Vec<String>, Response> {
    let mut head_bytes = 0usize;
    let mut lines: Vec<String> = Vec::new();
    loop {
        let mut line = Vec::new();
        let limit = (MAX_HEAD_BYTES - head_bytes.min(MAX_HEAD_BYTES)) as u64 + 1;
        let n = reader
            .by_ref()
            .take(limit)
            .read_until(b'\n', &mut line)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                    Response::error(408, "the request did not arrive in time")
                }
                _ => Response::error(400, format!("the request could not be read: {e}")),
            })?;
        head_bytes += n;
        if head_bytes > MAX_HEAD_BYTES {
            return Err(Response::error(
                431,
                format!("the request line and headers are longer than {MAX_HEAD_BYTES} bytes"),
            ));
        }
        if n == 0 || !line.ends_with(b"\n") {
            return Err(Response::error(
                400,
                "the request ended before its headers did",
            ));
        }
        let text = String::from_utf8(line)
            .map_err(|_| Response::error(400, "the request head is not UTF-8"))?;
        let text = text.trim_end_matches(['\r', '\n']).to_string();
        if text.is_empty() {
            if lines.is_empty() {
                continue; // tolerated: empty lines before the request line
            }
            return Ok(lines);
        }
        if lines.len() > MAX_HEADERS {
            return Err(Response::error(
                431,
                format!("more than {MAX_HEADERS} header lines"),
            ));
        }
        lines.push(text);
    }
}

/// The method and target of a request line `METHOD TARGET HTTP/1.x`.
fn parse_request_line(line: &str) -> Result<(&str, &str), Response> {
    let parts: Vec<&str> = line.split(' ').collect();
    if parts.len() != 3 {
        return Err(Response::error(
            400,
            "the request line is not `METHOD TARGET HTTP/1.x`",
        ));
    }
    let (method, target, version) = (parts[0], parts[1], parts[2]);
    if method.is_empty() || !method.bytes().all(|b| b.is_ascii_uppercase()) {
        return Err(Response::error(
            400,
            "the method is not a token of capitals",
        ));
    }
    if version != "HTTP/1.1" && version != "HTTP/1.0" {
        return Err(Response::error(
            505,
            "only HTTP/1.0 and HTTP/1.1 are served",
        ));
    }
    if !target.starts_with('/') {
        return Err(Response::error(
            400,
            "the request target must be a path starting with `/`",
        ));
    }
    Ok((method, target))
}

/// The header lines as (lower-case name, trimmed value), each line's form checked.
fn parse_headers(lines: &[String]) -> Result<Vec<(String, String)>, Response> {
    let mut headers = Vec::with_capacity(lines.len());
    for h in lines {
        let Some((name, value)) = h.split_once(':') else {
            return Err(Response::error(
                400,
                format!("a header line has no `:`: `{}`", clip(h)),
            ));
        };
        let name = name.trim().to_ascii_lowercase();
        if name.is_empty() || name.contains(' ') {
            return Err(Response::error(
                400,
                "a header name is empty or has a space",
            ));
        }
        headers.push((name, value.trim().to_string()));
    }
    Ok(headers)
}

/// The body's length the headers give (`None` without a Content-Length); a Transfer-Encoding
/// is refused.
fn content_length(headers: &[(String, String)]) -> Result<Option<usize>, Response> {
    let mut content_length: Option<usize> = None;
    for (name, value) in headers {
        match name.as_str() {
            "content-length" => {
                let n = content_length_value(value)?;
                if content_length.is_some_and(|c| c != n) {
                    return Err(Response::error(400, "two different Content-Length headers"));
                }
                content_length = Some(n);
            }
            "transfer-encoding" => {
                return Err(Response::error(
                    501,
                    "Transfer-Encoding is not supported: send a Content-Length",
                ));
            }
            _ => {}
        }
    }
    Ok(content_length)
}

/// A Content-Length header's value: digits, at most [`MAX_BODY_BYTES`].
fn content_length_value(value: &str) -> Result<usize, Response> {
    if !value.bytes().all(|b| b.is_ascii_digit()) || value.is_empty() {
        return Err(Response::error(400, "Content-Length is not a number"));
    }
    match value.parse() {
        Ok(n) if n <= MAX_BODY_BYTES => Ok(n),
        _ => Err(Response::error(
            413,
            format!("the body may be at most {MAX_BODY_BYTES} bytes"),
        )),
    }
}

/// At most 80 characters of `s`, for messages.
pub fn clip(s: &str) -> String {
    let mut t: String = s.chars().take(80).collect();
    if t.len() < s.len() {
        t.push('…');
    }
    t
}

/// Paths served to anyone who may connect (with a right `Host` and `Origin`): the page's
/// script and icon, which hold no data.
const OPEN_PATHS: [&str; 2] = ["/dynamic.js", "/favicon.ico"];
/// The page: served with the token in its URL, else a note saying where to find it.
const PAGE_PATHS: [&str; 2] = ["/", "/index.html"];

/// Who may ask what: the secret token and the address served.
pub struct Access {
    token: String,
    /// The address bound (`0.0.0.0` or `::` for every address of the machine).
    bind: IpAddr,
    port: u16,
}

impl Access {
    /// Access to a server on `bind:port` for requests carrying `token`.
    pub fn new(token: String, bind: IpAddr, port: u16) -> Access {
        Access { token, bind, port }
    }

    /// Whether `host` (a `Host` header, or an origin's host) names this server: `localhost` or
    /// an address literal it answers on (the one bound, a loopback one if it binds loopback,
    /// any if it binds every address), with its port. Any other name could be rebound to this
    /// machine by whoever controls it: refused.
    pub fn host_allowed(&self, host: &str) -> bool {
        let (name, port, bracketed) = if let Some(rest) = host.strip_prefix('[') {
            let Some((ip6, after)) = rest.split_once(']') else {
                return false;
            };
            (ip6, after, true)
        } else {
            match host.find(':') {
                Some(i) => (&host[..i], &host[i..], false),
                None => (host, "", false),
            }
        };
        let port_ok = match port.strip_prefix(':') {
            None => port.is_empty() && self.port == 80,
            Some(p) => {
                !p.is_empty()
                    && p.len() <= 5
                    && p.bytes().all(|b| b.is_ascii_digit())
                    && p.parse::<u16>() == Ok(self.port)
            }
        };
        if !port_ok {
            return false;
        }
        if !bracketed && name.eq_ignore_ascii_case("localhost") {
            return true;
        }
        let Ok(ip) = name.parse::<IpAddr>() else {
            return false;
        };
        // An IPv6 address in brackets, an IPv4 one without.
        if ip.is_ipv6() != bracketed {
            return false;
        }
        ip == self.bind
            || self.bind.is_unspecified()
            || (ip.is_loopback() && self.bind.is_loopback())
    }

    /// Whether `token` is the server's (compared in constant time).
    fn token_matches(&self, token: &str) -> bool {
        let (a, b) = (self.token.as_bytes(), token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// Refuses what this server must not answer: a foreign `Host` (403; none: 400), a foreign
    /// `Origin` (403), without the token any path but [`OPEN_PATHS`] (403; the page gets a
    /// note saying where the token is), and a request other than GET or HEAD whose body is not
    /// declared JSON (415: a page of another site can send text/plain without asking).
    pub fn check(&self, req: &Request) -> Result<(), Response> {
        let host = req
            .header("host")?
            .ok_or_else(|| Response::error(400, "a Host header is required (HTTP/1.1)"))?;
        if !self.host_allowed(host) {
            return Err(Response::error(
                403,
                format!(
                    "Host `{}` is not this server's address (localhost or its address, with \
                     its port): refused, as a name rebound to this machine would be",
                    clip(host)
                ),
            ));
        }
        if let Some(origin) = req.header("origin")? {
            let own = origin
                .strip_prefix("http://")
                .is_some_and(|h| self.host_allowed(h));
            if !own {
                return Err(Response::error(
                    403,
                    format!(
                        "requests from another origin (`{}`) are refused",
                        clip(origin)
                    ),
                ));
            }
        }
        let token_ok = match req.header(TOKEN_HEADER)? {
            Some(t) => self.token_matches(t),
            None => req
                .query_param("token")
                .is_some_and(|t| self.token_matches(t)),
        };
        if !token_ok && !OPEN_PATHS.contains(&req.path.as_str()) {
            if PAGE_PATHS.contains(&req.path.as_str()) && req.method == "GET" {
                return Err(Response {
                    status: 403,
                    content_type: "text/html; charset=utf-8",
                    body: NO_TOKEN_PAGE.as_bytes().to_vec(),
                });
            }
            return Err(Response::error(
                403,
                "this request needs the viewer's token: open the URL `navkit view` printed \
                 (its `token` parameter), or send it in an X-Navkit-Token header",
            ));
        }
        if req.method != "GET" && req.method != "HEAD" {
            let json = req.header("content-type")?.is_some_and(|ct| {
                let mime = ct.split(';').next().unwrap_or("").trim();
                mime.eq_ignore_ascii_case("application/json")
            });
            if !json {
                return Err(Response::error(
                    415,
                    format!(
                        "a {} must be sent as Content-Type: application/json",
                        clip(&req.method)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The page without the token: where to find it.
const NO_TOKEN_PAGE: &str = "<!doctype html><meta charset=\"utf-8\"><title>navkit view</title>\
<p>This viewer needs its token: open the URL that <code>navkit view</code> printed (it ends in \
<code>?token=...</code>).</p>\n";

/// Connection slots: how many are taken, and a condition to wait for one.
struct Slots {
    taken: Mutex<usize>,
    freed: Condvar,
}

impl Slots {
    /// Takes a slot, waiting until `deadline` at most.
    fn take(&self, deadline: Instant) -> bool {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while *taken >= MAX_CONNECTIONS {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            taken = self
                .freed
                .wait_timeout(taken, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        *taken += 1;
        true
    }

    fn give_back(&self) {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        *taken = taken.saturating_sub(1);
        self.freed.notify_one();
    }
}

/// A 503 written without waiting (one non-blocking write; what does not fit is lost), then the
/// connection closed: the listening thread's only answer.
fn refuse_now(stream: TcpStream) {
    let r = Response::error(503, "too many connections at once; try again");
    let mut bytes = head_of(&r).into_bytes();
    bytes.extend_from_slice(&r.body);
    if stream.set_nonblocking(true).is_ok() {
        let _ = (&stream).write(&bytes);
    }
}

/// One connection, on its own thread: a slot (or a 503 when none frees in time), the request
/// by its deadline, the access check, the handler, the answer.
fn serve_one<H>(mut stream: TcpStream, slots: &Slots, access: &Access, handler: &H)
where
    H: Fn(&Request) -> Response,
{
    let _ = stream.set_nonblocking(false);
    if !slots.take(Instant::now() + SLOT_WAIT) {
        write_response(
            &mut stream,
            &Response::error(503, "too many connections at once; try again"),
        );
        return;
    }
    let response = match read_request(&stream, Instant::now() + REQUEST_DEADLINE)
        .and_then(|request| access.check(&request).map(|()| request))
    {
        Ok(request) => catch_unwind(AssertUnwindSafe(|| handler(&request)))
            .unwrap_or_else(|_| Response::error(500, "the server failed on this request (a bug)")),
        Err(r) => r,
    };
    write_response(&mut stream, &response);
    slots.give_back();
}

/// Serves `listener` until the process ends, one thread per connection, each request checked
/// by `access` before `handler` sees it.
pub fn serve<H>(listener: TcpListener, access: Access, handler: H)
where
    H: Fn(&Request) -> Response + Send + Sync + 'static,
{
    let handler = Arc::new(handler);
    let access = Arc::new(access);
    let slots = Arc::new(Slots {
        taken: Mutex::new(0),
        freed: Condvar::new(),
    });
    // Connections with a thread: served, or waiting for a slot.
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(stream) = stream else {
            // Too many open files and the like: wait a little and go on accepting.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS + MAX_WAITING {
            open.fetch_sub(1, Ordering::SeqCst);
            refuse_now(stream);
            continue;
        }
        let (handler, access, slots) = (
            Arc::clone(&handler),
            Arc::clone(&access),
            Arc::clone(&slots),
        );
        let open_in_thread = Arc::clone(&open);
        let spawned = std::thread::Builder::new()
            .name("navkit-view-conn".into())
            .spawn(move || {
                serve_one(stream, &slots, &access, &*handler);
                open_in_thread.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a server answers to, by the address it binds (hand-derived from the rule in
    /// [`Access::host_allowed`]: localhost, the address bound, loopback if it binds loopback,
    /// any address literal if it binds every address; always its port).
    #[test]
    fn host_names_by_the_address_bound() {
        let on = |bind: &str| Access::new("t".into(), bind.parse().unwrap(), 8080);
        let loopback = on("127.0.0.1");
        for ok in [
            "127.0.0.1:8080",
            "localhost:8080",
            "LOCALHOST:8080",
            "[::1]:8080",
            "127.0.0.2:8080",
        ] {
            assert!(loopback.host_allowed(ok), "{ok}");
        }
        for no in [
            "127.0.0.1",
            "127.0.0.1:80",
            "127.0.0.1:08080x",
            "evil.example:8080",
            "[localhost]:8080",
            "192.168.1.5:8080",
            "[127.0.0.1]:8080",
            "::1:8080",
            "127.0.0.1:8080:8080",
            "",
            "localhost.:8080",
            "[::1]8080",
            "127.0.0.1:+8080",
        ] {
            assert!(!loopback.host_allowed(no), "{no}");
        }
        let lan = on("192.168.1.5");
        assert!(lan.host_allowed("192.168.1.5:8080"));
        assert!(lan.host_allowed("localhost:8080"));
        assert!(!lan.host_allowed("127.0.0.1:8080"), "not bound there");
        let every = on("0.0.0.0");
        assert!(every.host_allowed("10.1.2.3:8080") && every.host_allowed("[fe80::1]:8080"));
        assert!(!every.host_allowed("rebound.example:8080"));
        let port80 = Access::new("t".into(), [127, 0, 0, 1].into(), 80);
        assert!(port80.host_allowed("localhost") && port80.host_allowed("127.0.0.1:80"));
    }

    #[test]
    fn the_token_comes_in_the_header_or_the_query() {
        let a = Access::new("abcd".into(), [127, 0, 0, 1].into(), 8080);
        let check = |raw: &str| {
            a.check(&parse_request(raw.as_bytes()).map_err(|r| r.status).unwrap())
                .map_err(|r| r.status)
        };
        assert_eq!(
            check("GET /api/layers?token=abcd HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"),
            Ok(())
        );
        assert_eq!(
            check(
                "GET /api/layers HTTP/1.1\r\nHost: localhost:8080\r\nX-Navkit-Token: abcd\r\n\r\n"
            ),
            Ok(())
        );
        assert_eq!(
            check("GET /api/layers?token=abc HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"),
            Err(403)
        );
        assert_eq!(
            check("GET /api/layers?token=abcde HTTP/1.1\r\nHost: localhost:8080\r\n\r\n"),
            Err(403)
        );
        // Two Host headers (which one would a proxy believe?): refused.
        assert_eq!(
            check(
                "GET /api/layers?token=abcd HTTP/1.1\r\nHost: localhost:8080\r\nHost: evil.example\r\n\r\n"
            ),
            Err(400)
        );
    }
}
