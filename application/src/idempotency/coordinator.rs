//! One transaction per request; a duplicate is resolved by a fresh read outside it.

mod existing;
mod retry_pause;

use retry_pause::retry_pause;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use domain::{
    Completion, Fingerprint, Fingerprinted, IdempotencyKey, RecordId, RetentionPolicy, Scope,
};

use super::operation::{Execute, StepContext, StepError};
use super::outcome::{FailureCause, Outcome, UnknownCause};
use tracing::Instrument;

use crate::Caller;
use crate::ports::{
    Clock, CommitError, FlowHooks, HookVerdict, InsertRecordError, NewRecord, NoHooks,
    PermissionAuthorizer, RecordReader, RecordTx, ReplayAuthorizer, StoreError, UnitOfWork,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoordinatorSettings {
    pub retention: RetentionPolicy,
    /// Runs of a deadlocked transaction; safe, as the server rolled all of it back.
    pub max_attempts: u32,
}

impl Default for CoordinatorSettings {
    fn default() -> Self {
        Self {
            retention: RetentionPolicy::default(),
            max_attempts: 3,
        }
    }
}

/// The unique index on the scope key alone decides who runs first; no per-key state is
/// held here, so any number of processes may share one database.
pub struct Coordinator<U, R, H = NoHooks> {
    unit_of_work: U,
    reader: R,
    hooks: H,
    clock: Arc<dyn Clock>,
    authorizer: Arc<dyn ReplayAuthorizer>,
    settings: CoordinatorSettings,
    deadlocks: Arc<AtomicU64>,
}

impl<U, R, H> std::fmt::Debug for Coordinator<U, R, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coordinator")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

enum Attempt<R> {
    Finished(Outcome<R>),
    Deadlocked,
    /// Resolved by a fresh read, never by running again.
    KeyAlreadyRegistered,
}

impl<U: UnitOfWork, R: RecordReader> Coordinator<U, R> {
    pub fn new(
        unit_of_work: U,
        reader: R,
        clock: Arc<dyn Clock>,
        settings: CoordinatorSettings,
    ) -> Self {
        Self {
            unit_of_work,
            reader,
            hooks: NoHooks,
            clock,
            authorizer: Arc::new(PermissionAuthorizer),
            settings,
            deadlocks: Arc::new(AtomicU64::new(0)),
        }
    }
}

impl<U: UnitOfWork, R: RecordReader, H: FlowHooks> Coordinator<U, R, H> {
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    #[must_use]
    pub fn with_authorizer(mut self, authorizer: Arc<dyn ReplayAuthorizer>) -> Self {
        self.authorizer = authorizer;
        self
    }

    #[must_use]
    pub fn with_deadlock_counter(mut self, counter: Arc<AtomicU64>) -> Self {
        self.deadlocks = counter;
        self
    }

    pub fn with_hooks<H2: FlowHooks>(self, hooks: H2) -> Coordinator<U, R, H2> {
        Coordinator {
            unit_of_work: self.unit_of_work,
            reader: self.reader,
            hooks,
            clock: self.clock,
            authorizer: self.authorizer,
            settings: self.settings,
            deadlocks: self.deadlocks,
        }
    }

    /// Deadlocked attempts, Galera certification failures included.
    pub fn deadlocks(&self) -> u64 {
        self.deadlocks.load(Ordering::Relaxed)
    }

    /// The edge checked the permission; a replay checks it again, at replay time.
    pub async fn run<Op>(
        &self,
        op: &Op,
        caller: &Caller,
        key: &IdempotencyKey,
        input: &Op::Input,
    ) -> Outcome<Op::Refusal>
    where
        Op: Execute<U::Tx>,
    {
        let scope = Scope {
            tenant: caller.tenant,
            actor: caller.actor,
            operation: Op::OPERATION,
        };
        let fingerprint = input.fingerprint(&scope.operation);
        if let Some(answer) = self
            .answer_from_completed::<Op>(caller, &scope, key, &fingerprint, false)
            .instrument(tracing::info_span!(target: "spans", "fast-path read"))
            .await
        {
            return answer;
        }
        let attempts = self.settings.max_attempts.max(1);
        for attempt in 1..=attempts {
            let transaction = tracing::info_span!(target: "spans", "transaction", attempt);
            match self
                .attempt(op, &scope, key, fingerprint, input)
                .instrument(transaction)
                .await
            {
                Attempt::Finished(outcome) => return outcome,
                Attempt::Deadlocked => {
                    self.deadlocks.fetch_add(1, Ordering::Relaxed);
                    if attempt == attempts {
                        break;
                    }
                    // Deadlocked competitors would meet again at once: jitter sets them apart. Then
                    // read first: a winner on another node may have finished, and is replayed.
                    self.clock.pause(retry_pause(attempt)).await;
                    if let Some(answer) = self
                        .answer_from_completed::<Op>(caller, &scope, key, &fingerprint, true)
                        .await
                    {
                        return answer;
                    }
                }
                Attempt::KeyAlreadyRegistered => {
                    return self
                        .resolve_existing::<Op>(caller, &scope, key, &fingerprint)
                        .await;
                }
            }
        }
        Outcome::Failed(FailureCause::DeadlockRetriesExhausted)
    }

    async fn attempt<Op>(
        &self,
        op: &Op,
        scope: &Scope,
        key: &IdempotencyKey,
        fingerprint: Fingerprint,
        input: &Op::Input,
    ) -> Attempt<Op::Refusal>
    where
        Op: Execute<U::Tx>,
    {
        let mut tx = match self.unit_of_work.begin().await {
            Ok(tx) => tx,
            Err(error) => return classify(error),
        };
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
        if self.hooks.after_record_insert(scope, key).await == HookVerdict::Abort {
            return rollback_with(tx, failed(FailureCause::Aborted)).await;
        }
        let context = StepContext {
            tenant: scope.tenant,
            actor: scope.actor,
            now,
        };
        let response = match op.execute(&mut tx, context, input).await {
            Ok(response) => response,
            Err(StepError::Rejected(rejection)) => {
                return rollback_with(tx, Attempt::Finished(Outcome::Rejected(rejection))).await;
            }
            Err(StepError::Store(error)) => return rollback_with(tx, classify(error)).await,
            Err(StepError::Internal(error)) => {
                return rollback_with(tx, failed(FailureCause::Internal(error))).await;
            }
        };
        self.complete_and_commit(tx, record_id, response).await
    }

    async fn complete_and_commit<Rf>(
        &self,
        mut tx: U::Tx,
        record: RecordId,
        response: domain::StoredResponse,
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
        let committed = tx
            .commit()
            .instrument(tracing::info_span!(target: "spans", "commit"))
            .await;
        match committed {
            Ok(()) => Attempt::Finished(Outcome::Executed {
                record,
                response: completion.response,
            }),
            // Galera's lost certification looks like this: nothing was committed, so run again.
            Err(CommitError::RolledBack) => Attempt::Deadlocked,
            Err(CommitError::CommitOutcomeUnknown) => {
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
        StoreError::ConnectionLost => {
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
