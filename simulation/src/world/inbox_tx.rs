//! The inbox and the shipments table on a simulated transaction: the delivery's unique
//! key decides (a copy being applied by another consumer makes this one wait, then find
//! it), and a shipment's update takes its row lock.

use application::events::{Delivery, InboxTx, NewShipment, ShipmentRepository, ShipmentState};
use application::ports::StoreError;
use chrono::{DateTime, Utc};
use domain::OrderId;
use uuid::Uuid;

use super::db::{LockKey, ShipmentRow};
use super::tx::SimTx;

impl InboxTx for SimTx {
    async fn record_delivery(
        &mut self,
        consumer: &'static str,
        event: Uuid,
        _at: DateTime<Utc>,
    ) -> Result<Delivery, StoreError> {
        self.statement().await?;
        if !self.claim(&LockKey::Delivery(consumer, event)).await? {
            return Ok(Delivery::Duplicate);
        }
        self.write(|writes| writes.deliveries.push((consumer, event)));
        Ok(Delivery::First)
    }
}

impl SimTx {
    /// One application of `event` by `consumer`, counted if this transaction commits.
    pub(crate) fn count_application(&self, consumer: &'static str, event: Uuid) {
        self.write(|writes| writes.applications.push((consumer, event)));
    }
}

impl ShipmentRepository for SimTx {
    async fn insert_shipment(&mut self, shipment: &NewShipment) -> Result<bool, StoreError> {
        self.statement().await?;
        if !self.claim(&LockKey::Shipment(shipment.order.get())).await? {
            return Ok(false);
        }
        let row = ShipmentRow {
            state: shipment.state,
            sequence: shipment.sequence,
        };
        self.write(|writes| {
            writes.shipments.insert(shipment.order.get(), row);
        });
        Ok(true)
    }

    async fn cancel_requested_shipment(
        &mut self,
        order: OrderId,
        sequence: u64,
    ) -> Result<bool, StoreError> {
        self.statement().await?;
        self.lock_row(&LockKey::Shipment(order.get())).await?;
        match self.shipment(order.get()) {
            Some(row) if row.state == ShipmentState::Requested && row.sequence < sequence => {
                let cancelled = ShipmentRow {
                    state: ShipmentState::Cancelled,
                    sequence,
                };
                self.write(|writes| {
                    writes.shipments.insert(order.get(), cancelled);
                });
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    async fn shipment_state(
        &mut self,
        order: OrderId,
    ) -> Result<Option<ShipmentState>, StoreError> {
        self.statement().await?;
        Ok(self.shipment(order.get()).map(|row| row.state))
    }
}
