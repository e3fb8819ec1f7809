//! A create's writes on a simulated transaction: the order under its `clientOrderRef`'s
//! unique key, and its event in the outbox.

use application::events::{NewEvent, OutboxWriter};
use application::orders::OrderRepository;
use application::ports::StoreError;
use application::{CreateRefusal, StepError};
use chrono::{DateTime, Utc};
use domain::{ClientOrderRef, NewOrder, OrderId, TenantId};

use super::db::{EventRow, LockKey, OrderRow};
use super::tx::SimTx;

impl OrderRepository for SimTx {
    /// As a store's block in memory: no statement.
    async fn reserve_order_ids(&mut self, count: usize) -> Result<Vec<OrderId>, StoreError> {
        let mut db = self.world().db();
        Ok((0..count).map(|_| OrderId::new(db.next_id())).collect())
    }

    /// One statement for them all, each taking its `clientOrderRef`'s unique key in turn.
    async fn insert_orders(
        &mut self,
        orders: &[(OrderId, TenantId, &NewOrder)],
        created_at: DateTime<Utc>,
    ) -> Result<(), StepError<CreateRefusal>> {
        self.statement().await?;
        for (id, tenant, order) in orders {
            let reference = order.client_order_ref.as_str().to_owned();
            if !self
                .claim(&LockKey::OrderRef(tenant.get(), reference.clone()))
                .await?
            {
                return Err(StepError::Rejected(CreateRefusal::ClientOrderRefConflict));
            }
            self.write(|writes| {
                writes.orders.push(OrderRow {
                    id: id.get(),
                    tenant: tenant.get(),
                    client_order_ref: reference,
                    sku: order.sku.as_str().to_owned(),
                    quantity: order.quantity.get(),
                    created_at,
                });
            });
        }
        Ok(())
    }

    /// One statement, of what is committed: a reference taken meanwhile still meets its
    /// unique key in the insert.
    async fn taken_references(
        &mut self,
        references: &[(TenantId, &ClientOrderRef)],
    ) -> Result<Vec<bool>, StoreError> {
        self.statement().await?;
        let db = self.world().db();
        Ok(references
            .iter()
            .map(|(tenant, reference)| {
                db.orders.iter().any(|order| {
                    order.tenant == tenant.get() && order.client_order_ref == reference.as_str()
                })
            })
            .collect())
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
