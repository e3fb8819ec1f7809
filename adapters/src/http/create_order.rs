//! `POST /api/orders`: the checks in the contract's order, then the coordinator.

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use application::ports::FlowHooks;
use application::{CreateOrder, ORDERS_CREATE, Outcome};

use super::body::decode_new_order;
use super::key_header::parse_key_header;
use super::metrics::outcome_label;
use super::problem::Problem;
use super::respond;
use super::state::{AppState, ServiceStore};

/// The body limit: 16 KiB.
pub const BODY_LIMIT_BYTES: usize = 16 * 1024;

/// The header that names the idempotency key.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Authentication (401), permission (403), key (400), media type (415), size (413), body
/// (400), then the idempotent execution. The body is read only after the cheap checks
/// passed, and a rejected request reaches no store.
pub(super) async fn create_order<S: ServiceStore, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    let caller = match respond::authorized(&request, &state.keys, ORDERS_CREATE) {
        Ok(caller) => caller,
        Err(refusal) => return refusal.response(),
    };
    let key_fields: Vec<&[u8]> = request
        .headers()
        .get_all(IDEMPOTENCY_KEY)
        .map(|v| v.as_bytes())
        .collect();
    let key = match parse_key_header(&key_fields) {
        Ok(key) => key,
        Err(error) => return respond::problem(&Problem::for_key(error)),
    };
    if !is_json_utf8(&request) {
        return respond::problem(&Problem::unsupported_media_type());
    }
    if declared_length(&request).is_some_and(|length| length > BODY_LIMIT_BYTES) {
        return respond::problem(&Problem::payload_too_large());
    }
    let bytes = match payload.to_bytes_limited(BODY_LIMIT_BYTES).await {
        Ok(Ok(bytes)) => bytes,
        // The client broke off or sent a malformed chunk encoding.
        Ok(Err(_)) => return respond::problem(&Problem::invalid_body(&[])),
        Err(_limit_exceeded) => return respond::problem(&Problem::payload_too_large()),
    };
    let order = match decode_new_order(&bytes) {
        Ok(order) => order,
        Err(errors) => return respond::problem(&Problem::invalid_body(&errors)),
    };

    // Runs on this worker. A client that hangs up drops this future; an open transaction
    // is then rolled back with its connection, exactly as in a crash, and the retry
    // executes or replays.
    let outcome = state
        .coordinator
        .run(&state.create_order, &caller, &key, &order)
        .await;

    state.metrics.count_outcome(CreateOrder::NAME, &outcome);
    let span = tracing::Span::current();
    span.record("outcome", outcome_label(&outcome));
    match &outcome {
        Outcome::Executed { record, response } | Outcome::Replayed { record, response } => {
            span.record("record_id", record.0);
            respond::stored(response, matches!(outcome, Outcome::Replayed { .. }))
        }
        other => match Problem::for_outcome(other) {
            Some(problem) => {
                if let Outcome::Failed(cause) = other {
                    tracing::error!(?cause, "idempotent execution failed");
                }
                respond::problem(&problem)
            }
            None => respond::problem(&Problem::internal()),
        },
    }
}

/// `application/json`, with no parameter but an optional `charset=utf-8`.
fn is_json_utf8(request: &HttpRequest) -> bool {
    let Ok(Some(mime)) = request.mime_type() else {
        return false;
    };
    mime.type_() == "application"
        && mime.subtype() == "json"
        && mime.suffix().is_none()
        && mime
            .params()
            .all(|(name, value)| name == "charset" && value.as_str().eq_ignore_ascii_case("utf-8"))
}

/// The `Content-Length` the client declared, if any, so an oversized body is refused
/// before any of it is read.
fn declared_length(request: &HttpRequest) -> Option<usize> {
    request
        .headers()
        .get(actix_web::http::header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}
