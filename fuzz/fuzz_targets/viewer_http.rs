//! `navkit view`'s HTTP requests: any bytes, as a client sends them, parsed and checked for
//! access as the server does (src/bin/navkit/view/http.rs, compiled in here: the viewer lives
//! in the binary). No panic; what is parsed is within the server's bounds, what is refused is
//! a 4xx or 5xx with a JSON message, and a request is admitted only with the token and a Host
//! naming the server.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../src/bin/navkit/view/http.rs"]
mod http;

const TOKEN: &str = "0123456789abcdef0123456789abcdef";

fn assert_refusal(r: &http::Response) {
    assert!((400..600).contains(&r.status), "status {}", r.status);
    if r.content_type == "application/json" {
        let v: serde_json::Value = serde_json::from_slice(&r.body).expect("a JSON refusal");
        assert_eq!(v["error"]["status"], r.status);
        assert!(
            v["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty())
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let access = http::Access::new(TOKEN.to_string(), [127, 0, 0, 1].into(), 8080);
    match http::parse_request(data) {
        Err(r) => assert_refusal(&r),
        Ok(req) => {
            assert!(req.body.len() <= http::MAX_BODY_BYTES);
            assert!(req.headers.len() <= http::MAX_HEADERS);
            assert!(req.path.starts_with('/') && !req.path.contains(['?', '#']));
            match access.check(&req) {
                Err(r) => assert_refusal(&r),
                Ok(()) => {
                    let host = req.header("host").ok().flatten().expect("a Host");
                    assert!(access.host_allowed(host), "admitted with Host {host:?}");
                    let token_ok = req.header(http::TOKEN_HEADER).ok().flatten() == Some(TOKEN)
                        || req.query_param("token") == Some(TOKEN);
                    assert!(
                        token_ok || req.path == "/dynamic.js" || req.path == "/favicon.ico",
                        "admitted without the token: {}",
                        req.path
                    );
                }
            }
        }
    }
});
