//! Cancels batched on every store (`docs/storage.md#batched-operations`): one batch holding
//! a member of each kind, each answered as the members run one by one in arrival order
//! would answer it.

use application::orders::{CancelOrder, CancelRefusal, OrderCancellation};
use application::ports::HookVerdict;
use application::{Caller, Outcome};
use domain::{ActorId, OrderId, Reason, TenantId};
use tests::Backend;

use crate::batch_rig::{Batch, executed, with_pending_capture};
use crate::cases::{coordinator, create};

fn canceller(tenant: u64) -> Caller {
    Caller::new(
        TenantId::parse(tenant).unwrap(),
        ActorId::parse(1).unwrap(),
        "orders:create orders:cancel orders:read",
    )
}

fn cancel(k: &str, tenant: u64, order: OrderId) -> (String, Caller, OrderCancellation) {
    let input = OrderCancellation {
        order,
        reason: Reason::parse(&format!("reason-{k}")).unwrap(),
    };
    (k.to_owned(), canceller(tenant), input)
}

pub(crate) async fn a_batch_of_cancels_answers_each_member_as_arrival_order_would<B: Backend>() {
    let db = B::create().await;
    let mut ids = Vec::new();
    for reference in ["H", "A", "B", "D", "P", "X"] {
        ids.push(create(&db, reference).await);
    }
    let [held, a, b, done, pending, other] = ids[..] else {
        unreachable!()
    };
    let (k, caller, input) = cancel("done", 1, done);
    let done_answer = executed(
        coordinator(&db)
            .run(&CancelOrder, &caller, &tests::key(&k), &input)
            .await,
    );
    with_pending_capture(db.store(), pending).await;

    let batch = Batch {
        op: CancelOrder,
        first: cancel("h", 1, held),
        queued: vec![
            cancel("a1", 1, a),
            cancel("a2", 1, a),
            cancel("b", 1, b),
            cancel("p", 1, pending),
            cancel("x", 2, other),
            cancel("done", 1, done),
        ],
    };
    let (outcomes, seen) = batch.run(db.store(), HookVerdict::Continue, || {}).await;

    let executed = |n: usize| matches!(outcomes[n], Outcome::Executed { .. });
    assert!(executed(0) && executed(1) && executed(3), "{outcomes:?}");
    assert_eq!(
        outcomes[2],
        Outcome::Rejected(CancelRefusal::AlreadyCancelled),
        "the second cancel of an order sees the first"
    );
    assert_eq!(
        outcomes[4],
        Outcome::Rejected(CancelRefusal::CapturePending)
    );
    assert_eq!(
        outcomes[5],
        Outcome::Rejected(CancelRefusal::OrderNotFound),
        "another tenant's order"
    );
    let Outcome::Replayed { response, .. } = &outcomes[6] else {
        panic!("{outcomes:?}")
    };
    assert_eq!(
        *response, done_answer,
        "the completed key replays its bytes"
    );
    assert_eq!(
        *seen.ran.lock().unwrap(),
        [2],
        "a1 and b, in one transaction"
    );
    assert!(seen.reruns.lock().unwrap().is_empty());

    for (order, reason) in [(a, "reason-a1"), (b, "reason-b")] {
        let marked = format!(
            "orders WHERE id = {} AND status = 'CANCELLED' AND revision = 2 \
             AND cancel_reason = X'{}'",
            order.get(),
            tests::hex(reason)
        );
        assert_eq!(db.count_rows(&marked).await, 1, "{marked}");
    }
    for order in [pending, other] {
        let active = format!("orders WHERE id = {} AND status = 'ACTIVE'", order.get());
        assert_eq!(db.count_rows(&active).await, 1, "{active}");
    }
    let cancelled = format!(
        "outbox WHERE event_type = X'{}'",
        tests::hex("orders.cancelled.v1")
    );
    assert_eq!(
        db.count_rows(&cancelled).await,
        4,
        "one event per cancelled order: held, a, b, done"
    );
    db.finish().await;
}
