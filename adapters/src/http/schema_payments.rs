//! The wire shapes of the payment routes as OpenAPI schemas. Like `schema`'s, they are
//! never built on the request path; the tests below hold them to the bytes the service
//! really reads and writes.

use utoipa::ToSchema;

/// The body of `POST /api/orders/{orderId}/payments`: exactly these two members, both
/// required, strict as an order's body.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"amount": 1500, "currency": "JPY"}))]
#[allow(dead_code)] // described, never built: the strict decoder reads the body
pub(super) struct CaptureRequest {
    /// In minor units: a JSON integer.
    #[schema(minimum = 1, maximum = 10_000_000, example = 1500)]
    amount: u32,
    /// Three letters `A-Z`.
    #[schema(
        pattern = "^[A-Z]{3}$",
        min_length = 3,
        max_length = 3,
        example = "JPY"
    )]
    currency: String,
}

/// The `202` of a capture (stored, and replayed byte for byte).
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"operationId": "0b6e3f0e-6d0c-4f43-9a53-1d3c1f1f7a21", "state": "pending"}))]
#[allow(dead_code)] // described, never built: `application` renders it
pub(super) struct CaptureAccepted {
    /// The operation's id: read it at `/api/operations/{operationId}`.
    #[schema(format = "uuid")]
    operation_id: String,
    /// Always `pending` at acceptance.
    state: OperationState,
}

/// Where an operation stands.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // described, never built
pub(super) enum OperationState {
    /// Accepted; a worker carries it out.
    Pending,
    /// The provider charged; `payment` is set.
    Succeeded,
    /// The provider declined.
    Declined,
    /// No definite answer within the bounded attempts: a person decides.
    NeedsReview,
}

/// `GET /api/operations/{operationId}`.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // described, never built: the handler renders it
pub(super) struct OperationStatus {
    /// The operation's id.
    #[schema(format = "uuid")]
    operation_id: String,
    /// `payments.capture.v1`.
    #[serde(rename = "type")]
    #[schema(example = "payments.capture.v1")]
    operation_type: String,
    /// The order paid for, a decimal string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$", example = "1")]
    order_id: String,
    /// Where it stands.
    state: OperationState,
    /// The payment, once succeeded; `null` before.
    payment: Option<Payment>,
    /// When it last changed: RFC 3339, UTC, microseconds.
    #[schema(format = DateTime)]
    updated_at: String,
}

/// A succeeded capture's payment.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // described, never built
pub(super) struct Payment {
    /// The payment's id, a decimal string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$")]
    payment_id: String,
    /// The provider's id of the charge.
    provider_charge_id: String,
    /// As captured, in minor units.
    #[schema(minimum = 1, maximum = 10_000_000)]
    amount: u32,
    /// As captured.
    #[schema(pattern = "^[A-Z]{3}$")]
    currency: String,
}

#[cfg(test)]
mod tests {
    use application::ports::{OperationView, PaymentView};
    use chrono::DateTime;
    use domain::{Amount, Currency, OperationState as State, OrderId};
    use uuid::Uuid;

    use super::*;

    #[test]
    fn the_status_schema_reads_what_the_handler_renders() {
        let mut view = OperationView {
            id: Uuid::from_u128(3),
            operation_type: "payments.capture.v1".to_owned(),
            order: OrderId::new(9),
            state: State::Pending,
            payment: None,
            updated_at: DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        };
        let read: OperationStatus =
            serde_json::from_slice(&crate::http::get_operation::operation_json(&view)).unwrap();
        assert!(read.payment.is_none());
        view.state = State::Succeeded;
        view.payment = Some(PaymentView {
            id: 4,
            provider_charge_id: "ch_1".to_owned(),
            amount: Amount::parse(1500).unwrap(),
            currency: Currency::parse("JPY").unwrap(),
        });
        let read: OperationStatus =
            serde_json::from_slice(&crate::http::get_operation::operation_json(&view)).unwrap();
        let payment = read.payment.unwrap();
        assert_eq!((payment.payment_id.as_str(), payment.amount), ("4", 1500));
    }

    #[test]
    fn the_request_schema_reads_what_the_decoder_accepts() {
        let body = br#"{"amount":1500,"currency":"JPY"}"#;
        assert!(crate::http::decode_capture_body(body).is_ok());
        let read: CaptureRequest = serde_json::from_slice(body).unwrap();
        assert_eq!(read.amount, 1500);
        assert!(
            serde_json::from_slice::<CaptureRequest>(br#"{"amount":1,"currency":"JPY","x":1}"#)
                .is_err()
        );
    }
}
