//! Every way an idempotent request can end. The edge maps each to one response.

use domain::{RecordId, StoredResponse};

use super::operation::BoxError;
use crate::error_chain::same_error;
use crate::ports::StoreError;

#[derive(Debug, PartialEq)]
pub enum Outcome<R> {
    Executed {
        record: RecordId,
        response: StoredResponse,
    },
    Replayed {
        record: RecordId,
        response: StoredResponse,
    },
    /// Same key with a different request: nothing ran.
    KeyReused,
    /// A lock wait ran out, usually on a key a running request holds: retry later.
    InProgress,
    Rejected(R),
    /// Refused, and the refusal stored as the key's answer: `response` is what every retry
    /// with the key gets again (`docs/http-api.md#stored-refusals`).
    RejectedAndStored {
        refusal: R,
        record: RecordId,
        response: StoredResponse,
    },
    /// Nobody can tell now whether it ran: retry with the same key, never a new one.
    OutcomeUnknown(UnknownCause),
    /// The caller may not receive this stored result now.
    Forbidden,
    Failed(FailureCause),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownCause {
    CommitOutcomeUnknown,
    DatabaseUnavailable,
    DatabaseTimeout,
    FreshReadFailed,
    /// Purged between the lost race and the fresh read.
    RecordVanished,
}

/// Nothing was committed.
#[derive(Debug, thiserror::Error)]
pub enum FailureCause {
    #[error("deadlocked on every attempt")]
    DeadlockRetriesExhausted,
    #[error("the record was not completed")]
    RecordNotCompleted,
    #[error("aborted by a test hook")]
    Aborted,
    #[error(transparent)]
    Store(StoreError),
    #[error("the business step failed")]
    Internal(#[source] BoxError),
}

impl PartialEq for FailureCause {
    fn eq(&self, other: &Self) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && same_error(self, other)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn causes_are_equal_only_of_one_kind_and_one_chain() {
        assert_eq!(FailureCause::Aborted, FailureCause::Aborted);
        assert_ne!(FailureCause::Aborted, FailureCause::RecordNotCompleted);
        assert_ne!(
            FailureCause::Store(StoreError::Timeout),
            FailureCause::Store(StoreError::Deadlock)
        );
    }
}
