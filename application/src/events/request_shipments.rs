//! The shipped consumer: one `REQUESTED` shipment per created order, `CANCELLED` when the
//! order is cancelled before it shipped (`docs/events.md#the-shipped-consumer`).

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use serde::Deserialize;
use uuid::Uuid;

use super::EventType;
use super::inbox::{Applied, InboxConsumer, Poison};
use super::inbox_store::{NewShipment, ShipmentRepository, ShipmentState};
use super::order_events::FIRST_REVISION;
use crate::orders::{ORDERS_CANCELLED, ORDERS_CREATED};
use crate::ports::StoreError;

/// The consumer's name in the inbox, and the durable consumer's on the broker.
pub const SHIPMENTS_CONSUMER: &str = "shipments";

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Document {
    event_id: String,
    #[serde(rename = "type")]
    event_type: String,
    tenant_id: u64,
    /// Absent in events written before orders had a revision: they are all creations.
    sequence: Option<u64>,
    order: OrderMembers,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OrderMembers {
    order_id: String,
    sku: String,
    quantity: u8,
}

/// What happened to the order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderChange {
    Created,
    Cancelled,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShipmentRequest {
    change: OrderChange,
    order: OrderId,
    tenant: TenantId,
    sku: String,
    quantity: u8,
    /// The order's revision the event carries: a later change has a higher one.
    sequence: u64,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct RequestShipments;

impl<Tx: ShipmentRepository + Send> InboxConsumer<Tx> for RequestShipments {
    type Event = ShipmentRequest;

    fn name(&self) -> &'static str {
        SHIPMENTS_CONSUMER
    }

    fn handles(&self) -> &'static [EventType] {
        &[ORDERS_CREATED, ORDERS_CANCELLED]
    }

    fn decode(&self, payload: &[u8]) -> Result<(Uuid, ShipmentRequest), Poison> {
        // The reason names the member, never the payload's values.
        let document: Document =
            serde_json::from_slice(payload).map_err(|error| Poison(not_a_document(&error)))?;
        let change = match document.event_type.as_str() {
            created if created == ORDERS_CREATED.name => OrderChange::Created,
            cancelled if cancelled == ORDERS_CANCELLED.name => OrderChange::Cancelled,
            _ => {
                return Err(Poison(
                    "type is neither orders.created.v1 nor orders.cancelled.v1",
                ));
            }
        };
        let order = document
            .order
            .order_id
            .parse::<u64>()
            .ok()
            .filter(|id| *id > 0)
            .map(OrderId::new)
            .ok_or(Poison("orderId is not a positive integer"))?;
        let tenant = TenantId::parse(document.tenant_id)
            .map_err(|_| Poison("tenantId is not a positive integer"))?;
        let id =
            Uuid::parse_str(&document.event_id).map_err(|_| Poison("eventId is not a UUID"))?;
        Ok((
            id,
            ShipmentRequest {
                change,
                order,
                tenant,
                sku: document.order.sku,
                quantity: document.order.quantity,
                sequence: document.sequence.unwrap_or(FIRST_REVISION),
            },
        ))
    }

    async fn apply(
        &self,
        tx: &mut Tx,
        event: &ShipmentRequest,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<Applied, StoreError> {
        match event.change {
            OrderChange::Created => {
                let inserted = tx
                    .insert_shipment(&shipment(event, ShipmentState::Requested, id, now))
                    .await?;
                // A shipment already there came from this order's cancel, delivered first.
                Ok(if inserted {
                    Applied::Changed
                } else {
                    Applied::Outdated
                })
            }
            OrderChange::Cancelled => cancel(tx, event, id, now).await,
        }
    }
}

fn shipment(
    event: &ShipmentRequest,
    state: ShipmentState,
    id: Uuid,
    now: DateTime<Utc>,
) -> NewShipment {
    NewShipment {
        order: event.order,
        tenant: event.tenant,
        sku: event.sku.clone(),
        quantity: event.quantity,
        state,
        sequence: event.sequence,
        event: id,
        created_at: now,
    }
}

/// A requested shipment becomes cancelled. With none yet (the cancel came first), a
/// cancelled one is written, so the creation arriving later changes nothing. A shipped
/// one is left alone.
async fn cancel<Tx: ShipmentRepository + Send>(
    tx: &mut Tx,
    event: &ShipmentRequest,
    id: Uuid,
    now: DateTime<Utc>,
) -> Result<Applied, StoreError> {
    // Twice at most: a creation applied at the same moment wins the insert, then the
    // update finds its row.
    for _ in 0..2 {
        if tx
            .cancel_requested_shipment(event.order, event.sequence)
            .await?
        {
            return Ok(Applied::Changed);
        }
        match tx.shipment_state(event.order).await? {
            Some(ShipmentState::Shipped) => {
                return Ok(Applied::LeftAlone(
                    "the order's shipment has already shipped",
                ));
            }
            Some(ShipmentState::Cancelled | ShipmentState::Requested) => {
                return Ok(Applied::Outdated);
            }
            None => {
                let inserted = tx
                    .insert_shipment(&shipment(event, ShipmentState::Cancelled, id, now))
                    .await?;
                if inserted {
                    return Ok(Applied::Changed);
                }
            }
        }
    }
    Err(StoreError::Other(Box::new(ShipmentVanished)))
}

/// A row inserted by a concurrent transaction and then not there: a bug, never a race.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the order's shipment was taken and then gone")]
struct ShipmentVanished;

/// By the error's category, which never quotes the input (its message may).
fn not_a_document(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Io => "not an order event document (unreadable)",
        serde_json::error::Category::Syntax => "not an order event document (not JSON)",
        serde_json::error::Category::Data => {
            "not an order event document (missing or mistyped member)"
        }
        serde_json::error::Category::Eof => "not an order event document (truncated)",
    }
}
