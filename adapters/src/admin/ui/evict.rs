//! Evicting an idempotency record from the page (`docs/admin.md#the-on-call-page`): a
//! confirmation that says what will be done (`GET`, changes nothing, only for
//! `admin:write`), then the change (`POST`, the record's address in its query as the
//! API's `DELETE` takes it), checked for its origin, its CSRF token and `admin:write`,
//! refused when the record under the key is not the one the page showed (made again
//! since), and made through the use case the API's eviction calls, audited alike.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use application::admin::{AdminRefusal, AdminStore};
use application::ports::FlowHooks;
use application::rfc3339_micros;
use maud::html;

use super::change::{Shown, admin_request, confirmation, refusal, told};
use super::keys::{KEYS, address_query, facts};
use super::layout::{frame, html as respond, not_found, unavailable};
use super::sign_in::field;
use super::signed::{Signed, SignedChange, Writer};
use crate::admin::http::checks::admin;
use crate::admin::http::key_query;

/// The page for a form that did not carry the record's address.
fn not_understood(shown: Shown<'_>) -> HttpResponse {
    told(
        StatusCode::BAD_REQUEST,
        "Not understood",
        KEYS,
        "The form did not carry the record's tenant, actor, operation and key.",
        shown,
    )
}

pub(super) async fn confirm<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    Writer(signed): Writer<S, H>,
) -> HttpResponse {
    let Signed { session, state, .. } = &signed;
    let shown = signed.shown();
    let Ok(address) = key_query(request.query_string()) else {
        return not_understood(shown);
    };
    let back = format!("{KEYS}?{}", address_query(&address));
    let admin = admin(state);
    let record = match admin.show_key(session.scope(), &address).await {
        Ok(record) => record,
        Err(AdminRefusal::Store(error)) => return unavailable("key read", &error, shown),
        Err(_) => return not_found(Some(shown)),
    };
    if let Err(refused) = admin.judge_eviction(session.scope(), &record).await {
        return refusal(refused, &back, shown);
    }
    let said = html! {
        p { "This idempotency record will be evicted:" }
        (facts(&record))
        p.effect { "evicted: the client may then use the key again, and a request with it executes as new. \
            Another server process may still answer the key from its copy for up to REPLAY_CACHE_TTL_SECS \
            (2 s by default): wait that long before telling the client its key is free." }
    };
    let action = format!("{KEYS}/evict?{}", address_query(&address));
    let hidden =
        html! { input type="hidden" name="created" value=(rfc3339_micros(record.created_at)); };
    confirmation(&said, &action, &hidden, &back, shown)
}

pub(super) async fn submit<S: AdminStore + 'static, H: FlowHooks + 'static>(
    request: HttpRequest,
    change: SignedChange<S, H>,
) -> HttpResponse {
    let SignedChange { signed, body } = &change;
    let Signed { session, state, .. } = signed;
    let shown = signed.shown();
    let Ok(address) = key_query(request.query_string()) else {
        return not_understood(shown);
    };
    let Some(created) = field(body, "created") else {
        return not_understood(shown);
    };
    let back = format!("{KEYS}?{}", address_query(&address));
    let admin = admin(state);
    // The record the page showed, not one a new request made under the key since; the use
    // case reads again, and evicts only a completed record.
    match admin.show_key(session.scope(), &address).await {
        Ok(now) if rfc3339_micros(now.created_at) != created => {
            let why = format!(
                "It changed: the record under this key was made at {}, not the one the page showed.",
                rfc3339_micros(now.created_at)
            );
            return told(StatusCode::CONFLICT, "It changed", &back, &why, shown);
        }
        Ok(_) => {}
        Err(AdminRefusal::Store(error)) => return unavailable("key read", &error, shown),
        Err(_) => return not_found(Some(shown)),
    }
    let evicted = admin
        .evict_key(&admin_request(&request, session), &address)
        .await;
    match evicted {
        Ok(record) => {
            let content = html! {
                p.effect role="status" { "Evicted. The record as it was:" }
                (facts(&record))
                p.note { "Other server processes may answer the key from their copies for up to REPLAY_CACHE_TTL_SECS more." }
                p { a href=(back) { "Look it up again" } }
            };
            respond(StatusCode::OK, frame("Evicted", Some(shown), &content))
        }
        Err(refused) => refusal(refused, &back, shown),
    }
}
