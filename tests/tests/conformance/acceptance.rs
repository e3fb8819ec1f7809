//! A capture's acceptance and its status read, on every store: the order must be the
//! tenant's, one pending or succeeded capture per order, and the status read shows the
//! payment once the operation succeeded.

use application::StepError;
use application::leased::NewOperation;
use application::payments::{CaptureAcceptance, CaptureRefusal};
use application::ports::{Ending, OperationReader, OperationStore, RecordTx, UnitOfWork};
use chrono::{DateTime, TimeDelta, Utc};
use domain::{AttemptError, OperationState, OwnerId, TenantId};
use tests::Backend;
use tests::leased::{complete, due, new_capture};

/// Order 9 of tenant 1 with its `orders.created.v1` event (as every committed order has
/// one), in SQL both dialects accept.
pub(crate) async fn add_order<B: Backend>(db: &B) {
    db.run_sql(
        "INSERT INTO orders (id, tenant_id, client_order_ref, sku, quantity, created_at) \
         VALUES (9, 1, X'52454639', X'534b55', 1, '2026-01-01 00:00:00')",
    )
    .await;
    db.run_sql(
        "INSERT INTO outbox (event_id, event_type, tenant_id, subject, payload, created_at) \
         VALUES (X'00000000000000000000000000000009', X'6f72646572732e637265617465642e7631', \
         1, X'6f', X'7b7d', '2026-01-01 00:00:00')",
    )
    .await;
}

fn t0() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 123_456_000).unwrap()
}

fn capture(tenant: u64, order: u64) -> NewOperation {
    new_capture(tenant, order, 1500, t0())
}

/// Accepts `capture` in a transaction of its own, committed only when accepted.
async fn accept<B: Backend>(
    db: &B,
    capture: &NewOperation,
) -> Result<(), StepError<CaptureRefusal>> {
    let mut tx = db.store().begin().await.unwrap();
    let accepted = tx.accept_capture(capture).await;
    if accepted.is_ok() {
        tx.commit().await.unwrap();
    } else {
        tx.rollback().await.unwrap();
    }
    accepted
}

