//! How a refusal reads on the wire, one convention for every route: `application` names the
//! refusal (its code, its facts in its variant); each route's module gives it its problem
//! document here, in the adapters (`docs/http-api.md#problem-details`).

use application::{BoxError, NoRefusal, Outcome, Refusal, RefusalForms};
use domain::StoredResponse;

use super::problem::{PROBLEM_JSON, Problem};

/// A refusal's problem: its status, title and detail, around the refusal's own code.
pub trait ProblemForm {
    fn problem(&self) -> Problem;
}

impl ProblemForm for NoRefusal {
    fn problem(&self) -> Problem {
        match *self {}
    }
}

/// The edge's forms, given to the coordinator: a stored refusal is stored as exactly the
/// problem the edge answers it with, so its first answer and every replay are the same bytes.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProblemForms;

impl<R: Refusal + ProblemForm> RefusalForms<R> for ProblemForms {
    fn stored(&self, refusal: R) -> Result<StoredResponse, BoxError> {
        let problem = refusal.problem();
        Ok(StoredResponse::new(
            problem.status,
            PROBLEM_JSON.to_owned(),
            None,
            problem.to_json(),
        )?)
    }
}

impl Problem {
    /// `None` for an outcome answered with a stored response.
    #[must_use]
    pub fn for_outcome<R: ProblemForm>(outcome: &Outcome<R>) -> Option<Self> {
        Some(match outcome {
            Outcome::Executed { .. }
            | Outcome::Replayed { .. }
            | Outcome::RejectedAndStored { .. } => return None,
            Outcome::KeyReused => Self::key_reused(),
            Outcome::InProgress => Self::in_progress(),
            Outcome::Rejected(refusal) => refusal.problem(),
            Outcome::OutcomeUnknown(_) => Self::outcome_unknown(),
            Outcome::Forbidden => Self::forbidden(),
            Outcome::Failed(_) => Self::internal(),
        })
    }
}
