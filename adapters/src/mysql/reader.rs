//! Reads outside the coordinator's transaction: the fresh record read and order reads.

use application::Order;
use application::ports::{OrderReader, Readiness, RecordReader, StoreError};
use domain::{ExistingRecord, IdempotencyKey, OrderId, Scope, TenantId};

use super::deadline::bounded;
use super::store::{self, MysqlStore};
use crate::sql::{orders, records};

impl RecordReader for MysqlStore {
    /// Checks out its own connection: never the one whose transaction just failed.
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
}

impl OrderReader for MysqlStore {
    async fn find_order(&self, tenant: TenantId, id: OrderId) -> Result<Option<Order>, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let found = bounded(deadline, "order read", orders::find(&mut *conn, tenant, id)).await;
        store::release(conn, &found);
        found
    }
}

impl Readiness for MysqlStore {
    async fn is_ready(&self) -> bool {
        self.ping().await
    }
}