pub(crate) async fn only_the_tenants_own_order_is_captured_and_only_once<B: Backend>() {
    let db = B::create().await;
    add_order(&db).await;

    for (tenant, order) in [(1, 10), (2, 9)] {
        assert!(
            matches!(
                accept(&db, &capture(tenant, order)).await,
                Err(StepError::Rejected(CaptureRefusal::OrderNotFound))
            ),
            "tenant {tenant}, order {order}"
        );
    }
    assert_eq!(db.count_rows("operations").await, 0, "nothing stored");

    let first = capture(1, 9);
    accept(&db, &first).await.unwrap();
    assert!(matches!(
        accept(&db, &capture(1, 9)).await,
        Err(StepError::Rejected(CaptureRefusal::PaymentExists))
    ));
    assert_eq!(db.count_rows("operations").await, 1);

    let store = db.store();
    let tenant = TenantId::parse(1).unwrap();
    let view = store
        .find_operation(tenant, first.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(view.state, OperationState::Pending);
    assert_eq!(
        (view.order.get(), view.result.get("payment")),
        (9, Some("null"))
    );
    assert_eq!(view.operation_type, "payments.capture.v1");
    assert_eq!(view.updated_at, t0());
    let other = TenantId::parse(2).unwrap();
    assert!(
        store
            .find_operation(other, first.id)
            .await
            .unwrap()
            .is_none()
    );

    // The worker's view carries the accepted input and key.
    let due = due(store, t0()).await.unwrap();
    assert_eq!(due.len(), 1);
    assert_eq!(due[0].accepted_at, t0(), "its key's age at the provider");
    assert_eq!(
        (&due[0].input, &due[0].downstream_key),
        (&first.input, &first.downstream_key)
    );

    // Succeeded: the status read shows the payment, and the order stays taken.
    let lease = due[0]
        .lease
        .claim(OwnerId::parse("w").unwrap(), t0(), TimeDelta::seconds(30))
        .unwrap();
    assert!(
        store
            .claim(first.id, due[0].lease.generation, &lease, t0())
            .await
            .unwrap()
    );
    let ending = Ending::Succeeded {
        provider_id: "ch_1".into(),
    };
    assert!(
        complete(store, &due[0], &lease, &ending, 0, t0())
            .await
            .unwrap()
    );
    let payment: serde_json::Value = store
        .find_operation(tenant, first.id)
        .await
        .unwrap()
        .unwrap()
        .result
        .member("payment")
        .unwrap();
    assert_eq!(payment["providerChargeId"], "ch_1");
    assert_eq!(
        (&payment["amount"], &payment["currency"]),
        (&1500.into(), &"JPY".into())
    );
    assert!(matches!(
        accept(&db, &capture(1, 9)).await,
        Err(StepError::Rejected(CaptureRefusal::PaymentExists))
    ));
    db.finish().await;
}

pub(crate) async fn a_cancelled_order_takes_no_capture_and_a_capture_writes_its_order<
    B: Backend,
>() {
    let db = B::create().await;
    add_order(&db).await;
    accept(&db, &capture(1, 9)).await.unwrap();
    assert_eq!(
        db.count_rows("orders WHERE id = 9 AND revision = 2").await,
        1,
        "an accepted capture counts as a change of its order"
    );
    db.run_sql("UPDATE orders SET status = 'CANCELLED' WHERE id = 9")
        .await;
    db.run_sql("DELETE FROM operations").await;
    assert!(matches!(
        accept(&db, &capture(1, 9)).await,
        Err(StepError::Rejected(CaptureRefusal::OrderCancelled))
    ));
    assert!(
        matches!(
            accept(&db, &capture(2, 9)).await,
            Err(StepError::Rejected(CaptureRefusal::OrderNotFound))
        ),
        "another tenant's cancelled order is simply not there"
    );
    assert_eq!(db.count_rows("operations").await, 0, "nothing stored");
    assert_eq!(
        db.count_rows("orders WHERE id = 9 AND revision = 2").await,
        1,
        "a refused capture changes nothing"
    );
    db.finish().await;
}

pub(crate) async fn a_declined_capture_leaves_the_order_free_for_another<B: Backend>() {
    let db = B::create().await;
    add_order(&db).await;
    let first = capture(1, 9);
    accept(&db, &first).await.unwrap();
    let store = db.store();
    let owner = OwnerId::parse("w").unwrap();
    let due = due(store, t0()).await.unwrap().remove(0);
    let lease = due
        .lease
        .claim(owner.clone(), t0(), TimeDelta::seconds(30))
        .unwrap();
    assert!(
        store
            .claim(first.id, due.lease.generation, &lease, t0())
            .await
            .unwrap()
    );

    // A retry: the row says when it changed, not when the next attempt is due, and the
    // operation is due again only then.
    let (now, next) = (t0() + TimeDelta::seconds(1), t0() + TimeDelta::seconds(60));
    assert!(
        store
            .retry_later(first.id, &lease, 1, AttemptError::Timeout, next, now)
            .await
            .unwrap()
    );
    let tenant = TenantId::parse(1).unwrap();
    let view = store
        .find_operation(tenant, first.id)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        (view.state, view.updated_at),
        (OperationState::Pending, now)
    );
    assert!(
        tests::leased::due(store, next - TimeDelta::seconds(1))
            .await
            .unwrap()
            .is_empty()
    );
    let due = tests::leased::due(store, next).await.unwrap().remove(0);
    assert_eq!(due.attempts, 1);
    let lease = due
        .lease
        .claim(owner, next, TimeDelta::seconds(30))
        .unwrap();
    assert!(
        store
            .claim(first.id, due.lease.generation, &lease, next)
            .await
            .unwrap()
    );
    assert!(
        complete(store, &due, &lease, &Ending::Declined, 1, next)
            .await
            .unwrap()
    );

    accept(&db, &capture(1, 9)).await.unwrap();
    assert_eq!(db.count_rows("operations").await, 2);
    db.finish().await;
}
