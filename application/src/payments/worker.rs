//! The capture worker (contract §7): claims a due operation under a lease, calls the
//! provider with the operation's fixed key, and ends it under the fence.
//!
//! An unknown provider outcome is resolved by the provider's result query for the same
//! key, never by a new key; when that gives no definite answer either, the attempt is
//! counted and retried later with backoff, and past the bound the operation ends
//! `needs_review`, never retried blindly. A worker that loses its lease (a claim, an
//! extension or a write refused by the fence) stops and writes nothing more.

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use domain::{Lease, OwnerId};

use crate::ports::{
    Charge, Clock, DueOperation, Ending, OperationStore, PaymentProvider, ProviderAnswer,
    StoreError,
};

/// How the worker behaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSettings {
    /// Who this worker is, in the lease.
    pub owner: OwnerId,
    /// `OPERATION_LEASE_SECS`.
    pub lease: TimeDelta,
    /// `OPERATION_MAX_ATTEMPTS`: provider calls without a definite answer before the
    /// operation ends `needs_review`.
    pub max_attempts: u32,
    /// The wait before the second attempt; it doubles per attempt, up to 64 times.
    pub first_backoff: Duration,
}

/// What one operation came to in this worker's hands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Worked {
    /// Another worker won the claim: nothing done.
    NotClaimed,
    /// Ended as said.
    Ended(Ending),
    /// No definite answer; the attempt is counted and the next is due at this time.
    RetryAt(DateTime<Utc>),
    /// The lease was lost while working: this worker wrote nothing more.
    LeaseLost,
}

/// Works `operation` once.
///
/// # Errors
/// A [`StoreError`] from the store; the operation stays pending, and its lease runs out
/// for another worker.
pub async fn work_once<S, P>(
    store: &S,
    provider: &P,
    clock: &dyn Clock,
    settings: &WorkerSettings,
    operation: &DueOperation,
) -> Result<Worked, StoreError>
where
    S: OperationStore,
    P: PaymentProvider,
{
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
    let reference = operation.id.hyphenated().to_string();
    let answer = provider
        .charge(&operation.downstream_key, &operation.input, &reference)
        .await;
    let lease = match extend_if_due(store, clock, settings, operation, lease).await? {
        Some(lease) => lease,
        None => return Ok(Worked::LeaseLost),
    };
    let charge = match answer {
        ProviderAnswer::Definite(charge) => Some(charge),
        // Unknown: ask for the charge under the same key; never a new key.
        ProviderAnswer::Unknown(_) => provider
            .lookup(&operation.downstream_key)
            .await
            .ok()
            .flatten(),
    };
    let ending = match charge {
        Some(Charge {
            id,
            succeeded: true,
        }) => Ending::Succeeded { charge_id: id },
        Some(Charge {
            succeeded: false, ..
        }) => Ending::Declined,
        None => {
            let attempts = operation.attempts.saturating_add(1);
            if attempts < settings.max_attempts {
                let next = clock.now() + backoff(settings, attempts);
                return Ok(
                    if store
                        .retry_later(operation.id, &lease, attempts, next)
                        .await?
                    {
                        Worked::RetryAt(next)
                    } else {
                        Worked::LeaseLost
                    },
                );
            }
            Ending::NeedsReview
        }
    };
    Ok(
        if store
            .complete(operation.id, &lease, &ending, clock.now())
            .await?
        {
            Worked::Ended(ending)
        } else {
            Worked::LeaseLost
        },
    )
}

/// Extends the lease when less than half of it is left; `None` when the extension found
/// the lease taken over.
async fn extend_if_due<S: OperationStore>(
    store: &S,
    clock: &dyn Clock,
    settings: &WorkerSettings,
    operation: &DueOperation,
    lease: Lease,
) -> Result<Option<Lease>, StoreError> {
    let now = clock.now();
    if !lease.due_for_extension(now, settings.lease) {
        return Ok(Some(lease));
    }
    let extended = lease.until(now + settings.lease);
    Ok(store
        .extend(operation.id, &extended)
        .await?
        .then_some(extended))
}

/// The wait before attempt `attempts + 1`.
fn backoff(settings: &WorkerSettings, attempts: u32) -> TimeDelta {
    let factor = 1u32 << attempts.saturating_sub(1).min(6);
    TimeDelta::from_std(settings.first_backoff * factor).unwrap_or(TimeDelta::MAX)
}
