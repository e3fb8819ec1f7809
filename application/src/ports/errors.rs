//! The error variants adapters sort driver errors into.
//!
//! The split matters: a lock wait timeout means "someone holds this key, come back", a
//! deadlock means "the server rolled everything back, run it again", a lost connection or
//! failed COMMIT means "nobody can tell what happened". Taking any of them for "key already
//! registered" would answer a retry with somebody else's result, or run it twice.

use crate::BoxError;

/// A storage failure that is not a business rule.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Occurs when a row lock was not granted within the configured lock wait limit
    /// (MySQL 1205). The transaction is still open with its earlier writes: roll it back.
    #[error("lock wait timeout")]
    LockWaitTimeout,
    /// Occurs when the server chose this transaction as a deadlock victim (MySQL 1213).
    /// The server already rolled the whole transaction back; it may be run again.
    #[error("deadlock")]
    Deadlock,
    /// Occurs when the connection broke or none could be had: the database is unavailable.
    #[error("database connection lost or unavailable")]
    ConnectionLost,
    /// Occurs when the database did not answer within the deadline
    /// (`DATABASE_TIMEOUT_SECS`), the connection checkout included. The adapter has already
    /// discarded the connection, whose state is unknown: the statement may or may not have
    /// taken effect, and nothing more may be sent on it.
    #[error("database deadline passed")]
    Timeout,
    /// Occurs for anything else; the cause is for logs and never holds request data.
    #[error("storage failure")]
    Other(#[source] BoxError),
}

/// Why inserting the `PROCESSING` record failed.
#[derive(Debug, thiserror::Error)]
pub enum InsertRecordError {
    /// Occurs ONLY when the insert violated `uq_api_idempotency_scope_key`: a record with the
    /// same tenant, actor, operation and key exists (committed by another transaction).
    #[error("idempotency key already registered in this scope")]
    KeyAlreadyRegistered,
    /// Occurs for every other failure, classified.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a COMMIT did not report success.
#[derive(Debug, thiserror::Error)]
pub enum CommitError {
    /// Occurs when COMMIT failed or its answer was lost: the transaction may or may not be
    /// durable. Adapters must not reuse the connection.
    #[error("commit outcome unknown")]
    CommitOutcomeUnknown,
    /// Occurs when the server answered COMMIT with a deadlock or serialization failure
    /// (MySQL 1213, SQLSTATE 40001): it rolled the whole transaction back and nothing was
    /// committed. On a Galera cluster this is how a transaction that lost certification to
    /// another node's ends (plain InnoDB never reports a deadlock at COMMIT). It may be run
    /// again, like [`StoreError::Deadlock`] on any other statement.
    #[error("commit rolled back by the server")]
    RolledBack,
}
