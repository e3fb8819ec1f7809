//! Eviction of an idempotency record: only a completed one in the admin's scope, with its
//! audit entry, and an honest answer when the record changed between the read and the write.

use std::sync::{Arc, Mutex};

use application::admin::{AdminRefusal, AdminRequest, AdminScope, AuditEntry, KeyState, Target};
use mockall::Sequence;

use crate::support::*;

#[tokio::test]
async fn a_key_of_another_tenant_is_not_found_without_asking_the_store() {
    let mut store = MockStore::new();
    store.expect_find_key().never();
    store.expect_evict_key().never();
    let own = AdminRequest {
        scope: AdminScope::Tenant(tenant(7)),
        ..request()
    };

    let refusal = admin(&store)
        .evict_key(&own, &address(8))
        .await
        .unwrap_err();

    assert!(matches!(refusal, AdminRefusal::NotFound), "{refusal:?}");
}

#[tokio::test]
async fn no_record_is_not_found() {
    let mut store = MockStore::new();
    store
        .expect_find_key()
        .times(1)
        .returning(|_| ready(Ok(None)));
    store.expect_evict_key().never();

    let refusal = admin(&store)
        .evict_key(&request(), &address(8))
        .await
        .unwrap_err();

    assert!(matches!(refusal, AdminRefusal::NotFound), "{refusal:?}");
}

#[tokio::test]
async fn a_record_whose_request_runs_is_never_evicted() {
    let mut store = MockStore::new();
    store
        .expect_find_key()
        .withf(|found| *found == address(8))
        .times(1)
        .returning(|_| ready(Ok(Some(key_record(8, KeyState::Processing)))));
    store.expect_evict_key().never();

    let refusal = admin(&store)
        .evict_key(&request(), &address(8))
        .await
        .unwrap_err();

    assert!(
        matches!(refusal, AdminRefusal::KeyState(KeyState::Processing)),
        "{refusal:?}"
    );
    assert_eq!(refusal.current_state(), Some("processing"));
}

#[tokio::test]
async fn a_completed_record_is_evicted_with_its_audit_entry() {
    let mut store = MockStore::new();
    store
        .expect_find_key()
        .times(1)
        .returning(|_| ready(Ok(Some(key_record(8, KeyState::Completed)))));
    let audited = Arc::new(Mutex::new(None));
    let record = Arc::clone(&audited);
    store
        .expect_evict_key()
        .withf(|evicted, _| *evicted == address(8))
        .times(1)
        .returning(move |_, audit| {
            *record.lock().unwrap() = Some(audit.clone());
            ready(Ok(true))
        });

    let seen = admin(&store)
        .evict_key(&operator_request(), &address(8))
        .await
        .unwrap();

    assert_eq!(seen, key_record(8, KeyState::Completed));
    assert_eq!(
        audited.lock().unwrap().take(),
        Some(AuditEntry {
            who: operator_request().who,
            action: "idempotency_key.evict",
            target: Target {
                kind: "idempotency_key",
                id: "3/payments.capture.v1/key-1".to_owned(),
                tenant: tenant(8),
            },
            before: "completed",
            after: "evicted",
            request_id: "cli-7".to_owned(),
            at: t0(),
        })
    );
}

/// The eviction found no completed record; the read after it answers `now`.
async fn evicted_nothing(now: Option<KeyState>) -> AdminRefusal {
    let mut store = MockStore::new();
    let mut order = Sequence::new();
    store
        .expect_find_key()
        .times(1)
        .in_sequence(&mut order)
        .returning(|_| ready(Ok(Some(key_record(8, KeyState::Completed)))));
    store
        .expect_evict_key()
        .times(1)
        .in_sequence(&mut order)
        .returning(|_, _| ready(Ok(false)));
    store
        .expect_find_key()
        .times(1)
        .in_sequence(&mut order)
        .returning(move |_| ready(Ok(now.map(|state| key_record(8, state)))));
    admin(&store)
        .evict_key(&request(), &address(8))
        .await
        .unwrap_err()
}

#[tokio::test]
async fn a_record_gone_since_the_read_is_not_found() {
    let refusal = evicted_nothing(None).await;
    assert!(matches!(refusal, AdminRefusal::NotFound), "{refusal:?}");
}

#[tokio::test]
async fn a_record_taken_again_since_the_read_is_refused_for_its_new_state() {
    let refusal = evicted_nothing(Some(KeyState::Processing)).await;
    assert!(
        matches!(refusal, AdminRefusal::KeyState(KeyState::Processing)),
        "{refusal:?}"
    );
}

/// A completed key whose stored answer points to an operation now in `state`: what
/// evicting it does (the operation is read once, and the key removed only when settled).
async fn evicting_the_key_of_an_operation(
    state: domain::OperationState,
) -> Result<(), AdminRefusal> {
    let mut store = MockStore::new();
    store.expect_find_key().times(1).returning(|_| {
        ready(Ok(Some(application::admin::KeyRecordView {
            operation: Some(op_id()),
            ..key_record(8, KeyState::Completed)
        })))
    });
    store
        .expect_find_operation()
        .withf(|_, id| *id == op_id())
        .times(1)
        .returning(move |_, _| ready(Ok(Some(operation(state)))));
    let settled = state.is_settled();
    store
        .expect_evict_key()
        .times(usize::from(settled))
        .returning(|_, _| ready(Ok(true)));
    admin(&store)
        .evict_key(&request(), &address(8))
        .await
        .map(|_| ())
}

#[tokio::test]
async fn the_key_of_a_pending_or_reviewed_operation_is_kept_and_of_a_settled_one_evicted() {
    for unsettled in [
        domain::OperationState::Pending,
        domain::OperationState::NeedsReview,
    ] {
        let refusal = evicting_the_key_of_an_operation(unsettled)
            .await
            .unwrap_err();
        assert!(
            matches!(refusal, AdminRefusal::OperationUnfinished { state, .. } if state == unsettled),
            "{refusal:?}"
        );
    }
    for settled in [
        domain::OperationState::Succeeded,
        domain::OperationState::Declined,
        domain::OperationState::Cancelled,
    ] {
        evicting_the_key_of_an_operation(settled).await.unwrap();
    }
}
