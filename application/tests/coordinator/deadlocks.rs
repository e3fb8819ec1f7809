//! A deadlock victim is rolled back whole by the server, so the coordinator runs the whole
//! transaction again, wherever in the transaction the deadlock was reported, COMMIT
//! included (how a Galera certification failure surfaces). Before each retry it reads the
//! record again, so a winner that finished meanwhile is replayed. Each test scripts the
//! deadlocked attempt and the retry; the scripted unit of work fails the test if either is
//! not begun, so "retried" is proven, not assumed.

use std::sync::Arc;

use application::ports::{CommitError, InsertRecordError, StoreError};
use application::{
    Coordinator, CoordinatorSettings, CreateOrder, FailureCause, Outcome, StepError,
};
use domain::OrderId;

use crate::support::*;

fn tx_deadlocking_on_record_insert() -> MockTx {
    let mut tx = MockTx::new();
    tx.expect_insert_processing()
        .times(1)
        .returning(|_| ready(Err(InsertRecordError::Store(StoreError::Deadlock))));
    expect_rollback_only(&mut tx);
    tx
}

/// A reader that finds nothing on each of `rereads` reads before a retry.
fn reader_finding_nothing_before(rereads: usize) -> MockReader {
    let mut reader = MockReader::new();
    reader
        .expect_find()
        .times(rereads)
        .returning(|_, _| ready(Ok(None)));
    reader
}

/// Runs one create after one deadlock and returns its outcome and how many deadlocks the
/// coordinator met.
async fn run(uow: ScriptedUnitOfWork) -> (CreateOutcome, u64) {
    let coordinator = coordinator(uow, reader_finding_nothing_before(1));
    let outcome = coordinator
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;
    (outcome, coordinator.deadlocks())
}

fn assert_executed_after_one_deadlock((outcome, deadlocks): &(CreateOutcome, u64)) {
    assert_executed_on_record_5(outcome);
    assert_eq!(*deadlocks, 1, "the deadlock is counted");
}

#[tokio::test]
async fn a_deadlock_on_the_order_insert_rolls_back_and_runs_the_whole_transaction_again() {
    let mut deadlocked = tx_inserting_record();
    deadlocked
        .expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Err(StepError::Store(StoreError::Deadlock))));
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

    let outcome = coordinator(uow, reader_finding_nothing_before(1))
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
}

/// A transaction that does all its work and then hears `error` at COMMIT.
fn tx_failing_at_commit(error: fn() -> CommitError) -> MockTx {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(8))));
    expect_event_added(&mut tx);
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(1)));
    tx.expect_commit()
        .times(1)
        .returning(move || ready(Err(error())));
    tx.expect_rollback().never();
    tx
}

/// A transaction that does all its work and then hears 1213 at COMMIT.
fn tx_rolled_back_at_commit() -> MockTx {
    tx_failing_at_commit(|| CommitError::RolledBack)
}

#[tokio::test]
async fn a_commit_rolled_back_by_the_server_runs_the_whole_transaction_again() {
    let ran = run(ScriptedUnitOfWork::of([
        tx_rolled_back_at_commit(),
        tx_committing(),
    ]))
    .await;

    assert_executed_after_one_deadlock(&ran);
}

#[tokio::test]
async fn after_a_commit_rolled_back_a_winner_that_finished_meanwhile_is_replayed() {
    let reader = reader_finding(Some(existing(
        &new_order(2),
        completed_state("{\"orderId\":\"7\"}"),
    )));
    // One transaction only: a second begin would fail the test.
    let coordinator = coordinator(ScriptedUnitOfWork::of([tx_rolled_back_at_commit()]), reader);

    let outcome = coordinator
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert!(matches!(outcome, Outcome::Replayed { .. }), "{outcome:?}");
    assert_eq!(coordinator.deadlocks(), 1);
}

#[tokio::test]
async fn a_commit_whose_answer_was_lost_stays_unknown_and_is_never_run_again() {
    let tx = tx_failing_at_commit(|| CommitError::CommitOutcomeUnknown("answer lost".into()));

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(application::UnknownCause::CommitOutcomeUnknown)
    );
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
    // A read before each of the two retries.
    let coordinator = Coordinator::new(
        uow,
        reader_finding_nothing_before(2),
        Arc::new(FixedClock(t0())),
        settings,
    );

    let outcome = coordinator
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::Failed(FailureCause::DeadlockRetriesExhausted)
    );
    assert_eq!(coordinator.deadlocks(), 3);
}
