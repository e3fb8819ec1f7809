//! The worker (`docs/long-running-operations.md#the-worker`), the same for every kind:
//! claim under a lease, call the other service under the fixed key, end under the fence.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use domain::{AttemptError, Lease, OperationState, OwnerId};
use futures_util::future::{Either, select};

use super::forwarding::{Calls, Records};
use super::operation::{Definite, LeasedOperation, ProviderAnswer, Work};
use super::ports::{DueOperation, Ending, OperationEnd, OperationStore};
use super::recorded::{RecordOf, decode_job};
use super::worked::{Step, Worked};
use crate::error_chain::same_error;
use crate::ports::{Clock, FlowHooks, PausePoint, StoreError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerSettings {
    pub owner: OwnerId,
    pub lease: TimeDelta,
    /// Calls without a definite answer before the operation ends `needs_review`.
    pub max_attempts: u32,
    /// Before the second attempt; it doubles per attempt, up to 64 times.
    pub first_backoff: Duration,
    /// How long the other service keeps a key; an older operation ends `needs_review`
    /// uncalled.
    pub key_retention: TimeDelta,
}

impl WorkerSettings {
    /// Three per lease, so one slow extension does not let it run out.
    #[must_use]
    pub fn heartbeat(&self) -> Duration {
        (self.lease / 3).to_std().unwrap_or(Duration::from_secs(1))
    }
}

/// Told of every call to the other service and what it came to: `call` is one of the
/// kind's [`super::CallNames`], `result` `definite`/`unknown` for a call and
/// `found`/`not_found`/`error` for a result query.
pub trait CallObserver: Send + Sync {
    fn called(&self, call: &'static str, result: &'static str);
}

/// Counts nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl CallObserver for Unobserved {
    fn called(&self, _call: &'static str, _result: &'static str) {}
}

pub struct WorkerPorts<'a, S, P, H> {
    pub store: &'a S,
    pub provider: &'a P,
    pub clock: &'a dyn Clock,
    pub hooks: &'a H,
    pub calls: &'a dyn CallObserver,
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

/// Works one due operation of the kind `K`.
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
    Ok(
        work_claimed::<K, S, P, H>(ports, settings, operation, lease, now)
            .await
            .unwrap_or_else(|(step, error)| Worked::Abandoned { step, error }),
    )
}

async fn work_claimed<K, S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    operation: &DueOperation,
    mut lease: Lease,
    claimed_at: DateTime<Utc>,
) -> Result<Worked, (Step, StoreError)>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>>,
    P: Calls<K>,
    H: FlowHooks,
{
    let WorkerPorts {
        store,
        provider,
        clock,
        hooks,
        calls,
    } = ports;
    // Past the key's retention the other service may have forgotten it, so a call could do
    // the work twice; and nothing can be asked for a job that no longer reads. A person
    // decides either.
    let job = if operation.accepted_at + settings.key_retention <= claimed_at {
        Err(AttemptError::KeyRetentionPassed)
    } else {
        decode_job::<K::Job>(&operation.input).map_err(|_| AttemptError::InputUnreadable)
    };
    let job = match job {
        Ok(job) => job,
        Err(uncalled) => {
            let ending = Ending::NeedsReview(uncalled);
            let uncalled_end = OperationEnd {
                operation,
                lease: &lease,
                ending: &ending,
                attempts: operation.attempts,
                now: clock.now(),
            };
            return end::<K, S>(store, uncalled_end).await;
        }
    };
    let work = Work {
        id: operation.id,
        tenant: operation.tenant,
        order: operation.order,
        key: &operation.downstream_key,
        job: &job,
    };
    let ask = ask_provider::<K, P>(provider, calls, &work);
    let Some(answer) = while_leased(store, clock, settings, operation, &mut lease, ask)
        .await
        .map_err(|error| (Step::Extension, error))?
    else {
        return Ok(Worked::LeaseLost);
    };
    hooks.reached(PausePoint::OperationCharged).await;
    let (ending, attempts) = match answer {
        Ok(Definite {
            id,
            succeeded: true,
        }) => (
            Ending::Succeeded {
                provider_id: id.into_string(),
            },
            operation.attempts,
        ),
        Ok(Definite {
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
    let answered = OperationEnd {
        operation,
        lease: &lease,
        ending: &ending,
        attempts,
        now: clock.now(),
    };
    end::<K, S>(store, answered).await
}

/// A definite end the store refused is written once more: refused again the same way, it
/// would be refused on every lease, calling the provider each time and holding the order,
/// so the operation ends `needs_review` (`completion_failed`) for a person instead.
async fn end<K, S>(store: &S, end: OperationEnd<'_>) -> Result<Worked, (Step, StoreError)>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>>,
{
    let record = RecordOf::<K>::new();
    let refused = match store.complete(&end, &record).await {
        Err(refused @ StoreError::Other(_))
            if end.ending.state() != OperationState::NeedsReview =>
        {
            refused
        }
        written => return ended_as(written, end.ending),
    };
    let again = match store.complete(&end, &record).await {
        Err(again) if same_error(&refused, &again) => again,
        written => return ended_as(written, end.ending),
    };
    let review = Ending::NeedsReview(AttemptError::CompletionFailed);
    let counted = OperationEnd {
        ending: &review,
        attempts: end.attempts.saturating_add(1),
        ..end
    };
    match store.complete(&counted, &record).await {
        Ok(true) => Ok(Worked::Unrecorded { error: again }),
        written => ended_as(written, &review),
    }
}

/// `false` is the fence's refusal: another worker claimed the operation since.
fn ended_as(
    written: Result<bool, StoreError>,
    ending: &Ending,
) -> Result<Worked, (Step, StoreError)> {
    match written {
        Ok(true) => Ok(Worked::Ended(ending.clone())),
        Ok(false) => Ok(Worked::LeaseLost),
        Err(error) => Err((Step::Completion, error)),
    }
}

/// An unknown outcome is resolved by the result query for the same key, never a new one.
/// `Err` is the class of the call's failure: the attempt's, whatever the query said.
async fn ask_provider<K, P>(
    provider: &P,
    calls: &dyn CallObserver,
    work: &Work<'_, K::Job>,
) -> Result<Definite, AttemptError>
where
    K: LeasedOperation + Default,
    P: Calls<K>,
{
    let kind = K::default();
    let names = K::CALL_NAMES;
    match provider.call(&kind, work).await {
        ProviderAnswer::Definite(done) => {
            calls.called(names.call, "definite");
            Ok(done)
        }
        ProviderAnswer::Unknown(unknown) => {
            calls.called(names.call, "unknown");
            let found = provider.look_up(&kind, work).await;
            calls.called(
                names.lookup,
                match &found {
                    Ok(Some(_)) => "found",
                    Ok(None) => "not_found",
                    Err(_) => "error",
                },
            );
            found.ok().flatten().ok_or(unknown.class)
        }
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
