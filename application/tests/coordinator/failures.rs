//! Lock waits, lost connections and aborts: each classified on its own, never taken for a
//! replay. Deadlocks have a file of their own.

use application::ports::{FlowHooks, HookVerdict, InsertRecordError, KeyPoint, StoreError};
use application::{CreateOrder, FailureCause, Outcome, UnknownCause};
use domain::{IdempotencyKey, Scope};

use crate::support::*;

#[tokio::test]
async fn a_lock_wait_timeout_on_the_record_insert_is_in_progress_without_a_fresh_read() {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::Store(StoreError::LockWaitTimeout))));
    tx.expect_insert_order().never();
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_lock_wait_timeout_on_the_order_insert_rolls_back_and_is_in_progress() {
    let outcome = create_with_order_insert_failing(StoreError::LockWaitTimeout).await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_lost_connection_during_the_transaction_is_an_unknown_outcome() {
    let mut tx = MockTx::new();
    tx.expect_insert_processing().times(1).returning(|_| {
        ready(Err(InsertRecordError::Store(StoreError::ConnectionLost(
            "connection reset".into(),
        ))))
    });
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::DatabaseUnavailable)
    );
}

struct AbortingHooks;

impl FlowHooks for AbortingHooks {
    async fn at_key(&self, point: KeyPoint, _scope: &Scope, _key: &IdempotencyKey) -> HookVerdict {
        if point == KeyPoint::RecordInserted {
            HookVerdict::Abort
        } else {
            HookVerdict::Continue
        }
    }
}

#[tokio::test]
async fn a_hook_abort_after_the_record_insert_rolls_everything_back() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order().never();
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .with_hooks(AbortingHooks)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Failed(FailureCause::Aborted));
}

#[tokio::test]
async fn a_statement_past_the_database_deadline_is_an_unknown_outcome() {
    let outcome = create_with_order_insert_failing(StoreError::Timeout).await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::DatabaseTimeout)
    );
}
