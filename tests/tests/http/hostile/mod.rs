//! The edge against requests no well-behaved client sends (`docs/http-api.md#decisions`):
//! bodies that never arrive, invented methods, a huge header name, ambiguous headers, odd
//! tokens and odd ids. Each is answered, bounded, and stores nothing.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use tests::{ALL_PERMISSIONS, order_json, token, wait_until};

use crate::support::{App, full_token};

mod large_bodies;
mod slow_bodies;
mod tokens_and_ids;

/// The body deadline these tests configure.
const BODY_TIMEOUT_SECS: &str = "1";

/// The longest any one answer may take to arrive here, with the machine busy.
const ANSWER_BOUND: Duration = Duration::from_secs(30);

/// A server whose request bodies must arrive within a second.
async fn app() -> App {
    App::start_with(|options| {
        options
            .env
            .push(("REQUEST_BODY_TIMEOUT_SECS".into(), BODY_TIMEOUT_SECS.into()));
    })
    .await
}

/// A connection that writes raw bytes, as an attacker would.
struct Raw {
    stream: TcpStream,
}

impl Raw {
    fn connect(app: &App) -> Self {
        let stream = TcpStream::connect(host(app)).unwrap();
        stream.set_read_timeout(Some(ANSWER_BOUND)).unwrap();
        Self { stream }
    }

    fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).unwrap();
    }

    /// Everything the server sends until it closes the connection; panics when it keeps
    /// the connection open past [`ANSWER_BOUND`].
    fn until_closed(&mut self) -> String {
        let mut received = Vec::new();
        match self.stream.read_to_end(&mut received) {
            Ok(_) => {}
            Err(error) if error.kind() == ErrorKind::ConnectionReset => {}
            Err(error) => panic!(
                "the connection stayed open ({error}); received so far: {:?}",
                String::from_utf8_lossy(&received)
            ),
        }
        String::from_utf8_lossy(&received).into_owned()
    }
}

/// The server's `host:port`, as a raw request names it.
fn host(app: &App) -> &str {
    app.service.base_url().trim_start_matches("http://")
}

/// Sends a request with a 64 KiB header name on `raw` and asserts it is answered `431`
/// and closed, never reaching the parser.
fn assert_long_header_name_refused(raw: &mut Raw, app: &App) {
    let name = "X".repeat(65_536);
    raw.send(
        format!(
            "GET /healthz HTTP/1.1\r\nHost: {}\r\n{name}: 1\r\n\r\n",
            host(app)
        )
        .as_bytes(),
    );
    let answer = raw.until_closed();
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer:.200}");
}

/// The head of an authorized create, with `extra` header lines.
fn create_head(app: &App, key: &str, extra: &str) -> String {
    let address = host(app);
    format!(
        "POST /api/orders HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Idempotency-Key: {key}\r\nContent-Type: application/json\r\n{extra}\r\n",
        full_token()
    )
}

/// Open file descriptors of the server process.
fn open_files(app: &App) -> usize {
    std::fs::read_dir(format!("/proc/{}/fd", app.service.pid()))
        .unwrap()
        .count()
}

#[tokio::test]
async fn a_thousand_routes_that_take_no_body_never_wait_for_one() {
    let app = app().await;
    assert_eq!(app.api.get("/healthz", None).status, 200);
    let before = open_files(&app);
    let address = host(&app);
    let head =
        format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nTransfer-Encoding: chunked\r\n\r\n");
    let mut connections: Vec<Raw> = (0..1000)
        .map(|_| {
            let mut raw = Raw::connect(&app);
            raw.send(head.as_bytes());
            raw
        })
        .collect();
    for (n, raw) in connections.iter_mut().enumerate() {
        let answer = raw.until_closed();
        assert!(
            answer.starts_with("HTTP/1.1 200"),
            "connection {n}: {answer}"
        );
    }
    drop(connections);
    wait_until(
        ANSWER_BOUND,
        "the server giving back the connections' files",
        || async { open_files(&app) },
        |open| *open <= before,
    )
    .await;
    app.finish().await;
}

