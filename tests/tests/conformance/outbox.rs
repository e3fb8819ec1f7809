//! The outbox as the relay sees it, on every store: claims in order, marks only what it
//! is told, counts failed attempts, and purges only published events.

use application::CreateOrder;
use application::ports::{OutboxClaim, OutboxRelayStore, PendingSummary};
use chrono::{TimeDelta, Utc};
use tests::{Backend, caller, key, new_order};

use crate::cases::coordinator;

/// The event's document names its own id and the order it announces.
fn document(payload: &[u8]) -> serde_json::Value {
    serde_json::from_slice(payload).unwrap()
}

pub(crate) async fn relay_claims_marks_and_purges<B: Backend>() {
    let db = B::create().await;
    let coordinator = coordinator(&db);
    for (tenant, reference) in [(1, "R-1"), (2, "R-2"), (1, "R-3")] {
        coordinator
            .run(
                &CreateOrder,
                &caller(tenant, 1),
                &key(reference),
                &new_order(reference, 1),
            )
            .await;
    }
    let store = db.store();

    let first = store.claim(2).await.unwrap();
    let batch = first.events().to_vec();
    assert_eq!(batch.len(), 2, "a claim takes at most its limit");
    let (one, two) = (&batch[0], &batch[1]);
    assert_eq!(
        (one.subject.as_str(), two.subject.as_str()),
        ("orders.created.v1.1", "orders.created.v1.2"),
        "oldest first"
    );
    let doc = document(&one.payload);
    assert_eq!(doc["eventId"], one.id.to_string());
    assert_eq!(doc["order"]["clientOrderRef"], "R-1");
    first
        .settle(&[one.id], &[two.id], Utc::now())
        .await
        .unwrap();

    let summary = store.pending().await.unwrap();
    assert_eq!(summary.count, 2, "the failed event and the unclaimed one");
    assert_eq!(summary.oldest, Some(two.created_at));

    let second = store.claim(10).await.unwrap();
    let rest = second.events().to_vec();
    assert_eq!(rest.len(), 2);
    assert_eq!(rest[0].id, two.id, "a failed event stays pending");
    assert_eq!((rest[0].attempts, rest[1].attempts), (1, 0));
    let ids: Vec<_> = rest.iter().map(|e| e.id).collect();
    second.settle(&ids, &[], Utc::now()).await.unwrap();

    assert_eq!(store.pending().await.unwrap(), PendingSummary::default());
    assert!(store.claim(10).await.unwrap().events().is_empty());

    let before = Utc::now() - TimeDelta::hours(1);
    assert_eq!(store.purge_published_batch(before, 10).await.unwrap(), 0);
    let later = Utc::now() + TimeDelta::hours(1);
    assert_eq!(store.purge_published_batch(later, 2).await.unwrap(), 2);
    assert_eq!(store.purge_published_batch(later, 2).await.unwrap(), 1);
    // The events are gone by design; so go their orders, for the end-of-test invariant.
    db.run_sql("DELETE FROM orders").await;
    db.finish().await;
}

pub(crate) async fn purge_never_takes_a_pending_event<B: Backend>() {
    let db = B::create().await;
    coordinator(&db)
        .run(
            &CreateOrder,
            &caller(1, 1),
            &key("pending"),
            &new_order("R-1", 1),
        )
        .await;
    let later = Utc::now() + TimeDelta::days(365);
    assert_eq!(
        db.store().purge_published_batch(later, 10).await.unwrap(),
        0
    );
    assert_eq!(db.store().pending().await.unwrap().count, 1);
    db.finish().await;
}
