//! A refund's acceptance on a simulated transaction: the order's succeeded capture read,
//! the amount reserved on its payment row in one conditional write that concurrent refunds
//! of the order wait on, and the operation inserted, as the SQL stores do.

use application::IdempotentOperation;
use application::StepError;
use application::leased::{NewOperation, decode_job};
use application::payments::{
    CaptureJob, CapturePayment, CapturedCharge, RefundAcceptance, RefundRefusal, RefundableCharge,
};
use application::ports::StoreError;
use domain::{Amount, Generation, OperationState, OrderId, TenantId};

use super::db::{Db, LockKey, OperationRow};
use super::tx::SimTx;

/// The order's succeeded capture: its provider charge and the amount it captured.
pub(crate) fn succeeded_capture(db: &Db, order: u64) -> Option<(CapturedCharge, u32)> {
    let (id, row) = db.operations.iter().find(|(_, row)| {
        row.order.get() == order
            && row.kind == CapturePayment::NAME
            && row.state == OperationState::Succeeded
    })?;
    let (_, charge) = db.payments.iter().find(|(operation, _)| operation == id)?;
    let job: CaptureJob = decode_job(&row.input).ok()?;
    Some((
        CapturedCharge {
            charge: charge.clone(),
            currency: job.currency,
        },
        job.amount.get(),
    ))
}

impl RefundAcceptance for SimTx {
    async fn captured_charge(
        &mut self,
        tenant: TenantId,
        order: OrderId,
    ) -> Result<CapturedCharge, StepError<RefundRefusal>> {
        self.statement().await?;
        let db = self.world().db();
        if !db
            .orders
            .iter()
            .any(|row| row.id == order.get() && row.tenant == tenant.get())
        {
            return Err(StepError::Rejected(RefundRefusal::OrderNotFound));
        }
        succeeded_capture(&db, order.get())
            .map(|(charge, _)| charge)
            .ok_or(StepError::Rejected(RefundRefusal::NotRefundable))
    }

    async fn accept_refund(
        &mut self,
        operation: &NewOperation,
        amount: Amount,
    ) -> Result<(), StepError<RefundRefusal>> {
        self.statement().await?;
        let order = operation.order.get();
        self.lock_row(&LockKey::Payment(order)).await?;
        let captured = succeeded_capture(&self.world().db(), order).map(|(_, amount)| amount);
        let reserved = self.refunded(order);
        let Some(left) = captured.and_then(|captured| captured.checked_sub(reserved)) else {
            return Err(StepError::Rejected(RefundRefusal::NotRefundable));
        };
        if left < amount.get() {
            return Err(StepError::Rejected(RefundRefusal::ExceedsCaptured));
        }
        self.statement().await?;
        self.write(|writes| {
            writes.refunded.insert(order, reserved + amount.get());
            writes.operations.insert(operation.id, pending(operation));
        });
        Ok(())
    }

    /// One read, no lock: the reservation's write checks what is left again.
    async fn refundable_charges(
        &mut self,
        orders: &[(TenantId, OrderId)],
    ) -> Result<Vec<Option<RefundableCharge>>, StoreError> {
        self.statement().await?;
        let found: Vec<Option<(CapturedCharge, u32)>> = {
            let db = self.world().db();
            orders
                .iter()
                .map(|(_, order)| succeeded_capture(&db, order.get()))
                .collect()
        };
        Ok(orders
            .iter()
            .zip(found)
            .map(|((_, order), found)| {
                found.map(|(captured, amount)| RefundableCharge {
                    captured,
                    left: amount.saturating_sub(self.refunded(order.get())),
                })
            })
            .collect())
    }
}

/// A new operation's row, pending and never claimed.
pub(super) fn pending(operation: &NewOperation) -> OperationRow {
    OperationRow {
        kind: operation.kind,
        tenant: operation.tenant,
        order: operation.order,
        input: operation.input.clone(),
        downstream_key: operation.downstream_key.clone(),
        accepted_at: operation.accepted_at,
        state: OperationState::Pending,
        attempts: 0,
        next_attempt_at: operation.accepted_at,
        last_error: None,
        generation: Generation::new(0),
        holder: None,
        claimed_by: None,
        landed: Vec::new(),
    }
}
