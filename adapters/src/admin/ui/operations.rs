//! `/admin/operations`: the admin API's listing (`GET /api/admin/operations`) with its
//! filters and keyset pages, read by the same query parser and the same use case.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{AdminOperation, AdminScope, AdminStore, Cursor};
use application::ports::FlowHooks;
use application::rfc3339_micros;
use domain::OperationState;
use maud::{Markup, html};

use super::filter_query::{encoded, filled};
use super::layout::bad_parameters;
use super::layout::{frame, html as respond, unavailable};
use super::signed::Signed;
use crate::admin::http::checks::admin;
use crate::admin::http::operations_query;

pub(super) async fn page<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    signed: Signed<S, H>,
) -> HttpResponse {
    let Signed { session, state, .. } = &signed;
    let shown = signed.shown();
    let filters = filled(request.query_string(), "cursor");
    let asked = filled(request.query_string(), "");
    let query = match operations_query(&encoded(&asked)) {
        Ok(query) => query,
        Err(errors) => return bad_parameters(&errors.0, shown),
    };
    let scope = session.scope();
    let listed = admin(state)
        .list_operations(scope, &query.filter, query.cursor, query.limit)
        .await;
    let found = match listed {
        Ok(found) => found,
        Err(error) => return unavailable("operations list", &error, shown),
    };
    let value = |name: &str| {
        filters
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, v)| v.as_str())
    };
    let next = found.next.map(|cursor| {
        let mut pairs = filters.clone();
        pairs.push(("cursor".to_owned(), cursor.encode()));
        format!("/admin/operations?{}", encoded(&pairs))
    });
    let content = html! {
        form.filters method="get" action="/admin/operations" {
            label { "State "
                select name="state" {
                    option value="" { "any" }
                    @for state in OperationState::ALL {
                        option value=(state.as_api()) selected[value("state") == state.as_api()] {
                            (state.as_api())
                        }
                    }
                }
            }
            label { "Kind "
                select name="type" {
                    option value="" { "any" }
                    @for (kind, _) in crate::api::LEASED_KINDS {
                        option value=(kind) selected[value("type") == *kind] { (kind) }
                    }
                }
            }
            @if scope == AdminScope::AllTenants {
                label { "Tenant "
                    input type="text" inputmode="numeric" name="tenant" value=(value("tenant"));
                }
            }
            button type="submit" { "Filter" }
        }
        (table(&found.items, scope))
        @if let Some(next) = next {
            p.paging { a rel="next" href=(next) { "Next page" } }
        }
    };
    respond(StatusCode::OK, frame("Operations", Some(shown), &content))
}

/// The operations as rows, each linking to its page; the tenant column only for an
/// operator who sees several.
pub(super) fn table(items: &[AdminOperation], scope: AdminScope) -> Markup {
    html! {
        @if items.is_empty() {
            p.empty { "None." }
        } @else {
            div.scroll {
                table {
                    thead { tr {
                        th { "Operation" } th { "Kind" }
                        @if scope == AdminScope::AllTenants { th { "Tenant" } }
                        th { "Order" } th { "State" } th { "Attempts" } th { "Accepted" }
                    } }
                    tbody {
                        @for operation in items {
                            tr {
                                td { a.operation href=(format!("/admin/operations/{}", operation.id.hyphenated())) {
                                    code { (operation.id.hyphenated()) }
                                } }
                                td { (operation.operation_type) }
                                @if scope == AdminScope::AllTenants { td { (operation.tenant.get()) } }
                                td { (operation.order.get()) }
                                td { span class=(format!("state {}", operation.state.as_api())) { (operation.state.as_api()) } }
                                td { (operation.attempts) }
                                td { time { (rfc3339_micros(operation.accepted_at)) } }
                            }
                        }
                    }
                }
            }
        }
    }
}
