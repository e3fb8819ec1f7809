//! Over plain HTTP, the confirmation pages are for `admin:write`: a reader's session is
//! answered `403` with a page that says so and carries no form and no CSRF token, on each
//! of the four (resolve, retry, cancel, evict); a writer's gets the confirmation.

use std::sync::LazyLock;

use tests::{Reply, token};

use super::browser::app_with_ui;
use super::guards::get_as;
use crate::admin::support::{needs_review, operator_token, pending_capture, state_and_generation};
use crate::support::App;

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

/// The four confirmation pages, each for something it applies to now.
async fn confirmations(app: &App) -> [(&'static str, String); 4] {
    let review = pending_capture(app, "UI-WRITE-ONLY-REVIEW");
    needs_review(app, &review).await;
    let (_, in_review) = state_and_generation(app, &review).await;
    let pending = pending_capture(app, "UI-WRITE-ONLY-PENDING");
    let (_, as_pending) = state_and_generation(app, &pending).await;
    let shown = |state: &str, generation: i64| format!("state={state}&generation={generation}");
    [
        (
            "resolve",
            format!(
                "/admin/operations/{review}/resolve?outcome=declined&providerId=&{}",
                shown("needs_review", in_review)
            ),
        ),
        (
            "retry",
            format!(
                "/admin/operations/{review}/retry?{}",
                shown("needs_review", in_review)
            ),
        ),
        (
            "cancel",
            format!(
                "/admin/operations/{pending}/cancel?{}",
                shown("pending", as_pending)
            ),
        ),
        // The completed record of the create `pending_capture` made under its reference.
        (
            "evict",
            "/admin/idempotency-keys/evict?tenant=1&actor=1&operation=orders.create.v1\
             &key=UI-WRITE-ONLY-PENDING"
                .to_owned(),
        ),
    ]
}

fn text(reply: &Reply) -> String {
    String::from_utf8_lossy(&reply.body).into_owned()
}

#[tokio::test]
async fn a_reader_is_refused_every_confirmation_page_and_a_writer_gets_it() {
    let app = app_with_ui().await;
    let reader = token(1, 8, "admin:read");
    let pages = confirmations(&app).await;
    let mut refused = Vec::new();
    for (what, path) in &pages {
        let reply = get_as(&app, path, &reader);
        let page = text(&reply);
        let bare = !page.contains("<form") && !page.contains("csrf") && !page.contains("Confirm");
        let says = page.contains("does not carry the admin:write permission");
        refused.push((*what, reply.status, bare, says));
    }
    assert_eq!(
        refused,
        pages.each_ref().map(|(what, _)| (*what, 403, true, true)),
        "a reader: 403, no form, no token, and why"
    );
    // The same pages to a writer: each confirmation, with its form and token.
    for (what, path) in &pages {
        let reply = get_as(&app, path, &OPERATOR);
        let page = text(&reply);
        assert_eq!(reply.status, 200, "{what}: {page}");
        assert!(
            page.contains("<form class=\"confirm\" method=\"post\"")
                && page.contains("name=\"csrf\"")
                && page.contains("Confirm"),
            "{what}: {page}"
        );
    }
    app.finish().await;
}
