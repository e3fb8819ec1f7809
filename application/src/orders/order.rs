//! A created order and its one JSON shape, shared by the create response and `GET`.

use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, TenantId};
use serde::Serialize;

use crate::timestamps::rfc3339_micros;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Order {
    pub id: OrderId,
    pub tenant: TenantId,
    pub details: NewOrder,
    pub created_at: DateTime<Utc>,
}

/// Members in the order of `docs/http-api.md#post-apiorders`.
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
    /// Stored once and replayed unchanged.
    #[must_use]
    pub fn to_json(&self) -> Vec<u8> {
        // Strings and integers into memory cannot fail; the fallback avoids a panic.
        serde_json::to_vec(&self.body()).unwrap_or_default()
    }

    pub(crate) fn body(&self) -> OrderBody<'_> {
        OrderBody {
            order_id: self.id.to_string(),
            client_order_ref: self.details.client_order_ref.as_str(),
            sku: self.details.sku.as_str(),
            quantity: self.details.quantity.get(),
            created_at: rfc3339_micros(self.created_at),
        }
    }

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
