//! An existing order read under its row lock, with the capture that keeps it as it is: what
//! an operation on an order decides on (a cancel, a capture's acceptance), one order at a
//! time or a batch's orders in one statement.

use std::collections::HashSet;
use std::future::Future;

use domain::{OperationState, OrderId, TenantId};

use super::Order;
use crate::ports::StoreError;

/// The order as it was found, locked until the transaction ends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LockedOrder {
    pub order: Order,
    pub revision: u64,
}

/// The locking reads, in the transaction of the operation that decides on them.
pub trait OrderLocks {
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

    /// [`OrderLocks::lock_order`] of each of `orders`, in their order, as one statement
    /// where the store can.
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

    /// [`OrderLocks::blocking_capture`] of each of `orders`, in their order, as one
    /// statement where the store can. Read under the orders' locks, it needs no lock of
    /// its own (a capture takes its order first).
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
}

/// An order of a batch as its locking reads found it: the order, its blocking capture
/// where the order is active, and whether this is the batch's first member on it (only
/// the first may be planned; a later one meets the first's write alone, after the batch).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundOrder {
    pub order: Option<LockedOrder>,
    pub capture: Option<OperationState>,
    pub first: bool,
}

/// Every one of `orders` (one per member, in the members' order) locked in one statement,
/// then the captures of the active ones in another: as alone, a capture is read only of
/// an order an operation could go on with.
///
/// # Errors
/// The store's, as the reads met them.
pub async fn lock_with_captures<Tx: OrderLocks + Send>(
    tx: &mut Tx,
    orders: &[(TenantId, OrderId)],
) -> Result<Vec<FoundOrder>, StoreError> {
    let found = tx.lock_orders(orders).await?;
    let active: Vec<(TenantId, OrderId)> = orders
        .iter()
        .zip(&found)
        .filter(|(_, found)| found.as_ref().is_some_and(|f| f.order.status.is_active()))
        .map(|(order, _)| *order)
        .collect();
    let captures = if active.is_empty() {
        Vec::new()
    } else {
        tx.blocking_captures(&active).await?
    };
    Ok(orders
        .iter()
        .zip(found)
        .zip(first_members(orders))
        .map(|((order, found), first)| FoundOrder {
            capture: active
                .iter()
                .position(|candidate| candidate == order)
                .and_then(|at| captures.get(at).copied().flatten()),
            order: found,
            first,
        })
        .collect())
}

/// For each of a batch's `orders` (one per member, in the members' order), whether it is
/// the first member on that order: only the first may be planned, a later one meets the
/// first's write when it runs alone after the batch.
#[must_use]
pub fn first_members(orders: &[(TenantId, OrderId)]) -> Vec<bool> {
    let mut seen = HashSet::new();
    orders.iter().map(|order| seen.insert(*order)).collect()
}
