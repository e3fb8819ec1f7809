//! The frame every page is drawn in: the head (viewport, the one stylesheet), the
//! navigation, the sign-out form with its CSRF token, and the answers' shapes.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use actix_web::http::header::CONTENT_TYPE;
use application::ErrorChain;
use maud::{DOCTYPE, Markup, html};

use super::csrf::CsrfKey;
use super::session::Session;

/// A whole page; `session` adds the navigation and the sign-out form.
pub(super) fn frame(
    title: &str,
    session: Option<(&Session, &CsrfKey)>,
    content: &Markup,
) -> Markup {
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " · on call" }
                link rel="stylesheet" href="/admin/static/admin.css";
            }
            body {
                header {
                    @if let Some((session, key)) = session {
                        nav {
                            a href="/admin/" { "Needs review" }
                            a href="/admin/operations" { "Operations" }
                            a href="/admin/idempotency-keys" { "Keys" }
                            a href="/admin/audit" { "Audit" }
                        }
                        form.sign-out method="post" action="/admin/sign-out" {
                            input type="hidden" name="csrf" value=(key.token(&session.token));
                            span.who {
                                "tenant " (session.caller.tenant.get())
                                " · actor " (session.caller.actor.get())
                            }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main {
                    h1 { (title) }
                    (content)
                }
            }
        }
    }
}

/// `status` with the page as `text/html`.
pub(super) fn html(status: StatusCode, markup: Markup) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((CONTENT_TYPE, "text/html; charset=utf-8"))
        .body(markup.into_string())
}

/// `404`: the same page for an unknown id and for another tenant's.
pub(super) fn not_found(session: Option<(&Session, &CsrfKey)>) -> HttpResponse {
    let content = html! { p { "No such page, or nothing here in your tenants." } };
    html(StatusCode::NOT_FOUND, frame("Not found", session, &content))
}

/// `503` when the store failed; the cause is logged, never shown.
pub(super) fn unavailable(
    what: &'static str,
    error: &dyn std::error::Error,
    session: (&Session, &CsrfKey),
) -> HttpResponse {
    tracing::warn!(error = %ErrorChain(error), "on-call page: {what} failed");
    let content = html! { p { "The store did not answer. Try again in a moment." } };
    html(
        StatusCode::SERVICE_UNAVAILABLE,
        frame("Unavailable", Some(session), &content),
    )
}

/// `403`: a change refused before anything was done.
pub(super) fn refused(reason: &str) -> HttpResponse {
    let content = html! {
        p { (reason) " Nothing was changed." }
        p { a href="/admin/" { "Back to the on-call page" } }
    };
    html(StatusCode::FORBIDDEN, frame("Refused", None, &content))
}

/// A page for a signed-in operator that shows a parameter problem.
pub(super) fn bad_parameters(
    errors: &[crate::http::FieldError],
    session: (&Session, &CsrfKey),
) -> HttpResponse {
    let content = maud::html! {
        p { "This address asks for something the list cannot show:" }
        ul { @for error in errors { li { (error.pointer.trim_start_matches('/')) ": " (error.reason) } } }
    };
    html(
        StatusCode::BAD_REQUEST,
        frame("Bad parameters", Some(session), &content),
    )
}
