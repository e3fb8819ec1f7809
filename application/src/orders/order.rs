//! A created order and its one JSON shape, shared by the create response and `GET`.

use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, TenantId};
use serde::Serialize;

use crate::timestamps::rfc3339_micros;

/// An order as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    /// The database id.
    pub id: OrderId,
    /// The owning tenant.
    pub tenant: TenantId,
    /// The validated request values.
    pub details: NewOrder,
    /// When it was created (microsecond precision).
    pub created_at: DateTime<Utc>,
}

/// The order's JSON members, in the contract's order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct OrderBody<'a> {
    order_id: String,
    client_order_ref: &'a str,
    sku: &'a str,
    quantity: u8,
    created_at: String,
}

impl Order {
    /// The contract's JSON: `orderId` as a decimal string, `createdAt` in RFC 3339 UTC with
    /// microseconds. These bytes are stored once and replayed unchanged.
    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        // Serializing strings and integers into memory cannot fail; the fallback keeps
        // the signature total rather than panicking.
        serde_json::to_vec(&self.body()).unwrap_or_default()
    }

    /// The members of [`Order::to_json`], for documents that embed the order.
    pub(crate) fn body(&self) -> OrderBody<'_> {
        OrderBody {
            order_id: self.id.to_string(),
            client_order_ref: self.details.client_order_ref.as_str(),
            sku: self.details.sku.as_str(),
            quantity: self.details.quantity.get(),
            created_at: rfc3339_micros(self.created_at),
        }
    }

    /// Where the order can be read.
    #[must_use]
    pub fn location(&self) -> String {
        format!("/api/orders/{}", self.id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::{ClientOrderRef, Quantity, Sku};

    #[test]
    fn the_json_has_the_contract_members_in_order() {
        let order = Order {
            id: OrderId::new(42),
            tenant: TenantId::parse(1).unwrap(),
            details: NewOrder {
                client_order_ref: ClientOrderRef::parse("REF-1").unwrap(),
                sku: Sku::parse("SKU-1").unwrap(),
                quantity: Quantity::parse(2).unwrap(),
            },
            created_at: DateTime::from_timestamp(1_700_000_000, 5_000).unwrap(),
        };
        assert_eq!(
            String::from_utf8(order.to_json()).unwrap(),
            r#"{"orderId":"42","clientOrderRef":"REF-1","sku":"SKU-1","quantity":2,"createdAt":"2023-11-14T22:13:20.000005Z"}"#
        );
        assert_eq!(order.location(), "/api/orders/42");
    }
}
