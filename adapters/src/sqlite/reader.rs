//! Reads outside the coordinator's transaction: the fresh record read, order and
//! operation reads, and the readiness probe.

use application::Order;
use application::ports::{
    OperationReader, OperationView, OrderReader, Readiness, RecordReader, StoreError,
};
use domain::{ExistingRecord, IdempotencyKey, OrderId, Scope, TenantId};

use super::store::SqliteStore;
use crate::sql::{operation_view, orders, records};
use uuid::Uuid;

impl RecordReader for SqliteStore {
    /// Checks out its own connection: never the one whose transaction just failed.
    async fn find(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> Result<Option<ExistingRecord>, StoreError> {
        let mut conn = self.connection().await?;
        records::find(&mut *conn, scope, key).await
    }
}

impl OrderReader for SqliteStore {
    async fn find_order(&self, tenant: TenantId, id: OrderId) -> Result<Option<Order>, StoreError> {
        let mut conn = self.connection().await?;
        orders::find(&mut *conn, tenant, id).await
    }
}

impl OperationReader for SqliteStore {
    async fn find_operation(
        &self,
        tenant: TenantId,
        id: Uuid,
    ) -> Result<Option<OperationView>, StoreError> {
        let mut conn = self.connection().await?;
        operation_view::find(&mut *conn, tenant, id).await
    }
}

impl Readiness for SqliteStore {
    async fn is_ready(&self) -> bool {
        self.ping().await
    }
}
