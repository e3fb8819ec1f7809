//! Idempotency records as an admin sees them, and eviction: the key works again after it.

use tests::{order_json, token};

use super::support::{action, audit_rows, needs_review, operator_token, pending_capture, pointers};
use crate::support::{App, assert_problem, full_token};

fn key_path(tenant: u64, key: &str) -> String {
    format!(
        "/api/admin/idempotency-keys?tenant={tenant}&actor=1&operation=orders.create.v1&key={key}"
    )
}

#[tokio::test]
async fn a_record_shows_its_metadata_never_its_body_and_evicting_frees_the_key() {
    // The copy lives long enough to be there at the eviction however slow the machine is.
    let app = App::start_with(|o| {
        o.env.push(("REPLAY_CACHE_TTL_SECS".into(), "600".into()));
    })
    .await;
    let first = app
        .api
        .create(&full_token(), "key-1", &order_json("REF-1", "SKU-1", 1));
    assert_eq!(first.status, 201);
    // A replay leaves a copy of the record in the process's replay cache; the next one
    // meets it.
    for _ in 0..2 {
        let replay = app
            .api
            .create(&full_token(), "key-1", &order_json("REF-1", "SKU-1", 1));
        assert_eq!(
            replay.header("idempotent-replayed").as_deref(),
            Some("true")
        );
    }
    assert_eq!(app.api.metric("idempotent_replay_cache_hits_total"), 1.0);
    let shown = app.api.get(&key_path(1, "key-1"), Some(&operator_token()));
    assert_eq!(shown.status, 200);
    let json = shown.json();
    assert_eq!(json["state"], "completed");
    assert_eq!(json["responseStatus"], 201);
    assert_eq!(json["operation"], "orders.create.v1");
    let fingerprint = json["fingerprint"].as_str().unwrap();
    assert!(fingerprint.len() == 64 && fingerprint.bytes().all(|b| b.is_ascii_hexdigit()));
    assert!(json["expiresAt"].as_str().is_some());
    assert!(
        !String::from_utf8_lossy(&shown.body).contains("REF-1"),
        "no stored body"
    );

    let other_tenant = token(2, 9, "admin:read admin:write");
    assert_problem(
        &app.api.get(&key_path(1, "key-1"), Some(&other_tenant)),
        404,
        "not_found",
        "another tenant's record",
    );
    assert_problem(
        &app.api
            .admin("DELETE", &key_path(1, "key-1"), &other_tenant, None),
        404,
        "not_found",
        "another tenant's eviction",
    );
    assert_eq!(audit_rows(&app).await, 0);

    let evicted = app
        .api
        .admin("DELETE", &key_path(1, "key-1"), &operator_token(), None);
    assert_eq!(evicted.status, 200);
    assert_eq!(evicted.json()["state"], "completed");
    assert_problem(
        &app.api.get(&key_path(1, "key-1"), Some(&operator_token())),
        404,
        "not_found",
        "evicted",
    );
    assert_problem(
        &app.api
            .admin("DELETE", &key_path(1, "key-1"), &operator_token(), None),
        404,
        "not_found",
        "evicted twice",
    );
    let trail = app
        .api
        .get("/api/admin/audit", Some(&operator_token()))
        .json();
    let event = &trail["items"][0];
    assert_eq!(event["action"], "idempotency_key.evict");
    assert_eq!(event["target"]["id"], "1/orders.create.v1/key-1");
    assert_eq!(
        (&event["before"], &event["after"]),
        (&"completed".into(), &"evicted".into())
    );
    assert_eq!(audit_rows(&app).await, 1);

    // The key is free: another request with it executes instead of answering 422, though
    // the replay left a copy of the record in the process's replay cache.
    let reused = app
        .api
        .create(&full_token(), "key-1", &order_json("REF-2", "SKU-1", 1));
    assert_eq!(reused.status, 201);
    assert!(reused.header("idempotent-replayed").is_none());
    app.finish().await;
}

#[tokio::test]
async fn a_key_query_names_each_missing_or_bad_part() {
    let app = App::start().await;
    let refused = app.api.get(
        "/api/admin/idempotency-keys?tenant=0&operation=Orders&key=a%20b",
        Some(&operator_token()),
    );
    assert_problem(&refused, 400, "invalid_query", "key query");
    assert_eq!(
        pointers(&refused),
        ["/tenant", "/actor", "/operation", "/key"]
    );
    app.finish().await;
}

/// The address of a capture's key, as `full_token()`'s actor sent it.
fn capture_key_path(key: &str) -> String {
    format!("/api/admin/idempotency-keys?tenant=1&actor=1&operation=payments.capture.v1&key={key}")
}

#[tokio::test]
async fn the_key_of_an_unsettled_operation_is_not_evicted() {
    let app = App::start().await;
    let capture = pending_capture(&app, "REF-1");
    let path = capture_key_path("pay-REF-1");
    let shown = app.api.get(&path, Some(&operator_token())).json();
    assert_eq!(shown["operationId"], capture.as_str());

    for state in ["pending", "needs_review"] {
        if state == "needs_review" {
            needs_review(&app, &capture).await;
        }
        let refused = app.api.admin("DELETE", &path, &operator_token(), None);
        assert_problem(&refused, 409, "operation_unfinished", state);
        let problem = refused.json();
        assert_eq!(
            (&problem["state"], &problem["operationId"]),
            (&state.into(), &capture.as_str().into())
        );
    }
    assert_eq!(
        audit_rows(&app).await,
        0,
        "nothing evicted, nothing audited"
    );

    // Settled, the key may go: a retry then starts afresh, knowingly.
    let declined = action(&app, &capture, "resolve", Some(r#"{"outcome":"declined"}"#));
    assert_eq!(declined.status, 200);
    let evicted = app.api.admin("DELETE", &path, &operator_token(), None);
    assert_eq!(
        evicted.status,
        200,
        "{}",
        String::from_utf8_lossy(&evicted.body)
    );
    app.finish().await;
}
