//! The `outcome` label of a request's metrics and span.

use application::Outcome;

/// The `outcome` label values of `docs/http-api.md#metrics`.
#[must_use]
pub fn outcome_label<R>(outcome: &Outcome<R>) -> &'static str {
    match outcome {
        Outcome::Executed { .. } => "executed",
        Outcome::Replayed { .. } => "replayed",
        Outcome::KeyReused => "key_reused",
        Outcome::InProgress => "in_progress",
        Outcome::OutcomeUnknown(_) => "outcome_unknown",
        Outcome::Rejected(_) | Outcome::RejectedAndStored { .. } => "rejected",
        Outcome::Forbidden => "forbidden",
        Outcome::Failed(_) => "failed",
    }
}
