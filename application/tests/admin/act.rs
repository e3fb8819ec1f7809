//! The judgement before any write: the operation must exist in scope, be in the state the
//! action applies to, be within the key's retention for a retry, and have no live lease.

use application::admin::{AdminOperation, AdminRefusal, AdminRequest, AdminScope, ChangeOutcome};
use application::leased::EndedAs;
use chrono::TimeDelta;
use domain::{OperationState, OperatorAction, ProviderId, Resolution};

use crate::support::*;

pub(crate) fn succeeded() -> OperatorAction {
    OperatorAction::Resolve(Resolution::Succeeded(ProviderId::parse("ch_1").unwrap()))
}

fn every_action() -> [OperatorAction; 4] {
    [
        succeeded(),
        OperatorAction::Resolve(Resolution::Declined),
        OperatorAction::Retry,
        OperatorAction::Cancel,
    ]
}

/// `action` on a store that reads `seen` once and must never be written.
async fn refused(seen: AdminOperation, action: &OperatorAction) -> AdminRefusal {
    let mut store = store_reading(seen, 1);
    store.expect_change_operation().never();
    admin(&store)
        .act(&request(), op_id(), action)
        .await
        .unwrap_err()
}

/// `action` on a store that reads `seen` (before and after) and takes the change once.
async fn allowed(seen: AdminOperation, action: &OperatorAction) {
    let mut store = store_reading(seen, 2);
    store
        .expect_change_operation()
        .times(1)
        .returning(|_, _, _| ready(Ok(ChangeOutcome::Changed)));
    admin(&store)
        .act(&request(), op_id(), action)
        .await
        .unwrap();
}

#[tokio::test]
async fn an_unknown_or_foreign_operation_is_not_found_and_nothing_is_written() {
    // The store is asked within the admin's own tenant, so another's operation is absent.
    let own = AdminRequest {
        scope: AdminScope::Tenant(tenant(1)),
        ..request()
    };
    for action in every_action() {
        let mut store = MockStore::new();
        store
            .expect_find_operation()
            .withf(|scope, id| *scope == AdminScope::Tenant(tenant(1)) && *id == op_id())
            .times(1)
            .returning(|_, _| ready(Ok(None)));
        store.expect_change_operation().never();

        let refusal = admin(&store).act(&own, op_id(), &action).await.unwrap_err();

        assert!(matches!(refusal, AdminRefusal::NotFound), "{refusal:?}");
    }
}

#[tokio::test]
async fn an_action_is_refused_in_every_state_but_its_own_with_the_current_state() {
    let mut refusals = 0;
    for action in every_action() {
        for state in OperationState::ALL {
            if state == action.applies_to() {
                continue;
            }
            let refusal = refused(operation(state), &action).await;
            assert!(
                matches!(refusal, AdminRefusal::OperationState(s) if s == state),
                "{action:?} on {state:?}: {refusal:?}"
            );
            assert_eq!(refusal.current_state(), Some(state.as_api()));
            refusals += 1;
        }
    }
    // Resolve and retry from 4 states each other than needs_review, cancel from 4 but pending.
    assert_eq!(refusals, 16);
}

#[tokio::test]
async fn a_retry_at_or_past_the_keys_retention_is_refused() {
    let retention = TimeDelta::hours(RETENTION_HOURS);
    for age in [
        retention,
        retention + TimeDelta::microseconds(1),
        retention * 2,
    ] {
        let seen = AdminOperation {
            accepted_at: t0() - age,
            ..operation(OperationState::NeedsReview)
        };
        let refusal = refused(seen, &OperatorAction::Retry).await;
        assert!(
            matches!(refusal, AdminRefusal::KeyRetentionPassed),
            "{age:?}: {refusal:?}"
        );
    }
}

#[tokio::test]
async fn a_retry_just_inside_the_keys_retention_is_made() {
    let seen = AdminOperation {
        accepted_at: t0() - TimeDelta::hours(RETENTION_HOURS) + TimeDelta::microseconds(1),
        ..operation(OperationState::NeedsReview)
    };
    allowed(seen, &OperatorAction::Retry).await;
}

#[tokio::test]
async fn only_a_retry_minds_the_keys_retention() {
    for action in [succeeded(), OperatorAction::Resolve(Resolution::Declined)] {
        let seen = AdminOperation {
            accepted_at: t0() - TimeDelta::hours(RETENTION_HOURS * 2),
            ..operation(OperationState::NeedsReview)
        };
        allowed(seen, &action).await;
    }
}

