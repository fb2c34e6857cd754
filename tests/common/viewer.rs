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
    pub url: String,
}

impl Viewer {
    /// Starts `navkit view INPUT --port 0` and reads the URL it prints.
    pub fn start(input: &std::path::Path) -> Viewer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_navkit"))
            .args(["view", &input.display().to_string(), "--port", "0"])
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
        let host_port = url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string();
        let addr: SocketAddr = host_port.parse().expect("address in the URL");
        assert!(addr.ip().is_loopback(), "binds loopback by default: {addr}");
        Viewer { child, addr, url }
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
        self.raw(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
    }

    /// A POST of `body`.
    pub fn post(&self, path: &str, body: &str) -> (u16, String) {
        self.raw(
            format!(
                "POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
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
