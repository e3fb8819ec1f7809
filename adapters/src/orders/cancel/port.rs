//! The cancel's port on both stores' transactions: the single cancel's write (`sql.rs`)
//! and a batch's (`batch_sql.rs`), after the locking reads (`orders/locks`).

use application::orders::OrderCancellations;
use application::ports::StoreError;
use chrono::{DateTime, Utc};
use domain::{OrderId, Reason, TenantId};

use super::{batch_sql, sql};
use crate::sql::both_stores::for_both_transactions;

for_both_transactions! {
    impl OrderCancellations {
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
