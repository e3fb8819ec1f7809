//! Answering from an existing record: the fast path, and the fresh read after a lost race.

use domain::{Decision, Fingerprint, IdempotencyKey, RecordId, Scope, decide};

use super::Coordinator;
use crate::Caller;
use crate::idempotency::{IdempotentOperation, Outcome, UnknownCause};
use crate::ports::{FlowHooks, RecordReader, StoreError, UnitOfWork};

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks> Coordinator<U, R, H> {
    /// One read before any transaction. A missing or in-progress record, or a failed read, goes
    /// on to the insert, the only way to win execution; a timed-out read ends as an unknown
    /// outcome, as going on would wait another deadline. Only a rerun needs the `causal` read.
    pub(super) async fn answer_from_completed<Op: IdempotentOperation>(
        &self,
        caller: &Caller,
        scope: &Scope,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
        causal: bool,
    ) -> Option<Outcome<Op::Refusal>> {
        let read = if causal {
            self.reader.find_causal(scope, key).await
        } else {
            self.reader.find(scope, key).await
        };
        let existing = match read {
            Ok(found) => found?,
            Err(StoreError::Timeout) => {
                return Some(Outcome::OutcomeUnknown(UnknownCause::DatabaseTimeout));
            }
            Err(_) => return None,
        };
        match decide(&existing, fingerprint) {
            Decision::InProgress => None,
            decision => Some(self.answer::<Op>(caller, existing.id, decision)),
        }
    }

    /// Reads afresh, outside the failed transaction; no path from here runs the operation.
    pub(super) async fn resolve_existing<Op: IdempotentOperation>(
        &self,
        caller: &Caller,
        scope: &Scope,
        key: &IdempotencyKey,
        fingerprint: &Fingerprint,
    ) -> Outcome<Op::Refusal> {
        let existing = match self.reader.find_causal(scope, key).await {
            Ok(Some(existing)) => existing,
            Ok(None) => return Outcome::OutcomeUnknown(UnknownCause::RecordVanished),
            Err(_) => return Outcome::OutcomeUnknown(UnknownCause::FreshReadFailed),
        };
        let decision = decide(&existing, fingerprint);
        self.answer::<Op>(caller, existing.id, decision)
    }

    /// Key reuse is told before authorization; anything else only to a caller authorized now.
    fn answer<Op: IdempotentOperation>(
        &self,
        caller: &Caller,
        record: RecordId,
        decision: Decision,
    ) -> Outcome<Op::Refusal> {
        if decision == Decision::KeyReused {
            return Outcome::KeyReused;
        }
        if !self.authorizer.may_replay(caller, Op::PERMISSION) {
            return Outcome::Forbidden;
        }
        match decision {
            Decision::Replay(response) => Outcome::Replayed { record, response },
            Decision::InProgress => Outcome::InProgress,
            Decision::KeyReused => Outcome::KeyReused,
        }
    }
}
