//! What working one operation came to, and which write failed when one did.

use chrono::{DateTime, Utc};

use super::ports::Ending;
use crate::error_chain::same_error;
use crate::ports::StoreError;

/// What one operation came to in this worker's hands.
#[derive(Debug)]
pub enum Worked {
    /// Another worker won the claim: nothing done.
    NotClaimed,
    /// Ended as said.
    Ended(Ending),
    /// No definite answer; the attempt is counted and the next is due at this time.
    RetryAt(DateTime<Utc>),
    /// The lease was lost while working: this worker wrote nothing more.
    LeaseLost,
    /// The claim was won, then a database write of `step` failed: this worker wrote
    /// nothing more, and the lease runs out for the next owner.
    Abandoned {
        /// Which write failed.
        step: Step,
        /// The store's error, for the log.
        error: StoreError,
    },
}

/// Equal when they came to the same, with failed writes compared by what their errors say.
impl PartialEq for Worked {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::NotClaimed, Self::NotClaimed) | (Self::LeaseLost, Self::LeaseLost) => true,
            (Self::Ended(a), Self::Ended(b)) => a == b,
            (Self::RetryAt(a), Self::RetryAt(b)) => a == b,
            (
                Self::Abandoned { step, error },
                Self::Abandoned {
                    step: other_step,
                    error: other_error,
                },
            ) => step == other_step && same_error(error, other_error),
            _ => false,
        }
    }
}

/// The writes a worker makes after its claim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Extending the lease during the provider call.
    Extension,
    /// Counting the attempt and scheduling the next.
    Retry,
    /// Ending the operation (with its payment).
    Completion,
}

impl Step {
    /// The step, as logs name it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Extension => "lease extension",
            Self::Retry => "retry write",
            Self::Completion => "completion",
        }
    }
}
