//! Over plain HTTP, retry and cancel from the page: without the CSRF token, from another
//! origin, or without `admin:write`, nothing changes (`403`); a form drawn before the
//! operation moved on is "it changed" (`409`) and does nothing; what is not offered is
//! not confirmed either.

use std::sync::LazyLock;

use tests::token;

use super::browser::app_with_ui;
use super::guards::{csrf_token, get_as, post_form};
use crate::admin::support::{
    audit_rows, needs_review, operator_token, pending_capture, state_and_generation,
};
use crate::support::App;

static OPERATOR: LazyLock<String> = LazyLock::new(operator_token);

/// A new operation ready for `action`: in review for a retry, pending for a cancel.
async fn ready_for(app: &App, action: &str, reference: &str) -> String {
    let id = pending_capture(app, reference);
    if action == "retry" {
        needs_review(app, &id).await;
    }
    id
}

fn body(csrf: Option<&str>, state: &str, generation: i64) -> String {
    let csrf = csrf.map(|csrf| format!("csrf={csrf}&")).unwrap_or_default();
    format!("{csrf}state={state}&generation={generation}")
}

#[tokio::test]
async fn a_retry_or_cancel_without_its_csrf_token_from_elsewhere_or_without_write_changes_nothing()
{
    let app = app_with_ui().await;
    let own = app.service.base_url().to_owned();
    let csrf = csrf_token(&app, &OPERATOR);
    let reader = token(1, 8, "admin:read");
    let reader_csrf = csrf_token(&app, &reader);
    for action in ["retry", "cancel"] {
        let id = ready_for(&app, action, &format!("UI-{action}")).await;
        let (state, generation) = state_and_generation(&app, &id).await;
        let page =
            String::from_utf8(get_as(&app, &format!("/admin/operations/{id}"), &reader).body)
                .unwrap();
        assert!(
            !page.contains(&format!("<form class=\"{action}\"")),
            "{action}: no form without admin:write"
        );
        let path = format!("/admin/operations/{id}/{action}");
        let refused = [
            post_form(
                &app,
                &path,
                &OPERATOR,
                &own,
                &body(None, &state, generation),
            ),
            post_form(
                &app,
                &path,
                &OPERATOR,
                &own,
                &body(Some(&reader_csrf), &state, generation),
            ),
            post_form(
                &app,
                &path,
                &OPERATOR,
                "http://evil.example",
                &body(Some(&csrf), &state, generation),
            ),
            post_form(
                &app,
                &path,
                &reader,
                &own,
                &body(Some(&reader_csrf), &state, generation),
            ),
        ];
        for reply in refused {
            assert_eq!(reply.status, 403, "{action}");
        }
        assert_eq!(
            state_and_generation(&app, &id).await,
            (state.clone(), generation),
            "{action}"
        );
        assert_eq!(audit_rows(&app).await, 0, "{action}");
    }
    // The same forms with every check passing.
    for (action, ends) in [("retry", "pending"), ("cancel", "cancelled")] {
        let id = ready_for(&app, action, &format!("UI-{action}-OK")).await;
        let (state, generation) = state_and_generation(&app, &id).await;
        let path = format!("/admin/operations/{id}/{action}");
        let accepted = post_form(
            &app,
            &path,
            &OPERATOR,
            &own,
            &body(Some(&csrf), &state, generation),
        );
        assert_eq!(accepted.status, 303, "{action}");
        assert_eq!(state_and_generation(&app, &id).await.0, ends, "{action}");
    }
    assert_eq!(audit_rows(&app).await, 2);
    app.finish().await;
}

#[tokio::test]
async fn a_stale_retry_or_cancel_form_says_it_changed_and_does_nothing() {
    let app = app_with_ui().await;
    let own = app.service.base_url().to_owned();
    let csrf = csrf_token(&app, &OPERATOR);
    for action in ["retry", "cancel"] {
        let id = ready_for(&app, action, &format!("UI-{action}")).await;
        let (state, generation) = state_and_generation(&app, &id).await;
        let confirm = format!(
            "/admin/operations/{id}/{action}?{}",
            body(None, &state, generation)
        );
        assert_eq!(
            get_as(&app, &confirm, &OPERATOR).status,
            200,
            "{action}: confirmed as shown"
        );
        // Moved on meanwhile: the same state, a later generation.
        app.db
            .run_sql(&format!(
                "UPDATE operations SET generation = generation + 2 \
                 WHERE id = UNHEX(REPLACE('{id}', '-', ''))"
            ))
            .await;
        let path = format!("/admin/operations/{id}/{action}");
        let stale = post_form(
            &app,
            &path,
            &OPERATOR,
            &own,
            &body(Some(&csrf), &state, generation),
        );
        assert_eq!(stale.status, 409, "{action}");
        let said = String::from_utf8_lossy(&stale.body);
        assert!(
            said.contains(&format!("now {state} at generation {}", generation + 2))
                && said.contains("Nothing was changed"),
            "{action}: {said}"
        );
        assert_eq!(
            get_as(&app, &confirm, &OPERATOR).status,
            409,
            "{action}: no confirmation"
        );
        assert_eq!(
            state_and_generation(&app, &id).await,
            (state, generation + 2),
            "{action}"
        );
    }
    // Not offered, not confirmed: a cancel of an operation in review, a retry of a pending one.
    for (action, ready) in [("cancel", "retry"), ("retry", "cancel")] {
        let id = ready_for(&app, ready, &format!("UI-{action}-ELSEWHERE")).await;
        let (state, generation) = state_and_generation(&app, &id).await;
        let confirm = format!(
            "/admin/operations/{id}/{action}?{}",
            body(None, &state, generation)
        );
        assert_eq!(
            get_as(&app, &confirm, &OPERATOR).status,
            409,
            "{action} from {state}"
        );
    }
    assert_eq!(audit_rows(&app).await, 0);
    app.finish().await;
}
