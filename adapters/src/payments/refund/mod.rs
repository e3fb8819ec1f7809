//! `payments.refund.v1`'s acceptance over HTTP and SQL: its body, its route's description,
//! its reservation of the captured amount and its refund row.

mod batch_sql;
mod body;
mod charge;
mod sql;

use application::Refusal;
use application::leased::Accepted;
use application::payments::{RefundPayment, RefundRefusal, RefundRequest};
use utoipa::ToSchema;

use body::decode_refund_body;

use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;
use crate::http::route::{PathIds, PostDoc, PostRoute, Undecodable};
use crate::orders::{ORDER_ID, order_in_path};

impl ProblemForm for RefundRefusal {
    fn problem(&self) -> Problem {
        match self {
            // Nothing about the order is revealed beyond "not yours or not there".
            Self::OrderNotFound => Problem::not_found(),
            Self::NotRefundable => Problem::new(
                409,
                self.code(),
                "Order not refundable",
                "This order has no succeeded payment capture to refund.",
            ),
            Self::ExceedsCaptured => Problem::new(
                409,
                self.code(),
                "Refund exceeds captured",
                "The amount is more than the capture has left after this order's refunds \
                 that are not declined. This answer is kept for the Idempotency-Key.",
            ),
        }
    }
}

impl PostRoute for RefundPayment {
    const PATH: &'static str = "/api/orders/{order_id}/refunds";
    type Request = RefundBody;
    type Answer = Accepted;

    /// The body first, then the order id: a bad body is reported before a bad id.
    fn decode(path: &PathIds<'_>, body: &[u8]) -> Result<RefundRequest, Undecodable> {
        let (amount, reason) = decode_refund_body(body).map_err(Undecodable::Body)?;
        let order = order_in_path(path)?;
        Ok(RefundRequest {
            order,
            amount,
            reason,
        })
    }

    fn describe() -> PostDoc {
        PostDoc {
            path: "/api/orders/{orderId}/refunds",
            operation_id: "refundPayment",
            tag: "payments",
            summary: "Accept a refund of an order's captured payment, at most once per \
                Idempotency-Key",
            description: "The order must exist in the caller's tenant (404) and have a \
                succeeded capture (409 `order_not_refundable`); the order's refunds that are \
                not declined, this one included, must stay within the captured amount (409 \
                `refund_exceeds_captured`, kept as the key's answer). The currency is the \
                capture's. The refund is accepted in one transaction and carried out \
                afterwards by a worker; follow `Location`.",
            path_parameter: Some(ORDER_ID),
            request_example: serde_json::json!({"amount": 500, "reason": "Damaged in transit."}),
            status: 202,
            answer: "Accepted",
            answer_example: None,
            location: Some(
                "`/api/operations/{operationId}`: where the refund's state can be read.",
            ),
        }
    }
}

/// The body of `POST /api/orders/{orderId}/refunds`: exactly these two members, both
/// required, strict as an order's body.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"amount": 500, "reason": "Damaged in transit."}))]
#[allow(dead_code)] // described, never built: the strict decoder reads the body
pub(crate) struct RefundBody {
    /// In minor units of the capture's currency: a JSON integer.
    #[schema(minimum = 1, maximum = 10_000_000, example = 500)]
    amount: u32,
    /// Why: 1 to 200 characters, no control characters. Kept with the operation.
    #[schema(
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$",
        min_length = 1,
        max_length = 200,
        example = "Damaged in transit."
    )]
    reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_schema_reads_what_the_decoder_accepts() {
        let body = br#"{"amount":500,"reason":"damaged"}"#;
        assert!(decode_refund_body(body).is_ok());
        let read: RefundBody = serde_json::from_slice(body).unwrap();
        assert_eq!(read.amount, 500);
        assert!(
            serde_json::from_slice::<RefundBody>(br#"{"amount":1,"reason":"r","x":1}"#).is_err()
        );
    }

    #[test]
    fn only_going_over_the_capture_says_the_answer_is_kept() {
        let exceeds = RefundRefusal::ExceedsCaptured.problem();
        assert_eq!(
            (exceeds.status, exceeds.code),
            (409, "refund_exceeds_captured")
        );
        let not_refundable = RefundRefusal::NotRefundable.problem();
        assert_eq!(
            (not_refundable.status, not_refundable.code),
            (409, "order_not_refundable")
        );
    }
}
