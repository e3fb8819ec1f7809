//! Batched creates (`docs/storage.md#batched-operations`), each on a batch of a known size
//! (`batch_harness`).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use application::ports::{CommitError, InsertRecordError, StoreError};
use application::{CreateRefusal, Outcome, RerunCause, StepError, UnknownCause};
use domain::{OrderId, RecordId, RecordState};

use crate::batch_harness::*;
use crate::support::*;

#[tokio::test]
async fn a_batch_commits_once_and_answers_each_member_its_own_record_and_order() {
    let mut batch = batch_writing();
    batch.expect_commit().times(1).returning(|| ready(Ok(())));
    batch.expect_rollback().never();

    let (outcomes, counted) = batch_of_members(batch, []).await;

    for (n, outcome) in outcomes.iter().enumerate() {
        let Outcome::Executed { record, response } = outcome else {
            panic!("member {n}: {outcome:?}");
        };
        assert_eq!(*record, RecordId(10 + n as u64));
        assert_eq!(response.status(), 201);
        assert_eq!(
            response.location(),
            Some(format!("/api/orders/{}", 20 + n).as_str())
        );
    }
    assert_eq!(*counted.ran.lock().unwrap(), [MEMBERS]);
    assert!(counted.reruns.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_taken_key_in_a_batch_rolls_it_back_and_runs_every_member_alone() {
    let mut batch = batch_reserving();
    let calls = AtomicUsize::new(0);
    batch
        .expect_insert_processing()
        .times(2)
        .returning(move |_| {
            if calls.fetch_add(1, Ordering::SeqCst) == 0 {
                ready(Ok(RecordId(10)))
            } else {
                ready(Err(InsertRecordError::KeyAlreadyRegistered))
            }
        });
    batch
        .expect_complete()
        .times(1)
        .returning(|_, _| ready(Ok(1)));
    batch.expect_insert_orders().never();
    expect_rollback_only(&mut batch);

    let (outcomes, counted) = batch_of_members(batch, members_alone()).await;

    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::KeyTaken, MEMBERS)]
    );
    assert!(counted.ran.lock().unwrap().is_empty());
}

/// Makes a step's failure afresh for each case.
type Failure = fn() -> StepError<CreateRefusal>;

/// A batch whose orders' insert fails with `error`: what it was counted as, and the
/// members' outcomes.
async fn batch_with_order_insert_failing(
    error: StepError<CreateRefusal>,
    alone: Vec<MockTx>,
) -> (Vec<CreateOutcome>, Arc<Counted>) {
    let mut batch = batch_inserting_records();
    let error = Mutex::new(Some(error));
    batch
        .expect_insert_orders()
        .times(1)
        .returning(move |_, _| ready(Err(error.lock().unwrap().take().unwrap())));
    expect_rollback_only(&mut batch);
    batch_of_members(batch, alone).await
}

#[tokio::test]
async fn a_refusal_lock_wait_deadlock_or_other_failure_in_a_batch_reruns_every_member_alone() {
    let cases: [(Failure, RerunCause); 4] = [
        (
            || StepError::Rejected(CreateRefusal::ClientOrderRefConflict),
            RerunCause::Refused,
        ),
        (
            || StepError::Store(StoreError::LockWaitTimeout),
            RerunCause::LockWaitTimeout,
        ),
        (
            || StepError::Store(StoreError::Deadlock),
            RerunCause::Deadlock,
        ),
        (
            || StepError::Store(StoreError::Other("disk full".into())),
            RerunCause::Failed,
        ),
    ];
    for (error, cause) in cases {
        let (outcomes, counted) = batch_with_order_insert_failing(error(), members_alone()).await;
        each_ran_alone(&outcomes);
        assert_eq!(
            *counted.reruns.lock().unwrap(),
            [(cause, MEMBERS)],
            "{cause:?}"
        );
    }
}

#[tokio::test]
async fn a_lost_connection_or_a_timeout_in_a_batch_answers_every_member_unknown_with_no_rerun() {
    let cases: [(fn() -> StoreError, UnknownCause); 2] = [
        (
            || StoreError::ConnectionLost("reset".into()),
            UnknownCause::DatabaseUnavailable,
        ),
        (|| StoreError::Timeout, UnknownCause::DatabaseTimeout),
    ];
    for (error, cause) in cases {
        let (outcomes, counted) =
            batch_with_order_insert_failing(StepError::Store(error()), vec![]).await;
        for outcome in &outcomes {
            assert!(
                matches!(outcome, Outcome::OutcomeUnknown(c) if *c == cause),
                "{outcome:?}"
            );
        }
        assert_eq!(*counted.ran.lock().unwrap(), [MEMBERS]);
        assert!(counted.reruns.lock().unwrap().is_empty());
    }
}

