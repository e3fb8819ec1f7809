//! An operator's change is made only if the row is still in the state and generation the
//! operator saw and no lease is live; it moves the generation on, writes one audit row, and
//! for a success one payment.

use adapters::api::{ServiceStore, leased_kinds};
use application::StepError;
use application::admin::{
    AdminScope, AdminStore, AuditEntry, ChangeOutcome, OperationChange, Recording, Target, Who,
};
use application::leased::{EndedAs, Members, StoredEnd};
use application::payments::{CaptureAcceptance, CaptureRefusal};
use application::ports::{RecordTx, UnitOfWork};
use domain::{ActorId, Generation, OperationState, OperatorAction, ProviderId, Resolution};
use tests::Backend;
use tests::leased::{due, new_capture};

use super::{NewOp, assert_event, at, insert_operation, now, op, tenant};
use crate::acceptance::add_order;

fn succeeded() -> EndedAs<'static> {
    EndedAs::Succeeded {
        provider_id: "ch_admin_1",
    }
}

/// Actor 5 of tenant 1 changed operation 7 of tenant 1 with `action`.
fn entry(action: &OperatorAction) -> AuditEntry {
    AuditEntry {
        who: Who::Caller {
            tenant: tenant(1),
            actor: ActorId::parse(5).unwrap(),
        },
        action: action.name(),
        target: Target {
            kind: "operation",
            id: op(7).hyphenated().to_string(),
            tenant: tenant(1),
        },
        before: action.applies_to().as_api(),
        after: action.ends_in().as_api(),
        request_id: "req-7".to_owned(),
        at: now(),
    }
}

/// The change of operation 7, of order 9 of tenant 1.
fn change(action: &OperatorAction, state: OperationState, generation: u64) -> OperationChange<'_> {
    OperationChange {
        id: op(7),
        order: (tenant(1), domain::OrderId::new(9)),
        seen_state: state,
        seen_generation: Generation::new(generation),
        action,
        // Every fixture operation has made 3 attempts; a retry starts over.
        attempts: if *action == OperatorAction::Retry {
            0
        } else {
            3
        },
        now: now(),
    }
}

/// A capture's record of `outcome` for operation 7 (order 9 of tenant 1, 1500 JPY).
async fn resolve<S: ServiceStore>(
    store: &S,
    change: &OperationChange<'_>,
    audit: &AuditEntry,
    outcome: EndedAs<'_>,
) -> bool {
    let kinds = leased_kinds();
    let input = br#"{"amount":1500,"currency":"JPY"}"#;
    let recording = Recording {
        step: kinds.record("payments.capture.v1").unwrap(),
        end: StoredEnd {
            id: op(7),
            tenant: tenant(1),
            order: domain::OrderId::new(9),
            input,
            outcome,
            at: now(),
        },
    };
    store
        .change_operation(change, audit, Some(recording))
        .await
        .unwrap()
        == ChangeOutcome::Changed
}

/// The payment a succeeded operation shows: `{"payment":{...}}`'s member.
fn payment(result: &Members) -> serde_json::Value {
    result.member("payment").unwrap()
}

/// Holds operation 7 for a worker until `expires`.
async fn lease_until<B: Backend>(db: &B, expires: &str) {
    db.run_sql(&format!(
        "UPDATE operations SET lease_owner = X'7731', lease_expires_at = '{expires}' \
         WHERE id = X'00000000000000000000000000000007'"
    ))
    .await;
}

pub(crate) async fn a_change_is_fenced_and_a_resolved_success_pays_once<B: Backend>() {
    let db = B::create().await;
    let row = NewOp {
        state: "NEEDS_REVIEW",
        generation: 3,
        order: 9,
        ..NewOp::new(7)
    };
    insert_operation(&db, &row).await;
    let store = db.store();
    let all = AdminScope::AllTenants;
    let action = OperatorAction::Resolve(Resolution::Succeeded(
        ProviderId::parse("ch_admin_1").unwrap(),
    ));
    let audit = entry(&action);

    // Each refusal alone: no lease while the state or generation is wrong, then the right
    // state and generation under a live lease.
    for (state, generation, lease, why) in [
        (OperationState::NeedsReview, 2, None, "an older generation"),
        (OperationState::NeedsReview, 4, None, "a newer generation"),
        (OperationState::Pending, 3, None, "another state"),
        (
            OperationState::NeedsReview,
            3,
            Some("2026-01-02 00:00:30"),
            "a live lease",
        ),
    ] {
        if let Some(expires) = lease {
            lease_until(&db, expires).await;
        }
        let before = store.find_operation(all, op(7)).await.unwrap().unwrap();
        assert_eq!(before.lease_expires_at.is_some(), lease.is_some());
        let changed = resolve(
            store,
            &change(&action, state, generation),
            &audit,
            succeeded(),
        )
        .await;
        assert!(!changed, "{why}");
        assert_eq!(
            store.find_operation(all, op(7)).await.unwrap().as_ref(),
            Some(&before),
            "{why}: the row is as it was"
        );
        assert_eq!(db.count_rows("audit_events").await, 0, "{why}");
        assert_eq!(db.count_rows("payments").await, 0, "{why}");
    }

    // The worker's lease ran out before now: the operator's change goes through.
    lease_until(&db, "2026-01-02 00:00:00").await;
    let seen = change(&action, OperationState::NeedsReview, 3);
    assert!(resolve(store, &seen, &audit, succeeded()).await);
    let after = store.find_operation(all, op(7)).await.unwrap().unwrap();
    assert_eq!(
        (
            after.state,
            after.generation,
            &after.lease_owner,
            after.lease_expires_at,
            after.updated_at
        ),
        (
            OperationState::Succeeded,
            Generation::new(4),
            &None,
            None,
            now()
        )
    );
    let payment = payment(&after.result);
    assert_eq!(
        (
            &payment["providerChargeId"],
            &payment["amount"],
            &payment["currency"]
        ),
        (&"ch_admin_1".into(), &1500.into(), &"JPY".into()),
        "the resolved success is paid"
    );
    let paid = "payments WHERE tenant_id = 1 AND order_id = 9 AND amount = 1500 \
                AND currency = X'4a5059' AND provider_charge_id = X'63685f61646d696e5f31' \
                AND operation_id = X'00000000000000000000000000000007'";
    assert_eq!(db.count_rows(paid).await, 1);
    let events = store.list_audit(all, None, 10).await.unwrap();
    assert_eq!(events.len(), 1);
    assert_event(&events[0], &audit);

    assert!(
        !resolve(store, &seen, &audit, succeeded()).await,
        "the state moved on"
    );
    assert_eq!(db.count_rows("payments").await, 1, "paid once");
    assert_eq!(db.count_rows("audit_events").await, 1, "audited once");
    db.finish().await;
}

