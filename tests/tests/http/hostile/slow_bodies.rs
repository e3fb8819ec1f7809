//! Bodies that never arrive, or arrive too slowly: `408` at the body deadline, the
//! connection closed, nothing stored.

use std::io::Write;
use std::time::Duration;

use tests::order_json;

use super::{Raw, app, create_head};

#[tokio::test]
async fn a_body_that_never_completes_is_answered_408_and_the_connection_closed() {
    let app = app().await;
    let cases = [
        (
            "short",
            "Content-Length: 100\r\n",
            &b"{\"clientOrderRef\":\"R-1\",\"sku\":\"S-1\",\"quantity\":1"[..],
        ),
        (
            "huge-chunk",
            "Transfer-Encoding: chunked\r\n",
            b"ffffffffffffffff\r\n{",
        ),
        ("no-chunk", "Transfer-Encoding: chunked\r\n", b""),
    ];
    for (name, framing, sent) in cases {
        let mut raw = Raw::connect(&app);
        raw.send(create_head(&app, name, framing).as_bytes());
        raw.send(sent);
        let answer = raw.until_closed();
        assert!(answer.starts_with("HTTP/1.1 408"), "{name}: {answer}");
        assert!(answer.contains("request_timeout"), "{name}: {answer}");
    }
    app.assert_nothing_stored("bodies that never completed")
        .await;
    app.finish().await;
}

#[tokio::test]
async fn a_body_trickled_byte_by_byte_is_cut_at_the_deadline() {
    let app = app().await;
    let body = order_json("REF-TRICKLE", "SKU-1", 1);
    let mut raw = Raw::connect(&app);
    raw.send(
        create_head(
            &app,
            "trickle",
            &format!("Content-Length: {}\r\n", body.len()),
        )
        .as_bytes(),
    );
    let mut writer = raw.stream.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        for byte in body.bytes() {
            if writer.write_all(&[byte]).is_err() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        false
    });
    let answer = raw.until_closed();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        trickle.join().unwrap(),
        "the whole body was accepted, byte by byte"
    );
    app.assert_nothing_stored("a trickled body").await;
    app.finish().await;
}
