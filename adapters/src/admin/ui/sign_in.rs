//! Signing in with a bearer token of the admin API (at least `admin:read`) and signing out.
//! A refused token is never shown back, nor said why beyond what the API's `401` says.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{ADMIN_READ, AdminStore};
use application::ports::FlowHooks;
use maud::html;

use super::csrf::CsrfKey;
use super::layout::{self, frame, refused};
use super::origin::unless_same_origin;
use super::session::{SIGN_IN, fits_a_cookie, session, signed_in, signed_out};
use crate::http::edge::admit::bounded_body;
use crate::http::edge::auth::AuthError;
use crate::http::routes::state::AppState;

const NOT_ACCEPTED: &str =
    "This token was not accepted: it is malformed, badly signed, expired or not yet valid.";
const NO_READ: &str = "This token does not carry the admin:read permission.";
const UNAVAILABLE: &str = "Tokens cannot be verified right now; try again shortly.";

pub(super) async fn form() -> HttpResponse {
    sign_in_page(StatusCode::OK, None)
}

fn sign_in_page(status: StatusCode, error: Option<&str>) -> HttpResponse {
    let content = html! {
        @if let Some(error) = error {
            p.error role="alert" { (error) }
        }
        form.sign-in method="post" action=(SIGN_IN) {
            label for="token" { "Bearer token (admin:read, admin:write for actions)" }
            input #token type="password" name="token" autocomplete="off" required;
            button type="submit" { "Sign in" }
        }
    };
    layout::html(status, frame("Sign in", None, &content))
}

/// The value of the one field `name` of a form body.
pub(super) fn field(body: &[u8], name: &str) -> Option<String> {
    let mut values = form_urlencoded::parse(body).filter(|(key, _)| key == name);
    let value = values.next()?;
    values.next().is_none().then(|| value.1.into_owned())
}

pub(super) async fn submit<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
) -> HttpResponse {
    // A form of another site must not sign a browser in under the attacker's token.
    if let Some(elsewhere) = unless_same_origin(&request) {
        return elsewhere;
    }
    let body = match bounded_body(&request, payload, state.body_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let token = field(&body, "token").unwrap_or_default();
    let token = token.trim();
    if !fits_a_cookie(token) {
        return sign_in_page(StatusCode::FORBIDDEN, Some(NOT_ACCEPTED));
    }
    let (caller, expires) = match state.keys.verify_token(token).await {
        Ok(found) => found,
        Err(AuthError::Unavailable) => {
            return sign_in_page(StatusCode::SERVICE_UNAVAILABLE, Some(UNAVAILABLE));
        }
        Err(AuthError::Invalid | AuthError::Missing) => {
            return sign_in_page(StatusCode::FORBIDDEN, Some(NOT_ACCEPTED));
        }
    };
    if !caller.has_permission(ADMIN_READ) {
        return sign_in_page(StatusCode::FORBIDDEN, Some(NO_READ));
    }
    let now = jsonwebtoken::get_current_timestamp();
    match expires.checked_sub(now).filter(|left| *left > 0) {
        Some(left) => signed_in(token, left),
        // Inside the leeway past `exp`: usable for the API a few seconds more, not worth a
        // session.
        None => sign_in_page(StatusCode::FORBIDDEN, Some(NOT_ACCEPTED)),
    }
}

/// The one change of this slice: checked as every change will be, origin then CSRF token.
pub(super) async fn sign_out<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
    key: Data<CsrfKey>,
) -> HttpResponse {
    if let Some(elsewhere) = unless_same_origin(&request) {
        return elsewhere;
    }
    let session = match session(&request, &state.keys).await {
        Ok(session) => session,
        Err(to_sign_in) => return to_sign_in,
    };
    let body = match bounded_body(&request, payload, state.body_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let presented = field(&body, "csrf").unwrap_or_default();
    if !key.verifies(&session.token, &presented) {
        return refused("This form's CSRF token is missing or not this session's.");
    }
    signed_out(SIGN_IN)
}
