//! The conditional write: what it carries, the audit entry beside it, the answer read
//! after it, and what happens when the row changed between the read and the write.

use std::sync::{Arc, Mutex};

use application::admin::{
    AdminOperation, AdminRefusal, AdminRequest, AuditEntry, ChangeOutcome, OperationChange, Target,
};
use application::ports::StoreError;
use domain::{Generation, OperationState, OperatorAction, Resolution};
use mockall::Sequence;

use crate::act::succeeded;
use crate::support::*;

/// What the store was given for a change, owned.
#[derive(Debug, PartialEq)]
struct Written {
    change: (uuid::Uuid, OperationState, Generation, OperatorAction),
    attempts: u32,
    at: chrono::DateTime<chrono::Utc>,
    audit: AuditEntry,
}

fn owned(change: &OperationChange<'_>, audit: &AuditEntry) -> Written {
    Written {
        change: (
            change.id,
            change.seen_state,
            change.seen_generation,
            change.action.clone(),
        ),
        attempts: change.attempts,
        at: change.now,
        audit: audit.clone(),
    }
}

/// `action` by `request` on `seen`, accepted by the store; the re-read answers `after`.
async fn changed(
    request: &AdminRequest,
    seen: AdminOperation,
    action: &OperatorAction,
    after: AdminOperation,
) -> (Written, AdminOperation) {
    let mut store = MockStore::new();
    let mut order = Sequence::new();
    let written = Arc::new(Mutex::new(None));
    store
        .expect_find_operation()
        .times(1)
        .in_sequence(&mut order)
        .return_once(move |_, _| ready(Ok(Some(seen))));
    let record = Arc::clone(&written);
    store
        .expect_change_operation()
        .times(1)
        .in_sequence(&mut order)
        .returning(move |change, audit, _| {
            *record.lock().unwrap() = Some(owned(change, audit));
            ready(Ok(ChangeOutcome::Changed))
        });
    let scope = request.scope;
    store
        .expect_find_operation()
        .withf(move |s, id| *s == scope && *id == op_id())
        .times(1)
        .in_sequence(&mut order)
        .return_once(move |_, _| ready(Ok(Some(after))));

    let answer = admin(&store).act(request, op_id(), action).await.unwrap();

    let written = written
        .lock()
        .unwrap()
        .take()
        .expect("a change was written");
    (written, answer)
}

fn target() -> Target {
    Target {
        kind: "operation",
        id: "01234567-89ab-cdef-0123-456789abcdef".to_owned(),
        // The operation's tenant, not the caller's (1).
        tenant: tenant(2),
    }
}

#[tokio::test]
async fn a_change_carries_what_was_seen_with_its_audit_entry_and_answers_the_re_read() {
    let after = AdminOperation {
        state: OperationState::Succeeded,
        generation: Generation::new(5),
        ..operation(OperationState::NeedsReview)
    };
    let (written, answer) = changed(
        &request(),
        operation(OperationState::NeedsReview),
        &succeeded(),
        after.clone(),
    )
    .await;

    assert_eq!(
        written,
        Written {
            change: (
                op_id(),
                OperationState::NeedsReview,
                Generation::new(4),
                succeeded()
            ),
            attempts: 3,
            at: t0(),
            audit: AuditEntry {
                who: request().who,
                action: "operation.resolve",
                target: target(),
                before: "needs_review",
                after: "succeeded",
                request_id: "req-42".to_owned(),
                at: t0(),
            },
        }
    );
    assert_eq!(
        answer, after,
        "the answer is the row as read after the change"
    );
}

#[tokio::test]
async fn a_retry_starts_the_attempts_over_and_the_other_actions_keep_them() {
    let seen = operation(OperationState::NeedsReview);
    let (written, _) = changed(&request(), seen.clone(), &OperatorAction::Retry, seen).await;
    assert_eq!(written.attempts, 0);
    let seen = operation(OperationState::Pending);
    let (written, _) = changed(&request(), seen.clone(), &OperatorAction::Cancel, seen).await;
    assert_eq!(written.attempts, 3);
}

