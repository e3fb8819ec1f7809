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

/// Where a shipment stands. `SHIPPED` is set by whoever ships (outside this service).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShipmentState {
    Requested,
    Cancelled,
    Shipped,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown shipment state")]
pub struct UnknownShipmentState;

impl ShipmentState {
    #[must_use]
    pub const fn as_stored(self) -> &'static str {
        match self {
            Self::Requested => "REQUESTED",
            Self::Cancelled => "CANCELLED",
            Self::Shipped => "SHIPPED",
        }
    }

    /// # Errors
    /// A value no state is stored as.
    pub fn from_stored(raw: &str) -> Result<Self, UnknownShipmentState> {
        [Self::Requested, Self::Cancelled, Self::Shipped]
            .into_iter()
            .find(|state| state.as_stored() == raw)
            .ok_or(UnknownShipmentState)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShipment {
    pub order: OrderId,
    pub tenant: TenantId,
    pub sku: String,
    pub quantity: u8,
    pub state: ShipmentState,
    /// The order's revision in the event that wrote it.
    pub sequence: u64,
    pub event: Uuid,
    pub created_at: DateTime<Utc>,
}

pub trait ShipmentRepository {
    /// `false`, writing nothing, when the order has a shipment already.
    fn insert_shipment(
        &mut self,
        shipment: &NewShipment,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    /// The order's `REQUESTED` shipment written by an event older than `sequence` becomes
    /// `CANCELLED` at `sequence`; `false` when there is no such shipment.
    fn cancel_requested_shipment(
        &mut self,
        order: OrderId,
        sequence: u64,
    ) -> impl Future<Output = Result<bool, StoreError>> + Send;

    fn shipment_state(
        &mut self,
        order: OrderId,
    ) -> impl Future<Output = Result<Option<ShipmentState>, StoreError>> + Send;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shipment_state_reads_back_as_stored_and_nothing_else_does() {
        for state in [
            ShipmentState::Requested,
            ShipmentState::Cancelled,
            ShipmentState::Shipped,
        ] {
            assert_eq!(ShipmentState::from_stored(state.as_stored()), Ok(state));
        }
        assert_eq!(ShipmentState::as_stored(ShipmentState::Shipped), "SHIPPED");
        assert_eq!(
            ShipmentState::from_stored("shipped"),
            Err(UnknownShipmentState)
        );
    }
}
