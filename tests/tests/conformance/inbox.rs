//! The inbox on every store: an event applied once in effect however often, and however
//! concurrently, it is delivered; a poison payload writes nothing.

use std::sync::Arc;

use application::ports::{NoHooks, OutboxClaim, OutboxRelayStore};
use application::{CreateOrder, HandleError, Handled, RequestShipments, handle_delivery};
use chrono::Utc;
use tests::{Backend, caller, join_all, key, new_order};

use crate::cases::coordinator;

/// Makes one order per round and returns the payloads of their events.
async fn order_events<B: Backend>(db: &B, rounds: usize) -> Vec<Vec<u8>> {
    let coordinator = coordinator(db);
    for round in 0..rounds {
        let reference = format!("R-{round}");
        coordinator
            .run(
                &CreateOrder,
                &caller(1, 1),
                &key(&reference),
                &new_order(&reference, 2),
            )
            .await;
    }
    let claim = db.store().claim(rounds).await.unwrap();
    let payloads = claim.events().iter().map(|e| e.payload.clone()).collect();
    claim.settle(&[], &[], Utc::now()).await.unwrap();
    payloads
}

/// One delivery of `payload` to the shipments consumer.
async fn deliver<B: Backend>(db: &B, payload: &[u8]) -> Result<Handled, HandleError> {
    handle_delivery(db.store(), &RequestShipments, &NoHooks, payload, Utc::now()).await
}

pub(crate) async fn a_redelivered_event_changes_nothing<B: Backend>() {
    let db = B::create().await;
    let payload = order_events(&db, 1).await.remove(0);
    assert!(matches!(deliver(&db, &payload).await, Ok(Handled::Applied)));
    for _ in 0..3 {
        assert!(matches!(
            deliver(&db, &payload).await,
            Ok(Handled::Duplicate)
        ));
    }
    assert_eq!(db.count_rows("shipments").await, 1);
    assert_eq!(db.count_rows("inbox").await, 1);
    db.finish().await;
}

pub(crate) async fn concurrent_deliveries_apply_once<B: Backend>() {
    const ROUNDS: usize = 20;
    let db = Arc::new(B::create().await);
    for payload in order_events(&*db, ROUNDS).await {
        let payload = Arc::new(payload);
        let tasks = (0..6)
            .map(|_| {
                let (db, payload) = (Arc::clone(&db), Arc::clone(&payload));
                tokio::spawn(async move { deliver(&*db, &payload).await })
            })
            .collect();
        let handled = join_all(tasks).await;
        let applied = handled
            .iter()
            .filter(|h| matches!(h, Ok(Handled::Applied)))
            .count();
        assert_eq!(applied, 1, "{handled:?}");
        // The others wait for the first one's transaction and then find the key taken.
        assert!(
            handled
                .iter()
                .all(|h| matches!(h, Ok(Handled::Applied | Handled::Duplicate))),
            "{handled:?}"
        );
    }
    assert_eq!(db.count_rows("shipments").await, ROUNDS as i64);
    let Ok(db) = Arc::try_unwrap(db) else {
        panic!("tasks ended")
    };
    db.finish().await;
}

pub(crate) async fn a_poison_payload_writes_nothing<B: Backend>() {
    let db = B::create().await;
    let handled = deliver(&db, b"{\"type\":1}").await;
    assert!(
        matches!(handled, Err(HandleError::Poison(_))),
        "{handled:?}"
    );
    assert_eq!(db.count_rows("inbox").await, 0);
    assert_eq!(db.count_rows("shipments").await, 0);
    db.finish().await;
}
