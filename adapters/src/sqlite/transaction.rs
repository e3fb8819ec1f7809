//! The unit of work: one pooled connection holding one `BEGIN IMMEDIATE` transaction.

use application::ports::{
    AcceptCaptureError, CommitError, Delivery, InboxTx, InsertOrderError, InsertRecordError,
    NewCapture, NewEvent, NewRecord, NewShipment, OperationWriter, OrderRepository, OutboxWriter,
    RecordTx, ShipmentRepository, StoreError, UnitOfWork,
};
use chrono::{DateTime, Utc};
use diesel_async::SimpleAsyncConnection;
use domain::{Completion, NewOrder, OrderId, RecordId, TenantId};

use super::classify::store_error;
use super::store::{Connection, PooledConnection, SqliteStore};
use crate::sql::tx_connection::{Detach, TxConnection};
use crate::sql::{accept_capture, inbox, orders, outbox, records};
use uuid::Uuid;

/// An open write transaction on a connection of its own ([`TxConnection`]: closed, which
/// rolls it back, unless it ends cleanly).
///
/// `IMMEDIATE` takes the write lock at `BEGIN`: a second writer waits there (up to the
/// busy timeout) instead of failing later when a read lock cannot be upgraded.
#[derive(Debug)]
pub struct SqliteTx {
    conn: TxConnection<PooledConnection>,
}

impl SqliteTx {
    pub(super) fn conn(&mut self) -> Result<&mut Connection, StoreError> {
        self.conn.get()
    }

    /// Runs COMMIT or ROLLBACK; on failure the connection is discarded.
    async fn finish(&mut self, statement: &str) -> Result<(), StoreError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        match conn.batch_execute(statement).await {
            Ok(()) => Ok(()),
            Err(error) => {
                conn.detach();
                Err(store_error(error))
            }
        }
    }
}

impl UnitOfWork for SqliteStore {
    type Tx = SqliteTx;

    async fn begin(&self) -> Result<SqliteTx, StoreError> {
        let mut conn = self.connection().await?;
        let waiting = self.waiting_writer();
        let begun = conn.batch_execute("BEGIN IMMEDIATE").await;
        drop(waiting);
        match begun {
            Ok(()) => Ok(SqliteTx {
                conn: TxConnection::new(conn),
            }),
            Err(error) => Err(store_error(error)),
        }
    }
}

impl RecordTx for SqliteTx {
    async fn insert_processing(
        &mut self,
        record: &NewRecord,
    ) -> Result<RecordId, InsertRecordError> {
        records::insert_processing(self.conn()?, (), record).await
    }

    async fn complete(&mut self, id: RecordId, completion: &Completion) -> Result<u64, StoreError> {
        records::complete(self.conn()?, id, completion).await
    }

    async fn commit(mut self) -> Result<(), CommitError> {
        self.finish("COMMIT")
            .await
            .map_err(|_| CommitError::CommitOutcomeUnknown)
    }

    async fn rollback(mut self) -> Result<(), StoreError> {
        self.finish("ROLLBACK").await
    }
}

impl OrderRepository for SqliteTx {
    async fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: DateTime<Utc>,
    ) -> Result<OrderId, InsertOrderError> {
        orders::insert(self.conn()?, (), tenant, order, created_at).await
    }
}

impl OperationWriter for SqliteTx {
    async fn accept_capture(&mut self, capture: &NewCapture) -> Result<(), AcceptCaptureError> {
        accept_capture::accept(self.conn()?, capture).await
    }
}

impl OutboxWriter for SqliteTx {
    async fn add_event(&mut self, event: &NewEvent) -> Result<(), StoreError> {
        outbox::insert_event(self.conn()?, event).await
    }
}

impl InboxTx for SqliteTx {
    async fn record_delivery(
        &mut self,
        consumer: &'static str,
        event: Uuid,
        at: DateTime<Utc>,
    ) -> Result<Delivery, StoreError> {
        inbox::record_delivery(self.conn()?, consumer, &event, at.naive_utc()).await
    }
}

impl ShipmentRepository for SqliteTx {
    async fn insert_shipment(&mut self, shipment: &NewShipment) -> Result<(), StoreError> {
        inbox::insert_shipment(self.conn()?, shipment).await
    }
}
