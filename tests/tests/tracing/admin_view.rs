//! The trace id an operator sees: the admin API's view of a capture and its on-call page
//! carry the trace id of the request that accepted it, and nothing when tracing was off.

use tests::otlp::OtlpReceiver;
use tests::{ALL_PERMISSIONS, Api, Reply, Service, ServiceOptions, TestDb, capture_json, token};

use crate::support::{TRACE_ID, create_with, exporting_to, traceparent};

/// A serving process with the on-call page on and no worker: the capture stays pending.
fn serving(db: &TestDb, mut env: Vec<(String, String)>) -> Service {
    let mut options = ServiceOptions::new(db.url());
    env.push(("ADMIN_UI".to_owned(), "1".to_owned()));
    options.env = env;
    Service::start(&options)
}

/// A capture of a new order, sent with the caller's `traceparent`: its operation id.
fn traced_capture(api: &Api, reference: &str) -> String {
    let created = create_with(api, reference, &[]);
    assert_eq!(created.status, 201);
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let bearer = format!("Bearer {}", token(1, 1, ALL_PERMISSIONS));
    let accepted = api.send(
        "POST",
        &format!("/api/orders/{order}/payments"),
        &[
            ("authorization", bearer.as_bytes()),
            ("idempotency-key", format!("pay-{reference}").as_bytes()),
            ("content-type", b"application/json"),
            ("traceparent", traceparent().as_bytes()),
        ],
        capture_json(1500, "JPY").as_bytes(),
    );
    assert_eq!(accepted.status, 202);
    accepted.json()["operationId"].as_str().unwrap().to_owned()
}

/// The admin API's view of operation `id` and its on-call page, as tenant 1's reader.
fn views(api: &Api, id: &str) -> (serde_json::Value, String) {
    let reader = token(1, 9, "admin:read");
    let json = api.admin("GET", &format!("/api/admin/operations/{id}"), &reader, None);
    assert_eq!(json.status, 200);
    let cookie = format!("admin_session={reader}");
    let page: Reply = api.send(
        "GET",
        &format!("/admin/operations/{id}"),
        &[("cookie", cookie.as_bytes())],
        b"",
    );
    assert_eq!(page.status, 200);
    (json.json(), String::from_utf8(page.body).unwrap())
}

#[tokio::test]
async fn the_operation_view_and_page_show_the_accepting_request_s_trace_id() {
    let db = TestDb::create().await;
    let receiver = OtlpReceiver::start().unwrap();
    let server = serving(&db, exporting_to(&receiver, "orders-api"));
    let api = Api::new(server.base_url());
    let id = traced_capture(&api, "order-t");

    let (json, page) = views(&api, &id);
    assert_eq!(json["traceId"], TRACE_ID, "{json}");
    assert!(page.contains("<dt>Trace id</dt>"), "{page}");
    assert!(page.contains(&format!("<code>{TRACE_ID}</code>")), "{page}");
    drop(server);
    db.drop_database().await;
}

#[tokio::test]
async fn with_tracing_off_the_operation_view_and_page_show_no_trace_id() {
    let db = TestDb::create().await;
    let server = serving(&db, Vec::new());
    let api = Api::new(server.base_url());
    let id = traced_capture(&api, "order-o");

    let (json, page) = views(&api, &id);
    assert_eq!(
        json.get("traceId"),
        Some(&serde_json::Value::Null),
        "present, as null: {json}"
    );
    assert!(!page.contains("Trace id"), "{page}");
    assert!(!page.contains(TRACE_ID), "{page}");
    drop(server);
    db.drop_database().await;
}
