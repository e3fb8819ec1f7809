//! The orders repository, used inside the coordinator's transaction.

use std::future::Future;

use domain::{NewOrder, OrderId, TenantId};

use super::{InsertOrderError, StoreError};
use crate::Order;

/// Writes orders inside an open transaction (implemented by the adapter's transaction).
pub trait OrderRepository {
    /// Inserts one order and returns its new id.
    ///
    /// # Errors
    /// - [`InsertOrderError::ClientOrderRefTaken`] only for a violation of
    ///   `UNIQUE (tenant_id, client_order_ref)`;
    /// - `Store(LockWaitTimeout)`, `Store(Deadlock)`, `Store(ConnectionLost)`, `Store(Other)`.
    fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: chrono::DateTime<chrono::Utc>,
    ) -> impl Future<Output = Result<OrderId, InsertOrderError>> + Send;
}

/// Reads orders outside any write transaction.
pub trait OrderReader: Send + Sync {
    /// The order with this id in this tenant; `None` also when it belongs to another tenant.
    ///
    /// # Errors
    /// `ConnectionLost` or `Other`.
    fn find_order(
        &self,
        tenant: TenantId,
        id: OrderId,
    ) -> impl Future<Output = Result<Option<Order>, StoreError>> + Send;
}
