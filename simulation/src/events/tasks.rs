//! The run's tasks: each order's operations committing its events, and in each process
//! the production relay and the production shipments consumer, looping as the server's
//! background tasks do.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use application::events::{
    HandleError, PendingEvent, Relay, RequestShipments, handle_delivery, order_event,
};
use application::orders::ORDERS_CANCELLED;
use application::ports::{Clock, NoHooks};
use application::{Order, order_created};
use domain::{ClientOrderRef, NewOrder, OrderId, OrderStatus, Quantity, Sku, TenantId};
use uuid::Uuid;

use super::Shared;
use super::counted::Counted;
use crate::executor::interleave;
use crate::history::Event;
use crate::locked::locked;
use crate::world::SimClock;

/// Order `order`'s create and, for some, its cancel: each event inserted (taking its
/// outbox id), then committed a few steps later, the cancel only after the create.
pub(super) async fn writer(shared: Arc<Shared>, order: u64) {
    let clock = SimClock(Arc::clone(&shared.world));
    let (Ok(tenant), Ok(reference), Ok(sku), Ok(quantity)) = (
        TenantId::parse(1),
        ClientOrderRef::parse(&format!("ref-{order}")),
        Sku::parse(&format!("sku-{order}")),
        Quantity::parse(1),
    ) else {
        return;
    };
    let created = Order::created(
        OrderId::new(order),
        tenant,
        NewOrder {
            client_order_ref: reference,
            sku,
            quantity,
        },
        clock.now(),
    );
    let mut events = vec![order_created(
        Uuid::from_u128(u128::from(order) << 8 | 1),
        &created,
    )];
    if shared.world.choice().chance(600) {
        let cancelled = Order {
            status: OrderStatus::Cancelled,
            cancelled_at: Some(clock.now()),
            ..created
        };
        events.push(order_event(
            ORDERS_CANCELLED,
            Uuid::from_u128(u128::from(order) << 8 | 2),
            &cancelled,
            2,
            clock.now(),
        ));
    }
    for (sequence, event) in (1u64..).zip(events) {
        interleave().await;
        let id = shared.world.db().next_id();
        interleave().await;
        locked(&shared.written).insert(event.id, (order, sequence));
        shared.outbox.commit(
            id,
            PendingEvent {
                id: event.id,
                subject: event.subject,
                payload: event.payload,
                created_at: event.created_at,
                attempts: 0,
                trace_context: None,
            },
            format!("orders/{order}"),
            i64::try_from(sequence).unwrap_or(i64::MAX),
        );
        shared.note(format!(
            "orders/{order} #{sequence} committed (outbox {id})"
        ));
    }
    if shared.writers_done.fetch_add(1, Ordering::Relaxed) + 1 == shared.writers {
        // The faults end a while after the last write, so the relays and consumers can
        // finish what they were doing when the world turned calm.
        for _ in 0..shared.world.choice().below(200) {
            interleave().await;
        }
        shared.world.calm();
    }
}

/// The production relay, pass after pass, until everything written is published.
pub(super) async fn relay(shared: Arc<Shared>, process: usize) {
    let clock = SimClock(Arc::clone(&shared.world));
    let relay = Relay::new(
        shared.outbox.clone(),
        shared.stream.clone(),
        NoHooks,
        shared.batch,
    );
    while !shared.relayed_all() {
        match relay.run_once(&clock).await {
            Ok(pass) if pass.claimed > 0 => {
                shared.note(format!(
                    "p{process} relay: {} published, {} failed, {} deferred",
                    pass.published, pass.failed, pass.deferred
                ));
            }
            // Nothing to do, or a failure: the relay waits before its next pass.
            _ => clock.pause(std::time::Duration::from_millis(10)).await,
        }
    }
}

/// The production shipments consumer on the durable consumer's deliveries, acking each
/// once it is handled, until every message is acknowledged.
pub(super) async fn consumer(shared: Arc<Shared>, process: usize) {
    let clock = SimClock(Arc::clone(&shared.world));
    while !(shared.relayed_all() && shared.stream.drained()) {
        interleave().await;
        let Some((index, payload)) = shared.stream.deliver() else {
            clock.pause(std::time::Duration::from_millis(10)).await;
            continue;
        };
        let handled = handle_delivery(
            &shared.store,
            &Counted(RequestShipments),
            &NoHooks,
            &payload,
            clock.now(),
        )
        .await;
        match handled {
            Ok(handled) => {
                shared.note(format!("p{process} consumer: message {index} {handled:?}"));
                if shared.world.fails(|f| f.ack_lost) {
                    continue;
                }
                shared.stream.ack(index);
            }
            Err(HandleError::Retry(_)) => {}
            Err(HandleError::Poison(poison)) => {
                shared.history.push(
                    shared.world.micros(),
                    Event::Violation(format!("message {index} refused as poison: {poison}")),
                );
            }
        }
    }
}
