//! `/admin/audit`: the audit trail as the admin API's `GET /api/admin/audit` pages it,
//! newest first, within the operator's tenants.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{AdminStore, AuditEvent, Cursor, Who};
use application::ports::FlowHooks;
use application::rfc3339_micros;
use maud::{Markup, html};

use super::filter_query::{encoded, filled};
use super::layout::bad_parameters;
use super::layout::{frame, html as respond, unavailable};
use super::signed::Signed;
use crate::admin::http::audit_query;
use crate::admin::http::checks::admin;

pub(super) async fn page<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    signed: Signed<S, H>,
) -> HttpResponse {
    let Signed { session, state, .. } = &signed;
    let shown = signed.shown();
    let (cursor, limit) = match audit_query(&encoded(&filled(request.query_string(), ""))) {
        Ok(query) => query,
        Err(errors) => return bad_parameters(&errors.0, shown),
    };
    let listed = admin(state)
        .list_audit(session.scope(), cursor, limit)
        .await;
    let found = match listed {
        Ok(found) => found,
        Err(error) => return unavailable("audit list", &error, shown),
    };
    let next = found.next.map(|cursor| {
        let mut pairs = filled(request.query_string(), "cursor");
        pairs.push(("cursor".to_owned(), cursor.encode()));
        format!("/admin/audit?{}", encoded(&pairs))
    });
    let content = html! {
        (rows(&found.items))
        @if let Some(next) = next {
            p.paging { a rel="next" href=(next) { "Next page" } }
        }
    };
    respond(StatusCode::OK, frame("Audit", Some(shown), &content))
}

/// Audit rows as a table; an operation's row links to its page.
pub(super) fn rows(events: &[AuditEvent]) -> Markup {
    html! {
        @if events.is_empty() {
            p.empty { "None." }
        } @else {
            div.scroll { table.audit {
                thead { tr {
                    th { "At" } th { "Who" } th { "Action" } th { "Target" } th { "Tenant" }
                    th { "Before → after" } th { "Request" }
                } }
                tbody { @for event in events { tr {
                    td { time { (rfc3339_micros(event.at)) } }
                    td { (who(&event.who)) }
                    td { (event.action) }
                    td {
                        @if event.target_kind == "operation" {
                            a href=(format!("/admin/operations/{}", event.target_id)) { code { (event.target_id) } }
                        } @else {
                            (event.target_kind) " " code { (event.target_id) }
                        }
                    }
                    td { (event.target_tenant.get()) }
                    td { (event.before) " → " (event.after) }
                    td { code { (event.request_id) } }
                } } }
            } }
        }
    }
}

fn who(who: &Who) -> String {
    match who {
        Who::Caller { tenant, actor } => format!("tenant {} · actor {}", tenant.get(), actor.get()),
        Who::Operator(name) => name.as_str().to_owned(),
    }
}
