//! `GET /api/orders/{orderId}`: how the path names an order, and the route's description.

use application::ReadOrder;
use domain::OrderId;
use utoipa::ToSchema;

use crate::http::route::{GetDoc, GetRoute, PathIds, PathParameter, Undecodable};

impl GetRoute for ReadOrder {
    const PATH: &'static str = "/api/orders/{order_id}";
    type Answer = OrderDocument;

    fn parse_id(path: &PathIds<'_>) -> Option<OrderId> {
        order_in_path(path).ok()
    }

    fn describe() -> GetDoc {
        GetDoc {
            path: "/api/orders/{orderId}",
            operation_id: "getOrder",
            tag: "orders",
            summary: "Read an order of the caller's tenant",
            description: "Another tenant's order, and an id that is not a positive decimal, \
                are `404` alike: the answer never tells whether an order exists elsewhere.",
            id: ORDER_ID,
            answer: "The order as it is now, in the create's shape.",
            poll_again: None,
        }
    }
}

pub(crate) const ORDER_ID: PathParameter = PathParameter {
    name: "orderId",
    description: "The `orderId` of the create's answer (the end of its `Location`).",
    example: "1",
};

/// The `{order_id}` of a route's path; one that cannot name an order is `404`, as an
/// unknown one.
pub(crate) fn order_in_path(path: &PathIds<'_>) -> Result<OrderId, Undecodable> {
    path.get("order_id")
        .and_then(parse_order_id)
        .ok_or(Undecodable::NotFound)
}

/// `[1-9][0-9]*`, fitting a signed 64-bit column: one spelling per order, so `01` is as
/// unknown as any other id that names nothing.
fn parse_order_id(text: &str) -> Option<OrderId> {
    if text.is_empty()
        || text.len() > 19
        || text.starts_with('0')
        || !text.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let id: u64 = text.parse().ok()?;
    (1..=i64::MAX.unsigned_abs())
        .contains(&id)
        .then(|| OrderId::new(id))
}

/// An order: the `201` of a create (stored, and replayed byte for byte), the `200` of a
/// cancel and of a read have this one shape. Creates answered before orders had a status
/// replay without `status` and `cancelledAt`, so neither is required.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schema(example = json!({
    "orderId": "1",
    "clientOrderRef": "ref-42",
    "sku": "SKU-1",
    "quantity": 2,
    "createdAt": "2026-01-31T09:30:00.123456Z",
    "status": "active",
    "cancelledAt": null
}))]
#[schema(as = Order)]
#[allow(dead_code)] // described, never built: `application` renders the order
pub(crate) struct OrderDocument {
    /// The order id, a positive decimal integer written as a string.
    #[schema(pattern = "^[1-9][0-9]{0,18}$", example = "1")]
    order_id: String,
    /// As sent.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "ref-42"
    )]
    client_order_ref: String,
    /// As sent.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "SKU-1"
    )]
    sku: String,
    /// As sent.
    #[schema(minimum = 1, maximum = 100, example = 2)]
    quantity: u8,
    /// When the order was created: RFC 3339, UTC, microseconds.
    #[schema(format = DateTime, example = "2026-01-31T09:30:00.123456Z")]
    created_at: String,
    /// `active` until the order is cancelled.
    #[schema(required = false)]
    status: OrderStatus,
    /// When the order was cancelled (RFC 3339, UTC, microseconds); `null` while active.
    #[schema(format = DateTime, required = false)]
    cancelled_at: Option<String>,
}

/// Where an order stands.
#[derive(Debug, ToSchema)]
#[cfg_attr(test, derive(serde::Deserialize))]
#[serde(rename_all = "snake_case")]
#[allow(dead_code)] // described, never built
pub(crate) enum OrderStatus {
    /// It may be captured or cancelled.
    Active,
    /// For good: it takes no capture and no second cancel.
    Cancelled,
}

#[cfg(test)]
mod tests {
    use chrono::DateTime;
    use domain::{ClientOrderRef, NewOrder, Quantity, Sku, TenantId};

    use super::*;

    #[test]
    fn only_positive_decimal_ids_in_range_name_an_order() {
        assert_eq!(parse_order_id("42").map(OrderId::get), Some(42));
        for text in [
            "",
            "0",
            "01",
            "007",
            "-1",
            "+1",
            "1e3",
            "9223372036854775808",
            "abc",
        ] {
            assert!(parse_order_id(text).is_none(), "{text}");
        }
    }

    #[test]
    fn the_order_schema_type_reads_what_application_renders() {
        let order = application::Order::created(
            OrderId::new(42),
            TenantId::parse(1).unwrap(),
            NewOrder {
                client_order_ref: ClientOrderRef::parse("REF-1").unwrap(),
                sku: Sku::parse("SKU-1").unwrap(),
                quantity: Quantity::parse(100).unwrap(),
            },
            DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
        );
        let read: OrderDocument = serde_json::from_slice(&order.to_json()).unwrap();
        assert_eq!(read.order_id, "42");
        assert_eq!(read.quantity, 100);
    }
}
