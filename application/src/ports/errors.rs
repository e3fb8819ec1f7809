//! The variants adapters sort driver errors into; only a scope-key violation means "key
//! already registered" (`docs/storage.md#errors-and-how-they-are-classified`).

use crate::BoxError;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// MySQL 1205. The transaction is still open with its earlier writes: roll it back.
    #[error("lock wait timeout")]
    LockWaitTimeout,
    /// MySQL 1213. The server rolled the whole transaction back; it may run again.
    #[error("deadlock")]
    Deadlock,
    /// Also when no connection could be had. The cause is the driver's or the pool's.
    #[error("database connection lost or unavailable")]
    ConnectionLost(#[source] BoxError),
    /// Past `DATABASE_TIMEOUT_SECS`: the connection is discarded, and the effect is unknown.
    #[error("database deadline passed")]
    Timeout,
    /// The cause is for logs and never holds request data.
    #[error("storage failure")]
    Other(#[source] BoxError),
}

#[derive(Debug, thiserror::Error)]
pub enum InsertRecordError {
    /// ONLY for a violation of `uq_api_idempotency_scope_key`.
    #[error("idempotency key already registered in this scope")]
    KeyAlreadyRegistered,
    #[error(transparent)]
    Store(#[from] StoreError),
}

#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// COMMIT failed or its answer was lost: it may be durable. Never reuse the connection.
    #[error("commit outcome unknown")]
    CommitOutcomeUnknown(#[source] BoxError),
    /// Deadlock or serialization failure at COMMIT (Galera's lost certification): nothing was
    /// committed, and it may run again.
    #[error("commit rolled back by the server")]
    RolledBack,
}

/// For a caller that only needs to know whether to try again: a rolled-back commit is a
/// deadlock (nothing committed, it may run again), an unknown one a lost connection (read
/// again to learn what happened), each keeping the commit's error as its cause.
impl From<CommitError> for StoreError {
    fn from(error: CommitError) -> Self {
        match error {
            CommitError::RolledBack => Self::Deadlock,
            unknown @ CommitError::CommitOutcomeUnknown(_) => {
                Self::ConnectionLost(Box::new(unknown))
            }
        }
    }
}