#[tokio::test]
async fn invented_methods_add_no_metric_series_and_no_long_log_line() {
    let app = app().await;
    let invented = format!("PROBE{}", "A".repeat(1000));
    for method in ["PROBEA", invented.as_str()] {
        let mut raw = Raw::connect(&app);
        let address = host(&app);
        raw.send(
            format!("{method} /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        );
        raw.until_closed();
    }
    let metrics = String::from_utf8(app.api.get("/metrics", None).body).unwrap();
    assert!(
        !metrics.contains("PROBE"),
        "an invented method became a label"
    );
    assert!(metrics.contains(r#"method="other""#), "{metrics}");
    assert!(metrics.contains(r#"route="/healthz""#), "{metrics}");
    let log = app.service.log();
    assert!(!log.contains("PROBE"), "an invented method was logged");
    assert!(
        log.lines().all(|line| line.len() < 2_000),
        "a log line is unbounded"
    );
    app.finish().await;
}

#[tokio::test]
async fn a_header_name_of_64_kib_is_refused_without_a_panic() {
    let app = app().await;
    let mut raw = Raw::connect(&app);
    assert_long_header_name_refused(&mut raw, &app);
    assert_eq!(
        app.api.get("/healthz", None).status,
        200,
        "the server still serves"
    );
    let log = app.service.log();
    assert!(!log.contains("panicked"), "{log}");
    assert!(!log.contains(".rs:"), "a build path reached the log: {log}");
    app.finish().await;
}

/// A header field as sent: its name and its raw value.
type Header<'a> = (&'a str, &'a [u8]);

#[tokio::test]
async fn ambiguous_or_encoded_requests_are_refused_and_store_nothing() {
    let app = app().await;
    let other_tenant = format!("Bearer {}", token(2, 1, ALL_PERMISSIONS));
    let bearer = format!("Bearer {}", full_token());
    let body = order_json("REF-1", "SKU-1", 1);
    let cases: [(&str, Vec<Header<'_>>, u16); 6] = [
        (
            "two bearer tokens",
            vec![
                ("authorization", other_tenant.as_bytes()),
                ("authorization", bearer.as_bytes()),
            ],
            401,
        ),
        (
            "a bearer and a basic",
            vec![
                ("authorization", bearer.as_bytes()),
                ("authorization", b"Basic dXNlcjpwYXNz"),
            ],
            401,
        ),
        (
            "two content types",
            vec![
                ("authorization", bearer.as_bytes()),
                ("content-type", b"application/json"),
            ],
            415,
        ),
        (
            "gzip",
            vec![
                ("authorization", bearer.as_bytes()),
                ("content-encoding", b"gzip"),
            ],
            415,
        ),
        (
            "br",
            vec![
                ("authorization", bearer.as_bytes()),
                ("content-encoding", b"br"),
            ],
            415,
        ),
        (
            "deflate",
            vec![
                ("authorization", bearer.as_bytes()),
                ("content-encoding", b"deflate"),
            ],
            415,
        ),
    ];
    for (name, mut headers, status) in cases {
        headers.push(("idempotency-key", b"ambiguous"));
        headers.push(("content-type", b"application/json"));
        let reply = app
            .api
            .send("POST", "/api/orders", &headers, body.as_bytes());
        assert_eq!(reply.status, status, "{name}: {:?}", reply.code());
    }
    app.assert_nothing_stored("ambiguous requests").await;
    let identity = app.api.send(
        "POST",
        "/api/orders",
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", b"plain"),
            ("content-type", b"application/json"),
            ("content-encoding", b"identity"),
        ],
        body.as_bytes(),
    );
    assert_eq!(identity.status, 201, "identity is no coding at all");
    let read_twice = app.api.send(
        "GET",
        "/api/orders/1",
        &[
            ("authorization", bearer.as_bytes()),
            ("authorization", bearer.as_bytes()),
        ],
        b"",
    );
    assert_eq!(read_twice.status, 401, "a read with two tokens");
    app.finish().await;
}

#[tokio::test]
async fn malformed_heads_are_counted_and_make_no_log_line_each() {
    let app = app().await;
    let address = host(&app);
    let heads: [&[u8]; 3] = [
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nNo Colon Here\r\n\r\n",
        b"\x00\x01 not http\r\n\r\n",
        b"GET /healthz HTTP/9.9\r\n\r\n",
    ];
    let rounds = 20;
    for _ in 0..rounds {
        for head in heads {
            let mut raw = Raw::connect(&app);
            raw.send(head);
            let answer = raw.until_closed();
            assert!(answer.starts_with("HTTP/1.1 400"), "{answer:.100}");
        }
    }
    // A well-formed request beside them is served, and the count is there to read.
    let mut raw = Raw::connect(&app);
    raw.send(
        format!("GET /healthz HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n").as_bytes(),
    );
    assert!(raw.until_closed().starts_with("HTTP/1.1 200"));
    let counted = wait_until(
        ANSWER_BOUND,
        "every malformed head counted",
        || async { app.api.metric("http_connection_errors_total") },
        |count| *count >= f64::from(rounds * 3),
    )
    .await;
    assert_eq!(counted, f64::from(rounds * 3));
    let log = app.service.log();
    assert!(!log.contains("stream error"), "{log}");
    assert!(!log.contains("actix_http::h1::dispatcher"), "{log}");
    app.finish().await;
}
