//! `/admin/idempotency-keys`: one idempotency record looked up by tenant, actor, operation
//! and key, as the admin API's `GET /api/admin/idempotency-keys` takes and shows it (never
//! the stored body), within the operator's tenants; to a token with `admin:write`, the way
//! to evict it when the use case would (`docs/admin.md#idempotency-records`).

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{ADMIN_WRITE, AdminRefusal, AdminStore, KeyAddress, KeyRecordView, hex};
use application::ports::FlowHooks;
use application::rfc3339_micros;
use maud::{Markup, html};

use super::filter_query::{encoded, filled};
use super::layout::{frame, html as respond, unavailable};
use super::operation::fact;
use super::signed::Signed;
use crate::admin::http::checks::admin;
use crate::admin::http::key_query;

/// The page's address; the eviction's is under it.
pub(super) const KEYS: &str = "/admin/idempotency-keys";

/// A record's address as the key route's query string.
pub(super) fn address_query(address: &KeyAddress) -> String {
    form_urlencoded::Serializer::new(String::new())
        .append_pair("tenant", &address.tenant.get().to_string())
        .append_pair("actor", &address.actor.get().to_string())
        .append_pair("operation", address.operation.as_str())
        .append_pair("key", address.key.as_str())
        .finish()
}

/// What the API shows of a record.
pub(super) fn facts(record: &KeyRecordView) -> Markup {
    let address = &record.address;
    html! {
        dl.facts.record {
            (fact("Tenant", html! { (address.tenant.get()) }))
            (fact("Actor", html! { (address.actor.get()) }))
            (fact("Operation", html! { code { (address.operation.as_str()) } }))
            (fact("Key", html! { code { (address.key.as_str()) } }))
            (fact("State", html! { span class=(format!("state {}", record.state.as_api())) { (record.state.as_api()) } }))
            (fact("Fingerprint", html! { code { (hex(&record.fingerprint)) } " (version " (record.fingerprint_version) ")" }))
            (fact("Created", html! { time { (rfc3339_micros(record.created_at)) } }))
            (fact("Expires", match record.expires_at {
                Some(at) => html! { time { (rfc3339_micros(at)) } },
                None => html! { "not yet set" },
            }))
            (fact("Stored status", html! { (record.response_status.map_or_else(|| "none".to_owned(), |s| s.to_string())) }))
            (fact("Its operation", match record.operation {
                Some(id) => html! { a href=(format!("/admin/operations/{}", id.hyphenated())) { code { (id.hyphenated()) } } },
                None => html! { "none" },
            }))
        }
    }
}

/// The lookup form, filled with what was asked (the operator's tenant at first).
fn lookup(asked: &[(String, String)], tenant: u64) -> Markup {
    let value = |name: &str| {
        asked
            .iter()
            .find(|(asked, _)| asked == name)
            .map(|(_, value)| value.clone())
    };
    let tenant = value("tenant").unwrap_or_else(|| tenant.to_string());
    html! {
        form.filters.lookup method="get" action=(KEYS) {
            label { "Tenant " input type="text" name="tenant" inputmode="numeric" value=(tenant); }
            label { "Actor " input type="text" name="actor" inputmode="numeric" value=[value("actor")]; }
            label { "Operation " input type="text" name="operation" placeholder="orders.create.v1" value=[value("operation")]; }
            label { "Key " input type="text" name="key" autocomplete="off" value=[value("key")]; }
            button type="submit" { "Look up" }
        }
    }
}

pub(super) async fn page<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    signed: Signed<S, H>,
) -> HttpResponse {
    let Signed { session, state, .. } = &signed;
    let shown = signed.shown();
    let asked = filled(request.query_string(), "");
    let form = lookup(&asked, session.caller.tenant.get());
    let title = "Idempotency keys";
    if asked.is_empty() {
        return respond(StatusCode::OK, frame(title, Some(shown), &form));
    }
    let address = match key_query(&encoded(&asked)) {
        Ok(address) => address,
        Err(errors) => {
            let content = html! {
                (form)
                ul.error { @for error in &errors.0 { li { (error.pointer.trim_start_matches('/')) ": " (error.reason) } } }
            };
            return respond(StatusCode::BAD_REQUEST, frame(title, Some(shown), &content));
        }
    };
    let admin = admin(state);
    let record = match admin.show_key(session.scope(), &address).await {
        Ok(record) => record,
        Err(AdminRefusal::Store(error)) => return unavailable("key read", &error, shown),
        Err(_) => {
            let content = html! { (form) p.none { "No record under this key in your tenants." } };
            return respond(StatusCode::NOT_FOUND, frame(title, Some(shown), &content));
        }
    };
    // Offered only when the use case would evict it now, to a token that may write.
    let evictable = if session.caller.has_permission(ADMIN_WRITE) {
        match admin.judge_eviction(session.scope(), &record).await {
            Ok(()) => Ok(()),
            Err(AdminRefusal::Store(error)) => return unavailable("key read", &error, shown),
            Err(refusal) => Err(refusal.to_string()),
        }
    } else {
        Err("your token does not carry admin:write".to_owned())
    };
    let content = html! {
        (form)
        (facts(&record))
        @match evictable {
            Ok(()) => form.evict method="get" action=(format!("{KEYS}/evict")) {
                fieldset {
                    legend { "Let the client use the key again" }
                    input type="hidden" name="tenant" value=(address.tenant.get());
                    input type="hidden" name="actor" value=(address.actor.get());
                    input type="hidden" name="operation" value=(address.operation.as_str());
                    input type="hidden" name="key" value=(address.key.as_str());
                    button type="submit" { "Evict…" }
                }
            },
            Err(why) => p.note { "Not evictable now: " (why) "." },
        }
    };
    respond(StatusCode::OK, frame(title, Some(shown), &content))
}
