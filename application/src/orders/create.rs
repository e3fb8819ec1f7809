//! `orders.create.v1`: one order per key, with its `orders.created.v1` event.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, StoredResponse, TenantId};

use super::Order;
use crate::events::{EventType, FIRST_REVISION, NewEvent, OutboxWriter, order_event};
use crate::idempotency::{
    Answer, Execute, IdempotentOperation, Refusal, StepContext, StepError, answer,
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
}
