//! Refunds through the admin surface, which has no code of their own: listed by kind,
//! shown with their job, resolved with the provider's refund id or as declined, retried
//! and cancelled like any leased operation (`docs/admin.md`).

use tests::refund_json;

use super::support::{action, needs_review, operation_path, operator_token, pending_capture};
use crate::support::{App, full_token};

/// A refund of `amount` of `order` under `key`, left pending (no worker runs): its id.
fn pending_refund(app: &App, order: &str, key: &str, amount: u32) -> String {
    let accepted = app
        .api
        .refund(&full_token(), order, key, &refund_json(amount, "damaged"));
    assert_eq!(
        accepted.status,
        202,
        "{}",
        String::from_utf8_lossy(&accepted.body)
    );
    accepted.json()["operationId"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn refunds_are_listed_shown_resolved_retried_and_cancelled_like_captures() {
    let app = App::start().await;
    let capture = pending_capture(&app, "REF-1");
    needs_review(&app, &capture).await;
    let paid = action(
        &app,
        &capture,
        "resolve",
        Some(r#"{"outcome":"succeeded","providerChargeId":"ch_found"}"#),
    );
    assert_eq!(paid.status, 200);
    let order = paid.json()["orderId"].as_str().unwrap().to_owned();

    let found = pending_refund(&app, &order, "re-1", 1000);
    let refused = pending_refund(&app, &order, "re-2", 500);
    let listed = app
        .api
        .get(
            "/api/admin/operations?type=payments.refund.v1",
            Some(&operator_token()),
        )
        .json();
    let ids: Vec<&str> = listed["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["operationId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [refused.as_str(), found.as_str()], "newest first");
    let shown = app
        .api
        .get(&operation_path(&found), Some(&operator_token()))
        .json();
    assert_eq!(
        (&shown["type"], &shown["charge"], &shown["amount"]),
        (
            &"payments.refund.v1".into(),
            &"ch_found".into(),
            &1000.into()
        )
    );

    needs_review(&app, &found).await;
    let resolved = action(
        &app,
        &found,
        "resolve",
        Some(r#"{"outcome":"succeeded","providerRefundId":"re_found"}"#),
    );
    assert_eq!(
        resolved.status,
        200,
        "{}",
        String::from_utf8_lossy(&resolved.body)
    );
    assert_eq!(resolved.json()["refund"]["providerRefundId"], "re_found");
    let status = app
        .api
        .get(&format!("/api/operations/{found}"), Some(&full_token()))
        .json();
    assert_eq!(
        (&status["state"], &status["refund"]["amount"]),
        (&"succeeded".into(), &1000.into())
    );
    assert_eq!(app.db.count("SELECT COUNT(*) AS n FROM refunds").await, 1);

    // Declined by a person, its 500 is free again.
    needs_review(&app, &refused).await;
    let declined = action(&app, &refused, "resolve", Some(r#"{"outcome":"declined"}"#));
    assert_eq!(declined.json()["state"], "declined");
    let last = pending_refund(&app, &order, "re-3", 500);

    // Retried, then cancelled: a cancelled refund keeps its amount, since the provider
    // may have made it.
    needs_review(&app, &last).await;
    assert_eq!(
        action(&app, &last, "retry", Some("{}")).json()["state"],
        "pending"
    );
    assert_eq!(
        action(&app, &last, "cancel", Some("{}")).json()["state"],
        "cancelled"
    );
    let over = app
        .api
        .refund(&full_token(), &order, "re-4", &refund_json(1, "damaged"));
    assert_eq!(
        over.status_code(),
        (409, Some("refund_exceeds_captured".to_owned()))
    );
    app.finish().await;
}
