//! Every refusal of the admin routes: its status and problem, and that it changed nothing
//! and wrote no audit row.

use tests::token;

use super::support::{
    action, audit_rows, needs_review, operation_path, operator_token, pending_capture, pointers,
};
use crate::support::{App, assert_problem};

const ROUTES: [(&str, &str, &str); 8] = [
    ("GET", "/api/admin/operations", "admin:read"),
    ("GET", "/api/admin/operations/{id}", "admin:read"),
    ("POST", "/api/admin/operations/{id}/resolve", "admin:write"),
    ("POST", "/api/admin/operations/{id}/retry", "admin:write"),
    ("POST", "/api/admin/operations/{id}/cancel", "admin:write"),
    (
        "GET",
        "/api/admin/idempotency-keys?tenant=1&actor=1&operation=orders.create.v1&key=k",
        "admin:read",
    ),
    (
        "DELETE",
        "/api/admin/idempotency-keys?tenant=1&actor=1&operation=orders.create.v1&key=k",
        "admin:write",
    ),
    ("GET", "/api/admin/audit", "admin:read"),
];

#[tokio::test]
async fn each_route_needs_a_token_with_its_own_permission() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    for (method, path, permission) in ROUTES {
        let path = path.replace("{id}", &id);
        let none = app.api.send(method, &path, &[], b"");
        assert_problem(&none, 401, "unauthorized", &path);
        let other = if permission == "admin:read" {
            "admin:write orders:read"
        } else {
            "admin:read payments:create"
        };
        let body = (method == "POST").then_some(r#"{"outcome":"declined"}"#);
        let denied = app.api.admin(method, &path, &token(1, 9, other), body);
        assert_problem(&denied, 403, "forbidden", &format!("{method} {path}"));
    }
    let still = app.api.get(&operation_path(&id), Some(&operator_token()));
    assert_eq!(still.json()["state"], "pending");
    assert_eq!(audit_rows(&app).await, 0);
    app.finish().await;
}

#[tokio::test]
async fn bad_queries_ids_and_bodies_are_named_and_change_nothing() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    let query = app.api.get(
        "/api/admin/operations?limit=0&state=done&page=2&tenant=07",
        Some(&operator_token()),
    );
    assert_problem(&query, 400, "invalid_query", "list query");
    assert_eq!(
        pointers(&query),
        ["/page"],
        "an unknown parameter stops the judging"
    );
    let query = app.api.get(
        "/api/admin/operations?limit=0&state=done&tenant=07",
        Some(&operator_token()),
    );
    assert_eq!(pointers(&query), ["/state", "/tenant", "/limit"]);
    let audit_cursor = app
        .api
        .get("/api/admin/audit?cursor=YTEuMQ", Some(&operator_token()));
    assert_eq!(
        audit_cursor.status, 200,
        "an audit cursor is accepted by the audit"
    );
    let crossed = app.api.get(
        "/api/admin/operations?cursor=YTEuMQ",
        Some(&operator_token()),
    );
    assert_problem(
        &crossed,
        400,
        "invalid_query",
        "an audit cursor for operations",
    );

    for bad in ["nope", "00000000000000000000000000000000", &id[..35]] {
        assert_problem(
            &app.api.get(&operation_path(bad), Some(&operator_token())),
            404,
            "not_found",
            bad,
        );
    }
    let unknown = "0b6e3f0e-6d0c-4f43-9a53-1d3c1f1f7a21";
    assert_problem(
        &action(&app, unknown, "cancel", None),
        404,
        "not_found",
        "unknown id",
    );

    needs_review(&app, &id).await;
    for (body, pointer) in [
        (r#"{"outcome":"succeeded"}"#, "/providerChargeId"),
        (
            r#"{"outcome":"declined","providerChargeId":"ch_1"}"#,
            "/providerChargeId",
        ),
        (r#"{"outcome":"maybe"}"#, "/outcome"),
        (
            r#"{"outcome":"succeeded","providerChargeId":"ch 1"}"#,
            "/providerChargeId",
        ),
        ("[]", ""),
    ] {
        let refused = action(&app, &id, "resolve", Some(body));
        assert_problem(&refused, 400, "invalid_body", body);
        assert_eq!(refused.json()["errors"][0]["pointer"], pointer, "{body}");
    }
    assert_problem(
        &action(&app, &id, "retry", Some(r#"{"force":true}"#)),
        400,
        "invalid_body",
        "retry takes no members",
    );
    let plain = app.api.send(
        "POST",
        &format!("{}/retry", operation_path(&id)),
        &[
            (
                "authorization",
                format!("Bearer {}", operator_token()).as_bytes(),
            ),
            ("content-type", b"text/plain"),
        ],
        b"{}",
    );
    assert_problem(&plain, 415, "unsupported_media_type", "text/plain");
    let resolve_without_type = app.api.send(
        "POST",
        &format!("{}/resolve", operation_path(&id)),
        &[(
            "authorization",
            format!("Bearer {}", operator_token()).as_bytes(),
        )],
        br#"{"outcome":"declined"}"#,
    );
    assert_problem(
        &resolve_without_type,
        415,
        "unsupported_media_type",
        "no type",
    );

    let shown = app
        .api
        .get(&operation_path(&id), Some(&operator_token()))
        .json();
    assert_eq!(
        (&shown["state"], &shown["generation"]),
        (&"needs_review".into(), &3.into())
    );
    assert_eq!(audit_rows(&app).await, 0);
    app.finish().await;
}

#[tokio::test]
async fn an_action_on_the_wrong_state_is_a_conflict_that_names_the_state() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    for (what, body) in [
        ("resolve", Some(r#"{"outcome":"declined"}"#)),
        ("retry", None),
    ] {
        let refused = action(&app, &id, what, body);
        assert_problem(&refused, 409, "state_conflict", what);
        assert_eq!(refused.json()["state"], "pending", "{what}");
    }
    assert_eq!(action(&app, &id, "cancel", None).status, 200);
    let again = action(&app, &id, "cancel", None);
    assert_problem(&again, 409, "state_conflict", "cancel twice");
    assert_eq!(again.json()["state"], "cancelled");
    assert_eq!(audit_rows(&app).await, 1, "only the change is in the trail");
    app.finish().await;
}

#[tokio::test]
async fn a_live_lease_makes_cancel_busy_and_an_old_operation_refuses_a_retry() {
    let app = App::start().await;
    let held = pending_capture(&app, "REF-1");
    app.db
        .run_sql(&format!(
            "UPDATE operations SET generation = 1, lease_owner = 'w1', \
             lease_expires_at = UTC_TIMESTAMP(6) + INTERVAL 30 SECOND \
             WHERE id = UNHEX(REPLACE('{held}', '-', ''))"
        ))
        .await;
    let busy = action(&app, &held, "cancel", None);
    assert_problem(&busy, 409, "operation_busy", "a live lease");
    let wait: u64 = busy.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=30).contains(&wait), "Retry-After {wait}");

    let old = pending_capture(&app, "REF-2");
    needs_review(&app, &old).await;
    app.db
        .run_sql(&format!(
            "UPDATE operations SET created_at = UTC_TIMESTAMP(6) - INTERVAL 2 DAY \
             WHERE id = UNHEX(REPLACE('{old}', '-', ''))"
        ))
        .await;
    assert_problem(
        &action(&app, &old, "retry", None),
        409,
        "key_retention_passed",
        "older than a day",
    );
    let shown = app
        .api
        .get(&operation_path(&old), Some(&operator_token()))
        .json();
    assert_eq!(shown["state"], "needs_review");
    assert_eq!(audit_rows(&app).await, 0);
    app.finish().await;
}
