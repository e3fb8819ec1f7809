//! The capture's record step on a simulated transaction: its payment row, and the order's
//! revision raised under the order's row lock.

use application::events::OrderRevisions;
use application::leased::Ended;
use application::payments::{CaptureJob, PaymentRecords};
use application::ports::StoreError;
use domain::{OrderId, TenantId};

use super::db::LockKey;
use super::tx::SimTx;

impl PaymentRecords for SimTx {
    async fn insert_payment(
        &mut self,
        ended: &Ended<'_, CaptureJob>,
        provider_charge_id: &str,
    ) -> Result<u64, StoreError> {
        self.statement().await?;
        let id = self.world().db().next_id();
        self.write(|writes| {
            writes
                .payments
                .push((ended.id, provider_charge_id.to_owned()));
        });
        Ok(id)
    }
}

impl OrderRevisions for SimTx {
    async fn next_order_revision(
        &mut self,
        _tenant: TenantId,
        order: OrderId,
    ) -> Result<u64, StoreError> {
        self.statement().await?;
        self.lock_row(&LockKey::Order(order.get())).await?;
        let current = self.revision(order.get());
        let next = current + 1;
        self.write(|writes| {
            writes.revisions.insert(order.get(), next);
        });
        Ok(next)
    }
}
