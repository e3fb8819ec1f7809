//! Answering from an existing record: the fresh read after a lost race or a deadlock.

use domain::{Decision, ExistingRecord, RecordState, decide};

use super::{Coordinator, Request};
use crate::ErrorChain;
use crate::idempotency::{IdempotentOperation, Outcome, UnknownCause};
use crate::ports::{FlowHooks, RecordReader, StoreError, UnitOfWork};

/// What a read before another attempt leaves to do.
pub(super) enum Read<R> {
    /// A COMPLETED record: answered from, never run again.
    Found(ExistingRecord),
    /// Going on would only wait another deadline.
    Unanswered(Outcome<R>),
    /// No record, one in progress, or a failed read: on to the insert, the only way to win.
    GoOn,
}

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    /// The read before a rerun: a winner elsewhere may have finished. A timed-out read ends
    /// as an unknown outcome, and another request's running record as key reuse.
    pub(super) async fn read_after_deadlock<Op: IdempotentOperation>(
        &self,
        request: &Request<'_, Op>,
    ) -> Read<Op::Refusal> {
        match self.reader.find(&request.scope, request.key).await {
            Ok(Some(existing)) if matches!(existing.state, RecordState::Completed(_)) => {
                Read::Found(existing)
            }
            Ok(Some(running)) if running.fingerprint != request.fingerprint => {
                Read::Unanswered(Outcome::KeyReused)
            }
            Ok(_) => Read::GoOn,
            Err(StoreError::Timeout) => {
                Read::Unanswered(Outcome::OutcomeUnknown(UnknownCause::DatabaseTimeout))
            }
            Err(error) => {
                tracing::info!(error = %ErrorChain(&error), "the read before a rerun failed; running again");
                Read::GoOn
            }
        }
    }

    /// Reads afresh, outside the failed transaction; no path from here runs the operation.
    /// Gives back the record it answered from.
    pub(super) async fn resolve_existing<Op: IdempotentOperation>(
        &self,
        request: &Request<'_, Op>,
    ) -> (Outcome<Op::Refusal>, Option<ExistingRecord>) {
        let existing = match self.reader.find(&request.scope, request.key).await {
            Ok(Some(existing)) => existing,
            Ok(None) => return (Outcome::OutcomeUnknown(UnknownCause::RecordVanished), None),
            Err(error) => {
                // The answer says only "unknown": the cause is logged here, once.
                tracing::warn!(error = %ErrorChain(&error), "the fresh read after a lost race failed");
                return (Outcome::OutcomeUnknown(UnknownCause::FreshReadFailed), None);
            }
        };
        (self.answer_from(request, &existing), Some(existing))
    }

    /// Key reuse is told before authorization; anything else only to a caller authorized now.
    /// The same for a read, a cached copy and a leader's record alike.
    pub(super) fn answer_from<Op: IdempotentOperation>(
        &self,
        request: &Request<'_, Op>,
        existing: &ExistingRecord,
    ) -> Outcome<Op::Refusal> {
        let decision = decide(existing, &request.fingerprint);
        if decision == Decision::KeyReused {
            return Outcome::KeyReused;
        }
        if !self.authorizer.may_replay(request.caller, Op::PERMISSION) {
            return Outcome::Forbidden;
        }
        match decision {
            Decision::Replay(response) => Outcome::Replayed {
                record: existing.id,
                response,
            },
            Decision::InProgress => Outcome::InProgress,
            Decision::KeyReused => Outcome::KeyReused,
        }
    }
}
