//! `POST /api/orders/{orderId}/payments`: the edge's checks, then `payments.capture.v1`
//! through the same coordinator as an order's create.

use actix_web::{HttpRequest, HttpResponse, web};
use application::payments::{CapturePayment, PAYMENTS_CREATE};
use application::ports::FlowHooks;

use super::capture_body::decode_capture_body;
use super::edge::{admit, respond_outcome};
use super::get_order::parse_order_id;
use super::problem::Problem;
use super::respond;
use super::responses::{AuthRefusals, IdempotentRefusals};
use super::schema::{CaptureConflict, NotFound, Replayed};
use super::schema_payments::{CaptureAccepted, CaptureRequest};
use super::state::{AppState, ServiceStore};

/// The edge's checks (`edge::admit`), the body (400), the order id (404), then the
/// idempotent acceptance: the order must be the caller's tenant's (404) with no pending
/// or succeeded capture (409).
#[utoipa::path(
    post,
    path = "/api/orders/{orderId}/payments",
    tag = "payments",
    operation_id = "capturePayment",
    summary = "Accept a payment capture for an order, at most once per Idempotency-Key",
    description = "Checks run in the order of `POST /api/orders`, and a refused request \
        stores nothing: authentication (401), permission `payments:create` (403), \
        `Idempotency-Key` (400), media type (415), size (413), body (400 `invalid_body`), \
        then the order: it must exist in the caller's tenant (404) and have no pending or \
        succeeded capture (409 `payment_exists`). The capture is accepted in one \
        transaction and carried out afterwards by a worker; follow `Location`. A retry with \
        the same key and values gets the stored `202` again, byte for byte, with \
        `Idempotent-Replayed: true`.",
    security(("bearer" = ["payments:create"])),
    params(
        (
            "orderId" = String,
            Path,
            description = "The order to pay for (the `orderId` of its create).",
            example = "1"
        ),
        (
            "Idempotency-Key" = String,
            Header,
            description = "As for `POST /api/orders`: 1 to 128 characters of \
                `A-Z a-z 0-9 - _`, or the same value as an RFC 8941 string.",
            pattern = "^(?:[A-Za-z0-9_-]{1,128}|\"[A-Za-z0-9_-]{1,128}\")$",
            example = "capture-42"
        ),
    ),
    request_body(
        content = CaptureRequest,
        content_type = "application/json",
        description = "`application/json`, at most 16 KiB, exactly these members.",
        example = json!({"amount": 1500, "currency": "JPY"})
    ),
    responses(
        AuthRefusals,
        IdempotentRefusals,
        (
            status = 202,
            description = "Accepted; or, with `Idempotent-Replayed: true`, the stored answer \
                of the first request with this key, byte for byte.",
            body = CaptureAccepted,
            headers(
                ("Location" = String, description = "`/api/operations/{operationId}`: where the capture's state can be read."),
                ("Idempotent-Replayed" = inline(Replayed), description = "`true` on a replay; absent on the first answer."),
            ),
        ),
        (
            status = 404,
            description = "No such order in the caller's tenant; nothing was stored.",
            body = NotFound,
            content_type = "application/problem+json",
        ),
        (
            status = 409,
            description = "`request_in_progress`: a request with this key is still being \
                processed; retry later with the same key. `payment_exists`: the order \
                already has a pending or succeeded capture; nothing was stored.",
            body = CaptureConflict,
            content_type = "application/problem+json",
            headers(("Retry-After" = u32, description = "Seconds to wait; sent with `request_in_progress` only.")),
        ),
    ),
)]
pub(super) async fn capture_payment<S: ServiceStore, H: FlowHooks + 'static>(
    request: HttpRequest,
    payload: web::Payload,
    path: web::Path<String>,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    let admitted = match admit(&request, payload, &state.keys, PAYMENTS_CREATE).await {
        Ok(admitted) => admitted,
        Err(refused) => return refused,
    };
    let body = match decode_capture_body(&admitted.body) {
        Ok(body) => body,
        Err(errors) => return respond::problem(&Problem::invalid_body(&errors)),
    };
    // An id no order can have is as unknown as a missing order.
    let Some(order) = parse_order_id(&path) else {
        return respond::problem(&Problem::not_found());
    };
    let capture = body.of(order);
    let outcome = state
        .coordinator
        .run(
            &state.capture_payment,
            &admitted.caller,
            &admitted.key,
            &capture,
        )
        .await;
    respond_outcome(&state.metrics, CapturePayment::NAME, &outcome)
}
