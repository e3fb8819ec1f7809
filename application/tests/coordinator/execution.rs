//! The first request for a key: one transaction, committed once, or rolled back whole.

use application::ports::{CommitError, StoreError};
use application::{CreateOrder, CreateRefusal, FailureCause, Outcome, StepError, UnknownCause};
use domain::{Fingerprinted, OrderId, RecordId};

use crate::support::*;

#[tokio::test]
async fn a_first_request_inserts_once_completes_one_row_and_commits_once() {
    let mut tx = MockTx::new();
    let input = new_order(2);
    let expected_fingerprint = input.fingerprint(&create_v1());
    tx.expect_insert_processing()
        .withf(move |record| {
            record.key.as_str() == "key-1"
                && record.scope.tenant.get() == 7
                && record.scope.actor.get() == 42
                && record.scope.operation.as_str() == "orders.create.v1"
                && record.fingerprint == expected_fingerprint
                && record.created_at == t0()
        })
        .times(1)
        .returning(|_| ready(Ok(RecordId(5))));
    tx.expect_insert_order()
        .withf(|tenant, order, created_at| {
            tenant.get() == 7 && order.quantity.get() == 2 && *created_at == t0()
        })
        .times(1)
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    tx.expect_add_event()
        .withf(|event| {
            event.tenant.get() == 7
                && event.event_type == "orders.created.v1"
                && event.subject == "orders.created.v1.7"
                && event.created_at == t0()
                && event.id.get_version_num() == 4
                && event.order.as_ref().map(|o| (o.key.as_str(), o.sequence))
                    == Some(("orders/9", 1))
        })
        .times(1)
        .returning(|_| ready(Ok(())));
    tx.expect_complete()
        .withf(|id, completion| *id == RecordId(5) && completion.response.status() == 201)
        .times(1)
        .returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    tx.expect_rollback().never();

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &input)
        .await;

    let Outcome::Executed { record, response } = outcome else {
        panic!("expected Executed, got {outcome:?}");
    };
    assert_eq!(record, RecordId(5));
    assert_eq!(response.location(), Some("/api/orders/9"));
    assert_eq!(
        std::str::from_utf8(response.body()).unwrap(),
        r#"{"orderId":"9","clientOrderRef":"REF-1","sku":"SKU-1","quantity":2,"createdAt":"2027-01-15T08:00:00.123456Z","status":"active","cancelledAt":null}"#
    );
}

#[tokio::test]
async fn a_completion_that_changes_no_row_rolls_back_and_never_reports_success() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    expect_event_added(&mut tx);
    tx.expect_complete().times(1).returning(|_, _| ready(Ok(0)));
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(outcome, Outcome::Failed(FailureCause::RecordNotCompleted));
}

#[tokio::test]
async fn a_client_order_ref_conflict_rolls_back_and_is_reported_as_such() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order().times(1).returning(|_, _, _| {
        ready(Err(StepError::Rejected(
            CreateRefusal::ClientOrderRefConflict,
        )))
    });
    tx.expect_complete().never();
    expect_rollback_only(&mut tx);

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
}

#[tokio::test]
async fn an_unexpected_business_storage_error_rolls_back_and_fails() {
    let outcome = create_with_order_insert_failing(StoreError::Other("boom".into())).await;

    assert_eq!(
        outcome,
        Outcome::Failed(FailureCause::Store(StoreError::Other("boom".into())))
    );
}

#[tokio::test]
async fn a_failed_commit_is_an_unknown_outcome_not_a_failure_or_a_success() {
    let mut tx = tx_inserting_record();
    tx.expect_insert_order()
        .returning(|_, _, _| ready(Ok(OrderId::new(9))));
    expect_event_added(&mut tx);
    tx.expect_complete().returning(|_, _| ready(Ok(1)));
    tx.expect_commit()
        .times(1)
        .returning(|| ready(Err(CommitError::CommitOutcomeUnknown("answer lost".into()))));
    tx.expect_rollback().never();

    let outcome = coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown)
    );
}

#[tokio::test]
async fn a_database_that_cannot_be_reached_is_an_unknown_outcome() {
    let uow = ScriptedUnitOfWork::<MockTx>::new([Err(StoreError::ConnectionLost(
        "connection reset".into(),
    ))]);

    let outcome = coordinator(uow, no_reads())
        .run(&CreateOrder, &caller(), &key(), &new_order(2))
        .await;

    assert_eq!(
        outcome,
        Outcome::OutcomeUnknown(UnknownCause::DatabaseUnavailable)
    );
}
