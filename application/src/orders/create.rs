//! `orders.create.v1`: one order per key, with its `orders.created.v1` event.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{NewOrder, OrderId, StoredResponse, TenantId};

use super::Order;
use crate::events::{OutboxWriter, order_created};
use crate::idempotency::{
    Execute, IdempotentOperation, Refusal, Refused, StepContext, StepError, json_response,
};

/// Creates one order per key.
#[derive(Debug, Clone, Copy, Default)]
pub struct CreateOrder;

/// Why an order is not created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreateRefusal {
    /// Another key already created an order with this `clientOrderRef` in this tenant.
    ClientOrderRefConflict,
}

impl Refusal for CreateRefusal {
    const ALL: &'static [Self] = &[Self::ClientOrderRefConflict];

    fn refused(self) -> Refused {
        match self {
            Self::ClientOrderRefConflict => Refused {
                status: 409,
                code: "client_order_ref_conflict",
                title: "clientOrderRef already used",
                detail: "An order with this clientOrderRef already exists in this tenant.",
            },
        }
    }
}

/// Writes orders inside the coordinator's transaction.
pub trait OrderRepository {
    /// Inserts one order and returns its new id.
    ///
    /// # Errors
    /// - `Rejected(ClientOrderRefConflict)` only for a violation of
    ///   `UNIQUE (tenant_id, client_order_ref)`;
    /// - `Store(..)` as for any statement of the transaction.
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
        let order = Order {
            id,
            tenant: context.tenant,
            details: input.clone(),
            created_at: context.now,
        };
        // The event commits with the order or not at all; its id is made here, once.
        tx.add_event(&order_created(uuid::Uuid::new_v4(), &order))
            .await?;
        json_response(201, Some(order.location()), order.to_json())
    }
}
