//! What each action does, what the trail keeps of it, and how far each admin sees.

use tests::{capture_json, token};

use super::support::{
    action, audit_rows, needs_review, operation_path, operator_token, payment_rows, pending_capture,
};
use crate::support::{App, assert_problem, full_token};

#[tokio::test]
async fn an_operator_cancels_a_pending_capture_and_the_trail_names_them() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    let shown = app.api.get(&operation_path(&id), Some(&operator_token()));
    assert_eq!(shown.status, 200);
    let json = shown.json();
    assert_eq!(
        (
            &json["state"],
            &json["tenantId"],
            &json["generation"],
            &json["attempts"]
        ),
        (&"pending".into(), &"1".into(), &0.into(), &0.into())
    );
    assert!(json["lease"].is_null() && json["lastError"].is_null() && json["payment"].is_null());
    let downstream_key = json["downstreamKey"].as_str().unwrap().to_owned();

    let cancelled = action(&app, &id, "cancel", None);
    assert_eq!(cancelled.status, 200);
    let json = cancelled.json();
    assert_eq!(
        (&json["state"], &json["generation"]),
        (&"cancelled".into(), &1.into())
    );
    assert_eq!(json["downstreamKey"], downstream_key.as_str());
    let status = app
        .api
        .get(&format!("/api/operations/{id}"), Some(&full_token()));
    assert_eq!(status.json()["state"], "cancelled");
    assert!(status.header("retry-after").is_none());

    let audit = app.api.get("/api/admin/audit", Some(&operator_token()));
    assert_eq!(audit.status, 200);
    let items = audit.json()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    let event = &items[0];
    assert_eq!(event["who"]["tenantId"], "1");
    assert_eq!(event["who"]["actorId"], "9");
    assert!(event["who"]["operator"].is_null());
    assert_eq!(event["action"], "operation.cancel");
    assert_eq!(event["target"]["type"], "operation");
    assert_eq!(event["target"]["id"], id.as_str());
    assert_eq!(
        (&event["before"], &event["after"]),
        (&"pending".into(), &"cancelled".into())
    );
    assert_eq!(
        event["requestId"].as_str(),
        cancelled.header("x-request-id").as_deref()
    );
    assert!(audit.json()["nextCursor"].is_null());

    // The order is free again: a new capture of it is accepted.
    let order = json["orderId"].as_str().unwrap();
    let again = app.api.capture(
        &full_token(),
        order,
        "pay-again",
        &capture_json(1500, "JPY"),
    );
    assert_eq!(again.status, 202);
    app.finish().await;
}

