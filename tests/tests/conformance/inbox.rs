//! The inbox on every store: an event applied once in effect however often, and however
//! concurrently, it is delivered; a poison payload writes nothing.

use std::sync::Arc;

use application::orders::ORDERS_CANCELLED;
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

/// The `orders.cancelled.v1` event of the order `created` announces, at revision 2.
fn cancelled_event(created: &[u8]) -> Vec<u8> {
    let mut document: serde_json::Value = serde_json::from_slice(created).unwrap();
    document["eventId"] = uuid::Uuid::new_v4().to_string().into();
    document["type"] = ORDERS_CANCELLED.name.into();
    document["sequence"] = 2.into();
    document["order"]["status"] = "cancelled".into();
    serde_json::to_vec(&document).unwrap()
}

/// The shipment states, by order id.
async fn states<B: Backend>(db: &B, state: &str) -> i64 {
    db.count_rows(&format!("shipments WHERE state = '{state}'"))
        .await
}

pub(crate) async fn a_cancel_ends_the_shipment_cancelled_in_either_order_unless_shipped<
    B: Backend,
>() {
    let db = B::create().await;
    let created = order_events(&db, 3).await;

    // In order: requested, then cancelled; the cancel again is a duplicate.
    assert!(matches!(
        deliver(&db, &created[0]).await,
        Ok(Handled::Applied)
    ));
    let cancel = cancelled_event(&created[0]);
    assert!(matches!(deliver(&db, &cancel).await, Ok(Handled::Applied)));
    assert!(matches!(
        deliver(&db, &cancel).await,
        Ok(Handled::Duplicate)
    ));

    // The cancel first: a cancelled shipment, and the creation then changes nothing.
    assert!(matches!(
        deliver(&db, &cancelled_event(&created[1])).await,
        Ok(Handled::Applied)
    ));
    assert!(matches!(
        deliver(&db, &created[1]).await,
        Ok(Handled::Outdated)
    ));

    // Shipped before the cancel came: left as it is.
    assert!(matches!(
        deliver(&db, &created[2]).await,
        Ok(Handled::Applied)
    ));
    db.run_sql("UPDATE shipments SET state = 'SHIPPED' WHERE state = 'REQUESTED'")
        .await;
    assert!(matches!(
        deliver(&db, &cancelled_event(&created[2])).await,
        Ok(Handled::LeftAlone(_))
    ));

    assert_eq!(
        (states(&db, "CANCELLED").await, states(&db, "SHIPPED").await),
        (2, 1)
    );
    assert_eq!(db.count_rows("shipments").await, 3, "one per order");
    assert_eq!(
        db.count_rows("inbox").await,
        6,
        "every delivery recorded once"
    );
    db.finish().await;
}