#[tokio::test]
async fn a_live_lease_is_busy_for_its_remaining_seconds_rounded_up() {
    for (left_ms, secs) in [(1, 1), (999, 1), (1000, 1), (2300, 3), (3000, 3), (3001, 4)] {
        let seen = leased(
            OperationState::Pending,
            t0() + TimeDelta::milliseconds(left_ms),
        );
        let refusal = refused(seen, &OperatorAction::Cancel).await;
        assert!(
            matches!(refusal, AdminRefusal::Busy { retry_after_secs } if retry_after_secs == secs),
            "{left_ms} ms left: {refusal:?}"
        );
    }
    // The same for a retry of an operation some worker still holds.
    let seen = leased(
        OperationState::NeedsReview,
        t0() + TimeDelta::milliseconds(2300),
    );
    let refusal = refused(seen, &OperatorAction::Retry).await;
    assert!(
        matches!(
            refusal,
            AdminRefusal::Busy {
                retry_after_secs: 3
            }
        ),
        "{refusal:?}"
    );
}

#[tokio::test]
async fn a_lease_that_ran_out_at_or_before_now_is_no_obstacle() {
    for expired in [t0(), t0() - TimeDelta::seconds(30)] {
        allowed(
            leased(OperationState::Pending, expired),
            &OperatorAction::Cancel,
        )
        .await;
    }
}

#[tokio::test]
async fn a_resolution_is_recorded_as_its_kind_records_it_and_the_other_actions_record_nothing() {
    for (action, recorded) in [
        (
            succeeded(),
            Some(EndedAs::Succeeded {
                provider_id: "ch_1",
            }),
        ),
        (
            OperatorAction::Resolve(Resolution::Declined),
            Some(EndedAs::Declined),
        ),
        (OperatorAction::Retry, None),
    ] {
        let mut store = store_reading(operation(OperationState::NeedsReview), 2);
        store
            .expect_change_operation()
            .withf(move |_, _, recording| {
                recording
                    .as_ref()
                    .map(|r| (r.end.outcome, r.end.input, r.end.order))
                    == recorded.map(|outcome| {
                        (
                            outcome,
                            &br#"{"amount":1500,"currency":"JPY"}"#[..],
                            domain::OrderId::new(9),
                        )
                    })
            })
            .times(1)
            .returning(|_, _, _| ready(Ok(ChangeOutcome::Changed)));
        admin(&store)
            .act(&request(), op_id(), &action)
            .await
            .unwrap();
    }
}

#[tokio::test]
async fn a_kind_not_served_here_cannot_be_resolved_but_can_be_retried() {
    let unknown = AdminOperation {
        operation_type: "later.kind.v9".to_owned(),
        ..operation(OperationState::NeedsReview)
    };
    assert!(matches!(
        refused(unknown.clone(), &succeeded()).await,
        AdminRefusal::UnknownKind
    ));
    allowed(unknown, &OperatorAction::Retry).await;
}

#[tokio::test]
async fn a_change_the_order_refuses_is_answered_at_once_never_tried_again() {
    for (outcome, expected) in [
        (ChangeOutcome::OrderNotActive, "order_cancelled"),
        (ChangeOutcome::Conflict, "operation_conflict"),
    ] {
        let mut store = store_reading(operation(OperationState::NeedsReview), 1);
        store
            .expect_change_operation()
            .times(1)
            .withf(|change, _, _| change.takes_order() && change.order.1.get() == 9)
            .returning(move |_, _, _| ready(Ok(outcome)));
        let refusal = admin(&store)
            .act(&request(), op_id(), &OperatorAction::Retry)
            .await
            .unwrap_err();
        assert_eq!(refusal.code(), expected, "{refusal:?}");
    }
    let declined = OperatorAction::Resolve(Resolution::Declined);
    let cancel = OperatorAction::Cancel;
    for action in [&declined, &cancel] {
        let change = application::admin::OperationChange {
            id: op_id(),
            order: (domain::TenantId::parse(1).unwrap(), domain::OrderId::new(9)),
            seen_state: OperationState::NeedsReview,
            seen_generation: domain::Generation::new(0),
            action,
            attempts: 0,
            now: chrono::Utc::now(),
        };
        assert!(
            !change.takes_order(),
            "{action:?} takes nothing of the order"
        );
    }
}
