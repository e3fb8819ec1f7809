//! The shipped consumer (contract §6): one `REQUESTED` shipment per created order.

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use serde::Deserialize;
use uuid::Uuid;

use crate::inbox::{InboxConsumer, Poison};
use crate::order_created::ORDERS_CREATED;
use crate::ports::{NewShipment, ShipmentRepository, StoreError};

/// The consumer's name in the inbox, and the durable consumer's on the broker.
pub const SHIPMENTS_CONSUMER: &str = "shipments";

/// The members of an `orders.created.v1` document this consumer reads.
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

/// What a shipment needs from the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShipmentRequest {
    order: OrderId,
    tenant: TenantId,
    sku: String,
    quantity: u8,
}

/// Requests a shipment for every created order.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestShipments;

impl<Tx: ShipmentRepository + Send> InboxConsumer<Tx> for RequestShipments {
    type Event = ShipmentRequest;

    fn name(&self) -> &'static str {
        SHIPMENTS_CONSUMER
    }

    fn decode(&self, payload: &[u8]) -> Result<(Uuid, ShipmentRequest), Poison> {
        // The reason names the member, never the payload's values.
        let document: Document = serde_json::from_slice(payload).map_err(|error| {
            Poison(format!(
                "not an {ORDERS_CREATED} document ({})",
                error.classify_name()
            ))
        })?;
        if document.event_type != ORDERS_CREATED {
            return Err(Poison(format!("type is not {ORDERS_CREATED}")));
        }
        let order = document
            .order
            .order_id
            .parse::<u64>()
            .ok()
            .filter(|id| *id > 0)
            .map(OrderId::new)
            .ok_or_else(|| Poison("orderId is not a positive integer".to_owned()))?;
        let tenant = TenantId::parse(document.tenant_id)
            .map_err(|_| Poison("tenantId is not a positive integer".to_owned()))?;
        let id = Uuid::parse_str(&document.event_id)
            .map_err(|_| Poison("eventId is not a UUID".to_owned()))?;
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

/// The name of a serde_json error's category, which never quotes the input.
trait ClassifyName {
    fn classify_name(&self) -> &'static str;
}

impl ClassifyName for serde_json::Error {
    fn classify_name(&self) -> &'static str {
        match self.classify() {
            serde_json::error::Category::Io => "unreadable",
            serde_json::error::Category::Syntax => "not JSON",
            serde_json::error::Category::Data => "missing or mistyped member",
            serde_json::error::Category::Eof => "truncated",
        }
    }
}
