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
