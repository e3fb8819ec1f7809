//! The admin routes' problems (`docs/admin.md#refusals`): a bad query, checked here, and
//! the admin's refusals, named by `application` and given their form here as every
//! operation's are.

use application::admin::AdminRefusal;

use crate::http::edge::members::FieldError;
use crate::http::edge::problem::Problem;
use crate::http::edge::refusal_form::ProblemForm;

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
}

impl ProblemForm for AdminRefusal {
    /// A store failure reads as [`Problem::unavailable`]; the route logs its cause.
    fn problem(&self) -> Problem {
        let code = self.code();
        match self {
            Self::NotFound => Problem::not_found(),
            // `409`: the action does not apply to the resource's `state`, reported with it.
            Self::OperationState(_) | Self::KeyState(_) => {
                let mut problem = Problem::new(
                    409,
                    code,
                    "State conflict",
                    "The action does not apply to the current state, given in state.",
                );
                problem.state = self.current_state();
                problem
            }
            Self::KeyRetentionPassed => Problem::new(
                409,
                code,
                "Provider key retention passed",
                "The provider may have forgotten this operation's key, so a retry could charge twice. Check the provider and resolve instead.",
            ),
            // `409` with `Retry-After`: a worker's lease is live for that many more seconds.
            Self::Busy { retry_after_secs } => {
                let mut problem = Problem::new(
                    409,
                    code,
                    "Operation busy",
                    "A worker holds the operation now. Retry after Retry-After seconds.",
                );
                problem.retry_after = Some(u32::try_from(*retry_after_secs).unwrap_or(u32::MAX));
                problem.may_succeed_later()
            }
            Self::UnknownKind => Problem::new(
                409,
                code,
                "Operation type not served",
                "This server does not serve the operation's type, so it cannot record its resolution. Resolve it through a server that does.",
            ),
            // `409` naming the operation and its state: the client's retry may still need
            // the key to find that operation's answer.
            Self::OperationUnfinished { operation, .. } => {
                let mut problem = Problem::new(
                    409,
                    code,
                    "Operation unfinished",
                    "The key answered an operation that is still pending or in review (operationId, state): evicted, a client's retry would start a second operation under a new provider key. Settle the operation first.",
                );
                problem.state = self.current_state();
                problem.operation_id = Some(operation.hyphenated().to_string());
                problem
            }
            Self::OrderNotActive => Problem::new(
                409,
                code,
                "Order cancelled",
                "The operation's order is cancelled: retrying the operation or resolving it as succeeded would act on a cancelled order. Resolve it as declined, or cancel it.",
            ),
            Self::OperationConflict => Problem::new(
                409,
                code,
                "Operation conflict",
                "Another operation of the order holds what this one would take (for a capture: the order's one pending or succeeded capture). Settle that operation first.",
            ),
            Self::Store(_) => Problem::unavailable(),
        }
    }
}
