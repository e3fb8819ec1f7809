//! The unit of work: one pooled connection holding one open transaction.

use application::ports::{
    AcceptCaptureError, CommitError, Delivery, InboxTx, InsertOrderError, InsertRecordError,
    NewCapture, NewEvent, NewRecord, NewShipment, OperationWriter, OrderRepository, OutboxWriter,
    RecordTx, ShipmentRepository, StoreError, UnitOfWork,
};
use std::time::Duration;

use chrono::{DateTime, Utc};
use diesel_async::{
    AsyncConnection, AsyncMysqlConnection, SimpleAsyncConnection, TransactionManager,
};
use domain::{Completion, NewOrder, OrderId, RecordId, TenantId};
use tokio::time::{Instant, timeout_at};

use super::classify::{commit_error, store_error};
use super::deadline::{bounded, timed_out};
use super::insert_id::InsertIds;
use super::store::{MysqlStore, PooledConnection};
use crate::sql::tx_connection::{Detach, TxConnection};
use crate::sql::{accept_capture, inbox, orders, outbox, records};
use uuid::Uuid;

type Manager = <AsyncMysqlConnection as AsyncConnection>::TransactionManager;

/// An open transaction on a connection of its own ([`TxConnection`]: closed unless it
/// ends cleanly). A statement past its deadline ends the transaction the same way at
/// once: nothing more is sent on it.
#[derive(Debug)]
pub struct MysqlTx {
    conn: TxConnection<PooledConnection>,
    timeout: Duration,
    ids: InsertIds,
}

impl MysqlTx {
    pub(super) fn conn(&mut self) -> Result<&mut AsyncMysqlConnection, StoreError> {
        self.conn.get()
    }

    /// When a statement starting now must be done.
    pub(super) fn deadline(&self) -> Instant {
        Instant::now() + self.timeout
    }

    /// Passes a statement's result on; after one that ran out of time, discards the
    /// connection first, so the rollback that follows sends nothing on it.
    pub(super) fn settle<T, E: TimedOut>(&mut self, result: Result<T, E>) -> Result<T, E> {
        if result.as_ref().is_err_and(TimedOut::timed_out) {
            self.conn.discard();
        }
        result
    }
}

/// Whether an error says the statement's deadline passed.
pub(super) trait TimedOut {
    fn timed_out(&self) -> bool;
}

impl TimedOut for StoreError {
    fn timed_out(&self) -> bool {
        matches!(self, Self::Timeout)
    }
}

impl TimedOut for InsertRecordError {
    fn timed_out(&self) -> bool {
        matches!(self, Self::Store(StoreError::Timeout))
    }
}

impl TimedOut for AcceptCaptureError {
    fn timed_out(&self) -> bool {
        matches!(self, Self::Store(StoreError::Timeout))
    }
}

impl TimedOut for InsertOrderError {
    fn timed_out(&self) -> bool {
        matches!(self, Self::Store(StoreError::Timeout))
    }
}

impl UnitOfWork for MysqlStore {
    type Tx = MysqlTx;

    async fn begin(&self) -> Result<MysqlTx, StoreError> {
        self.begin_with(None).await
    }
}

impl MysqlStore {
    /// Begins a transaction, first running `setup` (for example `SET TRANSACTION
    /// ISOLATION LEVEL ...`, which applies to the next transaction only) when given.
    pub(super) async fn begin_with(&self, setup: Option<&str>) -> Result<MysqlTx, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let begun = bounded(deadline, "begin", async {
            if let Some(setup) = setup {
                conn.batch_execute(setup).await.map_err(store_error)?;
            }
            Manager::begin_transaction(&mut *conn)
                .await
                .map_err(store_error)
        });
        match begun.await {
            Ok(()) => Ok(MysqlTx {
                conn: TxConnection::new(conn),
                timeout: self.database_timeout(),
                ids: self.insert_ids(),
            }),
            Err(error) => {
                conn.detach();
                Err(error)
            }
        }
    }
}

