//! Small builders shared by the coordinator tests, beside the test doubles they use.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use application::ports::{
    Clock, FlowHooks, HookVerdict, InsertRecordError, KeyPoint, NoHooks, RecordTx, StoreError,
};
use application::{
    Caller, Coordinator, CoordinatorSettings, CreateOrder, CreateRefusal, InFlight, Outcome,
    StepError,
};
use chrono::{DateTime, Utc};
use domain::{
    ActorId, ClientOrderRef, Completion, ExistingRecord, Fingerprinted, IdempotencyKey, NewOrder,
    Operation, OrderId, Quantity, RecordId, RecordState, RetentionPolicy, Scope, Sku,
    StoredResponse, TenantId,
};
use mockall::Sequence;
use tokio::sync::Semaphore;

pub(crate) use crate::doubles::*;

pub(crate) struct FixedClock(pub DateTime<Utc>);

impl Clock for FixedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0
    }
}

pub(crate) fn t0() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 123_456_000).unwrap()
}

pub(crate) fn caller() -> Caller {
    Caller::new(
        TenantId::parse(7).unwrap(),
        ActorId::parse(42).unwrap(),
        "orders:create orders:read",
    )
}

pub(crate) fn key() -> IdempotencyKey {
    IdempotencyKey::parse("key-1").unwrap()
}

pub(crate) fn new_order(quantity: i64) -> NewOrder {
    NewOrder {
        client_order_ref: ClientOrderRef::parse("REF-1").unwrap(),
        sku: Sku::parse("SKU-1").unwrap(),
        quantity: Quantity::parse(quantity).unwrap(),
    }
}

pub(crate) fn create_v1() -> Operation {
    Operation::parse("orders.create.v1").unwrap()
}

pub(crate) fn stored_response(body: &str) -> StoredResponse {
    StoredResponse::new(
        201,
        "application/json".into(),
        Some("/api/orders/9".into()),
        body.as_bytes().to_vec(),
    )
    .unwrap()
}

/// A record as the fresh read returns it, created by `original`.
pub(crate) fn existing(original: &NewOrder, state: RecordState) -> ExistingRecord {
    ExistingRecord {
        id: RecordId(5),
        fingerprint: original.fingerprint(&create_v1()),
        state,
    }
}

/// What running a create comes to.
pub(crate) type CreateOutcome = Outcome<CreateRefusal>;

pub(crate) fn completed_state(body: &str) -> RecordState {
    RecordState::Completed(
        Completion::new(stored_response(body), t0(), RetentionPolicy::default()).unwrap(),
    )
}

pub(crate) fn coordinator<T: RecordTx + Send>(
    uow: ScriptedUnitOfWork<T>,
    reader: MockReader,
) -> Coordinator<ScriptedUnitOfWork<T>, MockReader> {
    Coordinator::new(
        uow,
        reader,
        Arc::new(FixedClock(t0())),
        CoordinatorSettings::default(),
    )
}

/// A reader never read: a new key goes straight to the insert, and nothing else reads.
pub(crate) fn no_reads() -> MockReader {
    let mut reader = MockReader::new();
    reader.expect_find().never();
    reader
}

/// A reader whose one read answers `found`.
pub(crate) fn reader_finding(found: Option<ExistingRecord>) -> MockReader {
    let mut reader = MockReader::new();
    let found = Mutex::new(Some(found));
    reader
        .expect_find()
        .times(1)
        .returning(move |_, _| ready(Ok(found.lock().unwrap().take().flatten())));
    reader
}

/// A transaction whose record insert hits the scope key, then is rolled back, in `seq`.
pub(crate) fn tx_hitting_the_key_in(seq: &mut Sequence) -> MockTx {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .in_sequence(seq)
        .returning(|_| ready(Err(InsertRecordError::KeyAlreadyRegistered)));
    tx.expect_rollback()
        .times(1)
        .in_sequence(seq)
        .returning(|| ready(Ok(())));
    tx.expect_insert_order().never();
    tx.expect_complete().never();
    tx.expect_commit().never();
    tx
}

