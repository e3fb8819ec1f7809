//! How a claimed group's operations are written at their end
//! (`docs/long-running-operations.md#the-worker`): definite ends together in one
//! transaction, each under its own fence; a retry alone.

use domain::{AttemptError, OperationState};

use super::forwarding::Records;
use super::operation::LeasedOperation;
use super::ports::{Ending, OperationEnd, OperationStore};
use super::recorded::RecordOf;
use super::worked::{Step, Worked};
use super::worker_ports::{Held, WorkerPorts, WorkerSettings};
use crate::error_chain::same_error;
use crate::ports::{Clock, StoreError};

/// A member whose end is known: what it ends as, with every call counted.
pub(super) struct Finished<'a> {
    pub(super) member: Held<'a>,
    pub(super) ending: Ending,
    pub(super) attempts: u32,
}

/// Several ends go in one transaction; if it fails, each is written alone as one end is,
/// so that one member's refused record ends only that member `needs_review`.
pub(super) async fn end_all<K, S>(
    store: &S,
    clock: &dyn Clock,
    finished: Vec<Finished<'_>>,
) -> Vec<(usize, Worked)>
where
    K: LeasedOperation + Default,
    S: OperationStore<Tx: Records<K>>,
{
    let now = clock.now();
    let ends: Vec<OperationEnd<'_>> = finished
        .iter()
        .map(|done| OperationEnd {
            operation: done.member.operation,
            lease: &done.member.lease,
            ending: &done.ending,
            attempts: done.attempts,
            now,
        })
        .collect();
    if ends.len() > 1
        && let Ok(ended) = store.complete_all(&ends, &RecordOf::<K>::new()).await
        && ended.len() == ends.len()
    {
        return finished
            .iter()
            .zip(ended)
            .map(|(done, ended)| (done.member.slot, worked(ended_as(Ok(ended), &done.ending))))
            .collect();
    }
    let mut worked_alone = Vec::with_capacity(ends.len());
    for (done, one) in finished.iter().zip(ends) {
        worked_alone.push((done.member.slot, worked(end::<K, S>(store, one).await)));
    }
    worked_alone
}

fn worked(written: Result<Worked, (Step, StoreError)>) -> Worked {
    written.unwrap_or_else(|(step, error)| Worked::Abandoned { step, error })
}

/// Counts the attempt, gives the lease back and sets when the next is due.
pub(super) async fn retry_later<S, P, H>(
    ports: WorkerPorts<'_, S, P, H>,
    settings: &WorkerSettings,
    member: &Held<'_>,
    attempts: u32,
    error: AttemptError,
) -> Worked
where
    S: OperationStore,
{
    let now = ports.clock.now();
    let next = now + settings.backoff(attempts);
    let id = member.operation.id;
    match ports
        .store
        .retry_later(id, &member.lease, attempts, error, next, now)
        .await
    {
        Ok(true) => Worked::RetryAt(next),
        Ok(false) => Worked::LeaseLost,
        Err(error) => Worked::Abandoned {
            step: Step::Retry,
            error,
        },
    }
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
