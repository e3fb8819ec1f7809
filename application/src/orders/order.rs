//! An order and its one JSON shape, shared by the create's and the cancel's answers, the
//! events and `GET`.

use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, OrderStatus, TenantId};
use serde::Serialize;
use utoipa::ToSchema;

use crate::idempotency::Location;
use crate::names::OrderStatusName;
use crate::timestamps::rfc3339_micros;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub id: OrderId,
    pub tenant: TenantId,
    pub details: NewOrder,
    pub created_at: DateTime<Utc>,
    pub status: OrderStatus,
    /// Set exactly when the status is cancelled.
    pub cancelled_at: Option<DateTime<Utc>>,
}

/// An order: the `201` of a create (stored, and replayed byte for byte), the `200` of a
/// cancel and of a read have this one shape, members in the order of
/// `docs/http-api.md#post-apiorders`. Creates answered before orders had a status replay
/// without `status` and `cancelledAt`, so neither is required.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[schema(as = Order, example = json!({
    "orderId": "1",
    "clientOrderRef": "ref-42",
    "sku": "SKU-1",
    "quantity": 2,
    "createdAt": "2026-01-31T09:30:00.123456Z",
    "status": "active",
    "cancelledAt": null
}))]
pub struct OrderDocument<'a> {
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
    client_order_ref: &'a str,
    /// As sent.
    #[schema(
        pattern = "^[A-Za-z0-9_-]{1,64}$",
        min_length = 1,
        max_length = 64,
        example = "SKU-1"
    )]
    sku: &'a str,
    /// As sent.
    #[schema(minimum = 1, maximum = 100, example = 2)]
    quantity: u8,
    /// When the order was created: RFC 3339, UTC, microseconds.
    #[schema(format = DateTime, example = "2026-01-31T09:30:00.123456Z")]
    created_at: String,
    /// `active` until the order is cancelled.
    #[schema(required = false)]
    status: OrderStatusName,
    /// When the order was cancelled (RFC 3339, UTC, microseconds); `null` while active.
    #[schema(format = DateTime, required = false)]
    cancelled_at: Option<String>,
}

impl Order {
    /// As its create makes it: active.
    #[must_use]
    pub fn created(
        id: OrderId,
        tenant: TenantId,
        details: NewOrder,
        created_at: DateTime<Utc>,
    ) -> Self {
        Self {
            id,
            tenant,
            details,
            created_at,
            status: OrderStatus::Active,
            cancelled_at: None,
        }
    }

    /// A create's answer is stored once and replayed unchanged, even after the order
    /// changed: a replay is the first answer, not the order's state now.
    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        // Strings and integers into memory cannot fail; the fallback avoids a panic.
        serde_json::to_vec(&self.body()).unwrap_or_default()
    }

    pub(crate) fn body(&self) -> OrderDocument<'_> {
        OrderDocument {
            order_id: self.id.to_string(),
            client_order_ref: self.details.client_order_ref.as_str(),
            sku: self.details.sku.as_str(),
            quantity: self.details.quantity.get(),
            created_at: rfc3339_micros(self.created_at),
            status: self.status.into(),
            cancelled_at: self.cancelled_at.map(rfc3339_micros),
        }
    }

    #[must_use]
    pub fn location(&self) -> Location {
        Location::Order(self.id)
    }
}

/// Order 42 of `tenant`: 2 of `SKU-1` as `REF-1`, created at 2023-11-14T22:13:20.000005Z.
#[cfg(test)]
pub(crate) fn sample_order(tenant: u64) -> Order {
    use domain::{ClientOrderRef, Quantity, Sku};
    Order::created(
        OrderId::new(42),
        TenantId::parse(tenant).unwrap(),
        NewOrder {
            client_order_ref: ClientOrderRef::parse("REF-1").unwrap(),
            sku: Sku::parse("SKU-1").unwrap(),
            quantity: Quantity::parse(2).unwrap(),
        },
        DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order() -> Order {
        sample_order(1)
    }

    #[test]
    fn the_json_has_the_documented_members_in_order() {
        assert_eq!(
            String::from_utf8(order().to_json()).unwrap(),
            r#"{"orderId":"42","clientOrderRef":"REF-1","sku":"SKU-1","quantity":2,"createdAt":"2023-11-14T22:13:20.000005Z","status":"active","cancelledAt":null}"#
        );
        assert_eq!(order().location().path(), "/api/orders/42");
    }

    #[test]
    fn a_cancelled_order_says_when() {
        let cancelled = Order {
            status: OrderStatus::Cancelled,
            cancelled_at: DateTime::from_timestamp(1_700_000_060, 0),
            ..order()
        };
        let json = String::from_utf8(cancelled.to_json()).unwrap();
        assert!(
            json.ends_with(r#""status":"cancelled","cancelledAt":"2023-11-14T22:14:20.000000Z"}"#),
            "{json}"
        );
    }
}
