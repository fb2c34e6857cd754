//! A small, careful HTTP/1.1 server on `std::net`: one request per connection (`Connection:
//! close`), bounded head and body sizes, read and write time-outs, a cap on connections served
//! at once, and every request answered (a 4xx with a message for anything malformed, a 500 if a
//! handler panics). It serves no files: routes are matched exactly, so no path can reach the disk.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// The longest request line plus headers accepted (431 beyond).
pub const MAX_HEAD_BYTES: usize = 16 * 1024;
/// The most headers accepted (431 beyond).
pub const MAX_HEADERS: usize = 64;
/// The largest request body accepted (413 beyond).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Connections served at once; more get a 503 straight away.
pub const MAX_CONNECTIONS: usize = 64;
/// How long a client may take to send its request, or to read the answer.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);

/// A parsed request.
pub struct Request {
    pub method: String,
    /// The path, without the query string.
    pub path: String,
    pub body: Vec<u8>,
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
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
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

fn write_response(stream: &mut TcpStream, r: &Response) {
    let head = format!(
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n\r\n",
        r.status,
        reason(r.status),
        r.content_type,
        r.body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&r.body);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    // Drain what the client still sends (briefly), so closing does not reset the connection
    // before it has read the answer.
    let _ = stream.set_read_timeout(Some(Duration::from_millis(200)));
    let mut sink = [0u8; 4096];
    let mut drained = 0usize;
    while let Ok(n) = stream.read(&mut sink) {
        if n == 0 || drained > MAX_BODY_BYTES {
            break;
        }
        drained += n;
    }
}

/// Reads one request; `Err` is the answer to give instead.
fn read_request(stream: &TcpStream) -> Result<Request, Response> {
    let mut reader = BufReader::new(stream.take((MAX_HEAD_BYTES + MAX_BODY_BYTES + 1) as u64));
    let lines = read_head(&mut reader)?;
    let (method, target) = parse_request_line(&lines[0])?;
    let content_length = content_length(&lines[1..])?;
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
    let path = target.split(['?', '#']).next().unwrap_or("/").to_string();
    Ok(Request {
        method: method.to_string(),
        path,
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

/// The body's length the headers give (`None` without a Content-Length), checking every
/// header line's form; a Transfer-Encoding is refused.
fn content_length(headers: &[String]) -> Result<Option<usize>, Response> {
    let mut content_length: Option<usize> = None;
    for h in headers {
        let Some((name, value)) = h.split_once(':') else {
            return Err(Response::error(
                400,
                format!("a header line has no `:`: `{}`", clip(h)),
            ));
        };
        let name = name.trim().to_ascii_lowercase();
        let value = value.trim();
        if name.is_empty() || name.contains(' ') {
            return Err(Response::error(
                400,
                "a header name is empty or has a space",
            ));
        }
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

/// Serves `listener` until the process ends, one thread per connection.
pub fn serve<H>(listener: TcpListener, handler: H)
where
    H: Fn(&Request) -> Response + Send + Sync + 'static,
{
    let handler = Arc::new(handler);
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        let Ok(mut stream) = stream else {
            // Too many open files and the like: wait a little and go on accepting.
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        let _ = stream.set_read_timeout(Some(IO_TIMEOUT));
        let _ = stream.set_write_timeout(Some(IO_TIMEOUT));
        if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
            active.fetch_sub(1, Ordering::SeqCst);
            write_response(
                &mut stream,
                &Response::error(503, "too many connections at once; try again"),
            );
            continue;
        }
        let handler = Arc::clone(&handler);
        let active_in_thread = Arc::clone(&active);
        let spawned = std::thread::Builder::new()
            .name("navkit-view-conn".into())
            .spawn(move || {
                let response = match read_request(&stream) {
                    Ok(request) => catch_unwind(AssertUnwindSafe(|| handler(&request)))
                        .unwrap_or_else(|_| {
                            Response::error(500, "the server failed on this request (a bug)")
                        }),
                    Err(r) => r,
                };
                write_response(&mut stream, &response);
                active_in_thread.fetch_sub(1, Ordering::SeqCst);
            });
        if spawned.is_err() {
            active.fetch_sub(1, Ordering::SeqCst);
        }
    }
}
