//! The invariants of events (`docs/simulation.md#invariants`): each order's events reach
//! the stream in the order they committed, checked after every step; at the end every
//! committed event is published and applied exactly once, and each order's shipment is
//! where its last event put it.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use application::events::{SHIPMENTS_CONSUMER, ShipmentState};

use super::Shared;
use crate::locked::locked;

/// The messages the stream gained since the last look: an event's first copy may not come
/// before the first copy of its order's previous event.
pub(super) fn stream_in_order(shared: &Shared) -> Result<(), String> {
    let messages = shared.stream.lock();
    let from = shared
        .looked_at
        .swap(messages.messages.len(), Ordering::Relaxed);
    let written = locked(&shared.written);
    let mut appeared = locked(&shared.appeared);
    for message in messages.messages.iter().skip(from) {
        let Some(&(order, sequence)) = written.get(&message.id) else {
            return Err(format!("a message of no committed event: {}", message.id));
        };
        if !appeared.insert((order, sequence)) {
            continue;
        }
        if sequence > 1 && !appeared.contains(&(order, sequence - 1)) {
            return Err(format!(
                "orders/{order}: event #{sequence} reached the stream before #{}",
                sequence - 1
            ));
        }
    }
    Ok(())
}

pub(super) fn at_the_end(shared: &Shared) -> Result<(), String> {
    let written = locked(&shared.written).clone();
    let outbox = shared.outbox.lock();
    if let Some(row) = outbox.rows.values().find(|row| !row.published) {
        return Err(format!("{} #{} never published", row.order, row.sequence));
    }
    drop(outbox);
    let stream = shared.stream.lock();
    let db = shared.world.db();
    let mut last: BTreeMap<u64, u64> = BTreeMap::new();
    for (id, (order, sequence)) in &written {
        if !stream.messages.iter().any(|message| message.id == *id) {
            return Err(format!(
                "orders/{order} #{sequence} marked published, not in the stream"
            ));
        }
        let applied = db
            .applications
            .iter()
            .filter(|application| **application == (SHIPMENTS_CONSUMER, *id))
            .count();
        if applied != 1 {
            return Err(format!(
                "orders/{order} #{sequence} applied {applied} times"
            ));
        }
        let highest = last.entry(*order).or_default();
        *highest = (*highest).max(*sequence);
    }
    for (order, sequence) in last {
        let expected = if sequence > 1 {
            ShipmentState::Cancelled
        } else {
            ShipmentState::Requested
        };
        let found = db.shipments.get(&order).map(|row| row.state);
        if found != Some(expected) {
            return Err(format!(
                "orders/{order}: shipment {found:?} after its last event #{sequence}"
            ));
        }
    }
    Ok(())
}