#[tokio::test]
async fn a_record_inserted_but_not_completed_rolls_the_batch_back_and_reruns_it() {
    let mut batch = batch_reserving();
    let next = AtomicU64::new(10);
    batch
        .expect_insert_processing()
        .times(2)
        .returning(move |_| ready(Ok(RecordId(next.fetch_add(1, Ordering::SeqCst)))));
    let calls = AtomicUsize::new(0);
    batch
        .expect_complete()
        .times(2)
        .returning(move |_, _| ready(Ok(u64::from(calls.fetch_add(1, Ordering::SeqCst) == 0))));
    batch.expect_insert_orders().never();
    expect_rollback_only(&mut batch);

    let (outcomes, counted) = batch_of_members(batch, members_alone()).await;

    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::Failed, MEMBERS)]
    );
}

#[tokio::test]
async fn a_reservation_that_fails_rolls_the_batch_back_before_any_row() {
    let mut batch = MockTx::new();
    batch
        .expect_reserve_order_ids()
        .times(1)
        .returning(|_| ready(Err(StoreError::Deadlock)));
    batch.expect_insert_processing().never();
    expect_rollback_only(&mut batch);

    let (outcomes, counted) = batch_of_members(batch, members_alone()).await;

    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::Deadlock, MEMBERS)]
    );
}

#[tokio::test]
async fn a_lost_commit_answers_every_member_unknown_and_one_rolled_back_reruns_them() {
    let mut lost = batch_writing();
    lost.expect_commit()
        .times(1)
        .returning(|| ready(Err(CommitError::CommitOutcomeUnknown("gone".into()))));
    let (outcomes, counted) = batch_of_members(lost, []).await;
    for outcome in &outcomes {
        assert!(
            matches!(
                outcome,
                Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown)
            ),
            "{outcome:?}"
        );
    }
    assert_eq!(*counted.ran.lock().unwrap(), [MEMBERS]);

    let mut certified_away = batch_writing();
    certified_away
        .expect_commit()
        .times(1)
        .returning(|| ready(Err(CommitError::RolledBack)));
    let (outcomes, counted) = batch_of_members(certified_away, members_alone()).await;
    each_ran_alone(&outcomes);
    assert_eq!(
        *counted.reruns.lock().unwrap(),
        [(RerunCause::RolledBackAtCommit, MEMBERS)]
    );
}

/// The batch's one read of its keys answers a COMPLETED record from it and leaves a
/// running one to its member's own run: only the member without a record is written.
#[tokio::test]
async fn a_batch_answers_keys_it_finds_from_their_records_and_writes_only_the_new_one() {
    let mut batch = MockTx::new();
    batch
        .expect_reserve_order_ids()
        .times(1)
        .returning(|count| {
            assert_eq!(count, 1, "one member to write");
            ready(Ok(vec![OrderId::new(20)]))
        });
    batch
        .expect_insert_processing()
        .times(1)
        .returning(|record| {
            assert_eq!(record.key.as_str(), "member-2");
            ready(Ok(RecordId(10)))
        });
    batch
        .expect_complete()
        .times(1)
        .returning(|_, _| ready(Ok(1)));
    batch
        .expect_insert_orders()
        .times(1)
        .returning(|_, _| ready(Ok(())));
    expect_event_added(&mut batch);
    batch.expect_commit().times(1).returning(|| ready(Ok(())));
    batch.expect_rollback().never();
    let found = |member| match member {
        0 => Some(existing(
            &member_order("member-0"),
            completed_state("{\"replayed\":true}"),
        )),
        1 => Some(existing(&member_order("member-1"), RecordState::Processing)),
        _ => None,
    };

    let (outcomes, counted) = batch_of_members_finding(found, Some(batch), [tx_committing()]).await;

    let Outcome::Replayed { response, .. } = &outcomes[0] else {
        panic!("{outcomes:?}");
    };
    assert_eq!(response.body(), b"{\"replayed\":true}");
    assert_executed_on_record_5(&outcomes[1]);
    assert!(
        matches!(
            outcomes[2],
            Outcome::Executed {
                record: RecordId(10),
                ..
            }
        ),
        "{outcomes:?}"
    );
    assert_eq!(*counted.ran.lock().unwrap(), [1]);
    assert!(counted.reruns.lock().unwrap().is_empty());
}

/// Every key found COMPLETED: answered from the read, no transaction begun.
#[tokio::test]
async fn a_batch_of_replays_costs_its_one_read_and_no_transaction() {
    let found = |n| {
        let order = member_order(&format!("member-{n}"));
        Some(existing(&order, completed_state("{}")))
    };
    let (outcomes, counted) = batch_of_members_finding(found, None, []).await;
    assert!(
        outcomes
            .iter()
            .all(|o| matches!(o, Outcome::Replayed { .. })),
        "{outcomes:?}"
    );
    assert!(counted.ran.lock().unwrap().is_empty());
}
