//! Every branch of the inbox with the shipped consumer, with mocked ports: a first
//! delivery writes once and commits, a duplicate writes nothing, a poison payload never
//! opens a transaction, and any failure rolls back for a redelivery.

use std::future::Future;
use std::sync::{Arc, Mutex};

use application::ports::{Delivery, FlowHooks, NoHooks, PausePoint, ShipmentState, StoreError};
use application::{HandleError, Handled, Order, RequestShipments, handle_delivery, order_created};
use domain::OrderId;
use uuid::Uuid;

use crate::support::*;

const EVENT: u128 = 0x1234;

fn payload() -> Vec<u8> {
    let order = Order::created(OrderId::new(9), caller().tenant, new_order(3), t0());
    order_created(Uuid::from_u128(EVENT), &order).payload
}

async fn handle(txs: ScriptedUnitOfWork, bytes: &[u8]) -> Result<Handled, HandleError> {
    handle_delivery(&txs, &RequestShipments, &NoHooks, bytes, t0()).await
}

fn tx_recording(delivery: Result<Delivery, StoreError>) -> MockTx {
    let mut tx = MockTx::new();
    let delivery = Mutex::new(Some(delivery));
    tx.expect_record_delivery()
        .withf(|consumer, event, at| {
            consumer == "shipments" && *event == Uuid::from_u128(EVENT) && *at == t0()
        })
        .times(1)
        .returning(move |_, _, _| ready(delivery.lock().unwrap().take().unwrap()));
    tx
}

