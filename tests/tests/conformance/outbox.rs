//! The outbox as the relay sees it, on every store: claims in order, marks only what it
//! is told, counts failed attempts, and purges only published events.

use application::CreateOrder;
use application::ports::{
    EventOrder, NewEvent, OutboxClaim, OutboxRelayStore, OutboxWriter, PendingSummary, RecordTx,
    UnitOfWork,
};
use chrono::{TimeDelta, Utc};
use domain::{OrderId, TenantId};
use tests::{Backend, caller, create_as_tenant_1, key, new_order};
use uuid::Uuid;

use crate::cases::{coordinator, create};

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
    create_as_tenant_1(&coordinator(&db), "pending", "R-1").await;
    let later = Utc::now() + TimeDelta::days(365);
    assert_eq!(
        db.store().purge_published_batch(later, 10).await.unwrap(),
        0
    );
    assert_eq!(db.store().pending().await.unwrap().count, 1);
    db.finish().await;
}

/// A second event of `order` (as its cancel writes one), sequence 2, committed.
async fn add_second_event<B: Backend>(db: &B, order: OrderId) -> Uuid {
    let id = Uuid::new_v4();
    let mut tx = db.store().begin().await.unwrap();
    tx.add_event(&NewEvent {
        id,
        event_type: "orders.cancelled.v1",
        tenant: TenantId::parse(1).unwrap(),
        subject: "orders.cancelled.v1.1".to_owned(),
        payload: b"{}".to_vec(),
        created_at: Utc::now(),
        order: Some(EventOrder {
            key: format!("orders/{order}"),
            sequence: 2,
        }),
    })
    .await
    .unwrap();
    tx.commit().await.unwrap();
    id
}

pub(crate) async fn an_orders_later_event_waits_for_its_earlier_one<B: Backend>() {
    let db = B::create().await;
    let orders = [create(&db, "R-1").await, create(&db, "R-2").await];
    let later: Vec<Uuid> = [
        add_second_event(&db, orders[0]).await,
        add_second_event(&db, orders[1]).await,
    ]
    .into();
    let store = db.store();

    // A relay holds the first order's created event; another relay, in the meantime,
    // takes nothing later of either order (on SQLite it may send the held one again).
    let holding = store.claim(1).await.unwrap();
    let held = holding.events()[0].id;
    let other = store.claim(10).await.unwrap();
    let taken: Vec<Uuid> = other.events().iter().map(|e| e.id).collect();
    assert!(
        !taken.iter().any(|id| later.contains(id)),
        "a later event went while its order's earlier one was pending: {taken:?}"
    );
    let second_created = *taken.last().unwrap();
    assert_ne!(second_created, held, "the other order's created event goes");
    other
        .settle(&[second_created], &[], Utc::now())
        .await
        .unwrap();

    // A failed publish keeps the earlier event pending, and the later one waits on.
    holding.settle(&[], &[held], Utc::now()).await.unwrap();
    let next = store.claim(10).await.unwrap();
    let ids: Vec<Uuid> = next.events().iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        vec![held, later[1]],
        "the retry, and the other order's next"
    );
    next.settle(&ids, &[], Utc::now()).await.unwrap();

    let last = store.claim(10).await.unwrap();
    let ids: Vec<Uuid> = last.events().iter().map(|e| e.id).collect();
    assert_eq!(
        ids,
        vec![later[0]],
        "once published, the earlier one lets it go"
    );
    last.settle(&ids, &[], Utc::now()).await.unwrap();
    assert_eq!(store.pending().await.unwrap(), PendingSummary::default());
    db.finish().await;
}