/// A retry's transaction: its record insert hits the scope key, then is rolled back.
pub(crate) fn tx_hitting_the_key() -> MockTx {
    tx_hitting_the_key_in(&mut Sequence::new())
}

pub(crate) fn ready<T: Send + 'static>(
    value: T,
) -> std::pin::Pin<Box<dyn Future<Output = T> + Send>> {
    Box::pin(std::future::ready(value))
}

/// A transaction whose record insert succeeds with record id 5.
pub(crate) fn tx_inserting_record() -> MockTx {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Ok(RecordId(5))));
    tx
}

/// A transaction that runs to the end (order 9) and commits.
pub(crate) fn tx_committing() -> MockTx {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    expect_event_added(&mut tx);
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    tx.expect_rollback().never();
    tx
}

/// The outcome of a transaction that ran to the end on record 5 (see [`tx_committing`]).
pub(crate) fn assert_executed_on_record_5(outcome: &CreateOutcome) {
    assert!(
        matches!(
            outcome,
            Outcome::Executed {
                record: RecordId(5),
                ..
            }
        ),
        "{outcome:?}"
    );
}

/// Runs one create whose order insert fails with `error`; the transaction must be rolled
/// back, never completed or committed.
pub(crate) async fn create_with_order_insert_failing(error: StoreError) -> CreateOutcome {
    let mut tx = tx_inserting_record();
    let error = Mutex::new(Some(error));
    tx.expect_insert_order().times(1).returning(move |_, _, _| {
        ready(Err(StepError::Store(error.lock().unwrap().take().unwrap())))
    });
    tx.expect_complete().never();
    expect_rollback_only(&mut tx);
    coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await
}

/// The order's event is written once, after the order.
pub(crate) fn expect_event_added(tx: &mut MockTx) {
    tx.expect_add_event().times(1).returning(|_| ready(Ok(())));
}

/// A transaction expected to be rolled back exactly once and never committed.
pub(crate) fn expect_rollback_only(tx: &mut MockTx) {
    tx.expect_rollback().times(1).returning(|| ready(Ok(())));
    tx.expect_commit().never();
}

/// Waits for real (tokio's clock, paused in these tests), as the server's clock does.
pub(crate) struct SleepingClock;

impl Clock for SleepingClock {
    fn now(&self) -> DateTime<Utc> {
        t0()
    }

    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// Holds every request after its record insert until the test lets one through.
#[derive(Clone)]
pub(crate) struct Gate(Arc<Semaphore>);

impl Gate {
    pub(crate) fn closed() -> Self {
        Self(Arc::new(Semaphore::new(0)))
    }

    pub(crate) fn open(&self, requests: usize) {
        self.0.add_permits(requests);
    }
}

impl FlowHooks for Gate {
    async fn at_key(&self, point: KeyPoint, _scope: &Scope, _key: &IdempotencyKey) -> HookVerdict {
        if point != KeyPoint::RecordInserted {
            return HookVerdict::Continue;
        }
        match self.0.acquire().await {
            Ok(permit) => permit.forget(),
            Err(_closed) => return HookVerdict::Abort,
        }
        HookVerdict::Continue
    }
}

/// As the server runs it: same-key requests wait in memory, the clock waits for real.
pub(crate) fn in_one_process<T: RecordTx + Send, F>(
    coordinator: Coordinator<ScriptedUnitOfWork<T>, MockReader, NoHooks, F>,
    gate: &Gate,
) -> Coordinator<ScriptedUnitOfWork<T>, MockReader, Gate, F> {
    coordinator
        .with_clock(Arc::new(SleepingClock))
        .with_in_flight(Arc::new(InFlight::new()))
        .with_hooks(gate.clone())
}
