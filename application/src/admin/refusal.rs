//! Why an admin request changed nothing (`docs/admin.md#refusals`).

use domain::OperationState;

use super::views::KeyState;
use crate::ports::StoreError;

#[derive(Debug, thiserror::Error)]
pub enum AdminRefusal {
    /// Unknown, or outside the admin's tenant.
    #[error("not found")]
    NotFound,
    /// The action does not apply to the operation's state.
    #[error("the operation is {}", .0.as_api())]
    OperationState(OperationState),
    /// The key's operation is not settled: evicting the key would turn the client's retry
    /// into a second operation under a new provider key.
    #[error("the key's operation is {}", .state.as_api())]
    OperationUnfinished {
        operation: uuid::Uuid,
        state: OperationState,
    },
    /// Only a completed record is evicted.
    #[error("the idempotency record is {}", .0.as_api())]
    KeyState(KeyState),
    /// The provider may have forgotten the downstream key: a retry could charge twice.
    #[error("the provider's key retention has passed")]
    KeyRetentionPassed,
    /// Resolving needs the operation's kind, and this process does not serve it.
    #[error("the operation's kind is not served here")]
    UnknownKind,
    /// The operation's order is cancelled: a retry or a success would charge it.
    #[error("the operation's order is cancelled")]
    OrderNotActive,
    /// Another operation of the order holds what this one would take.
    #[error("another operation of the order conflicts")]
    OperationConflict,
    /// A worker holds a live lease for that many more seconds.
    #[error("a worker holds the operation")]
    Busy { retry_after_secs: u64 },
    #[error("the store failed")]
    Store(#[from] StoreError),
}

impl AdminRefusal {
    /// The stable code of the problem that answers it; its facts (the state, the seconds to
    /// wait) are the variant's. How it reads on the wire is the edge's.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            Self::NotFound => crate::NOT_FOUND,
            Self::OperationState(_) | Self::KeyState(_) => "state_conflict",
            Self::KeyRetentionPassed => "key_retention_passed",
            Self::Busy { .. } => "operation_busy",
            Self::UnknownKind => "unknown_operation_type",
            Self::OrderNotActive => "order_cancelled",
            Self::OperationUnfinished { .. } => "operation_unfinished",
            Self::OperationConflict => "operation_conflict",
            Self::Store(_) => "unavailable",
        }
    }

    /// The current state, as the problem reports it.
    #[must_use]
    pub fn current_state(&self) -> Option<&'static str> {
        match self {
            Self::OperationState(state) | Self::OperationUnfinished { state, .. } => {
                Some(state.as_api())
            }
            Self::KeyState(state) => Some(state.as_api()),
            _ => None,
        }
    }
}
