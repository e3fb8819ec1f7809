//! A create's writes on a simulated transaction: the order under its `clientOrderRef`'s
//! unique key, and its event in the outbox.

use application::events::{NewEvent, OutboxWriter};
use application::orders::OrderRepository;
use application::ports::StoreError;
use application::{CreateRefusal, StepError};
use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, TenantId};

use super::db::{EventRow, LockKey, OrderRow};
use super::tx::SimTx;

impl OrderRepository for SimTx {
    async fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        _created_at: DateTime<Utc>,
    ) -> Result<OrderId, StepError<CreateRefusal>> {
        self.statement().await?;
        let reference = order.client_order_ref.as_str().to_owned();
        if !self
            .claim(&LockKey::OrderRef(tenant.get(), reference.clone()))
            .await?
        {
            return Err(StepError::Rejected(CreateRefusal::ClientOrderRefConflict));
        }
        let id = self.world().db().next_id();
        self.write(|writes| {
            writes.orders.push(OrderRow {
                id,
                tenant: tenant.get(),
                client_order_ref: reference,
                sku: order.sku.as_str().to_owned(),
            });
        });
        Ok(OrderId::new(id))
    }
}

impl OutboxWriter for SimTx {
    async fn add_event(&mut self, event: &NewEvent) -> Result<(), StoreError> {
        self.statement().await?;
        self.write(|writes| {
            writes.events.push(EventRow {
                event_type: event.event_type,
                about: event
                    .order
                    .as_ref()
                    .map(|order| (order.key.clone(), order.sequence)),
            });
        });
        Ok(())
    }
}