#[tokio::test]
async fn resolving_records_the_payment_or_frees_the_order_and_retry_runs_it_again() {
    let app = App::start().await;
    let paid = pending_capture(&app, "REF-1");
    needs_review(&app, &paid).await;
    let shown = app.api.get(&operation_path(&paid), Some(&operator_token()));
    assert_eq!(shown.json()["lastError"], "timeout");
    let resolved = action(
        &app,
        &paid,
        "resolve",
        Some(r#"{"outcome":"succeeded","providerChargeId":"ch_found"}"#),
    );
    assert_eq!(resolved.status, 200);
    let json = resolved.json();
    assert_eq!(
        (&json["state"], &json["generation"]),
        (&"succeeded".into(), &4.into())
    );
    assert_eq!(json["payment"]["providerChargeId"], "ch_found");
    let status = app
        .api
        .get(&format!("/api/operations/{paid}"), Some(&full_token()));
    assert_eq!(status.json()["payment"]["providerChargeId"], "ch_found");
    assert_eq!(status.json()["payment"]["amount"], 1500);

    let declined = pending_capture(&app, "REF-2");
    needs_review(&app, &declined).await;
    let resolved = action(
        &app,
        &declined,
        "resolve",
        Some(r#"{"outcome":"declined"}"#),
    );
    assert_eq!(resolved.json()["state"], "declined");
    assert_eq!(payment_rows(&app).await, 1, "a decline pays nothing");

    let redriven = pending_capture(&app, "REF-3");
    needs_review(&app, &redriven).await;
    let before = app
        .api
        .get(&operation_path(&redriven), Some(&operator_token()))
        .json();
    let retried = action(&app, &redriven, "retry", Some("{}"));
    assert_eq!(retried.status, 200);
    let json = retried.json();
    assert_eq!(
        (&json["state"], &json["attempts"]),
        (&"pending".into(), &0.into())
    );
    assert_eq!(
        json["downstreamKey"], before["downstreamKey"],
        "the same key"
    );
    assert!(
        json["nextAttemptAt"].as_str() <= json["updatedAt"].as_str(),
        "due now"
    );

    let audit = app
        .api
        .get("/api/admin/audit?limit=2", Some(&operator_token()))
        .json();
    let actions: Vec<&str> = audit["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["operation.retry", "operation.resolve"],
        "newest first"
    );
    let rest = app.api.get(
        &format!(
            "/api/admin/audit?limit=2&cursor={}",
            audit["nextCursor"].as_str().unwrap()
        ),
        Some(&operator_token()),
    );
    assert_eq!(rest.json()["items"][0]["after"], "succeeded");
    assert!(rest.json()["nextCursor"].is_null());
    app.finish().await;
}

#[tokio::test]
async fn pages_visit_every_operation_once_newest_first_within_the_filters() {
    let app = App::start().await;
    let ids: Vec<String> = (1..=5)
        .map(|n| pending_capture(&app, &format!("REF-{n}")))
        .collect();
    needs_review(&app, &ids[1]).await;
    let mut seen = Vec::new();
    let mut path = "/api/admin/operations?limit=2&type=payments.capture.v1".to_owned();
    loop {
        let page = app.api.get(&path, Some(&operator_token()));
        assert_eq!(page.status, 200, "{}", String::from_utf8_lossy(&page.body));
        let json = page.json();
        let items = json["items"].as_array().unwrap();
        assert!(items.len() <= 2);
        seen.extend(
            items
                .iter()
                .map(|item| item["operationId"].as_str().unwrap().to_owned()),
        );
        match json["nextCursor"].as_str() {
            Some(cursor) => {
                path = format!(
                    "/api/admin/operations?limit=2&type=payments.capture.v1&cursor={cursor}"
                );
            }
            None => break,
        }
    }
    let newest_first: Vec<String> = ids.iter().rev().cloned().collect();
    assert_eq!(seen, newest_first);
    let reviewing = app
        .api
        .get(
            "/api/admin/operations?state=needs_review",
            Some(&operator_token()),
        )
        .json();
    assert_eq!(reviewing["items"].as_array().unwrap().len(), 1);
    assert_eq!(reviewing["items"][0]["operationId"], ids[1].as_str());
    let later = app.api.get(
        "/api/admin/operations?acceptedAfter=2999-01-01T00:00:00Z",
        Some(&operator_token()),
    );
    assert_eq!(later.json()["items"], serde_json::json!([]));
    app.finish().await;
}

#[tokio::test]
async fn another_tenants_operation_is_not_found_unless_the_token_spans_tenants() {
    let app = App::start().await;
    let id = pending_capture(&app, "REF-1");
    let other = token(2, 9, "admin:read admin:write");
    assert_problem(
        &app.api.get(&operation_path(&id), Some(&other)),
        404,
        "not_found",
        "foreign read",
    );
    let cancel = app.api.admin(
        "POST",
        &format!("{}/cancel", operation_path(&id)),
        &other,
        None,
    );
    assert_problem(&cancel, 404, "not_found", "foreign cancel");
    let listed = app.api.get("/api/admin/operations", Some(&other)).json();
    assert_eq!(listed["items"], serde_json::json!([]));
    let own_tenant = app
        .api
        .get("/api/admin/operations?tenant=1", Some(&other))
        .json();
    assert_eq!(
        own_tenant["items"],
        serde_json::json!([]),
        "a filter cannot widen the reach"
    );
    assert_eq!(audit_rows(&app).await, 0);

    let everywhere = token(2, 9, "admin:read admin:write admin:all-tenants");
    assert_eq!(
        app.api.get(&operation_path(&id), Some(&everywhere)).status,
        200
    );
    let cancelled = app.api.admin(
        "POST",
        &format!("{}/cancel", operation_path(&id)),
        &everywhere,
        None,
    );
    assert_eq!(cancelled.status, 200);
    let trail = app
        .api
        .get("/api/admin/audit", Some(&operator_token()))
        .json();
    assert_eq!(
        trail["items"][0]["who"]["tenantId"], "2",
        "tenant 1 sees what was done to it"
    );
    assert_eq!(trail["items"][0]["target"]["tenantId"], "1");
    let theirs = app.api.get("/api/admin/audit", Some(&other)).json();
    assert_eq!(
        theirs["items"],
        serde_json::json!([]),
        "tenant 2 sees only its own"
    );
    app.finish().await;
}
