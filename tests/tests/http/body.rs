//! Media type, size and strict body decoding, and the order in which the checks run.

use std::io::{Read, Write};
use std::net::TcpStream;

use tests::order_json;

use crate::support::{App, full_token};

fn post(app: &App, content_type: Option<&str>, body: &[u8]) -> tests::Reply {
    let bearer = format!("Bearer {}", full_token());
    let mut headers: Vec<(&str, &[u8])> = vec![
        ("authorization", bearer.as_bytes()),
        ("idempotency-key", b"body-1"),
    ];
    if let Some(value) = content_type {
        headers.push(("content-type", value.as_bytes()));
    }
    app.api.send("POST", "/api/orders", &headers, body)
}

#[tokio::test]
async fn only_json_in_utf_8_is_accepted() {
    let app = App::start().await;
    let body = order_json("REF-1", "SKU-1", 1);
    for content_type in [
        None,
        Some("text/plain"),
        Some("application/json; charset=latin1"),
        Some("application/jsonx"),
        Some("application/vnd.api+json"),
        Some("application/json; profile=x"),
    ] {
        assert_eq!(
            post(&app, content_type, body.as_bytes()).status_code(),
            (415, Some("unsupported_media_type".into())),
            "{content_type:?}"
        );
    }
    app.assert_nothing_stored("wrong media types").await;
    assert_eq!(
        post(
            &app,
            Some("Application/JSON; charset=\"UTF-8\""),
            body.as_bytes()
        )
        .status,
        201
    );
    app.finish().await;
}

#[tokio::test]
async fn a_body_over_16_kib_is_413_whether_its_length_is_declared_or_not() {
    let app = App::start().await;
    let fits = pad_to(&order_json("REF-1", "SKU-1", 1), 16 * 1024);
    let too_big = pad_to(&order_json("REF-1", "SKU-1", 1), 16 * 1024 + 1);
    assert_eq!(
        post(&app, Some("application/json"), &too_big).status_code(),
        (413, Some("payload_too_large".into()))
    );
    let chunked = raw_chunked_post(&app, &pad_to(&order_json("REF-1", "SKU-1", 1), 20 * 1024));
    assert!(chunked.starts_with("HTTP/1.1 413"), "{chunked}");
    app.assert_nothing_stored("oversized bodies").await;
    assert_eq!(post(&app, Some("application/json"), &fits).status, 201);
    app.finish().await;
}

