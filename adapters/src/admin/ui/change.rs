//! What every change made from the page shares (`docs/admin.md#the-on-call-page`): the
//! confirmation page, which changes nothing and says what the change will do, drawn only
//! for a token with `admin:write`; the checks its `POST` passes before anything is read
//! (origin, session, CSRF token, `admin:write`); and the page that tells a refusal,
//! nothing having been done.

use actix_web::http::StatusCode;
use actix_web::web::{Bytes, Payload};
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{ADMIN_WRITE, AdminRefusal, AdminRequest, Who};
use maud::{Markup, html};

use super::csrf::CsrfKey;
use super::layout::{frame, html as respond, not_found, refused, unavailable};
use super::origin::unless_same_origin;
use super::session::{Session, session};
use crate::http::edge::admit::bounded_body;
use crate::http::edge::auth::TokenVerifier;
use crate::http::edge::request_context::RequestId;

/// A signed-in operator with what the page draws its frame with.
pub(super) type Shown<'a> = (&'a Session, &'a CsrfKey);

/// A change's `POST` that passed every check, and its form body. The origin is checked
/// first, before the session is even read: another site's form gets nothing but `403`.
pub(super) async fn checked(
    request: &HttpRequest,
    payload: Payload,
    keys: &TokenVerifier,
    body_timeout: std::time::Duration,
    key: &CsrfKey,
) -> Result<(Session, Bytes), HttpResponse> {
    if let Some(elsewhere) = unless_same_origin(request) {
        return Err(elsewhere);
    }
    let session = session(request, keys).await?;
    let body = bounded_body(request, payload, body_timeout).await?;
    let presented = super::sign_in::field(&body, "csrf").unwrap_or_default();
    if !key.verifies(&session.token, &presented) {
        return Err(refused(
            "This form's CSRF token is missing or not this session's.",
        ));
    }
    match unless_writer(&session) {
        Some(reader) => Err(reader),
        None => Ok((session, body)),
    }
}

/// The `403` page for a token without `admin:write`, `None` for one with it: the one
/// check of every confirmation page and every change's `POST`. The page carries no form
/// and no CSRF token, so a reader is never handed the means of a change it may not make.
pub(super) fn unless_writer(session: &Session) -> Option<HttpResponse> {
    (!session.caller.has_permission(ADMIN_WRITE)).then(|| {
        refused(
            "Your token does not carry the admin:write permission, which every change from \
             this page needs; it may read, not change.",
        )
    })
}

/// Who the change is audited under: the token's tenant and actor, as the API's routes do.
pub(super) fn admin_request(request: &HttpRequest, session: &Session) -> AdminRequest {
    AdminRequest {
        scope: session.scope(),
        who: Who::from(&session.caller),
        request_id: RequestId::of(request),
    }
}

/// The confirmation: `effect` says what will be done; **Confirm** posts `hidden` (and the
/// CSRF token) to `action`; the other way leads back to `back`, changing nothing.
pub(super) fn confirmation(
    effect: &Markup,
    action: &str,
    hidden: &Markup,
    back: &str,
    shown: Shown<'_>,
) -> HttpResponse {
    let (session, key) = shown;
    let content = html! {
        (effect)
        p { "The change is written to the audit trail under your token's tenant and actor. It is refused if what it changes moved on meanwhile." }
        form.confirm method="post" action=(action) {
            input type="hidden" name="csrf" value=(key.token(&session.token));
            (hidden)
            button type="submit" { "Confirm" }
            a href=(back) { "Go back, changing nothing" }
        }
    };
    respond(StatusCode::OK, frame("Confirm", Some(shown), &content))
}

/// A page for a refusal of this change, with the way back to what it was about.
pub(super) fn told(
    status: StatusCode,
    title: &str,
    back: &str,
    why: &str,
    shown: Shown<'_>,
) -> HttpResponse {
    let content = html! {
        p.error role="alert" { (why) " Nothing was changed." }
        p { a href=(back) { "Back to it as it is now" } }
    };
    respond(status, frame(title, Some(shown), &content))
}

/// The page for a use case's refusal: each as the API answers it, `409` for the
/// conflicts, the cause of a store failure logged and never shown.
pub(super) fn refusal(refusal: AdminRefusal, back: &str, shown: Shown<'_>) -> HttpResponse {
    match refusal {
        AdminRefusal::Store(error) => unavailable("operator change", &error, shown),
        AdminRefusal::NotFound => not_found(Some(shown)),
        AdminRefusal::OperationState(now) => {
            let why = format!("It changed: the operation is now {}.", now.as_api());
            told(StatusCode::CONFLICT, "It changed", back, &why, shown)
        }
        AdminRefusal::Busy { retry_after_secs } => {
            let why = format!("A worker holds the operation; try again in {retry_after_secs} s.");
            told(StatusCode::CONFLICT, "Busy", back, &why, shown)
        }
        refusal => {
            let why = format!("Refused: {refusal}.");
            told(StatusCode::CONFLICT, "Refused", back, &why, shown)
        }
    }
}
