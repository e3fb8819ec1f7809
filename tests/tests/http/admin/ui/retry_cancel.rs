//! Retrying and cancelling from the page, in the browser: each offered only where the use
//! case would accept it, through its confirmation, then made and audited under the
//! operator's token. The retry is carried out by a worker against the provider stand-in.

use std::sync::LazyLock;
use std::time::Duration;

use tests::{Controls, ProviderStandIn, wait_until};

use super::browser::{Browser, app_with_ui};
use crate::admin::support::{
    audit_rows, newest_audit_row, operator_token, pending_capture, state_and_generation,
};
use crate::support::App;

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

/// How long a worker may take to end an operation on two busy cores.
const PATIENCE: Duration = Duration::from_secs(30);

/// A server with the page on that also works captures against `provider`, giving up after
/// one attempt without a definite answer.
async fn app_with_worker(provider: &ProviderStandIn) -> App {
    let app = App::start_with(|options| {
        for (name, value) in [
            ("ADMIN_UI", "1"),
            ("PAYMENT_PROVIDER_URL", provider.url()),
            ("OPERATION_MAX_ATTEMPTS", "1"),
            ("OPERATION_LEASE_SECS", "2"),
            ("PROVIDER_TIMEOUT_MS", "1500"),
            ("WORKER_POLL_MS", "50"),
            ("OPERATION_BACKOFF_MS", "100"),
            ("WORKER_CONCURRENCY", "1"),
        ] {
            options.env.push((name.into(), value.into()));
        }
    })
    .await;
    if let Err(log) = app.service.wait_for_log("workers started") {
        panic!("the server started no capture worker:\n{log}");
    }
    app
}

async fn wait_for_state(app: &App, id: &str, state: &str) {
    wait_until(
        PATIENCE,
        &format!("{id} {state}"),
        || state_and_generation(app, id),
        |(now, _)| now == state,
    )
    .await;
}

/// The audit trail's newest row: its action, and the tenant and actor it names.
fn newest_audit(app: &App) -> (String, String, String) {
    let row = newest_audit_row(app);
    let text = |value: &serde_json::Value| value.as_str().unwrap_or_default().to_owned();
    (
        text(&row["action"]),
        text(&row["who"]["tenantId"]),
        text(&row["who"]["actorId"]),
    )
}

/// Opens the operation's page, asks for `action` and waits for its confirmation.
async fn ask_for(browser: &Browser, id: &str, action: &str) {
    browser.goto(&format!("/admin/operations/{id}")).await;
    browser.click(&format!("form.{action} button")).await;
    browser.wait_for("form.confirm").await;
}

async fn confirm(browser: &Browser) {
    browser.click("form.confirm button").await;
    browser.wait_for("dl.facts").await;
}

#[tokio::test]
async fn an_operator_retries_an_operation_in_review_and_it_then_succeeds() {
    let provider = ProviderStandIn::start();
    provider.control(&Controls {
        fail_always: true,
        ..Controls::default()
    });
    let app = app_with_worker(&provider).await;
    let id = pending_capture(&app, "UI-RETRY");
    wait_for_state(&app, &id, "needs_review").await;
    let browser = Browser::open(&app).await;
    browser.sign_in(&OPERATOR).await;
    browser.wait_for("nav").await;

    browser.goto(&format!("/admin/operations/{id}")).await;
    browser.wait_for("form.retry").await;
    let offered = browser.text().await;
    assert!(
        offered.contains("Resolve…") && !offered.contains("Cancel operation…"),
        "in review: resolve and retry, no cancel\n{offered}"
    );
    ask_for(&browser, &id, "retry").await;
    let said = browser.text().await;
    assert!(
        said.contains("retried: back to pending") && said.contains("same downstream key"),
        "{said}"
    );
    browser.screenshot("retry-confirm").await;
    assert_eq!(state_and_generation(&app, &id).await.0, "needs_review");
    assert_eq!(
        audit_rows(&app).await,
        0,
        "the confirmation changes nothing"
    );

    provider.control(&Controls::default());
    confirm(&browser).await;
    assert_eq!(browser.path().await, format!("/admin/operations/{id}"));
    wait_for_state(&app, &id, "succeeded").await;
    assert_eq!(provider.counters().charges, 1);
    assert_eq!(
        newest_audit(&app),
        ("operation.retry".into(), "1".into(), "9".into())
    );
    browser.goto("/admin/audit").await;
    browser.wait_for("table.audit").await;
    assert!(browser.text().await.contains("operation.retry"));
    browser.goto(&format!("/admin/operations/{id}")).await;
    browser.wait_for("span.state.succeeded").await;
    browser.screenshot("retry-succeeded").await;
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn an_operator_cancels_a_pending_operation_through_the_confirmation() {
    let app = app_with_ui().await;
    let id = pending_capture(&app, "UI-CANCEL");
    let browser = Browser::open(&app).await;
    browser.sign_in(&OPERATOR).await;
    browser.wait_for("nav").await;

    browser.goto(&format!("/admin/operations/{id}")).await;
    browser.wait_for("form.cancel").await;
    let offered = browser.text().await;
    assert!(
        !offered.contains("Resolve…") && !offered.contains("Retry…"),
        "pending: only cancel\n{offered}"
    );
    ask_for(&browser, &id, "cancel").await;
    let said = browser.text().await;
    assert!(
        said.contains("cancelled: it ends before a worker carries it out"),
        "{said}"
    );
    browser.screenshot("cancel-confirm").await;
    assert_eq!(
        audit_rows(&app).await,
        0,
        "the confirmation changes nothing"
    );

    confirm(&browser).await;
    assert_eq!(browser.path().await, format!("/admin/operations/{id}"));
    browser.wait_for("span.state.cancelled").await;
    let page = browser.text().await;
    assert!(page.contains("operation.cancel"), "in its timeline\n{page}");
    assert!(!page.contains("Cancel operation…"), "nothing more to offer");
    browser.screenshot("cancel-done").await;
    assert_eq!(state_and_generation(&app, &id).await.0, "cancelled");
    assert_eq!(
        newest_audit(&app),
        ("operation.cancel".into(), "1".into(), "9".into())
    );
    browser.close().await;
    app.finish().await;
}
