//! Every way an idempotent request can end. The edge maps each to one response.

use domain::{RecordId, StoredResponse};

use super::operation::BoxError;
use crate::error_chain::same_error;
use crate::ports::StoreError;

/// The result of running a request through the coordinator; `R` is the operation's
/// refusal type.
#[derive(Debug, PartialEq)]
pub enum Outcome<R> {
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
    Rejected(R),
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

/// Why a request failed (for logs). Nothing was committed.
#[derive(Debug, thiserror::Error)]
pub enum FailureCause {
    /// Deadlocked on every attempt.
    #[error("deadlocked on every attempt")]
    DeadlockRetriesExhausted,
    /// Completing the record changed no row (or more than one).
    #[error("the record was not completed")]
    RecordNotCompleted,
    /// A test hook aborted the request.
    #[error("aborted by a test hook")]
    Aborted,
    /// Storage failed in a way with no special meaning.
    #[error(transparent)]
    Store(StoreError),
    /// The business step failed unexpectedly.
    #[error("the business step failed")]
    Internal(#[source] BoxError),
}

/// Two failures are equal when they failed the same way for the same stated reasons: the
/// causes are errors, compared by what they say.
impl PartialEq for FailureCause {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && same_error(self, other)
    }
}
