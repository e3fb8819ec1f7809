//! The operations table as the capture worker sees it, on every store: one claimer wins
//! each generation, the fence refuses every write of a stale owner, and a success writes
//! exactly one payment row and its event, at the order's next revision.

use std::sync::Arc;

use application::ports::{Ending, OperationCensus, OperationStore};
use chrono::{DateTime, TimeDelta, Utc};
use domain::OperationState;
use domain::{AttemptError, Generation, OwnerId};
use tests::leased::{add_capture, complete, due};
use tests::{Backend, hex, join_all};
use uuid::Uuid;

const ID: u128 = 7;

/// Adds a pending operation of order 9 due long ago.
async fn add_operation<B: Backend>(db: &B) {
    add_capture(db, 7, 9).await;
}

/// The `payments.captured.v1` events of order 9, at `sequence` if given.
fn captured_events(sequence: Option<u64>) -> String {
    let at = sequence.map_or(String::new(), |n| format!(" AND ordering_seq = {n}"));
    format!(
        "outbox WHERE event_type = X'{}' AND ordering_key = X'{}'{at}",
        hex("payments.captured.v1"),
        hex("orders/9"),
    )
}

pub(crate) fn owner(name: &str) -> OwnerId {
    OwnerId::parse(name).unwrap()
}

pub(crate) fn now() -> DateTime<Utc> {
    Utc::now().trunc_subsecs_micros()
}

trait Micros {
    fn trunc_subsecs_micros(self) -> Self;
}

impl Micros for DateTime<Utc> {
    fn trunc_subsecs_micros(self) -> Self {
        chrono::SubsecRound::trunc_subsecs(self, 6)
    }
}

pub(crate) async fn one_claimer_wins_each_generation<B: Backend>() {
    let db = Arc::new(B::create().await);
    add_operation(&*db).await;
    for round in 0..20u64 {
        let due = due(db.store(), now()).await.unwrap();
        assert_eq!(due.len(), 1, "round {round}");
        let view = due[0].lease.clone();
        assert_eq!(view.generation, Generation::new(round));
        let tasks = (0..8)
            .map(|w| {
                let (db, view) = (Arc::clone(&db), view.clone());
                tokio::spawn(async move {
                    let at = now();
                    // A lease that runs out at once leaves only the generation to decide:
                    // the case of a claimer that read the row, then paused past the
                    // winner's whole lease before it claimed.
                    let lease = view
                        .claim(owner(&format!("w{w}")), at, TimeDelta::zero())
                        .unwrap();
                    let won = db
                        .store()
                        .claim(Uuid::from_u128(ID), view.generation, &lease, at)
                        .await
                        .unwrap();
                    (won, lease)
                })
            })
            .collect();
        let claims = join_all(tasks).await;
        let winners: Vec<_> = claims.iter().filter(|(won, _)| *won).collect();
        assert_eq!(winners.len(), 1, "round {round}: one owner per generation");
        // The winner gives the lease back with the next attempt due at once.
        let lease = &winners[0].1;
        let past = now() - TimeDelta::seconds(1);
        assert!(
            db.store()
                .retry_later(
                    Uuid::from_u128(ID),
                    lease,
                    1,
                    AttemptError::Timeout,
                    past,
                    past
                )
                .await
                .unwrap()
        );
    }
    let Ok(db) = Arc::try_unwrap(db) else {
        panic!("tasks ended")
    };
    db.finish().await;
}

/// One grouped read gives the states operations are in; none at all is an empty list.
pub(crate) async fn operations_are_counted_by_state<B: Backend>() {
    let db = B::create().await;
    assert_eq!(db.store().count_by_state().await.unwrap(), vec![]);
    add_operation(&db).await;
    for (n, state) in [(8, "NEEDS_REVIEW"), (9, "NEEDS_REVIEW"), (10, "SUCCEEDED")] {
        db.run_sql(&format!(
            "INSERT INTO operations (id, operation_type, tenant_id, order_id, input, result, \
             downstream_key, state, generation, attempts, next_attempt_at, created_at, \
             updated_at) VALUES (X'{n:032x}', X'7061796d656e7473', 1, {n}, X'7b7d', X'7b7d', \
             X'6b65792d{n:02x}', '{state}', 1, 3, '2026-01-01 00:00:00', \
             '2026-01-01 00:00:00', '2026-01-01 00:00:00')"
        ))
        .await;
    }
    let mut counts = db.store().count_by_state().await.unwrap();
    counts.sort_by_key(|(state, _)| state.as_stored());
    assert_eq!(
        counts,
        vec![
            (OperationState::NeedsReview, 2),
            (OperationState::Pending, 1),
            (OperationState::Succeeded, 1),
        ]
    );
    db.finish().await;
}

pub(crate) async fn a_stale_owner_changes_nothing_and_a_success_pays_once<B: Backend>() {
    let db = B::create().await;
    add_operation(&db).await;
    let store = db.store();
    let id = Uuid::from_u128(ID);
    let t0 = now();
    let operation = due(store, t0).await.unwrap().remove(0);
    let view = operation.lease.clone();
    let old = view.claim(owner("old"), t0, TimeDelta::seconds(1)).unwrap();
    assert!(store.claim(id, view.generation, &old, t0).await.unwrap());
    assert!(
        due(store, t0).await.unwrap().is_empty(),
        "a running lease is not due"
    );

    // The old owner's lease runs out; a new owner takes over.
    let later = t0 + TimeDelta::seconds(2);
    let view = due(store, later).await.unwrap().remove(0).lease;
    assert_eq!(view.generation, old.generation);
    let new = view
        .claim(owner("new"), later, TimeDelta::seconds(30))
        .unwrap();
    assert!(store.claim(id, view.generation, &new, later).await.unwrap());

    // Everything the old owner tries is refused by the fence.
    assert!(!store.extend(id, &old).await.unwrap());
    assert!(
        !store
            .retry_later(id, &old, 5, AttemptError::Timeout, later, later)
            .await
            .unwrap()
    );
    let stale_success = Ending::Succeeded {
        provider_id: "ch_old".into(),
    };
    assert!(
        !complete(store, &operation, &old, &stale_success, 0, later)
            .await
            .unwrap()
    );
    assert_eq!(
        db.count_rows("payments").await,
        0,
        "a stale owner paid nothing"
    );
    assert_eq!(db.count_rows(&captured_events(None)).await, 0);

    let success = Ending::Succeeded {
        provider_id: "ch_new".into(),
    };
    assert!(store.extend(id, &new).await.unwrap());
    assert!(
        complete(store, &operation, &new, &success, 0, later)
            .await
            .unwrap()
    );
    assert!(
        !complete(store, &operation, &new, &success, 0, later)
            .await
            .unwrap(),
        "ended once"
    );
    assert_eq!(db.count_rows("payments").await, 1, "one payment");
    assert_eq!(
        db.count_rows(&captured_events(Some(2))).await,
        1,
        "one captured event, after the order's created one (revision 1)"
    );
    assert_eq!(db.count_rows("orders WHERE revision = 2").await, 1);
    assert!(
        due(store, later + TimeDelta::days(1))
            .await
            .unwrap()
            .is_empty()
    );
    db.finish().await;
}
