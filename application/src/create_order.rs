//! `orders.create.v1`: the operation the contract describes.

use domain::{NewOrder, Operation, StoredResponse};

use crate::operation::operation_named;
use crate::order_created;
use crate::ports::{InsertOrderError, OrderRepository, OutboxWriter};
use crate::{IdempotentOperation, Order, Rejection, StepContext, StepError};

/// The permission needed to create orders (and to receive replays of creations).
pub const ORDERS_CREATE: &str = "orders:create";

/// Creates one order per key: the business step of `orders.create.v1`.
#[derive(Debug, Clone)]
pub struct CreateOrder {
    operation: Operation,
}

impl CreateOrder {
    /// The operation name, fixed by the route.
    pub const NAME: &'static str = "orders.create.v1";
}

impl Default for CreateOrder {
    fn default() -> Self {
        Self {
            operation: operation_named(Self::NAME),
        }
    }
}

impl<Tx: OrderRepository + OutboxWriter + Send> IdempotentOperation<Tx> for CreateOrder {
    type Input = NewOrder;

    fn operation(&self) -> &Operation {
        &self.operation
    }

    fn required_permission(&self) -> &str {
        ORDERS_CREATE
    }

    async fn execute(
        &self,
        tx: &mut Tx,
        context: StepContext,
        input: &NewOrder,
    ) -> Result<StoredResponse, StepError> {
        let id = tx
            .insert_order(context.tenant, input, context.now)
            .await
            .map_err(|error| match error {
                InsertOrderError::ClientOrderRefTaken => {
                    StepError::Rejected(Rejection::ClientOrderRefConflict)
                }
                InsertOrderError::Store(store) => StepError::Store(store),
            })?;
        let order = Order {
            id,
            tenant: context.tenant,
            details: input.clone(),
            created_at: context.now,
        };
        // The event commits with the order or not at all; its id is made here, once.
        tx.add_event(&order_created(uuid::Uuid::new_v4(), &order))
            .await?;
        StoredResponse::new(
            201,
            "application/json".to_owned(),
            Some(order.location()),
            order.to_json(),
        )
        .map_err(|error| StepError::Internal(error.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_operation_name_is_a_valid_operation() {
        assert_eq!(
            CreateOrder::default().operation.as_str(),
            "orders.create.v1"
        );
    }
}
