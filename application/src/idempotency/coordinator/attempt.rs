//! One run of the transaction: the record's insert first, then the operation's step,
//! the completion and the commit.

use domain::{
    Completion, ExistingRecord, Fingerprint, IdempotencyKey, RecordId, RecordState, Scope,
    StoredResponse,
};
use tracing::Instrument;

use super::{Coordinator, Request};
use crate::idempotency::operation::{
    IdempotentOperation, Refusal, RefusalForms, StepContext, StepError, Steps,
};
use crate::idempotency::outcome::{FailureCause, Outcome, UnknownCause};
use crate::ports::{
    CommitError, FlowHooks, HookVerdict, InsertRecordError, KeyPoint, NewRecord, RecordReader,
    RecordTx, StoreError, UnitOfWork,
};

pub(super) enum Attempt<R> {
    Finished(Outcome<R>),
    /// Committed: the answer, and the record as a read would find it now.
    Executed {
        response: StoredResponse,
        record: ExistingRecord,
    },
    /// Committed with the refusal as the key's answer, and nothing else of the step.
    Stored {
        refusal: R,
        response: StoredResponse,
        record: ExistingRecord,
    },
    Deadlocked,
    /// Resolved by a fresh read, never by running again.
    KeyAlreadyRegistered,
}

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks, F> Coordinator<U, R, H, F> {
    pub(super) async fn attempt<Op>(&self, request: &Request<'_, Op>) -> Attempt<Op::Refusal>
    where
        Op: IdempotentOperation,
        U::Tx: Steps<Op>,
        F: RefusalForms<Op::Refusal>,
    {
        let (scope, key, fingerprint) = (&request.scope, request.key, request.fingerprint);
        let mut tx = match self.unit_of_work.begin().await {
            Ok(tx) => tx,
            Err(error) => return classify(error),
        };
        if self.aborted_at(KeyPoint::BeforeRecord, scope, key).await {
            return rollback_with(tx, failed(FailureCause::Aborted)).await;
        }
        let now = self.clock.now();
        let record = NewRecord {
            scope: scope.clone(),
            key: key.clone(),
            fingerprint,
            created_at: now,
        };
        let record_id = match tx.insert_processing(&record).await {
            Ok(id) => id,
            Err(InsertRecordError::KeyAlreadyRegistered) => {
                // The failed transaction is finished here and never read from.
                let _ = tx.rollback().await;
                return Attempt::KeyAlreadyRegistered;
            }
            Err(InsertRecordError::Store(error)) => {
                return rollback_with(tx, classify(error)).await;
            }
        };
        if self.aborted_at(KeyPoint::RecordInserted, scope, key).await {
            return rollback_with(tx, failed(FailureCause::Aborted)).await;
        }
        // Only an operation that may store a refusal pays for the mark its undo needs.
        let may_store = Op::Refusal::ALL.iter().any(|refusal| refusal.is_stored());
        if may_store && let Err(error) = tx.savepoint().await {
            return rollback_with(tx, classify(error)).await;
        }
        let context = StepContext {
            tenant: scope.tenant,
            actor: scope.actor,
            now,
        };
        let response = match tx.step(request.op, context, request.input).await {
            Ok(response) => response,
            Err(StepError::Rejected(refusal)) if may_store && refusal.is_stored() => {
                return self
                    .store_refusal(tx, (scope, key), record_id, fingerprint, refusal)
                    .await;
            }
            Err(StepError::Rejected(rejection)) => {
                return rollback_with(tx, Attempt::Finished(Outcome::Rejected(rejection))).await;
            }
            Err(StepError::Store(error)) => return rollback_with(tx, classify(error)).await,
            Err(StepError::Internal(error)) => {
                return rollback_with(tx, failed(FailureCause::Internal(error))).await;
            }
        };
        self.complete_and_commit(tx, (scope, key), record_id, fingerprint, response)
            .await
    }

    /// The step's writes are undone; the record completes with the refusal's form.
    async fn store_refusal<Rf: Refusal>(
        &self,
        mut tx: U::Tx,
        who: (&Scope, &IdempotencyKey),
        record: RecordId,
        fingerprint: Fingerprint,
        refusal: Rf,
    ) -> Attempt<Rf>
    where
        F: RefusalForms<Rf>,
    {
        if let Err(error) = tx.rollback_to_savepoint().await {
            return rollback_with(tx, classify(error)).await;
        }
        let response = match self.forms.stored(refusal) {
            Ok(response) => response,
            Err(error) => return rollback_with(tx, failed(FailureCause::Internal(error))).await,
        };
        match self
            .complete_and_commit(tx, who, record, fingerprint, response)
            .await
        {
            Attempt::Executed { response, record } => Attempt::Stored {
                refusal,
                response,
                record,
            },
            other => other,
        }
    }

    /// Whether the hooks abort the request with `key` at `point` (a test's doing).
    pub(super) async fn aborted_at(
        &self,
        point: KeyPoint,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> bool {
        self.hooks.at_key(point, scope, key).await == HookVerdict::Abort
    }

    /// The hooks' last two points are here, so a stored refusal passes them too.
    async fn complete_and_commit<Rf>(
        &self,
        mut tx: U::Tx,
        (scope, key): (&Scope, &IdempotencyKey),
        record: RecordId,
        fingerprint: Fingerprint,
        response: StoredResponse,
    ) -> Attempt<Rf> {
        let completion = match Completion::new(response, self.clock.now(), self.settings.retention)
        {
            Ok(completion) => completion,
            Err(error) => {
                return rollback_with(tx, failed(FailureCause::Internal(error.into()))).await;
            }
        };
        match tx.complete(record, &completion).await {
            Ok(1) => {}
            Ok(_) => return rollback_with(tx, failed(FailureCause::RecordNotCompleted)).await,
            Err(error) => return rollback_with(tx, classify(error)).await,
        }
        if self.aborted_at(KeyPoint::BeforeCommit, scope, key).await {
            return rollback_with(tx, failed(FailureCause::Aborted)).await;
        }
        let committed = tx
            .commit()
            .instrument(tracing::info_span!(target: "spans", "commit"))
            .await;
        match committed {
            Ok(()) => {
                // Too late to abort: the verdict is ignored.
                let _ = self.hooks.at_key(KeyPoint::Committed, scope, key).await;
                Attempt::Executed {
                    response: completion.response.clone(),
                    record: ExistingRecord {
                        id: record,
                        fingerprint,
                        state: RecordState::Completed(completion),
                    },
                }
            }
            // Galera's lost certification looks like this: nothing was committed, so run again.
            Err(CommitError::RolledBack) => Attempt::Deadlocked,
            Err(CommitError::CommitOutcomeUnknown(_)) => {
                Attempt::Finished(Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown))
            }
        }
    }
}
fn failed<R>(cause: FailureCause) -> Attempt<R> {
    Attempt::Finished(Outcome::Failed(cause))
}

fn classify<R>(error: StoreError) -> Attempt<R> {
    match error {
        StoreError::LockWaitTimeout => Attempt::Finished(Outcome::InProgress),
        StoreError::Deadlock => Attempt::Deadlocked,
        StoreError::ConnectionLost(_) => {
            Attempt::Finished(Outcome::OutcomeUnknown(UnknownCause::DatabaseUnavailable))
        }
        StoreError::Timeout => {
            Attempt::Finished(Outcome::OutcomeUnknown(UnknownCause::DatabaseTimeout))
        }
        other @ StoreError::Other(_) => failed(FailureCause::Store(other)),
    }
}

/// A failed rollback discards the connection in the adapter.
async fn rollback_with<T: RecordTx, R>(tx: T, attempt: Attempt<R>) -> Attempt<R> {
    let _ = tx.rollback().await;
    attempt
}
