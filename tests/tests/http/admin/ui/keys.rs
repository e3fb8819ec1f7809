//! Idempotency keys from the page: looked up as the admin API's key route takes them,
//! evicted through a confirmation and the API's use case, audited; and, over plain HTTP,
//! an eviction without its CSRF token, from another origin, without `admin:write`, or of
//! a record other than the one the page showed changes nothing.

use std::sync::LazyLock;

use fantoccini::Locator;
use tests::order_json;

use super::browser::{Browser, app_with_ui};
use super::guards::{Posting, get_as};
use crate::admin::support::{audit_rows, newest_audit_row, operator_token};
use crate::support::{App, full_token};

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

const ADDRESS: &str = "tenant=1&actor=1&operation=orders.create.v1&key=ui-key-1";

/// An order created by tenant 1's actor 1 under the key `ui-key-1`.
fn order_under_the_key(app: &App) {
    let created = app
        .api
        .create(&full_token(), "ui-key-1", &order_json("UI-KEY", "SKU-1", 1));
    assert_eq!(created.status, 201);
}

fn api_status(app: &App) -> u16 {
    let path = format!("/api/admin/idempotency-keys?{ADDRESS}");
    app.api.admin("GET", &path, &OPERATOR, None).status
}

/// The record's `createdAt`: what the confirmation carries to tell it from one made since.
fn created_at(app: &App) -> String {
    let path = format!("/api/admin/idempotency-keys?{ADDRESS}");
    let json = app.api.admin("GET", &path, &OPERATOR, None).json();
    json["createdAt"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_operator_looks_a_key_up_and_evicts_it_through_the_confirmation() {
    let app = app_with_ui().await;
    order_under_the_key(&app);
    let browser = Browser::open(&app).await;
    browser.sign_in(&OPERATOR).await;
    browser.wait_for("nav").await;
    browser
        .client
        .find(Locator::LinkText("Keys"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
    for (name, value) in [
        ("actor", "1"),
        ("operation", "orders.create.v1"),
        ("key", "ui-key-1"),
    ] {
        browser
            .type_into(&format!("form.lookup input[name={name}]"), value)
            .await;
    }
    browser.click("form.lookup button").await;
    browser.wait_for("dl.record").await;
    let shown = browser.text().await;
    assert!(
        shown.contains("completed") && shown.contains("201") && !shown.contains("UI-KEY"),
        "the metadata, never the stored body\n{shown}"
    );
    browser.screenshot("key").await;

    browser.click("form.evict button").await;
    browser.wait_for("form.confirm").await;
    assert!(
        browser
            .text()
            .await
            .contains("evicted: the client may then use the key again")
    );
    browser.screenshot("evict-confirm").await;
    assert_eq!(
        (api_status(&app), audit_rows(&app).await),
        (200, 0),
        "not yet"
    );

    browser.click("form.confirm button").await;
    browser.wait_for_heading("Evicted").await;
    assert_eq!(api_status(&app), 404, "the API finds no record");
    let row = newest_audit_row(&app);
    assert_eq!(
        (
            row["action"].as_str(),
            row["target"]["id"].as_str(),
            row["who"]["actorId"].as_str()
        ),
        (
            Some("idempotency_key.evict"),
            Some("1/orders.create.v1/ui-key-1"),
            Some("9")
        ),
        "{row}"
    );
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn an_eviction_without_its_csrf_token_from_elsewhere_without_write_or_stale_changes_nothing()
{
    let app = app_with_ui().await;
    order_under_the_key(&app);
    let path = format!("/admin/idempotency-keys/evict?{ADDRESS}");
    let posting = Posting::new(&app, &OPERATOR);
    let page = get_as(
        &app,
        &format!("/admin/idempotency-keys?{ADDRESS}"),
        posting.reader(),
    );
    let page = String::from_utf8_lossy(&page.body);
    assert!(
        page.contains("completed") && !page.contains("<form class=\"evict\""),
        "shown, no eviction without admin:write"
    );
    let created = format!("created={}", created_at(&app));
    posting.assert_refused(&app, &path, &created, "evict");
    assert_eq!((api_status(&app), audit_rows(&app).await), (200, 0));
    // A confirmation drawn for another record under the key: "it changed".
    let stale = posting.passing(&app, &path, "created=2000-01-01T00:00:00.000000Z");
    assert_eq!(stale.status, 409);
    assert!(String::from_utf8_lossy(&stale.body).contains("It changed"));
    assert_eq!((api_status(&app), audit_rows(&app).await), (200, 0));
    let accepted = posting.passing(&app, &path, &created);
    assert_eq!(
        accepted.status, 200,
        "the same form with every check passing"
    );
    assert_eq!((api_status(&app), audit_rows(&app).await), (404, 1));
    app.finish().await;
}
