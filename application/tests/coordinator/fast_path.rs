//! The fast path: a retry of a completed request is answered by one read, before any
//! transaction; everything else still goes through the insert.

use std::sync::Arc;

use application::ports::StoreError;
use application::{CreateOrder, Outcome};
use domain::{RecordId, RecordState};

use crate::support::*;

/// A reader whose first read answers `found`.
fn reader_finding(found: Option<domain::ExistingRecord>) -> MockReader {
    let mut reader = MockReader::new();
    let found = std::sync::Mutex::new(Some(found));
    reader
        .expect_find()
        .times(1)
        .returning(move |_, _| ready(Ok(found.lock().unwrap().take().flatten())));
    reader
}

/// No transaction is offered: beginning one would panic.
fn no_transactions() -> ScriptedUnitOfWork<MockTx> {
    ScriptedUnitOfWork::of([])
}

#[tokio::test]
async fn a_completed_record_with_the_same_request_is_replayed_without_a_transaction() {
    let reader = reader_finding(Some(existing(&new_order(2), completed_state("{\"a\":1}"))));

    let outcome = coordinator(no_transactions(), reader)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::Replayed {
            record: RecordId(5),
            response: stored_response("{\"a\":1}"),
        }
    );
}

#[tokio::test]
async fn a_completed_record_of_another_request_is_key_reuse_without_a_transaction() {
    let reader = reader_finding(Some(existing(&new_order(3), completed_state("{}"))));

    let outcome = coordinator(no_transactions(), reader)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::KeyReused);
}

#[tokio::test]
async fn the_fast_path_also_refuses_a_caller_not_authorized_now() {
    let reader = reader_finding(Some(existing(&new_order(2), completed_state("{}"))));
    let mut authorizer = MockAuthorizer::new();
    authorizer.expect_may_replay().times(1).return_const(false);

    let outcome = coordinator(no_transactions(), reader)
        .with_authorizer(Arc::new(authorizer))
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Forbidden);
}

#[tokio::test]
async fn a_record_still_processing_goes_through_the_insert() {
    let reader = reader_finding(Some(existing(&new_order(2), RecordState::Processing)));
    // The insert path runs: here it begins, and the store says the key is held too long.
    // Were the fast path to answer "in progress" itself, this begin would never be taken
    // and the scripted unit of work fails the test when dropped.
    let uow = ScriptedUnitOfWork::<MockTx>::new([Err(StoreError::LockWaitTimeout)]);

    let outcome = coordinator(uow, reader)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_failed_first_read_goes_through_the_insert() {
    let mut reader = MockReader::new();
    reader
        .expect_find()
        .times(1)
        .returning(|_, _| ready(Err(StoreError::ConnectionLost)));
    // As above: the begin must be taken, or the test fails when the unit of work drops.
    let uow = ScriptedUnitOfWork::<MockTx>::new([Err(StoreError::ConnectionLost)]);

    let outcome = coordinator(uow, reader)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert!(matches!(outcome, Outcome::OutcomeUnknown(_)), "{outcome:?}");
}

#[tokio::test]
async fn a_first_read_past_the_database_deadline_is_an_unknown_outcome_without_a_transaction() {
    let mut reader = MockReader::new();
    reader
        .expect_find()
        .times(1)
        .returning(|_, _| ready(Err(StoreError::Timeout)));

    let outcome = coordinator(no_transactions(), reader)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(application::UnknownCause::DatabaseTimeout)
    );
}
