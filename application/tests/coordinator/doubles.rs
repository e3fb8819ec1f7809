//! Test doubles of the ports: mockall mocks, and a unit of work that hands out scripted
//! transactions.

use std::collections::VecDeque;
use std::future::Future;
use std::sync::Mutex;

use application::orders::{LockedOrder, OrderCancellations, OrderLocks};
use application::ports::{
    CommitError, Delivery, InboxTx, InsertRecordError, NewEvent, NewRecord, NewShipment,
    OrderRepository, OutboxWriter, RecordReader, RecordTx, ReplayAuthorizer, ShipmentRepository,
    ShipmentState, StoreError, UnitOfWork,
};
use application::{Caller, CreateRefusal, StepError};
use chrono::{DateTime, Utc};
use domain::{
    ClientOrderRef, Completion, ExistingRecord, IdempotencyKey, NewOrder, OperationState, OrderId,
    Reason, RecordId, Scope, TenantId,
};
use mockall::mock;
use uuid::Uuid;

mock! {
    pub(crate) Tx {}
    impl RecordTx for Tx {
        fn insert_processing(
            &mut self,
            record: &NewRecord,
        ) -> impl Future<Output = Result<RecordId, InsertRecordError>> + Send;
        fn savepoint(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;
        fn rollback_to_savepoint(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;
        fn complete(
            &mut self,
            id: RecordId,
            completion: &Completion,
        ) -> impl Future<Output = Result<u64, StoreError>> + Send;
        fn commit(self) -> impl Future<Output = Result<(), CommitError>> + Send;
        fn rollback(self) -> impl Future<Output = Result<(), StoreError>> + Send;
    }
    impl OrderRepository for Tx {
        fn insert_order(
            &mut self,
            tenant: TenantId,
            order: &NewOrder,
            created_at: DateTime<Utc>,
        ) -> impl Future<Output = Result<OrderId, StepError<CreateRefusal>>> + Send;
        fn reserve_order_ids(
            &mut self,
            count: usize,
        ) -> impl Future<Output = Result<Vec<OrderId>, StoreError>> + Send;
        fn insert_orders<'a>(
            &mut self,
            orders: &[(OrderId, TenantId, &'a NewOrder)],
            created_at: DateTime<Utc>,
        ) -> impl Future<Output = Result<(), StepError<CreateRefusal>>> + Send;
        fn taken_references<'a>(
            &mut self,
            references: &[(TenantId, &'a ClientOrderRef)],
        ) -> impl Future<Output = Result<Vec<bool>, StoreError>> + Send;
    }
    impl OrderLocks for Tx {
        fn lock_order(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> impl Future<Output = Result<Option<LockedOrder>, StoreError>> + Send;
        fn blocking_capture(
            &mut self,
            tenant: TenantId,
            order: OrderId,
        ) -> impl Future<Output = Result<Option<OperationState>, StoreError>> + Send;
    }
    impl OrderCancellations for Tx {
        fn mark_cancelled(
            &mut self,
            tenant: TenantId,
            order: OrderId,
            at: DateTime<Utc>,
            reason: &Reason,
            revision: u64,
        ) -> impl Future<Output = Result<(), StoreError>> + Send;
        fn mark_all_cancelled<'a>(
            &mut self,
            orders: &[(TenantId, OrderId, &'a Reason)],
            at: DateTime<Utc>,
        ) -> impl Future<Output = Result<(), StoreError>> + Send;
    }
    impl OutboxWriter for Tx {
        fn add_event(
            &mut self,
            event: &NewEvent,
        ) -> impl Future<Output = Result<(), StoreError>> + Send;
    }
    impl InboxTx for Tx {
        fn record_delivery(
            &mut self,
            consumer: &'static str,
            event: Uuid,
            at: DateTime<Utc>,
        ) -> impl Future<Output = Result<Delivery, StoreError>> + Send;
    }
    impl ShipmentRepository for Tx {
        fn insert_shipment(
            &mut self,
            shipment: &NewShipment,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn cancel_requested_shipment(
            &mut self,
            order: OrderId,
            sequence: u64,
        ) -> impl Future<Output = Result<bool, StoreError>> + Send;
        fn shipment_state(
            &mut self,
            order: OrderId,
        ) -> impl Future<Output = Result<Option<ShipmentState>, StoreError>> + Send;
    }
}

mock! {
    pub(crate) Reader {}
    impl RecordReader for Reader {
        fn find(
            &self,
            scope: &Scope,
            key: &IdempotencyKey,
        ) -> impl Future<Output = Result<Option<ExistingRecord>, StoreError>> + Send;
    }
}

mock! {
    pub(crate) Authorizer {}
    impl ReplayAuthorizer for Authorizer {
        fn may_replay(&self, caller: &Caller, permission: &str) -> bool;
    }
}

/// A unit of work that hands out prepared transactions in order; one `begin` more than
/// prepared panics, so a test that prepares one transaction proves a single execution.
/// Dropping it with a prepared result never begun panics too, so a test that scripts the
/// insert path proves that the path ran (and was not answered before it).
pub(crate) struct ScriptedUnitOfWork<T = MockTx> {
    txs: Mutex<VecDeque<Result<T, StoreError>>>,
}

impl<T> Drop for ScriptedUnitOfWork<T> {
    fn drop(&mut self) {
        let left = self.txs.get_mut().map_or(0, |txs| txs.len());
        if left > 0 && !std::thread::panicking() {
            panic!("{left} scripted transaction(s) never begun");
        }
    }
}

impl<T> ScriptedUnitOfWork<T> {
    pub(crate) fn new(txs: impl IntoIterator<Item = Result<T, StoreError>>) -> Self {
        Self {
            txs: Mutex::new(txs.into_iter().collect()),
        }
    }

    pub(crate) fn of(txs: impl IntoIterator<Item = T>) -> Self {
        Self::new(txs.into_iter().map(Ok))
    }
}

impl<T: RecordTx + Send> UnitOfWork for ScriptedUnitOfWork<T> {
    type Tx = T;

    fn begin(&self) -> impl Future<Output = Result<T, StoreError>> + Send {
        let next = self
            .txs
            .lock()
            .unwrap()
            .pop_front()
            .expect("begin called more often than the test allows");
        std::future::ready(next)
    }
}
