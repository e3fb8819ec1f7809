//! Resolving an operation from the page: a confirmation that says what will be done
//! (`GET`, changes nothing), then the change (`POST`), checked for its origin, its CSRF
//! token and `admin:write`, refused when the operation moved on since the page was drawn,
//! and made through the admin use case the API's resolve calls, fenced and audited alike.

use actix_web::http::StatusCode;
use actix_web::web::{Data, Payload};
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{ADMIN_WRITE, AdminOperation, AdminRefusal, AdminStore, Who};
use application::ports::FlowHooks;
use domain::{OperatorAction, Resolution};
use maud::html;
use uuid::Uuid;

use super::csrf::CsrfKey;
use super::layout::{frame, html as respond, not_found, refused, unavailable};
use super::origin::is_same_origin;
use super::resolve_form::{Asked, BAD_FORM, asked};
use super::session::{Session, see_other, session};
use crate::admin::http::checks::admin;
use crate::http::edge::admit::bounded_body;
use crate::http::edge::request_context::RequestId;
use crate::http::route::PathIds;
use crate::http::routes::state::AppState;
use crate::leased::parse_operation_id;

fn operation_id(request: &HttpRequest) -> Option<Uuid> {
    PathIds::of(request)
        .get("operation_id")
        .and_then(parse_operation_id)
}

/// A page for a refusal of this change, with the way back to the operation.
fn told(
    status: StatusCode,
    title: &str,
    id: Uuid,
    why: &str,
    shown: (&Session, &CsrfKey),
) -> HttpResponse {
    let content = html! {
        p.error role="alert" { (why) " Nothing was changed." }
        p { a href=(format!("/admin/operations/{}", id.hyphenated())) { "Back to the operation as it is now" } }
    };
    respond(status, frame(title, Some(shown), &content))
}

fn changed(id: Uuid, now: &AdminOperation, shown: (&Session, &CsrfKey)) -> HttpResponse {
    let why = format!(
        "It changed: the operation is now {} at generation {}, not as the page showed it.",
        now.state.as_api(),
        now.generation.get()
    );
    told(StatusCode::CONFLICT, "It changed", id, &why, shown)
}

fn moved_on(now: &AdminOperation, asked: &Asked) -> bool {
    now.state != asked.shown_state || now.generation != asked.shown_generation
}

pub(super) async fn confirm<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    state: Data<AppState<S, H>>,
    key: Data<CsrfKey>,
) -> HttpResponse {
    let session = match session(&request, &state.keys).await {
        Ok(session) => session,
        Err(to_sign_in) => return to_sign_in,
    };
    let shown = (&session, key.get_ref());
    let Some(id) = operation_id(&request) else {
        return not_found(Some(shown));
    };
    let now = match admin(&state).show_operation(session.scope(), id).await {
        Ok(now) => now,
        Err(AdminRefusal::Store(error)) => return unavailable("operation read", &error, shown),
        Err(_) => return not_found(Some(shown)),
    };
    let Some(asked) = asked(request.query_string().as_bytes()) else {
        return told(
            StatusCode::BAD_REQUEST,
            "Not understood",
            id,
            BAD_FORM,
            shown,
        );
    };
    if moved_on(&now, &asked) {
        return changed(id, &now, shown);
    }
    let member = state
        .kinds
        .provider_id_member(&now.operation_type)
        .unwrap_or("id");
    let content = html! {
        p { "Operation " code { (id.hyphenated()) } " (" (now.operation_type) ", tenant "
            (now.tenant.get()) ", order " (now.order.get()) "), now " (now.state.as_api())
            " at generation " (now.generation.get()) ", will be resolved:" }
        @match &asked.resolution {
            Resolution::Succeeded(provider_id) => p.effect { "succeeded, with " code { (member) }
                " " code { (provider_id.as_str()) } ": its result is recorded with that id, as the provider charged it." },
            Resolution::Declined => p.effect { "declined: it ends without a result, and its order may be worked again." },
        }
        p { "The change is written to the audit trail under your token's tenant and actor. It is refused if the operation moved on meanwhile." }
        form.confirm method="post" action=(format!("/admin/operations/{}/resolve", id.hyphenated())) {
            input type="hidden" name="csrf" value=(key.token(&session.token));
            (asked.hidden())
            button type="submit" { "Confirm" }
            a href=(format!("/admin/operations/{}", id.hyphenated())) { "Cancel" }
        }
    };
    respond(StatusCode::OK, frame("Confirm", Some(shown), &content))
}

pub(super) async fn submit<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: Payload,
    state: Data<AppState<S, H>>,
    key: Data<CsrfKey>,
) -> HttpResponse {
    if !is_same_origin(&request) {
        return refused("This form was not sent from this server's page.");
    }
    let session = match session(&request, &state.keys).await {
        Ok(session) => session,
        Err(to_sign_in) => return to_sign_in,
    };
    let body = match bounded_body(&request, payload, state.body_timeout).await {
        Ok(body) => body,
        Err(response) => return response,
    };
    let presented = super::sign_in::field(&body, "csrf").unwrap_or_default();
    if !key.verifies(&session.token, &presented) {
        return refused("This form's CSRF token is missing or not this session's.");
    }
    if !session.caller.has_permission(ADMIN_WRITE) {
        return refused("Your token does not carry the admin:write permission.");
    }
    let shown = (&session, key.get_ref());
    let Some(id) = operation_id(&request) else {
        return not_found(Some(shown));
    };
    let Some(asked) = asked(&body) else {
        return told(
            StatusCode::BAD_REQUEST,
            "Not understood",
            id,
            BAD_FORM,
            shown,
        );
    };
    let admin = admin(&state);
    match admin.show_operation(session.scope(), id).await {
        Ok(now) if moved_on(&now, &asked) => return changed(id, &now, shown),
        Ok(_) => {}
        Err(AdminRefusal::Store(error)) => return unavailable("operation read", &error, shown),
        Err(_) => return not_found(Some(shown)),
    }
    let request = application::admin::AdminRequest {
        scope: session.scope(),
        who: Who::from(&session.caller),
        request_id: RequestId::of(&request),
    };
    let action = OperatorAction::Resolve(asked.resolution);
    match admin.act(&request, id, &action).await {
        Ok(_) => see_other(&format!("/admin/operations/{}", id.hyphenated())),
        Err(AdminRefusal::Store(error)) => unavailable("operator change", &error, shown),
        Err(AdminRefusal::NotFound) => not_found(Some(shown)),
        Err(AdminRefusal::OperationState(now)) => {
            let why = format!("It changed: the operation is now {}.", now.as_api());
            told(StatusCode::CONFLICT, "It changed", id, &why, shown)
        }
        Err(AdminRefusal::Busy { retry_after_secs }) => {
            let why = format!("A worker holds the operation; try again in {retry_after_secs} s.");
            told(StatusCode::CONFLICT, "Busy", id, &why, shown)
        }
        Err(refusal) => {
            let why = format!("Refused: {refusal}.");
            told(StatusCode::CONFLICT, "Refused", id, &why, shown)
        }
    }
}
