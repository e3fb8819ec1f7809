//! The `Idempotency-Key` header rules (`docs/http-api.md#the-idempotency-key-header`).

use tests::order_json;

use crate::support::{App, full_token};

fn post_with_keys(app: &App, keys: &[&[u8]]) -> tests::Reply {
    post_order_with_keys(app, keys, "REF-1")
}

fn post_order_with_keys(app: &App, keys: &[&[u8]], client_order_ref: &str) -> tests::Reply {
    let bearer = format!("Bearer {}", full_token());
    let mut headers: Vec<(&str, &[u8])> = vec![
        ("authorization", bearer.as_bytes()),
        ("content-type", b"application/json"),
    ];
    headers.extend(keys.iter().map(|k| ("idempotency-key", *k)));
    let body = order_json(client_order_ref, "SKU-1", 1);
    app.api
        .send("POST", "/api/orders", &headers, body.as_bytes())
}

#[tokio::test]
async fn a_missing_key_is_400_idempotency_key_missing() {
    let app = App::start().await;
    assert_eq!(
        post_with_keys(&app, &[]).status_code(),
        (400, Some("idempotency_key_missing".into()))
    );
    app.assert_nothing_stored("no key").await;
    app.finish().await;
}

#[tokio::test]
async fn an_empty_long_odd_repeated_or_listed_key_is_400_idempotency_key_invalid() {
    let app = App::start().await;
    let too_long = "a".repeat(129);
    let cases: [(&str, Vec<&[u8]>); 10] = [
        ("empty", vec![b""]),
        ("129 characters", vec![too_long.as_bytes()]),
        ("inner space", vec![b"a b"]),
        ("slash", vec![b"a/b"]),
        ("dot", vec![b"a.b"]),
        ("non-ASCII", vec!["ä".as_bytes()]),
        ("comma list", vec![b"a,b"]),
        ("two fields", vec![b"a", b"b"]),
        ("two equal fields", vec![b"a", b"a"]),
        ("unterminated quote", vec![b"\"abc"]),
    ];
    for (case, keys) in cases {
        assert_eq!(
            post_with_keys(&app, &keys).status_code(),
            (400, Some("idempotency_key_invalid".into())),
            "{case}"
        );
    }
    app.assert_nothing_stored("invalid keys").await;
    app.finish().await;
}

#[tokio::test]
async fn a_quoted_key_and_surrounding_whitespace_name_the_same_key() {
    let app = App::start().await;
    let longest = "k".repeat(128);
    assert_eq!(
        post_order_with_keys(&app, &[longest.as_bytes()], "REF-LONG").status,
        201
    );

    let first = post_with_keys(&app, &[b"\"abc-123\""]);
    assert_eq!(first.status, 201);
    for same in [&b"abc-123"[..], b"  abc-123\t", b"\"abc-123\""] {
        let reply = post_with_keys(&app, &[same]);
        assert_eq!(reply.body, first.body, "{}", String::from_utf8_lossy(same));
        assert_eq!(reply.header("idempotent-replayed").as_deref(), Some("true"));
    }
    // Case matters: this is another key, whose request meets the clientOrderRef.
    assert_eq!(
        post_with_keys(&app, &[b"ABC-123"]).status_code(),
        (409, Some("client_order_ref_conflict".into()))
    );
    app.finish().await;
}
