//! The transaction boundary (`docs/storage.md#one-transaction-per-request`).

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{Completion, Fingerprint, IdempotencyKey, RecordId, Scope};

use super::{CommitError, InsertRecordError, StoreError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRecord {
    pub scope: Scope,
    pub key: IdempotencyKey,
    pub fingerprint: Fingerprint,
    pub created_at: DateTime<Utc>,
}

/// The coordinator owns the boundary; repositories never open their own.
pub trait UnitOfWork: Send + Sync {
    type Tx: RecordTx + Send;

    /// # Errors
    /// `ConnectionLost` when no connection can be had, `Timeout`, `Other`.
    fn begin(&self) -> impl Future<Output = Result<Self::Tx, StoreError>> + Send;

    /// The transaction of a batch of requests (`docs/storage.md#batched-operations`): a store
    /// may keep a few connections for batches, so that only they prepare and keep the
    /// batches' multi-row statements, one per size.
    ///
    /// # Errors
    /// As [`UnitOfWork::begin`].
    fn begin_batch(&self) -> impl Future<Output = Result<Self::Tx, StoreError>> + Send {
        self.begin()
    }
}

/// Dropping it without `commit` or `rollback` must roll it back, and a connection in an
/// unknown state must never be handed to another caller.
pub trait RecordTx {
    /// Waits, up to the lock wait limit, on a key another open transaction holds.
    ///
    /// # Errors
    /// `KeyAlreadyRegistered` ONLY for this insert's violation of `uq_api_idempotency_scope_key`;
    /// else `Store(..)`, with a value too long for its column as `Other`.
    fn insert_processing(
        &mut self,
        record: &NewRecord,
    ) -> impl Future<Output = Result<RecordId, InsertRecordError>> + Send;

    /// The records of a batch's members, each inserted already complete with its answer, in
    /// their order, as one multi-row statement where the store can; the ids in the same
    /// order. Nothing of the transaction is seen before its commit, so a record inserted
    /// complete keeps the design's rule (`docs/storage.md#batched-operations`).
    ///
    /// # Errors
    /// `KeyAlreadyRegistered` when any member's key is taken: the batch is then run again
    /// member by member, where the key's own request finds it.
    fn insert_completed_batch(
        &mut self,
        records: &[(NewRecord, Completion)],
    ) -> impl Future<Output = Result<Vec<RecordId>, InsertRecordError>> + Send
    where
        Self: Send,
    {
        async move {
            let mut ids = Vec::with_capacity(records.len());
            for (record, completion) in records {
                let id = self.insert_processing(record).await?;
                if self.complete(id, completion).await? != 1 {
                    return Err(InsertRecordError::Store(StoreError::Other(
                        "a record just inserted was not completed".into(),
                    )));
                }
                ids.push(id);
            }
            Ok(ids)
        }
    }

    /// Marks where the step's writes begin, for an operation that may store a refusal.
    fn savepoint(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Undoes every write since [`RecordTx::savepoint`]; the record's insert stays.
    fn rollback_to_savepoint(&mut self) -> impl Future<Output = Result<(), StoreError>> + Send;

    /// Only while `PROCESSING`: a count other than 1 means the record is not ours to finish.
    fn complete(
        &mut self,
        id: RecordId,
        completion: &Completion,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// # Errors
    /// `RolledBack` when the server reports a rollback, else `CommitOutcomeUnknown`.
    fn commit(self) -> impl Future<Output = Result<(), CommitError>> + Send
    where
        Self: Sized;

    /// The transaction is gone even on an error; a failed rollback discards the connection.
    fn rollback(self) -> impl Future<Output = Result<(), StoreError>> + Send
    where
        Self: Sized;
}
