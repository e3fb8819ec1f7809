//! The shipped consumer: one `REQUESTED` shipment per created order.

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use serde::Deserialize;
use uuid::Uuid;

use super::inbox::{InboxConsumer, Poison};
use super::inbox_store::{NewShipment, ShipmentRepository};
use super::order_events::ORDERS_CREATED;
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
    order: OrderMembers,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OrderMembers {
    order_id: String,
    sku: String,
    quantity: u8,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShipmentRequest {
    order: OrderId,
    tenant: TenantId,
    sku: String,
    quantity: u8,
}

#[derive(Debug, Clone, Copy, Default)]
pub struct RequestShipments;

impl<Tx: ShipmentRepository + Send> InboxConsumer<Tx> for RequestShipments {
    type Event = ShipmentRequest;

    fn name(&self) -> &'static str {
        SHIPMENTS_CONSUMER
    }

    fn decode(&self, payload: &[u8]) -> Result<(Uuid, ShipmentRequest), Poison> {
        // The reason names the member, never the payload's values.
        let document: Document =
            serde_json::from_slice(payload).map_err(|error| Poison(not_a_document(&error)))?;
        if document.event_type != ORDERS_CREATED {
            return Err(Poison("type is not orders.created.v1"));
        }
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
                order,
                tenant,
                sku: document.order.sku,
                quantity: document.order.quantity,
            },
        ))
    }

    async fn apply(
        &self,
        tx: &mut Tx,
        event: &ShipmentRequest,
        id: Uuid,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        tx.insert_shipment(&NewShipment {
            order: event.order,
            tenant: event.tenant,
            sku: event.sku.clone(),
            quantity: event.quantity,
            event: id,
            created_at: now,
        })
        .await
    }
}

/// By the error's category, which never quotes the input (its message may).
fn not_a_document(error: &serde_json::Error) -> &'static str {
    match error.classify() {
        serde_json::error::Category::Io => "not an orders.created.v1 document (unreadable)",
        serde_json::error::Category::Syntax => "not an orders.created.v1 document (not JSON)",
        serde_json::error::Category::Data => {
            "not an orders.created.v1 document (missing or mistyped member)"
        }
        serde_json::error::Category::Eof => "not an orders.created.v1 document (truncated)",
    }
}
