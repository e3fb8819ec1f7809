//! Every way an idempotent request can end. The HTTP edge maps each to one status.

use domain::{RecordId, StoredResponse};

use crate::Rejection;

/// The result of running a request through the coordinator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// First execution, committed; send the response.
    Executed {
        /// The new record.
        record: RecordId,
        /// What was stored.
        response: StoredResponse,
    },
    /// Same key, same request, already completed; send the stored bytes unchanged.
    Replayed {
        /// The existing record.
        record: RecordId,
        /// The stored response.
        response: StoredResponse,
    },
    /// Same key with a different request: nothing ran.
    KeyReused,
    /// Same key held by a running request past the lock wait limit: retry later.
    InProgress,
    /// A definite business refusal; nothing stored.
    Rejected(Rejection),
    /// Nobody can tell now whether it ran: retry with the same key, never a new one.
    OutcomeUnknown(UnknownCause),
    /// The caller may not receive this stored result now.
    Forbidden,
    /// An unexpected failure; everything was rolled back.
    Failed(FailureCause),
}

/// Why the outcome is unknown (for logs and metrics).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownCause {
    /// COMMIT failed or its answer was lost.
    CommitOutcomeUnknown,
    /// The database could not be reached or the connection broke.
    DatabaseUnavailable,
    /// The database did not answer within the deadline.
    DatabaseTimeout,
    /// The key was registered but its record could not be read now.
    FreshReadFailed,
    /// The key was registered but the record is gone (purged in between).
    RecordVanished,
}

/// Why a request failed (for logs and metrics). Nothing was committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FailureCause {
    /// Deadlocked on every attempt.
    DeadlockRetriesExhausted,
    /// Completing the record changed no row (or more than one).
    RecordNotCompleted,
    /// A test hook aborted the request.
    Aborted,
    /// Storage failed in a way with no special meaning.
    Store(String),
    /// The business step failed unexpectedly.
    Internal(String),
}
