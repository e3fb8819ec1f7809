//! What the admin tests share: tokens, a pending capture, and the rows an action leaves.

use tests::{ALL_PERMISSIONS, Reply, capture_json, order_json, token};

use crate::support::App;

/// Tenant 1's on-call person, actor 9, who may read and write but only in tenant 1.
pub(crate) fn operator_token() -> String {
    token(1, 9, "admin:read admin:write")
}

/// A capture of a new order of tenant 1, left pending (no worker runs): its operation id.
pub(crate) fn pending_capture(app: &App, reference: &str) -> String {
    pending_capture_of(app, 1, reference)
}

/// [`pending_capture`] in `tenant`.
pub(crate) fn pending_capture_of(app: &App, tenant: u64, reference: &str) -> String {
    let all = token(tenant, 1, ALL_PERMISSIONS);
    let created = app
        .api
        .create(&all, reference, &order_json(reference, "SKU-1", 1));
    assert_eq!(created.status, 201, "{reference}");
    let order = created.json()["orderId"].as_str().unwrap().to_owned();
    let accepted = app.api.capture(
        &all,
        &order,
        &format!("pay-{reference}"),
        &capture_json(1500, "JPY"),
    );
    assert_eq!(accepted.status, 202, "{reference}");
    accepted.json()["operationId"].as_str().unwrap().to_owned()
}

pub(crate) fn operation_path(id: &str) -> String {
    format!("/api/admin/operations/{id}")
}

/// The operation's state and generation as the admin API shows them.
pub(crate) async fn state_and_generation(app: &App, id: &str) -> (String, i64) {
    let json = app
        .api
        .admin("GET", &operation_path(id), &operator_token(), None)
        .json();
    (
        json["state"].as_str().unwrap().to_owned(),
        json["generation"].as_i64().unwrap(),
    )
}

pub(crate) fn action(app: &App, id: &str, what: &str, body: Option<&str>) -> Reply {
    let path = format!("{}/{what}", operation_path(id));
    app.api.admin("POST", &path, &operator_token(), body)
}

/// What a person finds when a capture needs review: set as the worker would leave it.
pub(crate) async fn needs_review(app: &App, id: &str) {
    app.db
        .run_sql(&format!(
            "UPDATE operations SET state = 'NEEDS_REVIEW', attempts = 8, \
             last_error = 'timeout', generation = 3 WHERE id = UNHEX(REPLACE('{id}', '-', ''))"
        ))
        .await;
}

/// The audit trail's newest row, as the admin API gives it.
pub(crate) fn newest_audit_row(app: &App) -> serde_json::Value {
    let mut audit = app
        .api
        .admin("GET", "/api/admin/audit", &operator_token(), None)
        .json();
    audit["items"][0].take()
}

pub(crate) async fn audit_rows(app: &App) -> i64 {
    app.db.count("SELECT COUNT(*) AS n FROM audit_events").await
}

pub(crate) async fn payment_rows(app: &App) -> i64 {
    app.db.count("SELECT COUNT(*) AS n FROM payments").await
}

/// The pointers of a problem's `errors`, in order.
pub(crate) fn pointers(reply: &Reply) -> Vec<String> {
    reply.json()["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pointer"].as_str().unwrap().to_owned())
        .collect()
}
