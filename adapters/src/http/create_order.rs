//! `POST /api/orders`: the checks in the contract's order, then the coordinator.

use actix_web::{HttpRequest, HttpResponse, web};
use application::ports::FlowHooks;
use application::{CreateOrder, ORDERS_CREATE};

use super::body::decode_new_order;
use super::edge::{admit, respond_outcome};
use super::problem::Problem;
use super::respond;
use super::responses::{AuthRefusals, IdempotentRefusals};
use super::schema::{CreateConflict, CreateOrderRequest, Order, Replayed};
use super::state::{AppState, ServiceStore};

/// The edge's checks (`edge::admit`), the body (400), then the idempotent execution.
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
        AuthRefusals,
        IdempotentRefusals,
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
            status = 409,
            description = "`request_in_progress`: a request with this key is still being \
                processed past the lock wait; retry later with the same key (`Retry-After`). \
                `client_order_ref_conflict`: another key already created an order with this \
                `clientOrderRef` in this tenant; nothing about it is revealed.",
            body = CreateConflict,
            content_type = "application/problem+json",
            headers(("Retry-After" = u32, description = "Seconds to wait; sent with `request_in_progress` only.")),
        ),
    ),
)]
pub(super) async fn create_order<S: ServiceStore, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    let admitted = match admit(&request, payload, &state.keys, ORDERS_CREATE).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let order = match decode_new_order(&admitted.body) {
        Ok(order) => order,
        Err(errors) => return respond::problem(&Problem::invalid_body(&errors)),
    };
    // Runs on this worker. A client that hangs up drops this future; an open transaction
    // is then rolled back with its connection, exactly as in a crash, and the retry
    // executes or replays.
    let outcome = state
        .coordinator
        .run(&state.create_order, &admitted.caller, &admitted.key, &order)
        .await;
    respond_outcome(&state.metrics, CreateOrder::NAME, &outcome)
}
