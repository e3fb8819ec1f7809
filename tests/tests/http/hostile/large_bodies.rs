//! Bodies over the limit, sent as common clients send them (head and body in one write) or
//! in pieces, on fresh and kept-alive connections: `413` with its problem document, never
//! the head guard's `431`, which is for an over-long head line only (`docs/http-api.md#request-bodies`).

use std::io::{Read, Write};

use super::{Raw, app, assert_long_header_name_refused, create_head};

/// A create body of exactly `size` bytes without a newline: the order, then padding in a
/// string member (or in spaces, for a body the server takes).
fn body_of(size: usize, valid: bool, reference: &str) -> Vec<u8> {
    let start = format!(r#"{{"clientOrderRef":"{reference}","sku":"SKU-1","quantity":1"#);
    let start = start.as_bytes();
    let (open, close): (&[u8], &[u8]) = if valid {
        (b"", b"}")
    } else {
        (br#","x":""#, br#""}"#)
    };
    let pad = size - start.len() - open.len() - close.len();
    let filler = if valid { b' ' } else { b'a' };
    [start, open, &vec![filler; pad], close].concat()
}

/// One answer read off `raw`: its status, its head and its body.
fn answer(raw: &mut Raw) -> (u16, String, Vec<u8>) {
    let mut received = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let mut headers = [httparse::EMPTY_HEADER; 32];
        let mut response = httparse::Response::new(&mut headers);
        if let Ok(httparse::Status::Complete(head_len)) = response.parse(&received) {
            let status = response.code.unwrap();
            let length: usize = response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                .map_or(0, |h| {
                    std::str::from_utf8(h.value).unwrap().parse().unwrap()
                });
            let head = String::from_utf8_lossy(&received[..head_len]).into_owned();
            while received.len() < head_len + length {
                let n = raw.stream.read(&mut chunk).unwrap();
                assert!(n > 0, "closed inside the body: {head}");
                received.extend_from_slice(&chunk[..n]);
            }
            return (status, head, received[head_len..head_len + length].to_vec());
        }
        let n = raw.stream.read(&mut chunk).unwrap();
        assert!(
            n > 0,
            "closed before an answer: {:?}",
            String::from_utf8_lossy(&received)
        );
        received.extend_from_slice(&chunk[..n]);
    }
}

/// Sends `bytes` in `pieces` writes; a server that answers early may close its side, so
/// a failed write is not an error here.
fn send_in(raw: &mut Raw, bytes: &[u8], pieces: usize) {
    for part in bytes.chunks(bytes.len().div_ceil(pieces)) {
        if raw.stream.write_all(part).is_err() {
            return;
        }
    }
}

fn assert_too_large((status, head, body): &(u16, String, Vec<u8>), context: &str) {
    assert_eq!(*status, 413, "{context}: {head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/problem+json"),
        "{context}: {head}"
    );
    let problem: serde_json::Value = serde_json::from_slice(body).unwrap();
    assert_eq!(problem["code"], "payload_too_large", "{context}");
}

#[tokio::test]
async fn bodies_over_the_limit_are_413_in_one_write_or_in_pieces() {
    let app = app().await;
    for size in [16 * 1024 + 1, 64 * 1024, 1 << 20] {
        for pieces in [1, 7] {
            let body = body_of(size, false, "BIG-0");
            let head = create_head(
                &app,
                &format!("big-{size}-{pieces}"),
                &format!("Content-Length: {size}\r\n"),
            );
            let mut raw = Raw::connect(&app);
            send_in(&mut raw, &[head.as_bytes(), &body].concat(), pieces);
            assert_too_large(
                &answer(&mut raw),
                &format!("{size} bytes in {pieces} writes"),
            );
        }
    }
    assert_eq!(app.db.total_records().await, 0, "nothing stored");
    app.finish().await;
}

#[tokio::test]
async fn after_a_large_body_a_kept_alive_connection_is_measured_anew() {
    let app = app().await;
    let full = body_of(16 * 1024, true, "BIG-1");
    let first = create_head(
        &app,
        "kept-1",
        &format!("Content-Length: {}\r\n", full.len()),
    );

    // A body of exactly the limit is taken; the next request on the connection is read
    // as a request, and one over the limit is 413.
    let mut raw = Raw::connect(&app);
    send_in(&mut raw, &[first.as_bytes(), &full].concat(), 1);
    let (status, head, _) = answer(&mut raw);
    assert_eq!(status, 201, "{head}");
    let over = body_of(64 * 1024, false, "BIG-2");
    let second = create_head(
        &app,
        "kept-2",
        &format!("Content-Length: {}\r\n", over.len()),
    );
    send_in(&mut raw, &[second.as_bytes(), &over].concat(), 1);
    assert_too_large(&answer(&mut raw), "64 KiB after a 16 KiB body");

    // The guard still stands for the head after a body: a 64 KiB header name is 431.
    let mut raw = Raw::connect(&app);
    let other = body_of(16 * 1024, true, "BIG-3");
    let again = create_head(
        &app,
        "kept-3",
        &format!("Content-Length: {}\r\n", other.len()),
    );
    send_in(&mut raw, &[again.as_bytes(), &other].concat(), 1);
    assert_eq!(answer(&mut raw).0, 201);
    assert_long_header_name_refused(&mut raw, &app);
    app.finish().await;
}
