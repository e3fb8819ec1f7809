//! `GET /api/orders/{orderId}`: an order of the caller's tenant.

use std::future::Future;

use domain::{OrderId, TenantId};

use super::Order;
use crate::ports::StoreError;
use crate::reads::{ReadFrom, TenantRead};

#[derive(Debug, Clone, Copy, Default)]
pub struct ReadOrder;

pub trait OrderReader: Send + Sync {
    /// `None` also for another tenant's.
    ///
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find_order(
        &self,
        tenant: TenantId,
        id: OrderId,
    ) -> impl Future<Output = Result<Option<Order>, StoreError>> + Send;
}

impl TenantRead for ReadOrder {
    const PERMISSION: &'static str = "orders:read";
    const WHAT: &'static str = "order";
    type Id = OrderId;
    type View = Order;

    fn to_json(order: &Order) -> Vec<u8> {
        order.to_json()
    }
}

impl<S: OrderReader> ReadFrom<S> for ReadOrder {
    fn find(
        store: &S,
        tenant: TenantId,
        id: OrderId,
    ) -> impl Future<Output = Result<Option<Order>, StoreError>> + Send {
        store.find_order(tenant, id)
    }
}

#[cfg(test)]
mod tests {
    use domain::{ClientOrderRef, NewOrder, Quantity, Sku};

    use super::*;

    #[test]
    fn an_order_is_never_polled_again() {
        let order = Order::created(
            OrderId::new(1),
            TenantId::parse(1).unwrap(),
            NewOrder {
                client_order_ref: ClientOrderRef::parse("R").unwrap(),
                sku: Sku::parse("S").unwrap(),
                quantity: Quantity::parse(1).unwrap(),
            },
            chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
        );
        assert!(
            !ReadOrder::poll_again(&order),
            "an order has no state to wait for"
        );
        let body: serde_json::Value = serde_json::from_slice(&ReadOrder::to_json(&order)).unwrap();
        assert_eq!(body["orderId"], serde_json::json!("1"));
        assert_eq!(body["status"], serde_json::json!("active"));
    }
}
