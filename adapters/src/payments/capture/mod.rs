//! `payments.capture.v1`'s acceptance over HTTP and SQL: its body, its route's
//! description, its insert.

mod body;
mod sql;

use application::Refusal;
use application::leased::Accepted;
use application::payments::{CapturePayment, CaptureRefusal};
use domain::PaymentCapture;
use utoipa::ToSchema;

use body::decode_capture_body;

use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;
use crate::http::route::{PathIds, PostDoc, PostRoute, Undecodable};

impl ProblemForm for CaptureRefusal {
    fn problem(&self) -> Problem {
        match self {
            // Nothing about the order is revealed beyond "not yours or not there".
            Self::OrderNotFound => Problem::not_found(),
            Self::PaymentExists => Problem::new(
                409,
                self.code(),
                "Payment exists",
                "This order already has a pending or succeeded payment capture.",
            ),
            Self::OrderCancelled => Problem::new(
                409,
                self.code(),
                "Order cancelled",
                "This order is cancelled; it takes no payment capture.",
            ),
        }
    }
}
use crate::orders::{ORDER_ID, order_in_path};

impl PostRoute for CapturePayment {
    const PATH: &'static str = "/api/orders/{order_id}/payments";
    type Request = CaptureRequest;
    type Answer = Accepted;

    /// The body first, then the order id: a bad body is reported before a bad id.
    fn decode(path: &PathIds<'_>, body: &[u8]) -> Result<PaymentCapture, Undecodable> {
        let body = decode_capture_body(body).map_err(Undecodable::Body)?;
        let order = order_in_path(path)?;
        Ok(body.of(order))
    }

    fn describe() -> PostDoc {
        PostDoc {
            path: "/api/orders/{orderId}/payments",
            operation_id: "capturePayment",
            tag: "payments",
            summary: "Accept a payment capture for an order, at most once per Idempotency-Key",
            description: "The order must exist in the caller's tenant (404) and have no \
                pending or succeeded capture (409 `payment_exists`). The capture is accepted \
                in one transaction and carried out afterwards by a worker; follow `Location`.",
            path_parameter: Some(ORDER_ID),
            request_example: serde_json::json!({"amount": 1500, "currency": "JPY"}),
            status: 202,
            answer: "Accepted",
            answer_example: None,
            location: Some(
                "`/api/operations/{operationId}`: where the capture's state can be read.",
            ),
        }
    }
}

/// The body of `POST /api/orders/{orderId}/payments`: exactly these two members, both
/// required, strict as an order's body.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"amount": 1500, "currency": "JPY"}))]
#[allow(dead_code)] // described, never built: the strict decoder reads the body
pub(crate) struct CaptureRequest {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_schema_reads_what_the_decoder_accepts() {
        let body = br#"{"amount":1500,"currency":"JPY"}"#;
        assert!(decode_capture_body(body).is_ok());
        let read: CaptureRequest = serde_json::from_slice(body).unwrap();
        assert_eq!(read.amount, 1500);
        assert!(
            serde_json::from_slice::<CaptureRequest>(br#"{"amount":1,"currency":"JPY","x":1}"#)
                .is_err()
        );
    }
}
