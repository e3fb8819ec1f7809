//! The class of the last attempt's error, as the worker stores it: kept through a retry
//! and needs-review, cleared by a success.

use application::admin::{
    AdminScope, AdminStore, AuditEntry, ChangeOutcome, OperationChange, Target, Who,
};
use application::ports::{DueOperation, Ending, OperationStore};
use chrono::TimeDelta;
use domain::{AttemptError, Lease, OperationState, OperatorAction, OwnerId, TenantId};
use tests::Backend;
use tests::leased::complete;

use super::{NewOp, insert_operation, now, op, tenant};

/// Claims operation 7, due at `now`, for 30 s.
async fn claim<S: OperationStore>(store: &S) -> (DueOperation, Lease) {
    let due = tests::leased::due(store, now()).await.unwrap().remove(0);
    let owner = OwnerId::parse("w").unwrap();
    let lease = due
        .lease
        .claim(owner, now(), TimeDelta::seconds(30))
        .unwrap();
    assert!(
        store
            .claim(op(7), due.lease.generation, &lease, now())
            .await
            .unwrap()
    );
    (due, lease)
}

async fn last_error<S: AdminStore>(store: &S) -> (OperationState, Option<AttemptError>) {
    let row = store
        .find_operation(AdminScope::AllTenants, op(7))
        .await
        .unwrap()
        .unwrap();
    (row.state, row.last_error)
}

pub(crate) async fn the_last_attempts_error_is_kept_until_a_success<B: Backend>() {
    let db = B::create().await;
    insert_operation(&db, &NewOp::new(7)).await;
    let store = db.store();
    assert_eq!(last_error(store).await, (OperationState::Pending, None));

    let (_, lease) = claim(store).await;
    let error = AttemptError::ProviderStatus;
    assert!(
        store
            .retry_later(op(7), &lease, 1, error, now(), now())
            .await
            .unwrap()
    );
    assert_eq!(
        last_error(store).await,
        (OperationState::Pending, Some(error))
    );

    let (due, lease) = claim(store).await;
    let review = Ending::NeedsReview(AttemptError::Timeout);
    assert!(
        complete(store, &due, &lease, &review, 2, now())
            .await
            .unwrap()
    );
    let reviewed = (OperationState::NeedsReview, Some(AttemptError::Timeout));
    assert_eq!(last_error(store).await, reviewed);

    // An operator sends it back to work; it then succeeds.
    let retry = OperatorAction::Retry;
    let change = OperationChange {
        id: op(7),
        order: (tenant(1), domain::OrderId::new(7)),
        seen_state: OperationState::NeedsReview,
        seen_generation: lease.generation,
        action: &retry,
        attempts: 0,
        now: now(),
    };
    let audit = AuditEntry {
        who: Who::Operator(application::admin::OperatorName::parse("bob").unwrap()),
        action: retry.name(),
        target: Target {
            kind: "operation",
            id: op(7).hyphenated().to_string(),
            tenant: TenantId::parse(1).unwrap(),
        },
        before: "needs_review",
        after: "pending",
        request_id: "cli-2".to_owned(),
        at: now(),
    };
    assert_eq!(
        store.change_operation(&change, &audit, None).await.unwrap(),
        ChangeOutcome::Changed
    );
    let (due, lease) = claim(store).await;
    let success = Ending::Succeeded {
        provider_id: "ch_7".into(),
    };
    assert!(
        complete(store, &due, &lease, &success, 0, now())
            .await
            .unwrap()
    );
    assert_eq!(last_error(store).await, (OperationState::Succeeded, None));
    db.finish().await;
}
