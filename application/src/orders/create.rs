//! `orders.create.v1`: one order per key, with its `orders.created.v1` event.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, StoredResponse, TenantId};

use super::Order;
use crate::events::{EventType, FIRST_REVISION, NewEvent, OutboxWriter, order_event};
use crate::idempotency::{
    Answer, BatchMember, Execute, IdempotentOperation, Refusal, StepContext, StepError, answer,
};

/// Written with every order, in its transaction.
pub const ORDERS_CREATED: EventType = EventType::about_order("orders.created.v1");

/// `orders.created.v1` of a new `order`; `id` is made once, with it.
#[must_use]
pub fn order_created(id: uuid::Uuid, order: &Order) -> NewEvent {
    order_event(ORDERS_CREATED, id, order, FIRST_REVISION, order.created_at)
}

#[derive(Debug, Clone, Copy, Default)]
pub struct CreateOrder;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateRefusal {
    ClientOrderRefConflict,
}

impl Refusal for CreateRefusal {
    const ALL: &'static [Self] = &[Self::ClientOrderRefConflict];

    fn code(self) -> &'static str {
        match self {
            Self::ClientOrderRefConflict => "client_order_ref_conflict",
        }
    }
}

pub trait OrderRepository {
    /// # Errors
    /// `Rejected(ClientOrderRefConflict)` ONLY for the `(tenant_id, client_order_ref)` key.
    fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<OrderId, StepError<CreateRefusal>>> + Send;

    /// Several orders, as one multi-row statement where the store can; their ids in their
    /// order.
    ///
    /// # Errors
    /// As [`OrderRepository::insert_order`], for any of them.
    fn insert_orders(
        &mut self,
        orders: &[(TenantId, &NewOrder)],
        created_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<Vec<OrderId>, StepError<CreateRefusal>>> + Send
    where
        Self: Send,
    {
        async move {
            let mut ids = Vec::with_capacity(orders.len());
            for (tenant, order) in orders {
                ids.push(self.insert_order(*tenant, order, created_at).await?);
            }
            Ok(ids)
        }
    }
}

impl IdempotentOperation for CreateOrder {
    const NAME: &'static str = "orders.create.v1";
    const PERMISSION: &'static str = "orders:create";
    const EVENTS: &'static [EventType] = &[ORDERS_CREATED];
    type Input = NewOrder;
    type Refusal = CreateRefusal;
}

impl<Tx: OrderRepository + OutboxWriter + Send> Execute<Tx> for CreateOrder {
    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &NewOrder,
    ) -> Result<StoredResponse, StepError<CreateRefusal>> {
        let id = tx.insert_order(context.tenant, input, context.now).await?;
        let order = Order::created(id, context.tenant, input.clone(), context.now);
        // The event commits with the order or not at all; its id is made here, once.
        tx.add_event(&order_created(uuid::Uuid::new_v4(), &order))
            .await?;
        answer(Answer::Created(order.location()), order.to_json())
    }

    /// The same rows for many requests: one multi-row insert of the orders, one of their
    /// events (`docs/storage.md#batched-creates`).
    const BATCHED: bool = true;

    async fn execute_batch(
        &self,
        tx: &mut Tx,
        members: &[BatchMember<NewOrder>],
    ) -> Result<Vec<StoredResponse>, StepError<CreateRefusal>> {
        // One time for the batch: its members commit together.
        let Some(now) = members.first().map(|member| member.context.now) else {
            return Ok(Vec::new());
        };
        let rows: Vec<(TenantId, &NewOrder)> = members
            .iter()
            .map(|member| (member.context.tenant, &member.input))
            .collect();
        let ids = tx.insert_orders(&rows, now).await?;
        let orders: Vec<Order> = ids
            .into_iter()
            .zip(members)
            .map(|(id, member)| {
                Order::created(id, member.context.tenant, member.input.clone(), now)
            })
            .collect();
        let events: Vec<NewEvent> = orders
            .iter()
            .map(|order| order_created(uuid::Uuid::new_v4(), order))
            .collect();
        tx.add_events(&events).await?;
        orders
            .iter()
            .map(|order| answer(Answer::Created(order.location()), order.to_json()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn its_refusal_has_its_documented_code() {
        assert_eq!(
            CreateRefusal::ClientOrderRefConflict.code(),
            "client_order_ref_conflict"
        );
    }
}
