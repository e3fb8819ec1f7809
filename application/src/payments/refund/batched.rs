//! Refunds accepted together (`docs/storage.md#batched-operations`): the captures of every
//! member's order read in one statement, each member decided in arrival order. A member
//! whose order has no succeeded capture, whose capture has less left than it asks, or whose
//! order is an earlier member's, runs alone after the batch, where its own run gives its
//! refusal (the stored one with its savepoint).

use domain::{OrderId, TenantId};

use super::{RefundAcceptance, RefundPayment, RefundRefusal, RefundRequest, job_of};
use crate::idempotency::{BatchMember, BatchPlan, Planned, PlannedMember, StepError};
use crate::leased::NewOperation;
use crate::orders::first_members;

pub(super) async fn plan<Tx: RefundAcceptance + Send>(
    tx: &mut Tx,
    members: &[BatchMember<RefundRequest>],
) -> Result<BatchPlan<NewOperation>, StepError<RefundRefusal>> {
    let orders: Vec<(TenantId, OrderId)> = members
        .iter()
        .map(|member| (member.context.tenant, member.input.order))
        .collect();
    let found = tx.refundable_charges(&orders).await?;
    let mut plan = Vec::with_capacity(members.len());
    for ((member, found), first) in members.iter().zip(found).zip(first_members(&orders)) {
        let Some(charge) = found.filter(|charge| first && charge.left >= member.input.amount.get())
        else {
            plan.push(None);
            continue;
        };
        let job = job_of(&member.input, charge.captured);
        let operation =
            NewOperation::of::<RefundPayment>(member.context, member.input.order, &job)?;
        plan.push(Some(Planned {
            response: operation.accepted()?,
            reserved: operation,
            events: Vec::new(),
        }));
    }
    Ok(plan)
}

pub(super) async fn write<Tx: RefundAcceptance + Send>(
    tx: &mut Tx,
    batch: &[PlannedMember<'_, RefundRequest, NewOperation>],
) -> Result<(), StepError<RefundRefusal>> {
    let accepted: Vec<_> = batch
        .iter()
        .map(|(member, planned)| (&planned.reserved, member.input.amount, &member.span))
        .collect();
    tx.accept_refunds(&accepted).await
}
