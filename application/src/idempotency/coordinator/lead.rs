//! Leading a request: the database's way, the transaction, run again after a deadlock.

use domain::{ExistingRecord, RecordState};
use std::sync::atomic::Ordering;
use tracing::Instrument;

use super::attempt::Attempt;
use super::existing::Read;
use super::retry_pause::retry_pause;
use super::{Coordinator, Request};
use crate::idempotency::operation::{IdempotentOperation, RefusalForms, Steps};
use crate::idempotency::outcome::{FailureCause, Outcome};
use crate::ports::{FlowHooks, RecordReader, UnitOfWork};

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    /// The database's way: the transaction, and a fresh read when the key is taken. Gives
    /// back the key's record too when it ended COMPLETED, for this process's followers.
    ///
    /// The cache keeps a record once it is replayed, not when this request wrote it: most
    /// keys are never sent again, and a copy of every create would cost memory and CPU on
    /// each; a storm of retries finds the copy its first replay left.
    pub(super) async fn lead<Op>(
        &self,
        request: &Request<'_, Op>,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>)
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        let (outcome, record) = self.execute_once(request).await;
        let completed = record.filter(|record| matches!(record.state, RecordState::Completed(_)));
        let executed_here = matches!(
            outcome,
            Outcome::Executed { .. } | Outcome::RejectedAndStored { .. }
        );
        if let (Some(record), false) = (&completed, executed_here) {
            self.remember(request, record);
        }
        (outcome, completed)
    }

    /// A COMPLETED record read from the database, kept for the replays that follow.
    pub(super) fn remember<Op: IdempotentOperation>(
        &self,
        request: &Request<'_, Op>,
        record: &ExistingRecord,
    ) {
        if let Some(cache) = &self.replay_cache {
            cache.remember(
                &request.scope,
                request.key,
                record,
                self.clock.now(),
                self.clock.monotonic(),
            );
        }
    }

    /// Straight to the insert: the UNIQUE index finds a retry in the same round trip that
    /// begins a new request's transaction (`docs/storage.md#one-transaction-per-request`).
    async fn execute_once<Op>(
        &self,
        request: &Request<'_, Op>,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>)
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        let attempts = self.settings.max_attempts.max(1);
        for attempt in 1..=attempts {
            let transaction = tracing::info_span!(target: "spans", "transaction", attempt);
            match self.attempt(request).instrument(transaction).await {
                Attempt::Finished(outcome) => return (outcome, None),
                Attempt::Executed { response, record } => {
                    let outcome = Outcome::Executed {
                        record: record.id,
                        response,
                    };
                    return (outcome, Some(record));
                }
                Attempt::Stored {
                    refusal,
                    response,
                    record,
                } => {
                    let outcome = Outcome::RejectedAndStored {
                        refusal,
                        record: record.id,
                        response,
                    };
                    return (outcome, Some(record));
                }
                Attempt::Deadlocked => {
                    self.deadlocks.fetch_add(1, Ordering::Relaxed);
                    if attempt == attempts {
                        break;
                    }
                    // Deadlocked competitors would meet again at once: jitter sets them apart. Then
                    // read first: a winner on another node may have finished, and is replayed.
                    self.clock.pause(retry_pause(attempt)).await;
                    match self.read_after_deadlock(request).await {
                        Read::Found(record) => {
                            let outcome = self.answer_from(request, &record);
                            return (outcome, Some(record));
                        }
                        Read::Unanswered(outcome) => return (outcome, None),
                        Read::GoOn => {}
                    }
                }
                Attempt::KeyAlreadyRegistered => {
                    return self.resolve_existing(request).await;
                }
            }
        }
        (
            Outcome::Failed(FailureCause::DeadlockRetriesExhausted),
            None,
        )
    }
}