#[tokio::test]
async fn every_malformed_body_is_400_invalid_body_with_the_pointer_at_fault() {
    let app = App::start().await;
    let long = "R".repeat(65);
    let too_long_ref = order_json(&long, "SKU-1", 1);
    let cases: [(&str, &str); 17] = [
        ("{", ""),
        ("[]", ""),
        ("\"order\"", ""),
        (r#"{"sku":"S","quantity":1}"#, "/clientOrderRef"),
        (
            r#"{"clientOrderRef":null,"sku":"S","quantity":1}"#,
            "/clientOrderRef",
        ),
        (
            r#"{"clientOrderRef":7,"sku":"S","quantity":1}"#,
            "/clientOrderRef",
        ),
        (r#"{"clientOrderRef":"R","sku":["S"],"quantity":1}"#, "/sku"),
        (
            r#"{"clientOrderRef":"R","sku":"S","quantity":1.0}"#,
            "/quantity",
        ),
        (
            r#"{"clientOrderRef":"R","sku":"S","quantity":"1"}"#,
            "/quantity",
        ),
        (
            r#"{"clientOrderRef":"R","sku":"S","quantity":1e0}"#,
            "/quantity",
        ),
        (
            r#"{"clientOrderRef":"R","sku":"S","quantity":true}"#,
            "/quantity",
        ),
        (
            r#"{"clientOrderRef":"R","sku":"S","quantity":0}"#,
            "/quantity",
        ),
        (
            r#"{"clientOrderRef":"R","sku":"S","quantity":101}"#,
            "/quantity",
        ),
        (
            r#"{"clientOrderRef":"","sku":"S","quantity":1}"#,
            "/clientOrderRef",
        ),
        (
            r#"{"clientOrderRef":" R","sku":"S","quantity":1}"#,
            "/clientOrderRef",
        ),
        (r#"{"clientOrderRef":"R","sku":"S/1","quantity":1}"#, "/sku"),
        (&too_long_ref, "/clientOrderRef"),
    ];
    for (body, pointer) in cases {
        let reply = post(&app, Some("application/json"), body.as_bytes());
        assert_eq!(
            reply.status_code(),
            (400, Some("invalid_body".into())),
            "{body}"
        );
        let json = reply.json();
        let pointers: Vec<&str> = json["errors"]
            .as_array()
            .map(|errors| {
                errors
                    .iter()
                    .filter_map(|e| e["pointer"].as_str())
                    .collect()
            })
            .unwrap_or_default();
        assert!(pointers.contains(&pointer), "{body}: {pointers:?}");
        let text = String::from_utf8_lossy(&reply.body);
        assert!(!text.contains("S/1"), "echoed a value: {text}");
    }
    app.assert_nothing_stored("invalid bodies").await;
    app.finish().await;
}

#[tokio::test]
async fn the_checks_run_in_the_contract_order() {
    let app = App::start().await;
    let bearer = format!("Bearer {}", full_token());
    let reader = format!("Bearer {}", tests::token(1, 1, "orders:read"));
    let oversized = vec![b' '; 17 * 1024];
    // Each request fails two checks; the earlier one must answer.
    let cases: [(&str, Headers<'_>, &[u8], u16); 5] = [
        (
            "token before permission",
            vec![("authorization", b"Bearer x")],
            b"{",
            401,
        ),
        (
            "permission before key",
            vec![("authorization", reader.as_bytes())],
            b"{",
            403,
        ),
        (
            "key before media type",
            vec![
                ("authorization", bearer.as_bytes()),
                ("content-type", b"text/plain"),
            ],
            b"{",
            400,
        ),
        (
            "media type before size",
            vec![
                ("authorization", bearer.as_bytes()),
                ("idempotency-key", b"order-1"),
                ("content-type", b"text/plain"),
            ],
            &oversized,
            415,
        ),
        (
            "size before body",
            vec![
                ("authorization", bearer.as_bytes()),
                ("idempotency-key", b"order-1"),
                ("content-type", b"application/json"),
            ],
            &oversized,
            413,
        ),
    ];
    for (case, headers, body, status) in cases {
        let reply = app.api.send("POST", "/api/orders", &headers, body);
        assert_eq!(reply.status, status, "{case}");
    }
    app.assert_nothing_stored("check order").await;
    app.finish().await;
}

/// Request headers as raw bytes.
type Headers<'a> = Vec<(&'a str, &'a [u8])>;

/// `json` followed by spaces up to `length` bytes.
fn pad_to(json: &str, length: usize) -> Vec<u8> {
    let mut bytes = json.as_bytes().to_vec();
    bytes.resize(length, b' ');
    bytes
}

/// A chunked POST without `Content-Length`, written by hand: the limit must hold while
/// the body streams in.
fn raw_chunked_post(app: &App, body: &[u8]) -> String {
    let address = app.service.base_url().trim_start_matches("http://");
    let mut stream = TcpStream::connect(address).unwrap();
    let head = format!(
        "POST /api/orders HTTP/1.1\r\nHost: {address}\r\nAuthorization: Bearer {}\r\n\
         Idempotency-Key: chunked-1\r\nContent-Type: application/json\r\n\
         Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
        full_token()
    );
    stream.write_all(head.as_bytes()).unwrap();
    for chunk in body.chunks(1024) {
        if write!(stream, "{:x}\r\n", chunk.len()).is_err()
            || stream.write_all(chunk).is_err()
            || stream.write_all(b"\r\n").is_err()
        {
            break; // the server may answer and close before the whole body is sent
        }
    }
    let _ = stream.write_all(b"0\r\n\r\n");
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    String::from_utf8_lossy(&response).into_owned()
}

/// The `errors` of a `400 invalid_body` answer to `body`, as `(pointer, reason)`.
fn errors_of(app: &App, body: &str) -> Vec<(String, String)> {
    let reply = post(app, Some("application/json"), body.as_bytes());
    assert_eq!(
        reply.status_code(),
        (400, Some("invalid_body".into())),
        "{body}"
    );
    reply.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["pointer"].as_str().unwrap().to_owned(),
                e["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn unknown_and_repeated_members_are_reported_at_their_own_pointer() {
    let app = App::start().await;
    let pointers =
        |body: &str| -> Vec<String> { errors_of(&app, body).into_iter().map(|(p, _)| p).collect() };
    assert_eq!(
        pointers(r#"{"clientOrderRef":"R","sku":"S","quantity":1,"tenantId":2,"a~b/c":1}"#),
        ["/a~0b~1c", "/tenantId"]
    );
    // Escaped spellings name the same member; a repeat stops every other judgement.
    assert_eq!(
        pointers(r#"{"clientOrderRef":"R","sku":"","quantity":1,"qu\u0061ntity":2}"#),
        ["/quantity"]
    );
    assert_eq!(
        pointers(r#"{"clientOrderRef":"R","sku":"S","quantity":1,"x":{"y":1,"y":2}}"#),
        ["/x/y"]
    );
    // Names no client should read back (over 64 bytes, control characters) are not spelled.
    let long = "n".repeat(65);
    let body =
        format!(r#"{{"clientOrderRef":"R","sku":"S","quantity":1,"{long}":1,"bell\u0007":1}}"#);
    assert_eq!(pointers(&body), ["", ""]);
    let text = String::from_utf8_lossy(&post(&app, Some("application/json"), body.as_bytes()).body)
        .into_owned();
    assert!(!text.contains(&long) && !text.contains("bell"), "{text}");
    app.assert_nothing_stored("unknown and repeated members")
        .await;
    app.finish().await;
}

#[tokio::test]
async fn at_most_sixteen_violations_are_listed() {
    let app = App::start().await;
    let unknown: Vec<String> = (0..40).map(|i| format!(r#""extra{i}":1"#)).collect();
    let body = format!("{{{}}}", unknown.join(","));
    assert_eq!(errors_of(&app, &body).len(), 16);
    let repeated = format!("{{{}}}", vec![r#""sku":"S""#; 40].join(","));
    assert_eq!(errors_of(&app, &repeated).len(), 16);
    app.assert_nothing_stored("too many violations").await;
    app.finish().await;
}
