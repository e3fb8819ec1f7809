//! Captures over HTTP (`docs/long-running-operations.md#acceptance`,
//! `docs/long-running-operations.md#the-status-read`): a capture's acceptance and its
//! status read. No provider is configured here, so every accepted capture stays `pending`
//! (the worker's rows are proven in the `payments` suite).

use tests::{ALL_PERMISSIONS, capture_json, token};

use crate::support::{App, assert_problem, full_token, order};

async fn operations(app: &App) -> i64 {
    app.db.count("SELECT COUNT(*) AS n FROM operations").await
}

#[tokio::test]
async fn an_accepted_capture_is_202_with_location_and_replays_byte_for_byte() {
    let app = App::start().await;
    let order = order(&app, "REF-1");
    let body = capture_json(1500, "JPY");

    let first = app.api.capture(&full_token(), &order, "pay-1", &body);
    assert_eq!(first.status, 202);
    let location = first.header("location").unwrap();
    let id = first.json()["operationId"].as_str().unwrap().to_owned();
    assert_eq!(location, format!("/api/operations/{id}"));
    assert_eq!(first.json()["state"], "pending");
    assert!(first.header("idempotent-replayed").is_none());

    // Member order and whitespace do not matter to the fingerprint.
    let again = app.api.capture(
        &full_token(),
        &order,
        "pay-1",
        r#" { "currency": "JPY", "amount": 1500 } "#,
    );
    assert_eq!(again.status, 202);
    assert_eq!(again.body, first.body, "the stored bytes");
    assert_eq!(again.header("location"), Some(location.clone()));
    assert_eq!(again.header("idempotent-replayed").as_deref(), Some("true"));

    let reused = app
        .api
        .capture(&full_token(), &order, "pay-1", &capture_json(1600, "JPY"));
    assert_problem(&reused, 422, "idempotency_key_reused", "another amount");
    assert_eq!(operations(&app).await, 1, "one operation");

    let status = app.api.get(&location, Some(&full_token()));
    assert_eq!(status.status, 200);
    assert_eq!(status.header("retry-after").as_deref(), Some("1"));
    let json = status.json();
    assert_eq!(json["operationId"], id.as_str());
    assert_eq!(json["type"], "payments.capture.v1");
    assert_eq!(json["orderId"], order.as_str());
    assert_eq!(json["state"], "pending");
    assert!(json["payment"].is_null());
    assert!(json["updatedAt"].as_str().unwrap().ends_with('Z'));
    app.finish().await;
}

#[tokio::test]
async fn an_unknown_or_foreign_order_is_404_and_stores_nothing() {
    let app = App::start().await;
    let order = order(&app, "REF-1");
    let records_before = app.db.total_records().await;
    let body = capture_json(1500, "JPY");

    let foreign = app
        .api
        .capture(&token(2, 1, ALL_PERMISSIONS), &order, "pay-f", &body);
    let missing = app.api.capture(&full_token(), "999999", "pay-m", &body);
    let odd = app.api.capture(&full_token(), "abc", "pay-o", &body);
    for (reply, context) in [
        (&foreign, "foreign"),
        (&missing, "missing"),
        (&odd, "odd id"),
    ] {
        assert_problem(reply, 404, "not_found", context);
    }
    assert_eq!(foreign.body, missing.body, "nothing tells the two apart");
    assert_eq!(operations(&app).await, 0);
    assert_eq!(
        app.db.total_records().await,
        records_before,
        "no record kept"
    );

    // The refusal used nothing up: the same key now captures the caller's own order.
    let own = app.api.capture(&full_token(), &order, "pay-m", &body);
    assert_eq!(own.status, 202);
    app.finish().await;
}

#[tokio::test]
async fn a_second_key_for_a_pending_capture_is_payment_exists() {
    let app = App::start().await;
    let order = order(&app, "REF-1");
    let first = app
        .api
        .capture(&full_token(), &order, "pay-1", &capture_json(1500, "JPY"));
    assert_eq!(first.status, 202);
    let records_before = app.db.total_records().await;

    let second = app
        .api
        .capture(&full_token(), &order, "pay-2", &capture_json(1500, "JPY"));
    assert_problem(&second, 409, "payment_exists", "a second key");
    assert_eq!(operations(&app).await, 1);
    assert_eq!(
        app.db.total_records().await,
        records_before,
        "nothing stored"
    );
    app.finish().await;
}

