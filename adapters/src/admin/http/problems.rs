//! The admin routes' own problems (`docs/admin.md#refusals`), beside the API's shared
//! ones in the edge.

use crate::http::edge::members::FieldError;
use crate::http::edge::problem::Problem;

impl Problem {
    /// A pointer `/name` names the query parameter `name`.
    #[must_use]
    pub fn invalid_query(errors: &[FieldError]) -> Self {
        Self::new(
            400,
            "invalid_query",
            "Invalid query",
            "The query parameters do not match the route's; see errors.",
        )
        .with_errors(errors)
    }

    /// `409`: the action does not apply to the resource's `state`, reported with it.
    #[must_use]
    pub fn state_conflict(state: &'static str) -> Self {
        let mut problem = Self::new(
            409,
            "state_conflict",
            "State conflict",
            "The action does not apply to the current state, given in state.",
        );
        problem.state = Some(state);
        problem
    }

    #[must_use]
    pub fn key_retention_passed() -> Self {
        Self::new(
            409,
            "key_retention_passed",
            "Provider key retention passed",
            "The provider may have forgotten this operation's key, so a retry could charge twice. Check the provider and resolve instead.",
        )
    }

    /// `409` with `Retry-After`: a worker's lease is live for that many more seconds.
    #[must_use]
    pub fn operation_busy(retry_after_secs: u64) -> Self {
        let mut problem = Self::new(
            409,
            "operation_busy",
            "Operation busy",
            "A worker holds the operation now. Retry after Retry-After seconds.",
        );
        problem.retry_after = Some(u32::try_from(retry_after_secs).unwrap_or(u32::MAX));
        problem
    }
}
