//! The cancel's reads and writes, one order at a time and for a batch.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OperationState, OrderId, Reason, TenantId};

use super::super::Order;
use crate::ports::StoreError;

/// The order as the cancel found it, locked until the transaction ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedOrder {
    pub order: Order,
    pub revision: u64,
}

/// The cancel's reads and write, in its transaction.
pub trait OrderCancellations {
    /// The tenant's order, locked against any other change until the transaction ends;
    /// `None` when the tenant has no such order.
    fn lock_order(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> impl Future<Output = Result<Option<LockedOrder>, StoreError>> + Send;

    /// The state of the order's pending or succeeded capture, if it has one. Read under
    /// the order's lock: a capture writes the order before its operation, so none can be
    /// in flight unseen.
    fn blocking_capture(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> impl Future<Output = Result<Option<OperationState>, StoreError>> + Send;

    /// Marks the locked order cancelled at `at`, for `reason`, at `revision`.
    fn mark_cancelled(
        &mut self,
        tenant: TenantId,
        order: OrderId,
        at: DateTime<Utc>,
        reason: &Reason,
        revision: u64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// [`OrderCancellations::lock_order`] of each of `orders`, in their order, as one
    /// statement where the store can.
    fn lock_orders(
        &mut self,
        orders: &[(TenantId, OrderId)],
    ) -> impl Future<Output = Result<Vec<Option<LockedOrder>>, StoreError>> + Send
    where
        Self: Send,
    {
        async move {
            let mut found = Vec::with_capacity(orders.len());
            for (tenant, order) in orders {
                found.push(self.lock_order(*tenant, *order).await?);
            }
            Ok(found)
        }
    }

    /// [`OrderCancellations::blocking_capture`] of each of `orders`, in their order, as one
    /// statement where the store can.
    fn blocking_captures(
        &mut self,
        orders: &[(TenantId, OrderId)],
    ) -> impl Future<Output = Result<Vec<Option<OperationState>>, StoreError>> + Send
    where
        Self: Send,
    {
        async move {
            let mut found = Vec::with_capacity(orders.len());
            for (tenant, order) in orders {
                found.push(self.blocking_capture(*tenant, *order).await?);
            }
            Ok(found)
        }
    }

    /// Marks each of the locked, active `orders` cancelled at `at`, for its reason, at
    /// the revision after the one it was locked at, as one statement.
    fn mark_all_cancelled(
        &mut self,
        orders: &[(TenantId, OrderId, &Reason)],
        at: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
