//! `orders.create.v1`: one order per key, with its `orders.created.v1` event.

use std::collections::HashSet;
use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{ClientOrderRef, NewOrder, OrderId, StoredResponse, TenantId};

use super::Order;
use crate::events::{EventType, FIRST_REVISION, NewEvent, OutboxWriter, order_event};
use crate::idempotency::{
    Answer, BatchMember, BatchPlan, Execute, IdempotentOperation, Planned, PlannedMember, Refusal,
    StepContext, StepError, answer,
};
use crate::ports::StoreError;

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
    /// One order, under an id reserved as [`OrderRepository::reserve_order_ids`] does.
    ///
    /// # Errors
    /// `Rejected(ClientOrderRefConflict)` ONLY for the `(tenant_id, client_order_ref)` key.
    fn insert_order(
        &mut self,
        tenant: TenantId,
        order: &NewOrder,
        created_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<OrderId, StepError<CreateRefusal>>> + Send
    where
        Self: Send,
    {
        async move {
            let Some(id) = self.reserve_order_ids(1).await?.pop() else {
                return Err(StepError::Store(StoreError::Other(
                    "no order id was reserved".into(),
                )));
            };
            self.insert_orders(&[(id, tenant, order)], created_at)
                .await?;
            Ok(id)
        }
    }

    /// Ids for `count` new orders that no other order has or will be given: a batch's
    /// answers name its orders before any row is written (`docs/storage.md#order-ids`).
    ///
    /// # Errors
    /// When the store cannot give them now.
    fn reserve_order_ids(
        &mut self,
        count: usize,
    ) -> impl Future<Output = Result<Vec<OrderId>, StoreError>> + Send;

    /// Orders under the ids reserved for them, as one multi-row statement where the store
    /// can.
    ///
    /// # Errors
    /// As [`OrderRepository::insert_order`], for any of them.
    fn insert_orders(
        &mut self,
        orders: &[(OrderId, TenantId, &NewOrder)],
        created_at: DateTime<Utc>,
    ) -> impl Future<Output = Result<(), StepError<CreateRefusal>>> + Send;

    /// Of each `(tenant, clientOrderRef)`, in order, whether an order already has it: a
    /// wary batch's read, in one statement where the store can. Not a lock: a reference
    /// taken after it still meets the unique index.
    ///
    /// # Errors
    /// When the store cannot read now.
    fn taken_references(
        &mut self,
        references: &[(TenantId, &ClientOrderRef)],
    ) -> impl Future<Output = Result<Vec<bool>, StoreError>> + Send;
}

impl IdempotentOperation for CreateOrder {
    const NAME: &'static str = "orders.create.v1";
    const PERMISSION: &'static str = "orders:create";
    const EVENTS: &'static [EventType] = &[ORDERS_CREATED];
    type Input = NewOrder;
    type Refusal = CreateRefusal;
    type Reserved = OrderId;
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

    /// The same rows for many requests, their ids reserved first so that every answer is
    /// known before the records are inserted; then one multi-row insert of the orders and
    /// one of their events (`docs/storage.md#batched-operations`).
    const BATCHED: bool = true;

    /// Wary, the references are read first: a member whose reference an order already
    /// has runs alone and is refused there, instead of failing the batch's insert.
    async fn plan_batch(
        &self,
        tx: &mut Tx,
        members: &[BatchMember<NewOrder>],
        wary: bool,
    ) -> Result<BatchPlan<OrderId>, StepError<CreateRefusal>> {
        let taken = if wary {
            let references: Vec<_> = members
                .iter()
                .map(|member| (member.context.tenant, &member.input.client_order_ref))
                .collect();
            tx.taken_references(&references).await?
        } else {
            Vec::new()
        };
        let ids = tx.reserve_order_ids(members.len()).await?;
        // A reference an earlier member of the batch takes is left to run alone, where its
        // own run meets the reference's unique index; the batch goes on without it.
        let mut references = HashSet::new();
        // Fewer ids than members leaves the last ones to run alone.
        members
            .iter()
            .zip(ids.into_iter().map(Some).chain(std::iter::repeat(None)))
            .enumerate()
            .map(|(n, (member, id))| {
                let reference = (member.context.tenant, member.input.client_order_ref.clone());
                if !references.insert(reference) || taken.get(n).copied().unwrap_or(false) {
                    return Ok(None);
                }
                let Some(id) = id else { return Ok(None) };
                let order = created(member, id);
                Ok(Some(Planned {
                    reserved: id,
                    response: answer(Answer::Created(order.location()), order.to_json())?,
                    // Each event's id is made here, once: the events are not part of any answer.
                    events: vec![order_created(uuid::Uuid::new_v4(), &order)],
                }))
            })
            .collect()
    }

    async fn execute_batch(
        &self,
        tx: &mut Tx,
        batch: &[PlannedMember<'_, NewOrder, OrderId>],
    ) -> Result<(), StepError<CreateRefusal>> {
        let Some(now) = batch.first().map(|(member, _)| member.context.now) else {
            return Ok(());
        };
        let rows: Vec<(OrderId, TenantId, &NewOrder)> = batch
            .iter()
            .map(|(member, planned)| (planned.reserved, member.context.tenant, &member.input))
            .collect();
        tx.insert_orders(&rows, now).await?;
        tx.add_events(&Planned::events_of(batch)).await?;
        Ok(())
    }
}

/// A member's order as created under `id`, at the batch's time: its members commit together.
fn created(member: &BatchMember<NewOrder>, id: OrderId) -> Order {
    Order::created(
        id,
        member.context.tenant,
        member.input.clone(),
        member.context.now,
    )
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
