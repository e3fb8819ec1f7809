//! What working one operation came to, and which write failed when one did.

use chrono::{DateTime, Utc};

use super::ports::Ending;
use crate::error_chain::same_error;
use crate::ports::StoreError;

#[derive(Debug)]
pub enum Worked {
    NotClaimed,
    Ended(Ending),
    /// No definite answer; the attempt is counted and the next is due then.
    RetryAt(DateTime<Utc>),
    /// The lease was lost while working: nothing more was written.
    LeaseLost,
    /// Ended `needs_review` (`completion_failed`): the store refused the definite end twice
    /// the same way, this error the second time.
    Unrecorded {
        error: StoreError,
    },
    /// A write after the claim failed: nothing more was written; the lease runs out.
    Abandoned {
        step: Step,
        error: StoreError,
    },
}

/// Failed writes compare by what their errors say.
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
            (Self::Unrecorded { error }, Self::Unrecorded { error: other }) => {
                same_error(error, other)
            }
            _ => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Extension,
    Retry,
    Completion,
}

impl Step {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Extension => "lease extension",
            Self::Retry => "retry write",
            Self::Completion => "completion",
        }
    }
}

/// One failure for `members` operations at once: itself for one, else each member's the
/// same shared cause.
pub(super) fn shared_failure(error: StoreError, members: usize) -> Vec<StoreError> {
    if members <= 1 {
        return vec![error];
    }
    let shared = std::sync::Arc::new(error);
    (0..members)
        .map(|_| StoreError::Other(Box::new(std::sync::Arc::clone(&shared))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_alike_only_of_one_kind_and_one_value() {
        let at = DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        assert_eq!(Worked::RetryAt(at), Worked::RetryAt(at));
        assert_ne!(Worked::NotClaimed, Worked::LeaseLost);
        assert_ne!(
            Worked::RetryAt(at),
            Worked::RetryAt(at + chrono::TimeDelta::seconds(1))
        );
        let abandoned = |step, error| Worked::Abandoned { step, error };
        assert_eq!(
            abandoned(Step::Extension, StoreError::Timeout),
            abandoned(Step::Extension, StoreError::Timeout)
        );
        assert_ne!(
            abandoned(Step::Extension, StoreError::Timeout),
            abandoned(Step::Extension, StoreError::Deadlock)
        );
        assert_ne!(
            abandoned(Step::Extension, StoreError::Timeout),
            abandoned(Step::Completion, StoreError::Timeout)
        );
    }
}