pub(crate) async fn a_retry_makes_the_operation_due_now_under_its_key<B: Backend>() {
    let db = B::create().await;
    let row = NewOp {
        state: "NEEDS_REVIEW",
        generation: 3,
        order: 9,
        ..NewOp::new(7)
    };
    insert_operation(&db, &row).await;
    let store = db.store();
    let action = OperatorAction::Retry;

    let retry = change(&action, OperationState::NeedsReview, 3);
    assert_eq!(
        store
            .change_operation(&retry, &entry(&action), None)
            .await
            .unwrap(),
        ChangeOutcome::Changed
    );

    let after = store
        .find_operation(AdminScope::AllTenants, op(7))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            after.state,
            after.attempts,
            after.next_attempt_at,
            after.generation,
            after.downstream_key.as_str(),
            after.lease_expires_at,
            after.result.get("payment")
        ),
        (
            OperationState::Pending,
            0,
            now(),
            Generation::new(4),
            "key-7",
            None,
            Some("null")
        )
    );
    let early = now() - chrono::TimeDelta::microseconds(1);
    assert!(due(store, early).await.unwrap().is_empty(), "due from now");
    let due = due(store, now()).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(
        (
            due[0].id,
            due[0].downstream_key.as_str(),
            due[0].attempts,
            due[0].lease.generation
        ),
        (op(7), "key-7", 0, Generation::new(4))
    );
    let events = store
        .list_audit(AdminScope::AllTenants, None, 10)
        .await
        .unwrap();
    assert_eq!(events.len(), 1);
    assert_event(&events[0], &entry(&action));
    assert_eq!(
        (events[0].before.as_str(), events[0].after.as_str()),
        ("needs_review", "pending")
    );
    db.finish().await;
}

/// Accepts a capture of order 9 of tenant 1 as operation `n`, committed only if accepted.
async fn accept<B: Backend>(db: &B, n: u128) -> Result<(), StepError<CaptureRefusal>> {
    let capture = application::leased::NewOperation {
        id: op(n),
        ..new_capture(1, 9, 1500, at("2026-01-01 00:00:00"))
    };
    let mut tx = db.store().begin().await.unwrap();
    let accepted = tx.accept_capture(&capture).await;
    if accepted.is_ok() {
        tx.commit().await.unwrap();
    } else {
        tx.rollback().await.unwrap();
    }
    accepted
}

pub(crate) async fn a_cancel_frees_the_order_for_another_capture<B: Backend>() {
    let db = B::create().await;
    add_order(&db).await;
    accept(&db, 7).await.unwrap();
    assert!(
        matches!(
            accept(&db, 8).await,
            Err(StepError::Rejected(CaptureRefusal::PaymentExists))
        ),
        "a pending capture holds the order"
    );
    let store = db.store();
    let action = OperatorAction::Cancel;

    let cancel = change(&action, OperationState::Pending, 0);
    assert_eq!(
        store
            .change_operation(&cancel, &entry(&action), None)
            .await
            .unwrap(),
        ChangeOutcome::Changed
    );

    let after = store
        .find_operation(AdminScope::AllTenants, op(7))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (after.state, after.generation, after.result.get("payment")),
        (OperationState::Cancelled, Generation::new(1), Some("null"))
    );
    accept(&db, 9).await.expect("the order is free again");
    let due = due(store, now()).await.unwrap();
    assert_eq!(
        due.iter().map(|row| row.id).collect::<Vec<_>>(),
        [op(9)],
        "a cancelled operation is never worked"
    );
    assert_eq!(db.count_rows("payments").await, 0);
    assert_eq!(db.count_rows("audit_events").await, 1);
    db.finish().await;
}