#[tokio::test]
async fn the_edge_checks_of_a_create_apply_to_a_capture_too() {
    let app = App::start().await;
    let order = order(&app, "REF-1");
    let path = format!("/api/orders/{order}/payments");
    let body = capture_json(1500, "JPY");
    let bearer = format!("Bearer {}", full_token());
    let send = |headers: &[(&str, &[u8])], body: &[u8]| app.api.send("POST", &path, headers, body);

    let anonymous = send(
        &[
            ("idempotency-key", b"k"),
            ("content-type", b"application/json"),
        ],
        body.as_bytes(),
    );
    assert_eq!(anonymous.status, 401);
    assert!(anonymous.header("www-authenticate").is_some());
    let orders_only = app.api.capture(
        &token(1, 1, "orders:create orders:read"),
        &order,
        "k",
        &body,
    );
    assert_problem(&orders_only, 403, "forbidden", "without payments:create");
    let no_key = send(
        &[
            ("authorization", bearer.as_bytes()),
            ("content-type", b"application/json"),
        ],
        body.as_bytes(),
    );
    assert_problem(&no_key, 400, "idempotency_key_missing", "no key");
    let text = send(
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", b"k"),
            ("content-type", b"text/plain"),
        ],
        body.as_bytes(),
    );
    assert_eq!(text.status, 415);
    let huge = format!(
        r#"{{"amount":1,"currency":"JPY","x":"{}"}}"#,
        "a".repeat(17_000)
    );
    assert_eq!(
        app.api.capture(&full_token(), &order, "k", &huge).status,
        413
    );
    for (bad, pointer) in [
        (r#"{"amount":0,"currency":"JPY"}"#, "/amount"),
        (r#"{"amount":1.5,"currency":"JPY"}"#, "/amount"),
        (r#"{"amount":1,"currency":"jpy"}"#, "/currency"),
        (r#"{"amount":1,"currency":"JPY","orderId":"1"}"#, "/orderId"),
    ] {
        let reply = app.api.capture(&full_token(), &order, "k", bad);
        assert_problem(&reply, 400, "invalid_body", bad);
        assert_eq!(reply.json()["errors"][0]["pointer"], pointer, "{bad}");
    }
    assert_eq!(operations(&app).await, 0, "nothing accepted");

    // The status read needs payments:read and stays within the tenant.
    let accepted = app.api.capture(&full_token(), &order, "k", &body);
    let location = accepted.header("location").unwrap();
    assert_eq!(app.api.get(&location, None).status, 401);
    assert_problem(
        &app.api
            .get(&location, Some(&token(1, 1, "payments:create"))),
        403,
        "forbidden",
        "without payments:read",
    );
    assert_eq!(
        app.api
            .get(&location, Some(&token(1, 7, "payments:read")))
            .status,
        200,
        "operations belong to the tenant"
    );
    let foreign = app.api.get(&location, Some(&token(2, 1, ALL_PERMISSIONS)));
    assert_problem(&foreign, 404, "not_found", "another tenant");
    for odd in [
        "/api/operations/abc",
        "/api/operations/00000000000000000000000000000000",
    ] {
        assert_eq!(app.api.get(odd, Some(&full_token())).status, 404, "{odd}");
    }
    app.finish().await;
}

#[tokio::test]
async fn a_refund_takes_its_own_permission_and_body_and_an_early_one_keeps_no_key() {
    let app = App::start().await;
    let order = order(&app, "REF-1");
    let refund = |bearer: &str, key: &str, body: &str| app.api.refund(bearer, &order, key, body);

    let captures_only = refund(
        &token(1, 1, "payments:create payments:read"),
        "r",
        &tests::refund_json(100, "damaged"),
    );
    assert_problem(&captures_only, 403, "forbidden", "without payments:refund");
    for (bad, pointer) in [
        (r#"{"amount":0,"reason":"x"}"#, "/amount"),
        (r#"{"amount":1,"reason":""}"#, "/reason"),
        (r#"{"amount":1,"reason":"a\u0007b"}"#, "/reason"),
        (r#"{"amount":1,"reason":"x","currency":"JPY"}"#, "/currency"),
    ] {
        let reply = refund(&full_token(), "r", bad);
        assert_problem(&reply, 400, "invalid_body", bad);
        assert_eq!(reply.json()["errors"][0]["pointer"], pointer, "{bad}");
    }
    let first = refund(&full_token(), "r", &tests::refund_json(100, "damaged"));
    assert_problem(&first, 409, "order_not_refundable", "nothing captured");
    let records = app.db.total_records().await;
    let other = refund(&full_token(), "r", &tests::refund_json(200, "damaged"));
    assert_problem(&other, 409, "order_not_refundable", "the key stayed free");
    assert_eq!(app.db.total_records().await, records, "no record kept");
    assert_eq!(operations(&app).await, 0, "nothing accepted");
    app.finish().await;
}
