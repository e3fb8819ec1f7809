//! Resolving, retrying and cancelling an operation from the page
//! (`docs/admin.md#the-on-call-page`): a confirmation that says what will be done (`GET`,
//! changes nothing, only for `admin:write`), then the change (`POST`), checked for its origin, its CSRF token and
//! `admin:write`, refused when the operation moved on since the page was drawn, and made
//! through the admin use case the API's routes call, judged, fenced and audited alike.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{AdminOperation, AdminRefusal, AdminStore};
use application::ports::FlowHooks;
use uuid::Uuid;

use super::act_form::{Asked, asked, bad_form, effect};
use super::change::{Shown, admin_request, confirmation, refusal, told};
use super::layout::{not_found, unavailable};
use super::session::see_other;
use super::signed::{Signed, SignedChange, Writer};
use crate::admin::http::checks::admin;
use crate::http::route::PathIds;
use crate::http::routes::state::AppState;
use crate::leased::parse_operation_id;

/// The operation's id and the action's segment of the path; another segment is no page.
fn addressed(request: &HttpRequest) -> Option<(Uuid, &str)> {
    let ids = PathIds::of(request);
    let id = ids.get("operation_id").and_then(parse_operation_id)?;
    let segment = ids.get("action")?;
    matches!(segment, "resolve" | "retry" | "cancel").then_some((id, segment))
}

fn not_understood(id: Uuid, segment: &str, shown: Shown<'_>) -> HttpResponse {
    told(
        StatusCode::BAD_REQUEST,
        "Not understood",
        &page_of(id),
        bad_form(segment),
        shown,
    )
}

fn page_of(id: Uuid) -> String {
    format!("/admin/operations/{}", id.hyphenated())
}

/// `409` "It changed": the operation is not as the page that drew the form showed it.
fn changed(id: Uuid, now: &AdminOperation, shown: Shown<'_>) -> HttpResponse {
    let why = format!(
        "It changed: the operation is now {} at generation {}, not as the page showed it.",
        now.state.as_api(),
        now.generation.get()
    );
    told(
        StatusCode::CONFLICT,
        "It changed",
        &page_of(id),
        &why,
        shown,
    )
}

fn moved_on(now: &AdminOperation, asked: &Asked) -> bool {
    now.state != asked.shown_state || now.generation != asked.shown_generation
}

/// The operation as it is now, if it is still as the form says the page showed it.
async fn still_as_shown<S: AdminStore + 'static, H: FlowHooks + 'static>(
    state: &AppState<S, H>,
    id: Uuid,
    asked: &Asked,
    shown: Shown<'_>,
) -> Result<AdminOperation, HttpResponse> {
    match admin(state).show_operation(shown.0.scope(), id).await {
        Ok(now) if moved_on(&now, asked) => Err(changed(id, &now, shown)),
        Ok(now) => Ok(now),
        Err(AdminRefusal::Store(error)) => Err(unavailable("operation read", &error, shown)),
        Err(_) => Err(not_found(Some(shown))),
    }
}

pub(super) async fn confirm<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    Writer(signed): Writer<S, H>,
) -> HttpResponse {
    let Signed { state, .. } = &signed;
    let shown = signed.shown();
    let Some((id, segment)) = addressed(&request) else {
        return not_found(Some(shown));
    };
    let Some(asked) = asked(segment, request.query_string().as_bytes()) else {
        return not_understood(id, segment, shown);
    };
    let now = match still_as_shown(state, id, &asked, shown).await {
        Ok(now) => now,
        Err(response) => return response,
    };
    // Only what the use case would accept now is confirmed; its refusal is shown instead.
    if let Err(refused) = admin(state).judge_now(&now, &asked.action) {
        return refusal(refused, &page_of(id), shown);
    }
    let member = state
        .kinds
        .provider_id_member(&now.operation_type)
        .unwrap_or("id");
    let said = maud::html! {
        p { "Operation " code { (id.hyphenated()) } " (" (now.operation_type) ", tenant "
            (now.tenant.get()) ", order " (now.order.get()) "), now " (now.state.as_api())
            " at generation " (now.generation.get()) ", will be:" }
        (effect(&asked.action, member))
    };
    let action = format!("{}/{segment}", page_of(id));
    confirmation(&said, &action, &asked.hidden(), &page_of(id), shown)
}

pub(super) async fn submit<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    change: SignedChange<S, H>,
) -> HttpResponse {
    let SignedChange { signed, body } = &change;
    let Signed { session, state, .. } = signed;
    let shown = signed.shown();
    let Some((id, segment)) = addressed(&request) else {
        return not_found(Some(shown));
    };
    let Some(asked) = asked(segment, body) else {
        return not_understood(id, segment, shown);
    };
    // The page's check of what it showed; the use case reads again and fences on its read.
    if let Err(response) = still_as_shown(state, id, &asked, shown).await {
        return response;
    }
    let acted = admin(state)
        .act(&admin_request(&request, session), id, &asked.action)
        .await;
    match acted {
        Ok(_) => see_other(&page_of(id)),
        Err(refused) => refusal(refused, &page_of(id), shown),
    }
}
