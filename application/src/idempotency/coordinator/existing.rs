//! Answering from a record that already exists: the fast path before any transaction,
//! and the fresh read after "key already registered".

use domain::{Decision, Fingerprint, IdempotencyKey, RecordId, Scope, decide};

use super::Coordinator;
use crate::Caller;
use crate::idempotency::{IdempotentOperation, Outcome, UnknownCause};
use crate::ports::{FlowHooks, RecordReader, StoreError, UnitOfWork};

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks> Coordinator<U, R, H> {
    /// The fast path for a retry: one read of the record, before any transaction. A
    /// completed record answers directly (replay or key reused, after the same fingerprint
    /// and authorization checks as below); a missing or still-processing record, or a
    /// failed read, returns `None` and the request goes through the insert, which stays
    /// the only way to win execution. A read that ran out of its deadline ends the request
    /// as an unknown outcome instead: the database is silent, and going on would hold the
    /// request for another deadline.
    ///
    /// `causal` asks for a read that sees every write committed anywhere (the read
    /// before a rerun, after a lost race); the fast path may read without it, since a miss
    /// there only costs the slow path.
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

    /// After "key already registered": reads the committed record afresh, outside the
    /// failed transaction, and decides. No path from here executes the operation.
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

    /// What a request hears about an existing record: key reuse is told before
    /// authorization is consulted; anything else only to a caller authorized now.
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
