//! `GET /api/orders/{orderId}`: how the path names an order, and the route's description.

use application::ReadOrder;
use application::orders::OrderDocument;
use domain::OrderId;

use crate::http::route::{GetDoc, GetRoute, PathIds, PathParameter, Undecodable};

impl GetRoute for ReadOrder {
    const PATH: &'static str = "/api/orders/{order_id}";
    type Answer = OrderDocument<'static>;

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

#[cfg(test)]
mod tests {
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
}
