//! `/admin/operations/{id}`: one operation as the admin API's `GET
//! /api/admin/operations/{id}` gives it (another tenant's is `404` the same way), and the
//! audit rows about it among the latest ones; to a token with `admin:write`, the forms of
//! the actions the use case would accept now. Its trace id, when it has one, is text to
//! paste into whichever tracing backend the deployment uses: no link is assumed.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{ADMIN_WRITE, AdminRefusal, AdminStore, PageLimit};
use application::ports::FlowHooks;
use application::rfc3339_micros;
use domain::{OperatorAction, Resolution};
use maud::{Markup, html};

use super::act_form;
use super::audit::rows as audit_rows;
use super::layout::{frame, html as respond, not_found, unavailable};
use super::signed::Signed;
use crate::admin::http::checks::admin;
use crate::http::route::PathIds;
use crate::leased::parse_operation_id;

pub(super) async fn page<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    signed: Signed<S, H>,
) -> HttpResponse {
    let Signed { session, state, .. } = &signed;
    let shown = signed.shown();
    let Some(id) = PathIds::of(&request)
        .get("operation_id")
        .and_then(parse_operation_id)
    else {
        return not_found(Some(shown));
    };
    let admin = admin(state);
    let operation = match admin.show_operation(session.scope(), id).await {
        Ok(operation) => operation,
        Err(AdminRefusal::Store(error)) => return unavailable("operation read", &error, shown),
        Err(_) => return not_found(Some(shown)),
    };
    let recent = PageLimit::parse(u64::from(PageLimit::MAX)).unwrap_or_default();
    let audit = match admin.list_audit(session.scope(), None, recent).await {
        Ok(page) => page.items,
        Err(error) => return unavailable("audit list", &error, shown),
    };
    let target = id.hyphenated().to_string();
    let about: Vec<_> = audit
        .into_iter()
        .filter(|event| event.target_kind == "operation" && event.target_id == target)
        .collect();
    // Offered: what the use case would accept now, to a token that may write.
    let offered: Vec<OperatorAction> = [
        OperatorAction::Resolve(Resolution::Declined),
        OperatorAction::Retry,
        OperatorAction::Cancel,
    ]
    .into_iter()
    .filter(|action| {
        session.caller.has_permission(ADMIN_WRITE) && admin.judge_now(&operation, action).is_ok()
    })
    .collect();
    let lease = operation
        .lease_owner
        .as_deref()
        .zip(operation.lease_expires_at);
    let content = html! {
        dl.facts {
            (fact("Operation", html! { code { (target) } }))
            (fact("Kind", html! { (operation.operation_type) }))
            (fact("State", html! { span class=(format!("state {}", operation.state.as_api())) { (operation.state.as_api()) } }))
            (fact("Tenant", html! { (operation.tenant.get()) }))
            (fact("Order", html! { (operation.order.get()) }))
            (fact("Input", html! { code { (String::from_utf8_lossy(operation.input.as_bytes())) } }))
            (fact("Result", html! { code { (String::from_utf8_lossy(operation.result.as_bytes())) } }))
            (fact("Attempts", html! { (operation.attempts) }))
            (fact("Next attempt", html! { time { (rfc3339_micros(operation.next_attempt_at)) } }))
            (fact("Last error class", html! { (operation.last_error.map_or("none", |class| class.as_str())) }))
            (fact("Lease", match lease {
                Some((owner, expires)) => html! { (owner) " until " time { (rfc3339_micros(expires)) } },
                None => html! { "none" },
            }))
            (fact("Generation", html! { (operation.generation.get()) }))
            (fact("Downstream key", html! { code { (operation.downstream_key) } }))
            (fact("Accepted", html! { time { (rfc3339_micros(operation.accepted_at)) } }))
            (fact("Updated", html! { time { (rfc3339_micros(operation.updated_at)) } }))
            @if let Some(trace) = &operation.trace_id {
                (fact("Trace id", html! { code { (trace) } }))
            }
        }
        (act_form::forms(&target, operation.state, operation.generation, &offered,
            state.kinds.provider_id_member(&operation.operation_type).unwrap_or("id")))
        h2 { "Timeline" }
        p.note { "Operator changes to this operation among the latest " (recent.get()) " audit rows." }
        (audit_rows(&about))
    };
    respond(StatusCode::OK, frame("Operation", Some(shown), &content))
}

pub(super) fn fact(name: &str, value: Markup) -> Markup {
    html! { div { dt { (name) } dd { (value) } } }
}
