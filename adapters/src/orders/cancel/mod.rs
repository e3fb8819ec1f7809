//! `orders.cancel.v1` over HTTP and SQL: its body, its route's description, its reads and
//! write.

mod batch_sql;
mod body;
mod port;
mod sql;

use application::Refusal;
use application::orders::{CancelOrder, CancelRefusal, OrderCancellation};
use utoipa::ToSchema;

use body::decode_cancel_body;

use super::{ORDER_ID, order_in_path};
use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;
use crate::http::route::{PathIds, PostDoc, PostRoute, Undecodable};
use application::orders::OrderDocument;

impl ProblemForm for CancelRefusal {
    /// One code for every reason an existing order stays; the detail says which.
    fn problem(&self) -> Problem {
        let not_cancellable =
            |detail| Problem::new(409, self.code(), "Order not cancellable", detail);
        match self {
            Self::OrderNotFound => Problem::not_found(),
            Self::AlreadyCancelled => not_cancellable("This order is already cancelled."),
            Self::CapturePending => {
                not_cancellable("This order has a pending payment capture; it cannot be cancelled.")
            }
            Self::CaptureSucceeded => not_cancellable(
                "This order has a succeeded payment capture; it cannot be cancelled.",
            ),
        }
    }
}

impl PostRoute for CancelOrder {
    const PATH: &'static str = "/api/orders/{order_id}/cancel";
    type Request = CancelRequest;
    type Answer = OrderDocument<'static>;

    /// The body first, then the order id: a bad body is reported before a bad id.
    fn decode(path: &PathIds<'_>, body: &[u8]) -> Result<OrderCancellation, Undecodable> {
        let reason = decode_cancel_body(body).map_err(Undecodable::Body)?;
        let order = order_in_path(path)?;
        Ok(OrderCancellation { order, reason })
    }

    fn describe() -> PostDoc {
        PostDoc {
            path: "/api/orders/{orderId}/cancel",
            operation_id: "cancelOrder",
            tag: "orders",
            summary: "Cancel an order, at most once per Idempotency-Key",
            description: "The order must exist in the caller's tenant (404), be active and \
                have no pending or succeeded payment capture (409 `order_not_cancellable`, \
                whose `detail` says which). A cancel and a capture of one order never both \
                succeed. The cancel commits with its `orders.cancelled.v1` event.",
            path_parameter: Some(ORDER_ID),
            request_example: serde_json::json!({"reason": "The customer changed their mind."}),
            status: 200,
            answer: "Cancelled: the order as it now is.",
            answer_example: Some(serde_json::json!({
                "orderId": "1",
                "clientOrderRef": "ref-42",
                "sku": "SKU-1",
                "quantity": 2,
                "createdAt": "2026-01-31T09:30:00.123456Z",
                "status": "cancelled",
                "cancelledAt": "2026-01-31T10:00:00.000001Z"
            })),
            location: None,
        }
    }
}

/// The body of `POST /api/orders/{orderId}/cancel`: exactly this member, strict as an
/// order's body.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({"reason": "The customer changed their mind."}))]
#[allow(dead_code)] // described, never built: the strict decoder reads the body
pub(crate) struct CancelRequest {
    /// Why: 1 to 200 characters, no control characters. Kept with the order.
    #[schema(
        pattern = r"^[^\u0000-\u001F\u007F-\u009F]*$",
        min_length = 1,
        max_length = 200,
        example = "The customer changed their mind."
    )]
    reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_refusal_but_not_found_is_order_not_cancellable_with_its_own_detail() {
        let details: Vec<&str> = CancelRefusal::ALL[1..]
            .iter()
            .map(|refusal| {
                let refused = refusal.problem();
                assert_eq!(
                    (refused.status, refused.code),
                    (409, "order_not_cancellable")
                );
                refused.detail
            })
            .collect();
        assert_eq!(details.len(), 3);
        assert!(details.windows(2).all(|pair| pair[0] != pair[1]));
        assert_eq!(CancelRefusal::OrderNotFound.problem(), Problem::not_found());
    }

    #[test]
    fn the_request_schema_reads_what_the_decoder_accepts() {
        let body = br#"{"reason":"no longer needed"}"#;
        assert!(decode_cancel_body(body).is_ok());
        let read: CancelRequest = serde_json::from_slice(body).unwrap();
        assert_eq!(read.reason, "no longer needed");
        assert!(serde_json::from_slice::<CancelRequest>(br#"{"reason":"r","x":1}"#).is_err());
    }
}
