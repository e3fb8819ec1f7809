//! Resolving from the page: through its confirmation, audited under the operator's token;
//! refused with "it changed" when the operation moved on since the page was drawn; and
//! refused without its CSRF token, from another origin, or without `admin:write`.

use std::sync::LazyLock;

use super::browser::{Browser, app_with_ui};
use super::guards::{Posting, get_as};
use crate::admin::support::{
    audit_rows, needs_review, newest_audit_row, operator_token, payment_rows, pending_capture,
    state_and_generation,
};

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

/// The operation page's resolve form, filled and sent: the confirmation is shown.
async fn ask_to_resolve(browser: &Browser, id: &str, charge: &str) {
    browser.goto(&format!("/admin/operations/{id}")).await;
    browser.click("form.resolve input[value=succeeded]").await;
    browser
        .type_into("form.resolve input[name=providerId]", charge)
        .await;
    browser.click("form.resolve button").await;
    browser.wait_for("form.confirm").await;
}

#[tokio::test]
async fn an_operator_resolves_through_the_confirmation_and_it_is_audited() {
    let app = app_with_ui().await;
    let id = pending_capture(&app, "UI-RESOLVE");
    needs_review(&app, &id).await;
    let browser = Browser::open(&app).await;
    browser.sign_in(&OPERATOR).await;
    browser.wait_for("a.operation").await;

    ask_to_resolve(&browser, &id, "ch_ui_1").await;
    let said = browser.text().await;
    assert!(
        said.contains("succeeded, with providerChargeId ch_ui_1"),
        "{said}"
    );
    assert_eq!(
        (payment_rows(&app).await, audit_rows(&app).await),
        (0, 0),
        "not yet"
    );
    browser.screenshot("resolve-confirm").await;

    browser.click("form.confirm button").await;
    browser.wait_for("dl.facts").await;
    assert_eq!(browser.path().await, format!("/admin/operations/{id}"));
    assert!(
        browser.text().await.contains("operation.resolve"),
        "in its timeline"
    );
    assert_eq!(state_and_generation(&app, &id).await.0, "succeeded");
    assert_eq!((payment_rows(&app).await, audit_rows(&app).await), (1, 1));
    let row = newest_audit_row(&app);
    assert_eq!(
        (
            row["action"].as_str(),
            row["who"]["tenantId"].as_str(),
            row["who"]["actorId"].as_str()
        ),
        (Some("operation.resolve"), Some("1"), Some("9")),
        "{row}"
    );
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn a_resolve_after_the_operation_moved_on_says_it_changed_and_does_nothing() {
    let app = app_with_ui().await;
    let id = pending_capture(&app, "UI-MOVED");
    needs_review(&app, &id).await;
    let browser = Browser::open(&app).await;
    browser.sign_in(&OPERATOR).await;
    browser.wait_for("a.operation").await;
    ask_to_resolve(&browser, &id, "ch_ui_2").await;

    // Retried and back in review meanwhile: the same state, a later generation.
    app.db
        .run_sql(&format!(
            "UPDATE operations SET generation = 5 WHERE id = UNHEX(REPLACE('{id}', '-', ''))"
        ))
        .await;
    browser.click("form.confirm button").await;
    browser.wait_for_heading("It changed").await;
    let said = browser.text().await;
    assert!(
        said.contains("now needs_review at generation 5") && said.contains("Nothing was changed"),
        "{said}"
    );
    browser.screenshot("resolve-changed").await;
    assert_eq!(
        state_and_generation(&app, &id).await,
        ("needs_review".to_owned(), 5)
    );
    assert_eq!((payment_rows(&app).await, audit_rows(&app).await), (0, 0));
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn a_resolve_without_its_csrf_token_from_elsewhere_or_without_write_changes_nothing() {
    let app = app_with_ui().await;
    let id = pending_capture(&app, "UI-GUARDED");
    needs_review(&app, &id).await;
    let path = format!("/admin/operations/{id}/resolve");
    let form = "outcome=declined&providerId=&state=needs_review&generation=3";
    let posting = Posting::new(&app, &OPERATOR);
    let page = get_as(&app, &format!("/admin/operations/{id}"), posting.reader());
    assert!(
        !String::from_utf8_lossy(&page.body).contains("form class=\"resolve\""),
        "no form without admin:write"
    );
    posting.assert_refused(&app, &path, form, "resolve");
    assert_eq!(
        state_and_generation(&app, &id).await,
        ("needs_review".to_owned(), 3)
    );
    assert_eq!((payment_rows(&app).await, audit_rows(&app).await), (0, 0));
    let accepted = posting.passing(&app, &path, form);
    assert_eq!(
        accepted.status, 303,
        "the same form with every check passing"
    );
    assert_eq!(state_and_generation(&app, &id).await.0, "declined");
    app.finish().await;
}