impl RecordTx for MysqlTx {
    async fn insert_processing(
        &mut self,
        record: &NewRecord,
    ) -> Result<RecordId, InsertRecordError> {
        let (deadline, ids) = (self.deadline(), self.ids);
        let inserted = bounded(
            deadline,
            "record insert",
            records::insert_processing(self.conn()?, ids, record),
        )
        .await;
        self.settle(inserted)
    }

    async fn complete(&mut self, id: RecordId, completion: &Completion) -> Result<u64, StoreError> {
        let deadline = self.deadline();
        let completed = bounded(
            deadline,
            "record completion",
            records::complete(self.conn()?, id, completion),
        )
        .await;
        self.settle(completed)
    }

    async fn commit(mut self) -> Result<(), CommitError> {
        let Some(mut conn) = self.conn.take() else {
            return Err(CommitError::CommitOutcomeUnknown);
        };
        let deadline = self.deadline();
        match timeout_at(deadline, Manager::commit_transaction(&mut *conn)).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => {
                // After a 1213 the session is outside any transaction (a COMMIT sent
                // anyway would answer OK and commit nothing); the connection goes.
                conn.detach();
                Err(commit_error(error))
            }
            Err(_elapsed) => {
                let _ = timed_out("commit");
                conn.detach();
                Err(CommitError::CommitOutcomeUnknown)
            }
        }
    }

    async fn rollback(mut self) -> Result<(), StoreError> {
        let Some(mut conn) = self.conn.take() else {
            return Ok(());
        };
        let deadline = self.deadline();
        let rolled_back = bounded(deadline, "rollback", async {
            Manager::rollback_transaction(&mut *conn)
                .await
                .map_err(store_error)
        });
        match rolled_back.await {
            Ok(()) => Ok(()),
            Err(error) => {
                conn.detach();
                Err(error)
            }
        }
    }
}

impl OrderRepository for MysqlTx {
    async fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: DateTime<Utc>,
    ) -> Result<OrderId, InsertOrderError> {
        let (deadline, ids) = (self.deadline(), self.ids);
        let inserted = bounded(
            deadline,
            "order insert",
            orders::insert(self.conn()?, ids, tenant, order, created_at),
        )
        .await;
        self.settle(inserted)
    }
}

impl OperationWriter for MysqlTx {
    async fn accept_capture(&mut self, capture: &NewCapture) -> Result<(), AcceptCaptureError> {
        let deadline = self.deadline();
        let accepted = bounded(
            deadline,
            "operation insert",
            accept_capture::accept(self.conn()?, capture),
        )
        .await;
        self.settle(accepted)
    }
}

impl OutboxWriter for MysqlTx {
    async fn add_event(&mut self, event: &NewEvent) -> Result<(), StoreError> {
        let deadline = self.deadline();
        let added = bounded(
            deadline,
            "outbox insert",
            outbox::insert_event(self.conn()?, event),
        )
        .await;
        self.settle(added)
    }
}

impl InboxTx for MysqlTx {
    async fn record_delivery(
        &mut self,
        consumer: &'static str,
        event: Uuid,
        at: DateTime<Utc>,
    ) -> Result<Delivery, StoreError> {
        let deadline = self.deadline();
        let recorded = bounded(
            deadline,
            "inbox insert",
            inbox::record_delivery(self.conn()?, consumer, &event, at.naive_utc()),
        )
        .await;
        self.settle(recorded)
    }
}

impl ShipmentRepository for MysqlTx {
    async fn insert_shipment(&mut self, shipment: &NewShipment) -> Result<(), StoreError> {
        let deadline = self.deadline();
        let inserted = bounded(
            deadline,
            "shipment insert",
            inbox::insert_shipment(self.conn()?, shipment),
        )
        .await;
        self.settle(inserted)
    }
}
