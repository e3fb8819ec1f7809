//! Over plain HTTP, retry and cancel from the page: without the CSRF token, from another
//! origin, or without `admin:write`, nothing changes (`403`); a form drawn before the
//! operation moved on is "it changed" (`409`) and does nothing; what is not offered is
//! not confirmed either.

use std::sync::LazyLock;

use super::browser::app_with_ui;
use super::guards::{Posting, get_as};
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

/// The confirmation page of `action` on the operation as it was drawn.
fn confirmation(id: &str, action: &str, state: &str, generation: i64) -> String {
    format!(
        "/admin/operations/{id}/{action}?{}",
        form(state, generation)
    )
}

/// The form an action's confirmation carries, without its CSRF member.
fn form(state: &str, generation: i64) -> String {
    format!("state={state}&generation={generation}")
}

#[tokio::test]
async fn a_retry_or_cancel_without_its_csrf_token_from_elsewhere_or_without_write_changes_nothing()
{
    let app = app_with_ui().await;
    let posting = Posting::new(&app, &OPERATOR);
    for action in ["retry", "cancel"] {
        let id = ready_for(&app, action, &format!("UI-{action}")).await;
        let (state, generation) = state_and_generation(&app, &id).await;
        let page = get_as(&app, &format!("/admin/operations/{id}"), posting.reader());
        assert!(
            !String::from_utf8_lossy(&page.body).contains(&format!("<form class=\"{action}\"")),
            "{action}: no form without admin:write"
        );
        let path = format!("/admin/operations/{id}/{action}");
        posting.assert_refused(&app, &path, &form(&state, generation), action);
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
        let accepted = posting.passing(&app, &path, &form(&state, generation));
        assert_eq!(accepted.status, 303, "{action}");
        assert_eq!(state_and_generation(&app, &id).await.0, ends, "{action}");
    }
    assert_eq!(audit_rows(&app).await, 2);
    app.finish().await;
}

#[tokio::test]
async fn a_stale_retry_or_cancel_form_says_it_changed_and_does_nothing() {
    let app = app_with_ui().await;
    let posting = Posting::new(&app, &OPERATOR);
    for action in ["retry", "cancel"] {
        let id = ready_for(&app, action, &format!("UI-{action}")).await;
        let (state, generation) = state_and_generation(&app, &id).await;
        let confirm = confirmation(&id, action, &state, generation);
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
        let stale = posting.passing(&app, &path, &form(&state, generation));
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
        let confirm = confirmation(&id, action, &state, generation);
        assert_eq!(
            get_as(&app, &confirm, &OPERATOR).status,
            409,
            "{action} from {state}"
        );
    }
    assert_eq!(audit_rows(&app).await, 0);
    app.finish().await;
}
