//! The cancel's writes, one order at a time and for a batch, after its locking reads
//! (`orders/locks.rs`).

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OrderId, Reason, TenantId};

use super::super::OrderLocks;
use crate::ports::StoreError;

/// The cancel's reads and write, in its transaction.
pub trait OrderCancellations: OrderLocks {
    /// Marks the locked order cancelled at `at`, for `reason`, at `revision`.
    fn mark_cancelled(
        &mut self,
        tenant: TenantId,
        order: OrderId,
        at: DateTime<Utc>,
        reason: &Reason,
        revision: u64,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Marks each of the locked, active `orders` cancelled at `at`, for its reason, at
    /// the revision after the one it was locked at, as one statement.
    fn mark_all_cancelled(
        &mut self,
        orders: &[(TenantId, OrderId, &Reason)],
        at: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
