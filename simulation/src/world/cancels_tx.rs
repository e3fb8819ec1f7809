//! A cancel's reads and writes on a simulated transaction: the order read under its row
//! lock, its capture (if any) read under the order's, and the order marked cancelled at
//! its next revision, alone or for a whole batch in one statement.

use application::Order;
use application::orders::{LockedOrder, OrderCancellations, OrderLocks};
use application::ports::StoreError;
use chrono::{DateTime, Utc};
use domain::{
    ClientOrderRef, NewOrder, OperationState, OrderId, OrderStatus, Quantity, Reason, Sku, TenantId,
};

use super::db::LockKey;
use super::tx::SimTx;

impl SimTx {
    fn cancel(&self, order: u64, at: DateTime<Utc>, revision: u64) {
        self.write(|writes| {
            writes.cancellations.insert(order, at);
            writes.revisions.insert(order, revision);
        });
    }
}

impl OrderLocks for SimTx {
    async fn lock_order(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> Result<Option<LockedOrder>, StoreError> {
        self.statement().await?;
        self.lock_row(&LockKey::Order(order.get())).await?;
        let row = self
            .world()
            .db()
            .orders
            .iter()
            .find(|row| row.id == order.get() && row.tenant == tenant.get())
            .cloned();
        let Some(row) = row else {
            return Ok(None);
        };
        let (Ok(reference), Ok(sku), Ok(quantity)) = (
            ClientOrderRef::parse(&row.client_order_ref),
            Sku::parse(&row.sku),
            Quantity::parse(i64::from(row.quantity)),
        ) else {
            return Ok(None);
        };
        let cancelled_at = self.cancelled_at(order.get());
        Ok(Some(LockedOrder {
            order: Order {
                id: order,
                tenant,
                details: NewOrder {
                    client_order_ref: reference,
                    sku,
                    quantity,
                },
                created_at: row.created_at,
                status: if cancelled_at.is_some() {
                    OrderStatus::Cancelled
                } else {
                    OrderStatus::Active
                },
                cancelled_at,
            },
            revision: self.revision(order.get()),
        }))
    }

    /// Read under the order's lock: a capture's acceptance takes that lock first.
    async fn blocking_capture(
        &mut self,
        _tenant: TenantId,
        order: OrderId,
    ) -> Result<Option<OperationState>, StoreError> {
        self.statement().await?;
        let db = self.world().db();
        Ok(db
            .operations
            .values()
            .filter(|row| row.order == order)
            .map(|row| row.state)
            .find(|state| *state == OperationState::Succeeded || state.blocks_another_capture()))
    }
}

impl OrderCancellations for SimTx {
    async fn mark_cancelled(
        &mut self,
        _tenant: TenantId,
        order: OrderId,
        at: DateTime<Utc>,
        _reason: &Reason,
        revision: u64,
    ) -> Result<(), StoreError> {
        self.statement().await?;
        self.cancel(order.get(), at, revision);
        Ok(())
    }

    /// One statement: each order's revision raised by one, as the SQL's `revision + 1`.
    async fn mark_all_cancelled(
        &mut self,
        orders: &[(TenantId, OrderId, &Reason)],
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.statement().await?;
        for (_, order, _) in orders {
            let next = self.revision(order.get()) + 1;
            self.cancel(order.get(), at, next);
        }
        Ok(())
    }
}
