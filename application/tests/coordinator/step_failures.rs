//! Failures past the record insert that are neither a business refusal nor a deadlock:
//! each rolls the transaction back, is reported on its own, and never commits.

use std::sync::Arc;

use application::ports::StoreError;
use application::{
    CoordinatorSettings, CreateOrder, CreateRefusal, Execute, FailureCause, IdempotentOperation,
    Outcome, StepContext, StepError, UnknownCause,
};
use chrono::{DateTime, TimeDelta, Utc};
use domain::{NewOrder, OrderId, RetentionPolicy, StoredResponse};

use crate::support::*;

fn tx_completing_with(result: Result<u64, StoreError>) -> MockTx {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    expect_event_added(&mut tx);
    let result = std::sync::Mutex::new(Some(result));
    tx.expect_complete()
        .times(1)
        .returning(move |_, _| ready(result.lock().unwrap().take().unwrap()));
    expect_rollback_only(&mut tx);
    tx
}

async fn run_create(tx: MockTx) -> CreateOutcome {
    coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await
}

#[tokio::test]
async fn an_outbox_insert_that_fails_rolls_back_the_order_and_fails_with_the_storage_cause() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    tx.expect_add_event()
        .times(1)
        .returning(|_| ready(Err(StoreError::Other("outbox full".into()))));
    tx.expect_complete().never();
    expect_rollback_only(&mut tx);

    let outcome = run_create(tx).await;

    assert_eq!(
        outcome,
        Outcome::Failed(FailureCause::Store(StoreError::Other("outbox full".into())))
    );
}

#[tokio::test]
async fn a_completion_that_fails_rolls_back_and_fails_with_the_storage_cause() {
    let outcome = run_create(tx_completing_with(Err(StoreError::Other("full".into())))).await;

    assert_eq!(
        outcome,
        Outcome::Failed(FailureCause::Store(StoreError::Other("full".into())))
    );
}

#[tokio::test]
async fn a_completion_that_loses_the_connection_is_an_unknown_outcome() {
    let outcome = run_create(tx_completing_with(Err(StoreError::ConnectionLost(
        "connection reset".into(),
    ))))
    .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::DatabaseUnavailable)
    );
}

#[tokio::test]
async fn a_completion_held_past_the_lock_wait_is_in_progress() {
    let outcome = run_create(tx_completing_with(Err(StoreError::LockWaitTimeout))).await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_completion_whose_expiry_cannot_be_computed_rolls_back_before_completing() {
    // A clock at the end of representable time: the record's expiry overflows.
    let end_of_time = DateTime::<Utc>::MAX_UTC - TimeDelta::days(1);
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    expect_event_added(&mut tx);
    tx.expect_complete().never();
    expect_rollback_only(&mut tx);
    let settings = CoordinatorSettings {
        retention: RetentionPolicy::from_secs(86_400 * 30).unwrap(),
        ..CoordinatorSettings::default()
    };

    let outcome = application::Coordinator::new(
        ScriptedUnitOfWork::of([tx]),
        no_reads(),
        Arc::new(FixedClock(end_of_time)),
        settings,
    )
    .run(&CreateOrder, &caller(), &key(), &new_order(2))
    .await;

    assert!(
        matches!(outcome, Outcome::Failed(FailureCause::Internal(_))),
        "{outcome:?}"
    );
}

/// An operation whose business step cannot build its response.
struct Unbuildable;

impl IdempotentOperation for Unbuildable {
    const NAME: &'static str = "orders.create.v1";
    const PERMISSION: &'static str = "orders:create";
    type Input = NewOrder;
    type Refusal = CreateRefusal;
    type Reserved = ();
}

impl Execute<MockTx> for Unbuildable {
    async fn execute(
        &self,
        _tx: &mut MockTx,
        _context: StepContext,
        _input: &NewOrder,
    ) -> Result<StoredResponse, StepError<CreateRefusal>> {
        Err(StepError::Internal("no response".into()))
    }
}

#[tokio::test]
async fn an_internal_step_error_rolls_back_without_completing_and_fails() {
    let mut tx = tx_inserting_record();
    tx.expect_complete().never();
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&Unbuildable, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::Failed(FailureCause::Internal("no response".into()))
    );
}