#[tokio::test]
async fn a_first_delivery_requests_one_shipment_and_commits() {
    let mut tx = tx_recording(Ok(Delivery::First));
    tx.expect_insert_shipment()
        .withf(|s| {
            s.order == OrderId::new(9)
                && s.tenant.get() == 7
                && s.quantity == 3
                && s.event == Uuid::from_u128(EVENT)
        })
        .times(1)
        .returning(|_| ready(Ok(true)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    tx.expect_rollback().never();

    let handled = handle(ScriptedUnitOfWork::of([tx]), &payload()).await;

    assert!(matches!(handled, Ok(Handled::Applied)), "{handled:?}");
}

#[tokio::test]
async fn a_duplicate_delivery_writes_nothing() {
    let mut tx = tx_recording(Ok(Delivery::Duplicate));
    tx.expect_insert_shipment().never();
    expect_rollback_only(&mut tx);

    let handled = handle(ScriptedUnitOfWork::of([tx]), &payload()).await;

    assert!(matches!(handled, Ok(Handled::Duplicate)), "{handled:?}");
}

#[tokio::test]
async fn a_poison_payload_never_opens_a_transaction() {
    for bytes in [
        b"not json".as_slice(),
        br#"{"eventId":"x","type":"orders.created.v1","tenantId":1,"order":{"orderId":"1","sku":"S","quantity":1}}"#,
        br#"{"eventId":"00000000-0000-4000-8000-000000000001","type":"orders.created.v1","tenantId":1,"order":{"orderId":"0","sku":"S","quantity":1}}"#,
    ] {
        let handled = handle(ScriptedUnitOfWork::of([]), bytes).await;
        let Err(HandleError::Poison(reason)) = handled else {
            panic!("{handled:?}");
        };
        assert!(!reason.to_string().contains("\"S\""), "no payload values: {reason}");
    }
}

/// A type the consumer does not handle is acknowledged untouched, whatever else its
/// document holds; one with no type at all is poison.
#[tokio::test]
async fn an_event_type_the_consumer_does_not_handle_is_ignored_without_a_transaction() {
    for bytes in [
        br#"{"eventId":"00000000-0000-4000-8000-000000000001","type":"other.v1","tenantId":1,"order":{"orderId":"1","sku":"S","quantity":1}}"#.as_slice(),
        br#"{"type":"payments.captured.v1","anything":["else"]}"#,
    ] {
        let handled = handle(ScriptedUnitOfWork::of([]), bytes).await;
        assert!(matches!(handled, Ok(Handled::Ignored)), "{handled:?}");
    }
    let handled = handle(ScriptedUnitOfWork::of([]), br#"{"eventId":"x"}"#).await;
    assert!(
        matches!(handled, Err(HandleError::Poison(_))),
        "{handled:?}"
    );
}

#[tokio::test]
async fn a_failed_shipment_insert_rolls_back_for_a_redelivery() {
    let mut tx = tx_recording(Ok(Delivery::First));
    tx.expect_insert_shipment()
        .times(1)
        .returning(|_| ready(Err(StoreError::Deadlock)));
    expect_rollback_only(&mut tx);

    let handled = handle(ScriptedUnitOfWork::of([tx]), &payload()).await;

    assert!(
        matches!(handled, Err(HandleError::Retry(StoreError::Deadlock))),
        "{handled:?}"
    );
}

#[tokio::test]
async fn a_failed_inbox_insert_rolls_back_for_a_redelivery() {
    let mut tx = tx_recording(Err(StoreError::LockWaitTimeout));
    tx.expect_insert_shipment().never();
    expect_rollback_only(&mut tx);

    let handled = handle(ScriptedUnitOfWork::of([tx]), &payload()).await;

    assert!(
        matches!(
            handled,
            Err(HandleError::Retry(StoreError::LockWaitTimeout))
        ),
        "{handled:?}"
    );
}

#[tokio::test]
async fn a_failed_commit_is_left_to_a_redelivery() {
    let mut tx = tx_recording(Ok(Delivery::First));
    tx.expect_insert_shipment()
        .times(1)
        .returning(|_| ready(Ok(true)));
    tx.expect_commit().times(1).returning(|| {
        ready(Err(application::ports::CommitError::CommitOutcomeUnknown(
            "answer lost".into(),
        )))
    });

    let handled = handle(ScriptedUnitOfWork::of([tx]), &payload()).await;

    assert!(matches!(handled, Err(HandleError::Retry(_))), "{handled:?}");
}

#[tokio::test]
async fn a_database_that_cannot_begin_is_left_to_a_redelivery() {
    let handled = handle(
        ScriptedUnitOfWork::new([Err(StoreError::ConnectionLost("connection reset".into()))]),
        &payload(),
    )
    .await;

    assert!(
        matches!(
            handled,
            Err(HandleError::Retry(StoreError::ConnectionLost(_)))
        ),
        "{handled:?}"
    );
}

/// Hooks that note the points reached.
struct Recording(Arc<Mutex<Vec<PausePoint>>>);

impl FlowHooks for Recording {
    fn reached(&self, point: PausePoint) -> impl Future<Output = ()> + Send {
        self.0.lock().unwrap().push(point);
        std::future::ready(())
    }
}

#[tokio::test]
async fn the_pause_point_follows_the_commit_only_when_something_was_applied() {
    let points = Arc::new(Mutex::new(Vec::new()));
    let mut first = tx_recording(Ok(Delivery::First));
    first
        .expect_insert_shipment()
        .returning(|_| ready(Ok(true)));
    let seen = Arc::clone(&points);
    first.expect_commit().times(1).returning(move || {
        assert!(
            seen.lock().unwrap().is_empty(),
            "the point comes after the commit"
        );
        ready(Ok(()))
    });
    let mut duplicate = tx_recording(Ok(Delivery::Duplicate));
    expect_rollback_only(&mut duplicate);
    let txs = ScriptedUnitOfWork::of([first, duplicate]);
    let hooks = Recording(Arc::clone(&points));

    for _ in 0..2 {
        handle_delivery(&txs, &RequestShipments, &hooks, &payload(), t0())
            .await
            .unwrap();
    }

    assert_eq!(*points.lock().unwrap(), vec![PausePoint::ConsumerCommitted]);
}

/// `orders.cancelled.v1` of order 9 at revision 2.
fn cancelled_payload() -> Vec<u8> {
    let order = Order {
        status: domain::OrderStatus::Cancelled,
        cancelled_at: Some(t0()),
        ..Order::created(OrderId::new(9), caller().tenant, new_order(3), t0())
    };
    application::events::order_event(
        application::orders::ORDERS_CANCELLED,
        Uuid::from_u128(EVENT),
        &order,
        2,
        t0(),
    )
    .payload
}

/// A first delivery of the cancel whose update finds `updated` and, if it found none, whose
/// read finds `state`.
fn tx_cancelling(updated: bool, state: Option<ShipmentState>) -> MockTx {
    let mut tx = tx_recording(Ok(Delivery::First));
    tx.expect_cancel_requested_shipment()
        .withf(|order, sequence| *order == OrderId::new(9) && *sequence == 2)
        .times(1)
        .returning(move |_, _| ready(Ok(updated)));
    tx.expect_shipment_state()
        .returning(move |_| ready(Ok(state)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    tx.expect_rollback().never();
    tx
}

#[tokio::test]
async fn a_cancel_cancels_a_requested_shipment() {
    let mut tx = tx_cancelling(true, None);
    tx.expect_insert_shipment().never();
    let handled = handle(ScriptedUnitOfWork::of([tx]), &cancelled_payload()).await;
    assert!(matches!(handled, Ok(Handled::Applied)), "{handled:?}");
}

#[tokio::test]
async fn a_cancel_before_its_creation_writes_a_cancelled_shipment() {
    let mut tx = tx_cancelling(false, None);
    tx.expect_insert_shipment()
        .withf(|s| s.state == ShipmentState::Cancelled && s.sequence == 2)
        .times(1)
        .returning(|_| ready(Ok(true)));
    let handled = handle(ScriptedUnitOfWork::of([tx]), &cancelled_payload()).await;
    assert!(matches!(handled, Ok(Handled::Applied)), "{handled:?}");

    // The creation then finds the shipment there and changes nothing.
    let mut created = tx_recording(Ok(Delivery::First));
    created
        .expect_insert_shipment()
        .withf(|s| s.state == ShipmentState::Requested && s.sequence == 1)
        .times(1)
        .returning(|_| ready(Ok(false)));
    created.expect_commit().times(1).returning(|| ready(Ok(())));
    let handled = handle(ScriptedUnitOfWork::of([created]), &payload()).await;
    assert!(matches!(handled, Ok(Handled::Outdated)), "{handled:?}");
}

#[tokio::test]
async fn a_shipped_shipment_is_left_alone_and_a_cancelled_one_is_outdated() {
    let mut tx = tx_cancelling(false, Some(ShipmentState::Shipped));
    tx.expect_insert_shipment().never();
    let handled = handle(ScriptedUnitOfWork::of([tx]), &cancelled_payload()).await;
    assert!(
        matches!(handled, Ok(Handled::LeftAlone(why)) if why.contains("shipped")),
        "{handled:?}"
    );

    let mut tx = tx_cancelling(false, Some(ShipmentState::Cancelled));
    tx.expect_insert_shipment().never();
    let handled = handle(ScriptedUnitOfWork::of([tx]), &cancelled_payload()).await;
    assert!(matches!(handled, Ok(Handled::Outdated)), "{handled:?}");
}

#[tokio::test]
async fn a_cancel_that_loses_the_insert_to_its_creation_cancels_what_the_creation_wrote() {
    let mut tx = tx_recording(Ok(Delivery::First));
    let updates = Mutex::new(vec![true, false]);
    tx.expect_cancel_requested_shipment()
        .times(2)
        .returning(move |_, _| ready(Ok(updates.lock().unwrap().pop().unwrap())));
    tx.expect_shipment_state()
        .times(1)
        .returning(|_| ready(Ok(None)));
    tx.expect_insert_shipment()
        .times(1)
        .returning(|_| ready(Ok(false)));
    tx.expect_commit().times(1).returning(|| ready(Ok(())));
    let handled = handle(ScriptedUnitOfWork::of([tx]), &cancelled_payload()).await;
    assert!(matches!(handled, Ok(Handled::Applied)), "{handled:?}");
}
