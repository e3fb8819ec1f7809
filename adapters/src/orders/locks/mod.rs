//! The locking reads of an existing order and its blocking capture, on both stores'
//! transactions: one order's (`sql.rs`) and a batch's in one statement each (`batch_sql.rs`).

mod batch_sql;
mod sql;

use application::orders::{LockedOrder, OrderLocks};
use application::ports::StoreError;
use domain::{OperationState, OrderId, TenantId};

pub(crate) use batch_sql::order_pairs;

use crate::sql::both_stores::for_both_transactions;

/// The orders were locked and active: a write of them that changes fewer rows is a bug,
/// never a race.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("a locked, active order was not there to write")]
pub(crate) struct LockNotHeld;

/// A write of `expected` locked, active orders changed `changed` rows: all, or a bug.
pub(crate) fn all_written(changed: usize, expected: usize) -> Result<(), StoreError> {
    if changed == expected {
        Ok(())
    } else {
        Err(StoreError::Other(Box::new(LockNotHeld)))
    }
}

for_both_transactions! {
    impl OrderLocks {
        async fn lock_order(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> Result<Option<LockedOrder>, StoreError> {
            self.run("order lock", async |conn, _| sql::lock_order(conn, tenant, order).await)
                .await
        }

        async fn blocking_capture(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> Result<Option<OperationState>, StoreError> {
            self.run("capture lock", async |conn, _| {
                sql::blocking_capture(conn, tenant, order).await
            })
            .await
        }

        async fn lock_orders(
            &mut self,
            orders: &[(TenantId, OrderId)],
        ) -> Result<Vec<Option<LockedOrder>>, StoreError> {
            self.run("orders lock", async |conn, _| {
                batch_sql::lock_orders(conn, orders).await
            })
            .await
        }

        async fn blocking_captures(
            &mut self,
            orders: &[(TenantId, OrderId)],
        ) -> Result<Vec<Option<OperationState>>, StoreError> {
            self.run("captures read", async |conn, _| {
                batch_sql::blocking_captures(conn, orders).await
            })
            .await
        }
    }
}
