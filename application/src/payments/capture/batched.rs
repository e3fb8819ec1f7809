//! Captures accepted together (`docs/storage.md#batched-operations`): every member's order
//! locked in one statement and the captures of the active ones read in another
//! (`orders/locks.rs`), each member decided in arrival order. A member whose order is not
//! the tenant's active one, already has a capture, or is an earlier member's, runs alone
//! after the batch, where its own run gives its refusal after its key's record.

use domain::{OrderId, PaymentCapture, TenantId};

use super::{CaptureAcceptance, CapturePayment, CaptureRefusal, job_of};
use crate::idempotency::{BatchMember, BatchPlan, Planned, PlannedMember, StepError};
use crate::leased::NewOperation;
use crate::orders::{OrderLocks, lock_with_captures};

pub(super) async fn plan<Tx: OrderLocks + Send>(
    tx: &mut Tx,
    members: &[BatchMember<PaymentCapture>],
) -> Result<BatchPlan<NewOperation>, StepError<CaptureRefusal>> {
    let orders: Vec<(TenantId, OrderId)> = members
        .iter()
        .map(|member| (member.context.tenant, member.input.order))
        .collect();
    let found = lock_with_captures(tx, &orders).await?;
    let mut plan = Vec::with_capacity(members.len());
    for (member, found) in members.iter().zip(&found) {
        let takes = found
            .order
            .as_ref()
            .is_some_and(|locked| locked.order.status.is_active())
            && found.capture.is_none();
        // Only the first member of an order may take it; a later one meets its capture alone.
        if !found.first || !takes {
            plan.push(None);
            continue;
        }
        let operation = NewOperation::of::<CapturePayment>(
            member.context,
            member.input.order,
            &job_of(&member.input),
        )?;
        plan.push(Some(Planned {
            response: operation.accepted()?,
            reserved: operation,
            events: Vec::new(),
        }));
    }
    Ok(plan)
}

pub(super) async fn write<Tx: CaptureAcceptance + Send>(
    tx: &mut Tx,
    batch: &[PlannedMember<'_, PaymentCapture, NewOperation>],
) -> Result<(), StepError<CaptureRefusal>> {
    let accepted: Vec<(&NewOperation, &tracing::Span)> = batch
        .iter()
        .map(|(member, planned)| (&planned.reserved, &member.span))
        .collect();
    tx.accept_captures(&accepted).await
}
