//! What an operator sees in the browser: the operation needing review on the first page
//! and its details; a tenant admin never sees another tenant's; a bad token is refused.

use tests::{forged_token, token};

use super::browser::{Browser, app_with_ui};
use crate::admin::support::{needs_review, operator_token, pending_capture, pending_capture_of};

#[tokio::test]
async fn an_operator_signs_in_finds_the_operation_needing_review_and_opens_it() {
    let app = app_with_ui().await;
    let calm = pending_capture(&app, "UI-CALM");
    let stuck = pending_capture(&app, "UI-STUCK");
    needs_review(&app, &stuck).await;
    let browser = Browser::open(&app).await;

    browser.goto("/admin/").await;
    browser.wait_for("form.sign-in").await;
    assert_eq!(
        browser.path().await,
        "/admin/sign-in",
        "signed out: to the form"
    );
    browser.screenshot("sign-in").await;
    // One text: a token minted a second later is another text.
    let operator = operator_token();
    browser.sign_in(&operator).await;

    let link = browser.wait_for("a.operation").await;
    assert_eq!(browser.path().await, "/admin/");
    let page = browser.text().await;
    assert!(page.contains(&stuck), "{page}");
    assert!(!page.contains(&calm), "only what needs review: {page}");
    assert!(page.contains("payments.capture.v1"), "{page}");
    browser.screenshot("needs-review").await;

    let cookies = browser.client.get_all_cookies().await.unwrap();
    let session = cookies
        .iter()
        .find(|c| c.name() == "admin_session")
        .unwrap();
    assert_eq!(session.value(), operator);
    assert_eq!(
        (
            session.secure(),
            session.http_only(),
            format!("{:?}", session.same_site()).as_str(),
            session.path()
        ),
        (Some(true), Some(true), "Some(Strict)", Some("/admin"))
    );

    link.click().await.unwrap();
    browser.wait_for("dl.facts").await;
    assert_eq!(browser.path().await, format!("/admin/operations/{stuck}"));
    let details = browser.text().await;
    for shown in [
        "needs_review",
        "timeout",
        "Generation\n3",
        "Attempts\n8",
        "1500",
        "JPY",
    ] {
        assert!(details.contains(shown), "{shown} missing: {details}");
    }
    browser.screenshot("operation").await;

    browser.goto("/admin/operations").await;
    browser.wait_for("form.filters").await;
    let listed = browser.text().await;
    assert!(
        listed.contains(&stuck) && listed.contains(&calm),
        "{listed}"
    );
    browser.screenshot("operations").await;
    browser.goto("/admin/audit").await;
    browser.wait_for("main p.empty, main table").await;
    browser.screenshot("audit").await;

    browser.click("form.sign-out button").await;
    browser.wait_for("form.sign-in").await;
    let cookies = browser.client.get_all_cookies().await.unwrap();
    assert!(
        cookies.iter().all(|c| c.name() != "admin_session"),
        "signed out"
    );
    browser.goto("/admin/operations").await;
    browser.wait_for("form.sign-in").await;
    assert_eq!(browser.path().await, "/admin/sign-in");
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn a_tenant_admin_never_sees_another_tenants_operation() {
    let app = app_with_ui().await;
    let own = pending_capture_of(&app, 2, "UI-OWN");
    let other = pending_capture_of(&app, 1, "UI-OTHER");
    needs_review(&app, &own).await;
    needs_review(&app, &other).await;
    let browser = Browser::open(&app).await;
    browser.sign_in(&token(2, 9, "admin:read")).await;

    browser.wait_for("a.operation").await;
    let first = browser.text().await;
    assert!(first.contains(&own) && !first.contains(&other), "{first}");
    browser.goto("/admin/operations").await;
    browser.wait_for("a.operation").await;
    let listed = browser.text().await;
    assert!(
        listed.contains(&own) && !listed.contains(&other),
        "{listed}"
    );
    assert!(
        !listed.contains("Tenant"),
        "no tenant filter nor column: {listed}"
    );

    browser.goto(&format!("/admin/operations/{other}")).await;
    let heading = browser.wait_for("h1").await.text().await.unwrap();
    assert_eq!(heading, "Not found");
    assert!(!browser.text().await.contains("needs_review"));
    let reply = app.api.send(
        "GET",
        &format!("/admin/operations/{other}"),
        &[(
            "cookie",
            format!("admin_session={}", token(2, 9, "admin:read")).as_bytes(),
        )],
        b"",
    );
    assert_eq!(reply.status, 404, "as the API answers another tenant's");
    browser.close().await;
    app.finish().await;
}

#[tokio::test]
async fn a_bad_token_is_refused_with_a_clear_message_and_no_cookie() {
    let app = app_with_ui().await;
    let browser = Browser::open(&app).await;
    let cases = [
        (forged_token(1, 9, "admin:read"), "was not accepted"),
        (
            token(1, 9, "orders:create orders:read"),
            "does not carry the admin:read",
        ),
    ];
    for (bad, message) in cases {
        browser.sign_in(&bad).await;
        let error = browser.wait_for("p.error").await.text().await.unwrap();
        assert!(error.contains(message), "{error}");
        assert_eq!(browser.path().await, "/admin/sign-in");
        let source = browser.client.source().await.unwrap();
        assert!(!source.contains(&bad), "the token is never shown back");
        assert!(browser.client.get_all_cookies().await.unwrap().is_empty());
    }
    browser.screenshot("sign-in-refused").await;
    browser.close().await;
    app.finish().await;
}
