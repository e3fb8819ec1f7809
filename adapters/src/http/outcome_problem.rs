//! The problem each idempotent outcome that is not a success answers with: one mapping
//! for every route, from the coordinator's [`Outcome`] to the contract's status and code.

use application::{Outcome, Rejection};

use super::problem::Problem;

impl Problem {
    /// The problem for an outcome that is not a success, or `None` for a success.
    #[must_use]
    pub fn for_outcome(outcome: &Outcome) -> Option<Self> {
        Some(match outcome {
            Outcome::Executed { .. } | Outcome::Replayed { .. } => return None,
            Outcome::KeyReused => Self::new(
                422,
                "idempotency_key_reused",
                "Idempotency-Key reused",
                "This key was used with a different request. Use a new key for a new request.",
            ),
            Outcome::InProgress => Self::new(
                409,
                "request_in_progress",
                "Request in progress",
                "A request with this key is still being processed. Retry later with the same key.",
            )
            .retry(),
            Outcome::Rejected(Rejection::ClientOrderRefConflict) => Self::new(
                409,
                "client_order_ref_conflict",
                "clientOrderRef already used",
                "An order with this clientOrderRef already exists in this tenant.",
            ),
            // Nothing about the order is revealed beyond "not yours or not there".
            Outcome::Rejected(Rejection::OrderNotFound) => Self::not_found(),
            Outcome::Rejected(Rejection::PaymentExists) => Self::new(
                409,
                "payment_exists",
                "Payment exists",
                "This order already has a pending or succeeded payment capture.",
            ),
            Outcome::OutcomeUnknown(_) => Self::new(
                503,
                "outcome_unknown",
                "Outcome unknown",
                "Whether the request took effect cannot be told now. Retry with the same key; never a new one.",
            )
            .retry(),
            Outcome::Forbidden => Self::forbidden(),
            Outcome::Failed(_) => Self::internal(),
        })
    }
}

#[cfg(test)]
mod tests {
    use application::{FailureCause, UnknownCause};

    use super::*;

    #[test]
    fn each_outcome_maps_to_the_contract_status_and_code() {
        let cases = [
            (Outcome::KeyReused, 422, "idempotency_key_reused", false),
            (Outcome::InProgress, 409, "request_in_progress", true),
            (
                Outcome::Rejected(Rejection::ClientOrderRefConflict),
                409,
                "client_order_ref_conflict",
                false,
            ),
            (
                Outcome::OutcomeUnknown(UnknownCause::CommitOutcomeUnknown),
                503,
                "outcome_unknown",
                true,
            ),
            (
                Outcome::Rejected(Rejection::OrderNotFound),
                404,
                "not_found",
                false,
            ),
            (
                Outcome::Rejected(Rejection::PaymentExists),
                409,
                "payment_exists",
                false,
            ),
            (Outcome::Forbidden, 403, "forbidden", false),
            (
                Outcome::Failed(FailureCause::Aborted),
                500,
                "internal",
                false,
            ),
        ];
        for (outcome, status, code, retry) in cases {
            let problem = Problem::for_outcome(&outcome).unwrap();
            assert_eq!(
                (problem.status, problem.code),
                (status, code),
                "{outcome:?}"
            );
            assert_eq!(problem.retry_after.is_some(), retry, "{outcome:?}");
        }
    }
}
