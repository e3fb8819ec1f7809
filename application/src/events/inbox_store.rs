//! The inbox and the shipments table, written inside a consumer's transaction.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use uuid::Uuid;

use crate::ports::StoreError;

/// Whether a delivery is the first of its event for a consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    /// Recorded now: the consumer applies the event in this transaction.
    First,
    /// Already recorded by a committed transaction: applied before, nothing to do.
    Duplicate,
}

/// Records deliveries inside an open transaction (implemented by the adapter's
/// transaction).
pub trait InboxTx {
    /// Records `(consumer, event)` under the inbox's unique key. A delivery of an event
    /// another open transaction is recording waits for that transaction to end.
    ///
    /// # Errors
    /// `LockWaitTimeout`, `Deadlock`, `ConnectionLost`, `Timeout` or `Other`.
    fn record_delivery(
        &mut self,
        consumer: &'static str,
        event: Uuid,
        at: DateTime<Utc>,
    ) -> impl Future<Output = Result<Delivery, StoreError>> + Send;
}

/// A shipment to request for an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShipment {
    /// The order shipped.
    pub order: OrderId,
    /// The order's tenant.
    pub tenant: TenantId,
    /// What to ship.
    pub sku: String,
    /// How many.
    pub quantity: u8,
    /// The event that asked for it.
    pub event: Uuid,
    /// When it was requested.
    pub created_at: DateTime<Utc>,
}

/// Writes shipments inside an open transaction.
pub trait ShipmentRepository {
    /// Inserts one `REQUESTED` shipment.
    ///
    /// # Errors
    /// Any [`StoreError`]; a second shipment for one order violates its unique key and is
    /// `Other` (the inbox keeps that from happening).
    fn insert_shipment(
        &mut self,
        shipment: &NewShipment,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
