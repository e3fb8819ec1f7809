//! An operator's action is judged against the order too, in the action's own transaction:
//! a retry or a success of a capture whose order was cancelled is refused (nobody charges
//! a cancelled order), and so is one that would make a second active capture of the order
//! (`docs/admin.md#refusals`).

use tests::{cancel_json, capture_json};

use super::support::{action, audit_rows, needs_review, payment_rows, pending_capture};
use crate::support::{App, assert_problem, full_token};

/// The order of the operation `id`, as its status read names it.
fn order_of(app: &App, id: &str) -> String {
    let status = app
        .api
        .get(&format!("/api/operations/{id}"), Some(&full_token()));
    status.json()["orderId"].as_str().unwrap().to_owned()
}

const SUCCEEDED: &str = r#"{"outcome":"succeeded","providerChargeId":"ch_late"}"#;

#[tokio::test]
async fn a_capture_of_a_cancelled_order_is_neither_retried_nor_resolved_as_paid() {
    let app = App::start().await;
    let capture = pending_capture(&app, "REF-1");
    needs_review(&app, &capture).await;
    let order = order_of(&app, &capture);
    let cancelled = app.api.cancel(
        &full_token(),
        &order,
        "cancel-1",
        &cancel_json("changed my mind"),
    );
    assert_eq!(
        cancelled.status, 200,
        "a capture in review does not hold the order"
    );

    for (what, body) in [("retry", "{}"), ("resolve", SUCCEEDED)] {
        let refused = action(&app, &capture, what, Some(body));
        assert_problem(&refused, 409, "order_cancelled", what);
    }
    assert_eq!(
        (payment_rows(&app).await, audit_rows(&app).await),
        (0, 0),
        "nothing written"
    );
    let declined = action(&app, &capture, "resolve", Some(r#"{"outcome":"declined"}"#));
    assert_eq!(
        declined.json()["state"],
        "declined",
        "a decline charges nobody"
    );
    app.finish().await;
}

#[tokio::test]
async fn a_second_active_capture_of_an_order_is_a_conflict_not_an_outage() {
    let app = App::start().await;
    let first = pending_capture(&app, "REF-1");
    needs_review(&app, &first).await;
    let order = order_of(&app, &first);
    let second = app.api.capture(
        &full_token(),
        &order,
        "pay-again",
        &capture_json(1500, "JPY"),
    );
    assert_eq!(
        second.status, 202,
        "the capture in review does not hold the order"
    );

    for (what, body) in [("retry", "{}"), ("resolve", SUCCEEDED)] {
        let refused = action(&app, &first, what, Some(body));
        assert_problem(&refused, 409, "operation_conflict", what);
    }
    assert_eq!(audit_rows(&app).await, 0, "nothing written");
    let log = app.service.log();
    assert!(!log.contains("unique violation"), "{log}");
    assert!(!log.contains("database cannot be reached"), "{log}");
    app.finish().await;
}
