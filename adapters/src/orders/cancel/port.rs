//! The cancel's port on both stores' transactions: the single cancel's statements
//! (`sql.rs`) and a batch's (`batch_sql.rs`).

use application::orders::{LockedOrder, OrderCancellations};
use application::ports::StoreError;
use chrono::{DateTime, Utc};
use domain::{OperationState, OrderId, Reason, TenantId};

use super::{batch_sql, sql};
use crate::sql::both_stores::for_both_transactions;

for_both_transactions! {
    impl OrderCancellations {
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

        async fn mark_cancelled(
            &mut self,
            tenant: TenantId,
            order: OrderId,
            at: DateTime<Utc>,
            reason: &Reason,
            revision: u64,
        ) -> Result<(), StoreError> {
            self.run("order cancel", async |conn, _| {
                sql::mark_cancelled(conn, tenant, order, at, reason, revision).await
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
            self.run("captures lock", async |conn, _| {
                batch_sql::blocking_captures(conn, orders).await
            })
            .await
        }

        async fn mark_all_cancelled(
            &mut self,
            orders: &[(TenantId, OrderId, &Reason)],
            at: DateTime<Utc>,
        ) -> Result<(), StoreError> {
            self.run("orders cancel", async |conn, _| {
                batch_sql::mark_all_cancelled(conn, orders, at).await
            })
            .await
        }
    }
}
