//! The inbox and the shipments table, written inside a consumer's transaction.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{OrderId, TenantId};
use uuid::Uuid;

use crate::ports::StoreError;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Delivery {
    First,
    /// Recorded by a committed transaction: applied before.
    Duplicate,
}

pub trait InboxTx {
    /// Waits while another open transaction records the same delivery.
    fn record_delivery(
        &mut self,
        consumer: &'static str,
        event: Uuid,
        at: DateTime<Utc>,
    ) -> impl Future<Output = Result<Delivery, StoreError>> + Send;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShipment {
    pub order: OrderId,
    pub tenant: TenantId,
    pub sku: String,
    pub quantity: u8,
    pub event: Uuid,
    pub created_at: DateTime<Utc>,
}

pub trait ShipmentRepository {
    /// # Errors
    /// A second shipment for one order is `Other` (its unique key); the inbox prevents it.
    fn insert_shipment(
        &mut self,
        shipment: &NewShipment,
    ) -> impl Future<Output = Result<(), StoreError>> + Send;
}
