//! Idempotency keys from the page: looked up as the admin API's key route takes them,
//! evicted through a confirmation and the API's use case, audited; and, over plain HTTP,
//! an eviction without its CSRF token, from another origin, without `admin:write`, or of
//! a record other than the one the page showed changes nothing.

use std::sync::LazyLock;

use fantoccini::Locator;
use tests::{order_json, token};

use super::browser::{Browser, app_with_ui};
use super::guards::{csrf_token, get_as, post_form};
use crate::admin::support::{audit_rows, operator_token};
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
            .wait_for(&format!("form.lookup input[name={name}]"))
            .await
            .send_keys(value)
            .await
            .unwrap();
    }
    browser
        .wait_for("form.lookup button")
        .await
        .click()
        .await
        .unwrap();
    browser.wait_for("dl.record").await;
    let shown = browser.text().await;
    assert!(
        shown.contains("completed") && shown.contains("201") && !shown.contains("UI-KEY"),
        "the metadata, never the stored body\n{shown}"
    );
    browser.screenshot("key").await;

    browser
        .wait_for("form.evict button")
        .await
        .click()
        .await
        .unwrap();
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

    browser
        .wait_for("form.confirm button")
        .await
        .click()
        .await
        .unwrap();
    browser.wait_for_heading("Evicted").await;
    assert_eq!(api_status(&app), 404, "the API finds no record");
    let audit = app
        .api
        .admin("GET", "/api/admin/audit", &OPERATOR, None)
        .json();
    let row = &audit["items"][0];
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
        "{audit}"
    );
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn an_eviction_without_its_csrf_token_from_elsewhere_without_write_or_stale_changes_nothing()
{
    let app = app_with_ui().await;
    order_under_the_key(&app);
    let own = app.service.base_url().to_owned();
    let path = format!("/admin/idempotency-keys/evict?{ADDRESS}");
    let csrf = csrf_token(&app, &OPERATOR);
    let reader = token(1, 8, "admin:read");
    let reader_csrf = csrf_token(&app, &reader);
    let page = get_as(&app, &format!("/admin/idempotency-keys?{ADDRESS}"), &reader);
    let page = String::from_utf8_lossy(&page.body);
    assert!(
        page.contains("completed") && !page.contains("<form class=\"evict\""),
        "shown, no eviction without admin:write"
    );
    let created = format!("created={}", created_at(&app));
    let refused = [
        post_form(&app, &path, &OPERATOR, &own, &created),
        post_form(
            &app,
            &path,
            &OPERATOR,
            &own,
            &format!("csrf={reader_csrf}&{created}"),
        ),
        post_form(
            &app,
            &path,
            &OPERATOR,
            "http://evil.example",
            &format!("csrf={csrf}&{created}"),
        ),
        post_form(
            &app,
            &path,
            &reader,
            &own,
            &format!("csrf={reader_csrf}&{created}"),
        ),
    ];
    for reply in refused {
        assert_eq!(reply.status, 403);
    }
    assert_eq!((api_status(&app), audit_rows(&app).await), (200, 0));
    // A confirmation drawn for another record under the key: "it changed".
    let stale = post_form(
        &app,
        &path,
        &OPERATOR,
        &own,
        &format!("csrf={csrf}&created=2000-01-01T00:00:00.000000Z"),
    );
    assert_eq!(stale.status, 409);
    assert!(String::from_utf8_lossy(&stale.body).contains("It changed"));
    assert_eq!((api_status(&app), audit_rows(&app).await), (200, 0));
    let accepted = post_form(
        &app,
        &path,
        &OPERATOR,
        &own,
        &format!("csrf={csrf}&{created}"),
    );
    assert_eq!(
        accepted.status, 200,
        "the same form with every check passing"
    );
    assert_eq!((api_status(&app), audit_rows(&app).await), (404, 1));
    app.finish().await;
}
