//! `orders.cancel.v1`'s business step through the coordinator: each refusal rolls back
//! before any write, and a cancel writes the order and its event at the next revision.

use std::sync::Mutex;

use application::orders::{
    CancelOrder, CancelRefusal, LockedOrder, ORDERS_CANCELLED, OrderCancellation,
};
use application::ports::StoreError;
use application::{FailureCause, Order, Outcome};
use domain::{OperationState, OrderId, OrderStatus, Reason};

use crate::support::*;

const REVISION: u64 = 3;

fn cancellation() -> OrderCancellation {
    OrderCancellation {
        order: OrderId::new(9),
        reason: Reason::parse("changed my mind").unwrap(),
    }
}

fn found(status: OrderStatus) -> LockedOrder {
    LockedOrder {
        order: Order {
            status,
            ..Order::created(OrderId::new(9), caller().tenant, new_order(2), t0())
        },
        revision: REVISION,
    }
}

/// A transaction whose locked read finds `order` and whose capture read finds `capture`.
fn tx_finding(order: Option<LockedOrder>, capture: Option<OperationState>) -> MockTx {
    let mut tx = tx_inserting_record();
    let order = Mutex::new(Some(order));
    tx.expect_lock_order()
        .withf(|tenant, order| *tenant == caller().tenant && order.get() == 9)
        .times(1)
        .returning(move |_, _| ready(Ok(order.lock().unwrap().take().unwrap())));
    tx.expect_blocking_capture()
        .returning(move |_, _| ready(Ok(capture)));
    tx
}

async fn run(tx: MockTx) -> Outcome<CancelRefusal> {
    coordinator(ScriptedUnitOfWork::of([tx]), no_reads())
        .run(&CancelOrder, &caller(), &key(), &cancellation())
        .await
}

#[tokio::test]
async fn each_refusal_rolls_back_before_any_write() {
    for (order, capture, refusal) in [
        (None, None, CancelRefusal::OrderNotFound),
        (
            Some(found(OrderStatus::Cancelled)),
            None,
            CancelRefusal::AlreadyCancelled,
        ),
        (
            Some(found(OrderStatus::Active)),
            Some(OperationState::Pending),
            CancelRefusal::CapturePending,
        ),
        (
            Some(found(OrderStatus::Active)),
            Some(OperationState::Succeeded),
            CancelRefusal::CaptureSucceeded,
        ),
    ] {
        let mut tx = tx_finding(order, capture);
        tx.expect_mark_cancelled().never();
        tx.expect_add_event().never();
        tx.expect_complete().never();
        expect_rollback_only(&mut tx);
        assert_eq!(run(tx).await, Outcome::Rejected(refusal));
    }
}

#[tokio::test]
async fn a_cancel_marks_the_order_at_the_next_revision_with_its_event_and_answers_it() {
    let mut tx = tx_finding(Some(found(OrderStatus::Active)), None);
    tx.expect_mark_cancelled()
        .withf(|tenant, order, at, reason, revision| {
            *tenant == caller().tenant
                && order.get() == 9
                && *at == t0()
                && reason.as_str() == "changed my mind"
                && *revision == REVISION + 1
        })
        .times(1)
        .returning(|_, _, _, _, _| ready(Ok(())));
    tx.expect_add_event()
        .withf(|event| {
            let document: serde_json::Value = serde_json::from_slice(&event.payload).unwrap();
            event.event_type == ORDERS_CANCELLED.name
                && event.subject == "orders.cancelled.v1.7"
                && event.created_at == t0()
                && event.order.as_ref().map(|o| (o.key.as_str(), o.sequence))
                    == Some(("orders/9", REVISION + 1))
                && document["sequence"] == REVISION + 1
                && document["order"]["status"] == "cancelled"
        })
        .times(1)
        .returning(|_| ready(Ok(())));
    tx.expect_complete()
        .withf(|_, completion| completion.response.status() == 200)
        .times(1)
        .returning(|_, _| ready(Ok(1)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    tx.expect_rollback().never();

    let Outcome::Executed { response, .. } = run(tx).await else {
        panic!("not executed");
    };
    assert_eq!(response.location(), None);
    let body: serde_json::Value = serde_json::from_slice(response.body()).unwrap();
    assert_eq!(
        (&body["status"], &body["cancelledAt"]),
        (&"cancelled".into(), &"2027-01-15T08:00:00.123456Z".into())
    );
}

#[tokio::test]
async fn a_mark_that_fails_rolls_back_and_writes_no_event() {
    let mut tx = tx_finding(Some(found(OrderStatus::Active)), None);
    tx.expect_mark_cancelled()
        .times(1)
        .returning(|_, _, _, _, _| ready(Err(StoreError::Other("gone".into()))));
    tx.expect_add_event().never();
    tx.expect_complete().never();
    expect_rollback_only(&mut tx);
    assert_eq!(
        run(tx).await,
        Outcome::Failed(FailureCause::Store(StoreError::Other("gone".into())))
    );
}
