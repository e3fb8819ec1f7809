//! "Key already registered": resolved by a fresh read after the rollback, never by a
//! second execution.

use std::sync::Arc;

use application::ports::StoreError;
use application::{CreateOrder, Outcome, UnknownCause};
use domain::{RecordId, RecordState};
use mockall::Sequence;

use crate::support::*;

/// Runs one request whose key is taken; the fresh read answers `found`.
async fn run_with_existing(
    found: Result<Option<domain::ExistingRecord>, StoreError>,
) -> CreateOutcome {
    let mut seq = Sequence::new();
    let mut reader = MockReader::new();
    let tx = tx_hitting_the_key_in(&mut seq);
    let found = std::sync::Mutex::new(Some(found));
    reader
        .expect_find()
        .withf(|scope, key| scope.tenant.get() == 7 && key.as_str() == "key-1")
        .times(1)
        .in_sequence(&mut seq)
        .returning(move |_, _| ready(found.lock().unwrap().take().unwrap()));
    // Exactly one transaction is offered: a second execution would panic in `begin`.
    let uow = ScriptedUnitOfWork::of([tx]);
    coordinator(uow, reader)
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await
}

#[tokio::test]
async fn a_completed_record_with_the_same_request_is_replayed_byte_for_byte() {
    let outcome = run_with_existing(Ok(Some(existing(
        &new_order(2),
        completed_state("{\"a\":1}"),
    ))))
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
async fn a_record_of_a_different_request_is_key_reuse() {
    let outcome = run_with_existing(Ok(Some(existing(&new_order(3), completed_state("{}"))))).await;

    assert_eq!(outcome, Outcome::KeyReused);
}

#[tokio::test]
async fn a_record_still_processing_is_in_progress() {
    let outcome =
        run_with_existing(Ok(Some(existing(&new_order(2), RecordState::Processing)))).await;

    assert_eq!(outcome, Outcome::InProgress);
}

#[tokio::test]
async fn a_record_that_vanished_after_the_duplicate_is_an_unknown_outcome() {
    let outcome = run_with_existing(Ok(None)).await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::RecordVanished)
    );
}

#[tokio::test]
async fn a_fresh_read_that_fails_is_an_unknown_outcome() {
    let outcome =
        run_with_existing(Err(StoreError::ConnectionLost("connection reset".into()))).await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::FreshReadFailed)
    );
}

#[tokio::test]
async fn a_caller_not_authorized_now_never_receives_the_stored_response() {
    let mut seq = Sequence::new();
    let mut reader = MockReader::new();
    let tx = tx_hitting_the_key_in(&mut seq);
    reader
        .expect_find()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| ready(Ok(Some(existing(&new_order(2), completed_state("{}"))))));
    let mut authorizer = MockAuthorizer::new();
    authorizer
        .expect_may_replay()
        .withf(|caller, permission| caller.actor.get() == 42 && permission == "orders:create")
        .times(1)
        .return_const(false);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader)
        .with_authorizer(Arc::new(authorizer))
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Forbidden);
}

#[tokio::test]
async fn key_reuse_is_reported_before_authorization_is_consulted() {
    let mut seq = Sequence::new();
    let mut reader = MockReader::new();
    let tx = tx_hitting_the_key_in(&mut seq);
    reader
        .expect_find()
        .times(1)
        .in_sequence(&mut seq)
        .returning(|_, _| ready(Ok(Some(existing(&new_order(3), completed_state("{}"))))));
    let mut authorizer = MockAuthorizer::new();
    authorizer.expect_may_replay().never();

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), reader)
        .with_authorizer(Arc::new(authorizer))
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::KeyReused);
}
