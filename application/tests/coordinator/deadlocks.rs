//! A deadlock victim is rolled back whole by the server, so the coordinator runs the whole
//! transaction again, wherever in the transaction the deadlock was reported. Each test
//! scripts the deadlocked attempt and the retry; the scripted unit of work fails the test
//! if either is not begun, so "retried" is proven, not assumed.

use std::sync::Arc;

use application::ports::{InsertOrderError, InsertRecordError, StoreError};
use application::{Coordinator, CoordinatorSettings, CreateOrder, FailureCause, Outcome};
use domain::{OrderId, RecordId};

use crate::support::*;

fn tx_deadlocking_on_record_insert() -> MockTx {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::Store(StoreError::Deadlock))));
    expect_rollback_only(&mut tx);
    tx
}

/// Runs one create and returns its outcome and how many deadlocks the coordinator met.
async fn run(uow: ScriptedUnitOfWork) -> (Outcome, u64) {
    let coordinator = coordinator(uow, reader_finding_nothing());
    let outcome = coordinator
        .run(&CreateOrder::default(), &caller(), &key(), &new_order(2))
        .await;
    (outcome, coordinator.deadlocks())
}

fn assert_executed_after_one_deadlock((outcome, deadlocks): &(Outcome, u64)) {
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
    assert_eq!(*deadlocks, 1, "the deadlock is counted");
}

#[tokio::test]
async fn a_deadlock_on_the_order_insert_rolls_back_and_runs_the_whole_transaction_again() {
    let mut deadlocked = tx_inserting_record();
    deadlocked
        .expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Err(InsertOrderError::Store(StoreError::Deadlock))));
    deadlocked.expect_complete().never();
    expect_rollback_only(&mut deadlocked);

    let ran = run(ScriptedUnitOfWork::of([deadlocked, tx_committing()])).await;

    assert_executed_after_one_deadlock(&ran);
}

#[tokio::test]
async fn a_deadlock_on_the_completion_rolls_back_and_runs_the_whole_transaction_again() {
    let mut deadlocked = tx_inserting_record();
    deadlocked
        .expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(8))));
    expect_event_added(&mut deadlocked);
    deadlocked
        .expect_complete()
        .times(1)
        .returning(|_, _| ready(Err(StoreError::Deadlock)));
    expect_rollback_only(&mut deadlocked);

    let ran = run(ScriptedUnitOfWork::of([deadlocked, tx_committing()])).await;

    assert_executed_after_one_deadlock(&ran);
    let (Outcome::Executed { response, .. }, _) = ran else {
        unreachable!()
    };
    assert_eq!(
        response.location(),
        Some("/api/orders/9"),
        "the answer is the retry's order, not the rolled-back one"
    );
}

#[tokio::test]
async fn a_deadlock_reported_by_begin_is_retried() {
    let uow = ScriptedUnitOfWork::new([Err(StoreError::Deadlock), Ok(tx_committing())]);

    let ran = run(uow).await;

    assert_executed_after_one_deadlock(&ran);
}

#[tokio::test]
async fn a_deadlock_on_the_record_insert_is_retried_and_then_succeeds() {
    let uow = ScriptedUnitOfWork::of([tx_deadlocking_on_record_insert(), tx_committing()]);

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
    // Exactly three transactions: a fourth begin panics, and one never begun fails too.
    let uow = ScriptedUnitOfWork::of([
        tx_deadlocking_on_record_insert(),
        tx_deadlocking_on_record_insert(),
        tx_deadlocking_on_record_insert(),
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
    assert_eq!(coordinator.deadlocks(), 3);
}
