//! A capture's acceptance on a simulated transaction: the order taken under its row lock
//! (its revision raised, so a cancel of it and this capture never both commit), the
//! operation inserted under the one-active-capture-per-order unique index.

use application::StepError;
use application::leased::NewOperation;
use application::payments::{CaptureAcceptance, CaptureRefusal};

use super::db::LockKey;
use super::refunds_tx::pending;
use super::tx::SimTx;

impl CaptureAcceptance for SimTx {
    async fn accept_capture(
        &mut self,
        operation: &NewOperation,
    ) -> Result<(), StepError<CaptureRefusal>> {
        self.statement().await?;
        let order = operation.order.get();
        self.lock_row(&LockKey::Order(order)).await?;
        let exists = self
            .world()
            .db()
            .orders
            .iter()
            .any(|row| row.id == order && row.tenant == operation.tenant.get());
        if !exists {
            return Err(StepError::Rejected(CaptureRefusal::OrderNotFound));
        }
        if self.cancelled_at(order).is_some() {
            return Err(StepError::Rejected(CaptureRefusal::OrderCancelled));
        }
        let next = self.revision(order) + 1;
        self.statement().await?;
        if !self.claim(&LockKey::ActiveCapture(order)).await? {
            return Err(StepError::Rejected(CaptureRefusal::PaymentExists));
        }
        self.write(|writes| {
            writes.revisions.insert(order, next);
            writes.operations.insert(operation.id, pending(operation));
        });
        Ok(())
    }
}
