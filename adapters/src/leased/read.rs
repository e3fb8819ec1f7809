//! `GET /api/operations/{operationId}`: how the path names an operation, and the route's
//! description.

use application::leased::ReadOperation;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::http::route::{GetDoc, GetRoute, PathIds, PathParameter};

impl GetRoute for ReadOperation {
    const PATH: &'static str = "/api/operations/{operation_id}";
    type Answer = OperationStatus;

    fn parse_id(path: &PathIds<'_>) -> Option<Uuid> {
        parse_operation_id(path.get("operation_id")?)
    }

    fn describe() -> GetDoc {
        GetDoc {
            path: "/api/operations/{operationId}",
            operation_id: "getOperation",
            tag: "payments",
            summary: "Read where a payment capture stands",
            description: "Another tenant's operation, and an id that is not a hyphenated \
                UUID, are `404` alike. A `pending` operation carries `Retry-After`: poll \
                again then.",
            id: PathParameter {
                name: "operationId",
                description: "The `operationId` of the capture's `202` (the end of its \
                    `Location`).",
                example: "0b6e3f0e-6d0c-4f43-9a53-1d3c1f1f7a21",
            },
            answer: "The operation; `payment` is `null` until it succeeded.",
            poll_again: Some("Seconds before polling again; sent while `pending`."),
        }
    }
}

/// A hyphenated UUID, in either case: the form the `Location` gives. `None` names nothing.
#[must_use]
pub fn parse_operation_id(text: &str) -> Option<Uuid> {
    if text.len() != 36 {
        return None;
    }
    Uuid::try_parse(text).ok()
}

/// Where an operation stands.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // described, never built
pub(crate) enum OperationState {
    /// Accepted; a worker carries it out.
    Pending,
    /// The provider charged; `payment` is set.
    Succeeded,
    /// The provider declined.
    Declined,
    /// No definite answer within the bounded attempts: a person decides.
    NeedsReview,
    /// Stopped by an operator before it was charged; the order may be captured again.
    Cancelled,
}

/// `GET /api/operations/{operationId}`.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[allow(dead_code)] // described, never built: the handler renders it
pub(crate) struct OperationStatus {
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
pub(crate) struct Payment {
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
    use application::TenantRead;
    use application::leased::Members;
    use application::ports::OperationView;
    use chrono::DateTime;
    use domain::{OperationState as State, OrderId};

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

    #[test]
    fn the_status_schema_reads_what_the_read_renders() {
        let mut view = OperationView {
            id: Uuid::from_u128(3),
            operation_type: "payments.capture.v1".to_owned(),
            order: OrderId::new(9),
            state: State::Pending,
            result: Members::parse(br#"{"payment":null}"#).unwrap(),
            updated_at: DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
        };
        let read: OperationStatus = serde_json::from_slice(&ReadOperation::to_json(&view)).unwrap();
        assert!(read.payment.is_none());
        view.state = State::Succeeded;
        view.result = Members::parse(
            br#"{"payment":{"paymentId":"4","providerChargeId":"ch_1","amount":1500,"currency":"JPY"}}"#,
        )
        .unwrap();
        let read: OperationStatus = serde_json::from_slice(&ReadOperation::to_json(&view)).unwrap();
        let payment = read.payment.unwrap();
        assert_eq!((payment.payment_id.as_str(), payment.amount), ("4", 1500));
    }
}
