//! What working one operation came to, and which write failed when one did.

use chrono::{DateTime, Utc};

use crate::ports::Ending;

/// What one operation came to in this worker's hands.
#[derive(Debug, Clone, PartialEq, Eq)]
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
        reason: String,
    },
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
