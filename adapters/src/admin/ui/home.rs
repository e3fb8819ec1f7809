//! `/admin/`: what needs a person first. The operations in `needs_review` (the admin API's
//! listing with `state=needs_review`), counted per kind and tenant, oldest first.

use std::collections::BTreeMap;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use application::admin::{AdminStore, OperationFilter, PageLimit};
use application::ports::FlowHooks;
use domain::OperationState;
use maud::html;

use super::layout::{frame, html as respond, unavailable};
use super::operations::table;
use super::signed::Signed;
use crate::admin::http::checks::admin;

pub(super) async fn page<S: AdminStore + 'static, H: FlowHooks + 'static>(
    signed: Signed<S, H>,
) -> HttpResponse {
    let Signed { session, state, .. } = &signed;
    let shown = signed.shown();
    let filter = OperationFilter {
        state: Some(OperationState::NeedsReview),
        ..OperationFilter::default()
    };
    let limit = PageLimit::parse(u64::from(PageLimit::MAX)).unwrap_or_default();
    let listed = admin(state)
        .list_operations(session.scope(), &filter, None, limit)
        .await;
    let mut found = match listed {
        Ok(found) => found,
        Err(error) => return unavailable("needs-review list", &error, shown),
    };
    // The listing is newest first; the one waiting longest is the first to look at.
    found.items.reverse();
    let mut counts = BTreeMap::<(&str, u64), usize>::new();
    for operation in &found.items {
        *counts
            .entry((operation.operation_type.as_str(), operation.tenant.get()))
            .or_default() += 1;
    }
    let content = html! {
        @if found.items.is_empty() {
            p.calm { "Nothing needs review." }
        } @else {
            div.scroll { table.counts {
                thead { tr { th { "Kind" } th { "Tenant" } th { "Needing review" } } }
                tbody { @for ((kind, tenant), count) in &counts {
                    tr { td { (kind) } td { (tenant) } td { (count) } }
                } }
            } }
            @if found.next.is_some() {
                p.more {
                    "Only the newest " (limit.get()) " are counted here; "
                    a href="/admin/operations?state=needs_review" { "the list" }
                    " has them all."
                }
            }
            h2 { "Oldest first" }
            (table(&found.items, session.scope()))
        }
    };
    respond(StatusCode::OK, frame("Needs review", Some(shown), &content))
}
