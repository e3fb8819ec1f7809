//! `orders.cancel.v1` over HTTP and SQL: its body, its route's description, its reads and
//! write.

mod body;
mod sql;

use application::orders::{CancelOrder, OrderCancellation};
use utoipa::ToSchema;

use body::decode_cancel_body;

use super::read::OrderDocument;
use super::{ORDER_ID, order_in_path};
use crate::http::route::{PathIds, PostDoc, PostRoute, Undecodable};

impl PostRoute for CancelOrder {
    const PATH: &'static str = "/api/orders/{order_id}/cancel";
    type Request = CancelRequest;
    type Answer = OrderDocument;

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
            answer_example: serde_json::json!({
                "orderId": "1",
                "clientOrderRef": "ref-42",
                "sku": "SKU-1",
                "quantity": 2,
                "createdAt": "2026-01-31T09:30:00.123456Z",
                "status": "cancelled",
                "cancelledAt": "2026-01-31T10:00:00.000001Z"
            }),
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
    fn the_request_schema_reads_what_the_decoder_accepts() {
        let body = br#"{"reason":"no longer needed"}"#;
        assert!(decode_cancel_body(body).is_ok());
        let read: CancelRequest = serde_json::from_slice(body).unwrap();
        assert_eq!(read.reason, "no longer needed");
        assert!(serde_json::from_slice::<CancelRequest>(br#"{"reason":"r","x":1}"#).is_err());
    }
}
