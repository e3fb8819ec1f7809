//! `POST /api/orders`: the checks in the contract's order, then the coordinator.

use actix_web::{HttpMessage, HttpRequest, HttpResponse, web};
use application::ports::FlowHooks;
use application::{CreateOrder, ORDERS_CREATE, Outcome};

use super::body::decode_new_order;
use super::key_header::parse_key_header;
use super::metrics::outcome_label;
use super::problem::Problem;
use super::respond;
use super::schema::{
    CreateBadRequest, CreateConflict, CreateOrderRequest, CreateUnavailable, Forbidden, Internal,
    KeyReused, Order, PayloadTooLarge, Replayed, Unauthorized, UnsupportedMediaType,
};
use super::state::{AppState, ServiceStore};

/// The body limit: 16 KiB.
pub const BODY_LIMIT_BYTES: usize = 16 * 1024;

/// The header that names the idempotency key.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// Authentication (401), permission (403), key (400), media type (415), size (413), body
/// (400), then the idempotent execution. The body is read only after the cheap checks
/// passed, and a rejected request reaches no store.
#[utoipa::path(
    post,
    path = "/api/orders",
    tag = "orders",
    operation_id = "createOrder",
    summary = "Create an order, at most once per Idempotency-Key",
    description = "Checks run in this order, and a refused request stores nothing: \
        authentication (401), permission `orders:create` (403), `Idempotency-Key` (400), \
        media type (415), size (413), body (400 `invalid_body`), then the idempotent \
        execution. The key is scoped to the token's tenant and actor and to this operation \
        (`orders.create.v1`). A retry with the same key and the same values (member order \
        and whitespace do not matter) gets the stored answer again, byte for byte, with \
        `Idempotent-Replayed: true`, provided the token grants `orders:create` now.",
    security(("bearer" = ["orders:create"])),
    params(
        (
            "Idempotency-Key" = String,
            Header,
            description = "Exactly one header field: 1 to 128 characters of `A-Z a-z 0-9 - _`, \
                or the same value as an RFC 8941 string (`\"order-42\"`), which names the same \
                key. Nothing is trimmed (beyond HTTP's own whitespace), lower-cased or \
                truncated. Missing: `400 idempotency_key_missing`; empty, too long, other \
                characters, two fields or a list: `400 idempotency_key_invalid`.",
            pattern = "^(?:[A-Za-z0-9_-]{1,128}|\"[A-Za-z0-9_-]{1,128}\")$",
            example = "order-42"
        ),
    ),
    request_body(
        content = CreateOrderRequest,
        content_type = "application/json",
        description = "`application/json` (a `charset=utf-8` parameter is allowed; anything \
            else is `415`), at most 16 KiB (`413`). Exactly these members; each violation is \
            listed in the `400 invalid_body` problem's `errors`.",
        example = json!({"clientOrderRef": "ref-42", "sku": "SKU-1", "quantity": 2})
    ),
    responses(
        (
            status = 201,
            description = "Created; or, with `Idempotent-Replayed: true`, the stored answer of \
                the first request with this key, byte for byte.",
            body = Order,
            headers(
                ("Location" = String, description = "`/api/orders/{orderId}`: where the order can be read."),
                ("Idempotent-Replayed" = inline(Replayed), description = "`true` on a replay; absent on the first answer."),
            ),
            example = json!({
                "orderId": "1",
                "clientOrderRef": "ref-42",
                "sku": "SKU-1",
                "quantity": 2,
                "createdAt": "2026-01-31T09:30:00.123456Z"
            }),
        ),
        (
            status = 400,
            description = "`idempotency_key_missing`, `idempotency_key_invalid`, or \
                `invalid_body` with an `errors` entry `{pointer, reason}` per violation.",
            body = CreateBadRequest,
            content_type = "application/problem+json",
            example = json!({
                "type": "urn:problem:invalid_body",
                "title": "Invalid body",
                "status": 400,
                "detail": "The body does not match the operation's schema; see errors.",
                "code": "invalid_body",
                "errors": [{"pointer": "/quantity", "reason": "must be at most 100"}]
            }),
        ),
        (
            status = 401,
            description = "No valid bearer token: missing, malformed, badly signed or expired.",
            body = Unauthorized,
            content_type = "application/problem+json",
            headers(("WWW-Authenticate" = String, description = "`Bearer`, or `Bearer error=\"invalid_token\"` when a token was sent.")),
        ),
        (
            status = 403,
            description = "The token does not grant `orders:create` (also for a replay).",
            body = Forbidden,
            content_type = "application/problem+json",
        ),
        (
            status = 409,
            description = "`request_in_progress`: a request with this key is still being \
                processed past the lock wait; retry later with the same key (`Retry-After`). \
                `client_order_ref_conflict`: another key already created an order with this \
                `clientOrderRef` in this tenant; nothing about it is revealed.",
            body = CreateConflict,
            content_type = "application/problem+json",
            headers(("Retry-After" = u32, description = "Seconds to wait; sent with `request_in_progress` only.")),
        ),
        (
            status = 413,
            description = "The body is over 16 KiB.",
            body = PayloadTooLarge,
            content_type = "application/problem+json",
        ),
        (
            status = 415,
            description = "The body is not `application/json`.",
            body = UnsupportedMediaType,
            content_type = "application/problem+json",
        ),
        (
            status = 422,
            description = "`idempotency_key_reused`: this key was used with other values; \
                nothing was created. A new request needs a new key.",
            body = KeyReused,
            content_type = "application/problem+json",
        ),
        (
            status = 500,
            description = "`internal`: something unexpected; rolled back, nothing stored.",
            body = Internal,
            content_type = "application/problem+json",
        ),
        (
            status = 503,
            description = "`outcome_unknown`: whether the request took effect cannot be told \
                now. Retry with the same key (never a new one): the retry replays or executes \
                once.",
            body = CreateUnavailable,
            content_type = "application/problem+json",
            headers(("Retry-After" = u32, description = "Seconds to wait before the retry.")),
        ),
    ),
)]
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
