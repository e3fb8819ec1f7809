//! The transaction boundary: one database transaction for record, business rows and
//! stored response.

use std::future::Future;

use chrono::{DateTime, Utc};
use domain::{Completion, Fingerprint, IdempotencyKey, RecordId, Scope};

use super::{CommitError, InsertRecordError, StoreError};

/// A `PROCESSING` record about to be inserted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRecord {
    /// Tenant, actor and operation.
    pub scope: Scope,
    /// The client's key.
    pub key: IdempotencyKey,
    /// What the request meant.
    pub fingerprint: Fingerprint,
    /// When the request began executing.
    pub created_at: DateTime<Utc>,
}

/// Opens transactions. The coordinator owns the boundary; repositories never open their own.
pub trait UnitOfWork: Send + Sync {
    /// An open transaction offering the record operations, plus whatever business
    /// repositories the adapter implements on it.
    type Tx: RecordTx + Send;

    /// Checks out a connection and begins a read-write transaction.
    ///
    /// # Errors
    /// [`StoreError::ConnectionLost`] when no connection can be had; [`StoreError::Other`].
    fn begin(&self) -> impl Future<Output = Result<Self::Tx, StoreError>> + Send;
}

/// The idempotency record operations inside one open transaction.
///
/// Dropping a transaction without `commit` or `rollback` must roll it back, and a
/// connection whose transaction state is unknown must never be handed to another caller.
pub trait RecordTx {
    /// Inserts the record as `PROCESSING`. The insert of a key another open transaction
    /// holds waits (up to the lock wait limit) for that transaction to finish.
    ///
    /// # Errors
    /// - [`InsertRecordError::KeyAlreadyRegistered`] only for a violation of
    ///   `uq_api_idempotency_scope_key` by this insert;
    /// - `Store(LockWaitTimeout)`, `Store(Deadlock)`, `Store(ConnectionLost)`, `Store(Other)`
    ///   (values that do not fit a column are `Other`, checked before the insert).
    fn insert_processing(
        &mut self,
        record: &NewRecord,
    ) -> impl Future<Output = Result<RecordId, InsertRecordError>> + Send;

    /// Marks the record `COMPLETED` with its response, only if it is still `PROCESSING`.
    /// Returns how many rows changed: anything but 1 means the record is not ours to finish.
    ///
    /// # Errors
    /// `LockWaitTimeout`, `Deadlock`, `ConnectionLost`, `Other`.
    fn complete(
        &mut self,
        id: RecordId,
        completion: &Completion,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;

    /// Commits.
    ///
    /// # Errors
    /// [`CommitError::CommitOutcomeUnknown`] whenever COMMIT did not clearly succeed.
    fn commit(self) -> impl Future<Output = Result<(), CommitError>> + Send
    where
        Self: Sized;

    /// Rolls back. The adapter discards the connection if the rollback itself fails.
    ///
    /// # Errors
    /// `ConnectionLost` or `Other`; the transaction is gone either way.
    fn rollback(self) -> impl Future<Output = Result<(), StoreError>> + Send
    where
        Self: Sized;
}
