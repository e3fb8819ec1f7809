//! The capture worker (`docs/long-running-operations.md#the-worker`): claim under a lease,
//! call the provider under the fixed key, end under the fence.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use domain::{AttemptError, Lease, OwnerId};
use futures_util::future::{Either, select};

use super::ports::{Charge, DueOperation, Ending, OperationStore, PaymentProvider, ProviderAnswer};
use super::worked::{Step, Worked};
use crate::ports::{Clock, FlowHooks, PausePoint, StoreError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSettings {
    pub owner: OwnerId,
    pub lease: TimeDelta,
    /// Calls without a definite answer before the operation ends `needs_review`.
    pub max_attempts: u32,
    /// Before the second attempt; it doubles per attempt, up to 64 times.
    pub first_backoff: Duration,
    /// How long the provider keeps a key; an older operation ends `needs_review` uncalled.
    pub key_retention: TimeDelta,
}

impl WorkerSettings {
    /// Three per lease, so one slow extension does not let it run out.
    #[must_use]
    pub fn heartbeat(&self) -> Duration {
        (self.lease / 3).to_std().unwrap_or(Duration::from_secs(1))
    }
}

pub struct WorkerPorts<'a, S, P, H> {
    pub store: &'a S,
    pub provider: &'a P,
    pub clock: &'a dyn Clock,
    pub hooks: &'a H,
}

impl<S, P, H> Clone for WorkerPorts<'_, S, P, H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S, P, H> Copy for WorkerPorts<'_, S, P, H> {}

impl<S, P, H> std::fmt::Debug for WorkerPorts<'_, S, P, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkerPorts").finish_non_exhaustive()
    }
}

/// # Errors
/// A [`StoreError`] of the claim itself; a later failed write is [`Worked::Abandoned`].
pub async fn work_once<S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    operation: &DueOperation,
) -> Result<Worked, StoreError>
where
    S: OperationStore,
    P: PaymentProvider,
    H: FlowHooks,
{
    let WorkerPorts { store, clock, .. } = ports;
    let now = clock.now();
    let Ok(lease) = operation
        .lease
        .claim(settings.owner.clone(), now, settings.lease)
    else {
        return Ok(Worked::NotClaimed);
    };
    if !store
        .claim(operation.id, operation.lease.generation, &lease, now)
        .await?
    {
        return Ok(Worked::NotClaimed);
    }
    Ok(work_claimed(ports, settings, operation, lease, now)
        .await
        .unwrap_or_else(|(step, error)| Worked::Abandoned { step, error }))
}

async fn work_claimed<S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    operation: &DueOperation,
    mut lease: Lease,
    claimed_at: DateTime<Utc>,
) -> Result<Worked, (Step, StoreError)>
where
    S: OperationStore,
    P: PaymentProvider,
    H: FlowHooks,
{
    let WorkerPorts {
        store,
        provider,
        clock,
        hooks,
    } = ports;
    if operation.accepted_at + settings.key_retention <= claimed_at {
        // The provider may have forgotten the key: a call could charge a second time.
        let ending = Ending::NeedsReview(AttemptError::KeyRetentionPassed);
        return end(
            store,
            operation,
            &lease,
            &ending,
            operation.attempts,
            clock.now(),
        )
        .await;
    }
    let ask = ask_provider(provider, operation);
    let Some(answer) = while_leased(store, clock, settings, operation, &mut lease, ask)
        .await
        .map_err(|error| (Step::Extension, error))?
    else {
        return Ok(Worked::LeaseLost);
    };
    hooks.reached(PausePoint::OperationCharged).await;
    let (ending, attempts) = match answer {
        Ok(Charge {
            id,
            succeeded: true,
        }) => (Ending::Succeeded { charge_id: id }, operation.attempts),
        Ok(Charge {
            succeeded: false, ..
        }) => (Ending::Declined, operation.attempts),
        Err(error) => {
            let attempts = operation.attempts.saturating_add(1);
            if attempts < settings.max_attempts {
                let now = clock.now();
                let next = now + backoff(settings, attempts);
                return Ok(
                    if store
                        .retry_later(operation.id, &lease, attempts, error, next, now)
                        .await
                        .map_err(|error| (Step::Retry, error))?
                    {
                        Worked::RetryAt(next)
                    } else {
                        Worked::LeaseLost
                    },
                );
            }
            (Ending::NeedsReview(error), attempts)
        }
    };
    end(store, operation, &lease, &ending, attempts, clock.now()).await
}

async fn end<S: OperationStore>(
    store: &S,
    operation: &DueOperation,
    lease: &Lease,
    ending: &Ending,
    attempts: u32,
    now: DateTime<Utc>,
) -> Result<Worked, (Step, StoreError)> {
    let ended = store
        .complete(operation.id, lease, ending, attempts, now)
        .await
        .map_err(|error| (Step::Completion, error))?;
    Ok(if ended {
        Worked::Ended(ending.clone())
    } else {
        Worked::LeaseLost
    })
}

/// An unknown outcome is resolved by the result query for the same key, never a new one.
/// `Err` is the class of the charge's failure: the attempt's, whatever the query said.
async fn ask_provider<P: PaymentProvider>(
    provider: &P,
    operation: &DueOperation,
) -> Result<Charge, AttemptError> {
    let reference = operation.id.hyphenated().to_string();
    match provider
        .charge(&operation.downstream_key, &operation.input, &reference)
        .await
    {
        ProviderAnswer::Definite(charge) => Ok(charge),
        ProviderAnswer::Unknown(unknown) => provider
            .lookup(&operation.downstream_key)
            .await
            .ok()
            .flatten()
            .ok_or(unknown.class),
    }
}

/// `None` when an extension found the lease taken over: `work` is dropped, nothing more is
/// written. A failed extension is an error, with the same effect.
async fn while_leased<S, T>(
    store: &S,
    clock: &dyn Clock,
    settings: &WorkerSettings,
    operation: &DueOperation,
    lease: &mut Lease,
    work: impl Future<Output = T>,
) -> Result<Option<T>, StoreError>
where
    S: OperationStore,
{
    let heartbeat = async {
        loop {
            clock.pause(settings.heartbeat()).await;
            let extended = lease.until(clock.now() + settings.lease);
            if !store.extend(operation.id, &extended).await? {
                return Ok::<(), StoreError>(());
            }
            *lease = extended;
        }
    };
    // The work is polled first: an answer that is ready wins over a due extension.
    match select(std::pin::pin!(work), std::pin::pin!(heartbeat)).await {
        Either::Left((done, _)) => Ok(Some(done)),
        Either::Right((lost, _)) => lost.map(|()| None),
    }
}

/// The wait before attempt `attempts + 1`.
fn backoff(settings: &WorkerSettings, attempts: u32) -> TimeDelta {
    let factor = 1u32 << attempts.saturating_sub(1).min(6);
    TimeDelta::from_std(settings.first_backoff * factor).unwrap_or(TimeDelta::MAX)
}
