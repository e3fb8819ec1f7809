//! Reads outside the coordinator's transaction: the fresh record read, order and
//! operation reads.

use application::Order;
use application::ports::{
    OperationReader, OperationView, OrderReader, Readiness, RecordReader, StoreError,
};
use domain::{ExistingRecord, IdempotencyKey, OrderId, Scope, TenantId};

use diesel::OptionalExtension;
use diesel_async::RunQueryDsl;

use super::causal::CausalRead;
use super::classify::store_error;
use super::deadline::bounded;
use super::store::{self, MysqlStore};
use crate::sql::operation_view::{self, OperationRow};
use crate::sql::rows::{OrderRow, RecordRow};
use crate::sql::{orders, records};
use uuid::Uuid;

impl RecordReader for MysqlStore {
    /// Checks out its own connection: never the one whose transaction just failed. Never
    /// waits for causality, even on Galera: this is the fast path's read, where a miss
    /// only costs the slow path (the insert, which the cluster certifies).
    async fn find(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> Result<Option<ExistingRecord>, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let found = bounded(
            deadline,
            "record read",
            records::find(&mut *conn, scope, key),
        )
        .await;
        store::release(conn, &found);
        found
    }

    /// On a Galera node, waits for every write set committed in the cluster first.
    async fn find_causal(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> Result<Option<ExistingRecord>, StoreError> {
        if !self.causal_reads() {
            return self.find(scope, key).await;
        }
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let found = bounded(deadline, "causal record read", async {
            let row: Option<RecordRow> = CausalRead(records::find_query(scope, key)?)
                .get_result(&mut *conn)
                .await
                .optional()
                .map_err(store_error)?;
            row.map(RecordRow::into_record).transpose()
        })
        .await;
        store::release(conn, &found);
        found
    }
}

impl OrderReader for MysqlStore {
    /// Causal on a Galera node: an order created through another node a moment ago is
    /// found, never answered `404`.
    async fn find_order(&self, tenant: TenantId, id: OrderId) -> Result<Option<Order>, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let causal = self.causal_reads();
        let found = bounded(deadline, "order read", async {
            if !causal {
                return orders::find(&mut *conn, tenant, id).await;
            }
            let row: Option<OrderRow> = CausalRead(orders::find_query(tenant, id)?)
                .get_result(&mut *conn)
                .await
                .optional()
                .map_err(store_error)?;
            row.map(OrderRow::into_order).transpose()
        })
        .await;
        store::release(conn, &found);
        found
    }
}

impl OperationReader for MysqlStore {
    /// Causal on a Galera node, like the order read: an operation accepted through
    /// another node a moment ago is found.
    async fn find_operation(
        &self,
        tenant: TenantId,
        id: Uuid,
    ) -> Result<Option<OperationView>, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let causal = self.causal_reads();
        let found = bounded(deadline, "operation read", async {
            if !causal {
                return operation_view::find(&mut *conn, tenant, id).await;
            }
            let row: Option<OperationRow> = CausalRead(operation_view::find_query(tenant, id)?)
                .get_result(&mut *conn)
                .await
                .optional()
                .map_err(store_error)?;
            row.map(OperationRow::into_view).transpose()
        })
        .await;
        store::release(conn, &found);
        found
    }
}

impl Readiness for MysqlStore {
    async fn is_ready(&self) -> bool {
        self.ping().await
    }
}
