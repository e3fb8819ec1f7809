//! Cancels that arrive together (`docs/storage.md#batched-operations`): every member's order
//! locked in one statement, the captures of the active ones in another
//! (`orders/locks.rs`), each member decided in arrival order on what it found. A member
//! that would be refused, or whose order an earlier member cancels, runs alone after the
//! batch: its own run gives its refusal, after its key's record, as ever.

use domain::{OrderId, TenantId};

use super::super::lock_with_captures;
use super::{CancelRefusal, OrderCancellation, OrderCancellations, cancellable, planned};
use crate::events::OutboxWriter;
use crate::idempotency::{BatchMember, BatchPlan, Planned, PlannedMember, StepError};

pub(super) async fn plan<Tx: OrderCancellations + Send>(
    tx: &mut Tx,
    members: &[BatchMember<OrderCancellation>],
) -> Result<BatchPlan<()>, StepError<CancelRefusal>> {
    let orders: Vec<(TenantId, OrderId)> = members
        .iter()
        .map(|member| (member.context.tenant, member.input.order))
        .collect();
    let found = lock_with_captures(tx, &orders).await?;
    let mut plan = Vec::with_capacity(members.len());
    for (member, found) in members.iter().zip(&found) {
        // The first member of an order is decided here; a later one sees its cancel alone.
        if !found.first {
            plan.push(None);
            continue;
        }
        let Ok(locked) = cancellable(found.order.as_ref()) else {
            plan.push(None);
            continue;
        };
        plan.push(match planned(locked, found.capture, member.context.now) {
            Ok(cancel) => Some(Planned {
                reserved: (),
                response: cancel.response,
                events: vec![cancel.event],
            }),
            Err(StepError::Rejected(_)) => None,
            Err(error) => return Err(error),
        });
    }
    Ok(plan)
}
pub(super) async fn write<Tx: OrderCancellations + OutboxWriter + Send>(
    tx: &mut Tx,
    batch: &[PlannedMember<'_, OrderCancellation, ()>],
) -> Result<(), StepError<CancelRefusal>> {
    let Some(now) = batch.first().map(|(member, _)| member.context.now) else {
        return Ok(());
    };
    let orders: Vec<_> = batch
        .iter()
        .map(|(member, _)| {
            (
                member.context.tenant,
                member.input.order,
                &member.input.reason,
            )
        })
        .collect();
    tx.mark_all_cancelled(&orders, now).await?;
    tx.add_events(&Planned::events_of(batch)).await?;
    Ok(())
}