#[tokio::test]
async fn each_action_is_audited_by_its_name_and_states_in_api_spelling() {
    let cases = [
        (
            OperatorAction::Resolve(Resolution::Declined),
            OperationState::NeedsReview,
            ("operation.resolve", "needs_review", "declined"),
        ),
        (
            OperatorAction::Retry,
            OperationState::NeedsReview,
            ("operation.retry", "needs_review", "pending"),
        ),
        (
            OperatorAction::Cancel,
            OperationState::Pending,
            ("operation.cancel", "pending", "cancelled"),
        ),
    ];
    for (action, from, (name, before, after)) in cases {
        let (written, _) = changed(
            &operator_request(),
            operation(from),
            &action,
            operation(action.ends_in()),
        )
        .await;
        assert_eq!(
            written.audit,
            AuditEntry {
                who: operator_request().who,
                action: name,
                target: target(),
                before,
                after,
                request_id: "cli-7".to_owned(),
                at: t0(),
            }
        );
        assert_eq!(written.change.3, action);
    }
}

/// A store whose reads answer `reads` in turn and whose changes answer `writes` in turn.
fn store_answering(reads: Vec<AdminOperation>, writes: Vec<ChangeOutcome>) -> MockStore {
    let mut store = MockStore::new();
    let mut order = Sequence::new();
    let mut writes = writes.into_iter();
    for seen in reads {
        store
            .expect_find_operation()
            .times(1)
            .in_sequence(&mut order)
            .return_once(move |_, _| ready(Ok(Some(seen))));
        if let Some(taken) = writes.next() {
            store
                .expect_change_operation()
                .times(1)
                .in_sequence(&mut order)
                .return_once(move |_, _, _| ready(Ok(taken)));
        }
    }
    store
}

#[tokio::test]
async fn a_lost_race_judges_the_new_row_and_refuses_for_its_state() {
    let moved = AdminOperation {
        state: OperationState::Succeeded,
        generation: Generation::new(5),
        ..operation(OperationState::NeedsReview)
    };
    let store = store_answering(
        vec![operation(OperationState::NeedsReview), moved],
        vec![ChangeOutcome::Stale],
    );

    let refusal = admin(&store)
        .act(&request(), op_id(), &OperatorAction::Retry)
        .await
        .unwrap_err();

    assert!(
        matches!(
            refusal,
            AdminRefusal::OperationState(OperationState::Succeeded)
        ),
        "{refusal:?}"
    );
}

#[tokio::test]
async fn a_lost_race_to_a_new_generation_tries_again_under_it() {
    let regenerated = AdminOperation {
        generation: Generation::new(5),
        ..operation(OperationState::Pending)
    };
    let mut store = MockStore::new();
    let mut order = Sequence::new();
    for seen in [operation(OperationState::Pending), regenerated.clone()] {
        let generation = seen.generation;
        store
            .expect_find_operation()
            .times(1)
            .in_sequence(&mut order)
            .return_once(move |_, _| ready(Ok(Some(seen))));
        store
            .expect_change_operation()
            .withf(move |change, _, _| change.seen_generation == generation)
            .times(1)
            .in_sequence(&mut order)
            .return_once(move |_, _, _| {
                ready(Ok(if generation == Generation::new(5) {
                    ChangeOutcome::Changed
                } else {
                    ChangeOutcome::Stale
                }))
            });
    }
    let after = operation(OperationState::Cancelled);
    let answer = after.clone();
    store
        .expect_find_operation()
        .times(1)
        .in_sequence(&mut order)
        .return_once(move |_, _| ready(Ok(Some(answer))));

    let got = admin(&store)
        .act(&request(), op_id(), &OperatorAction::Cancel)
        .await
        .unwrap();

    assert_eq!(got, after);
}

#[tokio::test]
async fn three_lost_races_answer_busy_for_a_second() {
    let seen = operation(OperationState::Pending);
    let store = store_answering(
        vec![seen.clone(), seen.clone(), seen],
        vec![ChangeOutcome::Stale; 3],
    );

    let refusal = admin(&store)
        .act(&request(), op_id(), &OperatorAction::Cancel)
        .await
        .unwrap_err();

    assert!(
        matches!(
            refusal,
            AdminRefusal::Busy {
                retry_after_secs: 1
            }
        ),
        "{refusal:?}"
    );
}

#[tokio::test]
async fn a_store_failure_on_the_write_is_reported_and_not_retried() {
    let mut store = store_reading(operation(OperationState::Pending), 1);
    store
        .expect_change_operation()
        .times(1)
        .returning(|_, _, _| ready(Err(StoreError::ConnectionLost("connection reset".into()))));

    let refusal = admin(&store)
        .act(&request(), op_id(), &OperatorAction::Cancel)
        .await
        .unwrap_err();

    assert!(
        matches!(refusal, AdminRefusal::Store(StoreError::ConnectionLost(_))),
        "{refusal:?}"
    );
}
