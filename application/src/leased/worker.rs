//! The worker (`docs/long-running-operations.md#the-worker`), the same for every kind:
//! claim under a lease, call the other service under the fixed key, end under the fence;
//! a group of due operations at once, one statement or transaction for all of them at
//! each step.

use super::calls::work_held;
use super::forwarding::{Calls, Records};
use super::operation::LeasedOperation;
use super::ports::{Claim, DueOperation, OperationStore};
use super::worked::Worked;
use super::worker_ports::{Held, WorkerPorts, WorkerSettings};
use crate::ports::{FlowHooks, StoreError};

/// Works one due operation of the kind `K`: [`work_group`] of one.
///
/// # Errors
/// A [`StoreError`] of the claim itself; a later failed write is [`Worked::Abandoned`].
pub async fn work_once<K, S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    operation: &DueOperation,
) -> Result<Worked, StoreError>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>>,
    P: Calls<K>,
    H: FlowHooks,
{
    let one = std::slice::from_ref(operation);
    let worked = work_group::<K, S, P, H>(ports, settings, one, &[]).await?;
    Ok(worked.into_iter().next().unwrap_or(Worked::NotClaimed))
}

/// Works due operations of the kind `K` together: one claim for all of them, their calls
/// at once under one heartbeat, their ends in one transaction. One [`Worked`] for each, in
/// their order; every fence is each operation's own, as when worked alone. Each call runs
/// in its operation's span of `spans`, where one is given (the server continues the
/// accepting request's trace in it).
///
/// # Errors
/// A [`StoreError`] of the claim itself; a later failed write is [`Worked::Abandoned`].
pub async fn work_group<K, S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    operations: &[DueOperation],
    spans: &[tracing::Span],
) -> Result<Vec<Worked>, StoreError>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>>,
    P: Calls<K>,
    H: FlowHooks,
{
    let now = ports.clock.now();
    let mut worked: Vec<Worked> = operations.iter().map(|_| Worked::NotClaimed).collect();
    let offered: Vec<Held<'_>> = operations
        .iter()
        .enumerate()
        .filter_map(|(slot, operation)| {
            let lease = operation
                .lease
                .claim(settings.owner.clone(), now, settings.lease)
                .ok()?;
            Some(Held {
                slot,
                operation,
                lease,
            })
        })
        .collect();
    if offered.is_empty() {
        return Ok(worked);
    }
    let claims: Vec<Claim<'_>> = offered
        .iter()
        .map(|held| Claim {
            id: held.operation.id,
            seen: held.operation.lease.generation,
            lease: &held.lease,
        })
        .collect();
    let won = ports.store.claim_all(&claims, now).await?;
    let held = offered
        .into_iter()
        .zip(won)
        .filter_map(|(held, won)| won.then_some(held))
        .collect();
    let worked_held = work_held::<K, S, P, H>(ports, settings, held, spans, now);
    for (slot, result) in worked_held.await {
        if let Some(place) = worked.get_mut(slot) {
            *place = result;
        }
    }
    Ok(worked)
}
