//! Lock waits, deadlocks and aborts: each classified on its own, never taken for a replay.

use std::sync::Arc;

use application::ports::{FlowHooks, HookVerdict, InsertOrderError, InsertRecordError, StoreError};
use application::{
    Coordinator, CoordinatorSettings, CreateOrder, FailureCause, Outcome, UnknownCause,
};
use domain::{IdempotencyKey, OrderId, Scope};

use crate::support::*;

fn tx_deadlocking_on_record_insert() -> MockTx {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::Store(StoreError::Deadlock))));
    expect_rollback_only(&mut tx);
    tx
}

fn tx_succeeding() -> MockTx {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    tx.expect_rollback().never();
    tx
}

#[tokio::test]
async fn a_lock_wait_timeout_on_the_record_insert_is_in_progress_without_a_fresh_read() {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::Store(StoreError::LockWaitTimeout))));
    tx.expect_insert_order().never();
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader_finding_nothing())
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_lock_wait_timeout_on_the_order_insert_rolls_back_and_is_in_progress() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Err(InsertOrderError::Store(StoreError::LockWaitTimeout))));
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader_finding_nothing())
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_deadlock_on_the_record_insert_is_retried_and_then_succeeds() {
    let uow = ScriptedUnitOfWork::of([tx_deadlocking_on_record_insert(), tx_succeeding()]);

    let outcome = coordinator(uow, reader_finding_nothing())
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;

    assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
}

#[tokio::test]
async fn a_deadlock_on_every_attempt_gives_up_after_the_bound() {
    let settings = CoordinatorSettings {
        max_attempts: 3,
        ..CoordinatorSettings::default()
    };
    let uow = ScriptedUnitOfWork::of([
        tx_deadlocking_on_record_insert(),
        tx_deadlocking_on_record_insert(),
        tx_deadlocking_on_record_insert(),
        // Offered but never begun: any call on it would panic as unexpected.
        MockTx::new(),
    ]);
    let coordinator = Coordinator::new(uow, reader_finding_nothing(), settings)
        .with_clock(Arc::new(FixedClock(t0())));

    let outcome = coordinator
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::Failed(FailureCause::DeadlockRetriesExhausted)
    );
}

#[tokio::test]
async fn a_lost_connection_during_the_transaction_is_an_unknown_outcome() {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::Store(StoreError::ConnectionLost))));
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader_finding_nothing())
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::DatabaseUnavailable)
    );
}

struct AbortingHooks;

impl FlowHooks for AbortingHooks {
    async fn after_record_insert(&self, _scope: &Scope, _key: &IdempotencyKey) -> HookVerdict {
        HookVerdict::Abort
    }
}

#[tokio::test]
async fn a_hook_abort_after_the_record_insert_rolls_everything_back() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order().never();
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader_finding_nothing())
        .with_hooks(AbortingHooks)
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Failed(FailureCause::Aborted));
}
