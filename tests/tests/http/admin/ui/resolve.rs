//! Resolving from the page: through its confirmation, audited under the operator's token;
//! refused with "it changed" when the operation moved on since the page was drawn; and
//! refused without its CSRF token, from another origin, or without `admin:write`.

use std::sync::LazyLock;

use tests::token;

use super::browser::{Browser, app_with_ui};
use super::guards::{csrf_token, get_as, post_form};
use crate::admin::support::{
    audit_rows, needs_review, operator_token, payment_rows, pending_capture, state_and_generation,
};

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

/// The operation page's resolve form, filled and sent: the confirmation is shown.
async fn ask_to_resolve(browser: &Browser, id: &str, charge: &str) {
    browser.goto(&format!("/admin/operations/{id}")).await;
    browser
        .wait_for("form.resolve input[value=succeeded]")
        .await
        .click()
        .await
        .unwrap();
    browser
        .wait_for("form.resolve input[name=providerId]")
        .await
        .send_keys(charge)
        .await
        .unwrap();
    browser
        .wait_for("form.resolve button")
        .await
        .click()
        .await
        .unwrap();
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

    browser
        .wait_for("form.confirm button")
        .await
        .click()
        .await
        .unwrap();
    browser.wait_for("dl.facts").await;
    assert_eq!(browser.path().await, format!("/admin/operations/{id}"));
    assert!(
        browser.text().await.contains("operation.resolve"),
        "in its timeline"
    );
    assert_eq!(state_and_generation(&app, &id).await.0, "succeeded");
    assert_eq!((payment_rows(&app).await, audit_rows(&app).await), (1, 1));
    let audit = app
        .api
        .admin("GET", "/api/admin/audit", &OPERATOR, None)
        .json();
    let row = &audit["items"][0];
    assert_eq!(
        (
            row["action"].as_str(),
            row["who"]["tenantId"].as_str(),
            row["who"]["actorId"].as_str()
        ),
        (Some("operation.resolve"), Some("1"), Some("9")),
        "{audit}"
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
    browser
        .wait_for("form.confirm button")
        .await
        .click()
        .await
        .unwrap();
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
    let own = app.service.base_url().to_owned();
    let path = format!("/admin/operations/{id}/resolve");
    let form = "outcome=declined&providerId=&state=needs_review&generation=3";
    let csrf = csrf_token(&app, &OPERATOR);
    let reader = token(1, 8, "admin:read");
    let reader_csrf = csrf_token(&app, &reader);
    let page =
        String::from_utf8(get_as(&app, &format!("/admin/operations/{id}"), &reader).body).unwrap();
    assert!(
        !page.contains("form class=\"resolve\""),
        "no form without admin:write"
    );
    let refused = [
        post_form(&app, &path, &OPERATOR, &own, form),
        post_form(
            &app,
            &path,
            &OPERATOR,
            &own,
            &format!("csrf={reader_csrf}&{form}"),
        ),
        post_form(
            &app,
            &path,
            &OPERATOR,
            "http://evil.example",
            &format!("csrf={csrf}&{form}"),
        ),
        post_form(
            &app,
            &path,
            &reader,
            &own,
            &format!("csrf={reader_csrf}&{form}"),
        ),
    ];
    for reply in refused {
        assert_eq!(reply.status, 403);
    }
    assert_eq!(
        state_and_generation(&app, &id).await,
        ("needs_review".to_owned(), 3)
    );
    assert_eq!((payment_rows(&app).await, audit_rows(&app).await), (0, 0));
    let accepted = post_form(&app, &path, &OPERATOR, &own, &format!("csrf={csrf}&{form}"));
    assert_eq!(
        accepted.status, 303,
        "the same form with every check passing"
    );
    assert_eq!(state_and_generation(&app, &id).await.0, "declined");
    app.finish().await;
}
