//! `GET /api/operations/{operationId}`: where a long-running operation of the caller's
//! tenant stands.

use actix_web::http::header::RETRY_AFTER;
use actix_web::{HttpRequest, HttpResponse, web};
use application::ports::{FlowHooks, OperationView};
use chrono::SecondsFormat;
use domain::OperationState;
use serde::Serialize;
use uuid::Uuid;

use super::problem::{Problem, RETRY_AFTER_SECS};
use super::respond;
use super::responses::{AuthRefusals, ReadRefusals};
use super::schema_payments::OperationStatus;
use super::state::{AppState, ServiceStore};

/// The permission to read operations.
pub const PAYMENTS_READ: &str = "payments:read";

/// `404` for an id that is not a hyphenated UUID, and for another tenant's operation
/// alike.
#[utoipa::path(
    get,
    path = "/api/operations/{operationId}",
    tag = "payments",
    operation_id = "getOperation",
    summary = "Read where a payment capture stands",
    description = "Any actor of the operation's tenant whose token grants `payments:read`. \
        Another tenant's operation, and an id that is not a hyphenated UUID, are `404` \
        alike. A `pending` operation carries `Retry-After`: poll again then.",
    security(("bearer" = ["payments:read"])),
    params(
        (
            "operationId" = String,
            Path,
            description = "The `operationId` of the capture's `202` (the end of its `Location`).",
            example = "0b6e3f0e-6d0c-4f43-9a53-1d3c1f1f7a21"
        ),
    ),
    responses(
        AuthRefusals,
        ReadRefusals,
        (
            status = 200,
            description = "The operation; `payment` is `null` until it succeeded.",
            body = OperationStatus,
            headers(("Retry-After" = u32, description = "Seconds before polling again; sent while `pending`.")),
        ),
    ),
)]
pub(super) async fn get_operation<S: ServiceStore, H: FlowHooks + 'static>(
    request: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState<S, H>>,
) -> HttpResponse {
    let caller = match respond::authorized(&request, &state.keys, PAYMENTS_READ) {
        Ok(caller) => caller,
        Err(refusal) => return refusal.response(),
    };
    let Some(id) = parse_operation_id(&path) else {
        return respond::problem(&Problem::not_found());
    };
    let found = state.store.find_operation(caller.tenant, id).await;
    respond::read(found, "operation", |view, response| {
        if view.state == OperationState::Pending {
            response.insert_header((RETRY_AFTER, RETRY_AFTER_SECS.to_string()));
        }
        operation_json(&view)
    })
}

/// A hyphenated UUID, in either case: the form the `Location` gives.
fn parse_operation_id(text: &str) -> Option<Uuid> {
    if text.len() != 36 {
        return None;
    }
    Uuid::try_parse(text).ok()
}

/// The status document's members, in the contract's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct StatusBody<'a> {
    operation_id: String,
    #[serde(rename = "type")]
    operation_type: &'a str,
    order_id: String,
    state: &'static str,
    payment: Option<PaymentBody<'a>>,
    updated_at: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PaymentBody<'a> {
    payment_id: String,
    provider_charge_id: &'a str,
    amount: u32,
    currency: &'a str,
}

/// The contract's JSON of `view`.
pub(super) fn operation_json(view: &OperationView) -> Vec<u8> {
    let body = StatusBody {
        operation_id: view.id.hyphenated().to_string(),
        operation_type: &view.operation_type,
        order_id: view.order.to_string(),
        state: view.state.as_api(),
        payment: view.payment.as_ref().map(|payment| PaymentBody {
            payment_id: payment.id.to_string(),
            provider_charge_id: &payment.provider_charge_id,
            amount: payment.amount.get(),
            currency: payment.currency.as_str(),
        }),
        updated_at: view.updated_at.to_rfc3339_opts(SecondsFormat::Micros, true),
    };
    // Strings and integers into memory: cannot fail.
    serde_json::to_vec(&body).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_hyphenated_uuids_name_an_operation() {
        let id = Uuid::from_u128(5);
        assert_eq!(parse_operation_id(&id.hyphenated().to_string()), Some(id));
        let upper = id.hyphenated().to_string().to_uppercase();
        assert_eq!(parse_operation_id(&upper), Some(id));
        for text in ["", "5", &id.simple().to_string(), &format!("{{{id}}}")] {
            assert!(parse_operation_id(text).is_none(), "{text}");
        }
    }
}
