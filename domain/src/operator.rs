//! What a person on call may do to a long-running operation, and from which state
//! (`docs/admin.md#actions`). Every action leaves one state for another; the store makes
//! the change only if the operation is still where the operator saw it.

use crate::payment::OperationState;
use crate::token_chars::{TokenTextError, check_token_text};

/// The other service's id of the work a person found done there (a charge, a refund): the
/// stand-in's and most providers' ids (`ch_...`) are letters, digits, `-` and `_`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProviderId(String);

impl ProviderId {
    pub const MAX_CHARS: usize = 128;

    /// # Errors
    /// When empty, longer than [`Self::MAX_CHARS`] or holding another character.
    pub fn parse(raw: &str) -> Result<Self, TokenTextError> {
        check_token_text(raw, Self::MAX_CHARS)?;
        Ok(Self(raw.to_owned()))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    #[must_use]
    pub fn into_string(self) -> String {
        self.0
    }
}

/// What a person found at the provider for an operation needing review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// Done: the operation's kind records its success with this id.
    Succeeded(ProviderId),
    /// Not done: for a capture, the order may be captured again.
    Declined,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OperatorAction {
    Resolve(Resolution),
    /// Back to pending, due now, attempts reset, under the same downstream key.
    Retry,
    Cancel,
}

impl OperatorAction {
    /// The one state the action applies to.
    #[must_use]
    pub fn applies_to(&self) -> OperationState {
        match self {
            Self::Resolve(_) | Self::Retry => OperationState::NeedsReview,
            Self::Cancel => OperationState::Pending,
        }
    }

    #[must_use]
    pub fn ends_in(&self) -> OperationState {
        match self {
            Self::Resolve(Resolution::Succeeded(_)) => OperationState::Succeeded,
            Self::Resolve(Resolution::Declined) => OperationState::Declined,
            Self::Retry => OperationState::Pending,
            Self::Cancel => OperationState::Cancelled,
        }
    }

    /// As the audit trail names it.
    #[must_use]
    pub fn name(&self) -> &'static str {
        match self {
            Self::Resolve(_) => "operation.resolve",
            Self::Retry => "operation.retry",
            Self::Cancel => "operation.cancel",
        }
    }
}

/// Why an attempt at the provider got no definite answer, or why none was made: kept on
/// the operation so a person reviewing it sees what went wrong last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AttemptError {
    Timeout,
    /// The connection could not be made or broke.
    Transport,
    /// A `5xx`, `409` or `429`: the provider may have charged.
    ProviderStatus,
    /// A `4xx` the provider gave for our request: a bug or a configuration error.
    Refused,
    /// An answer that was not a charge or refund of the form asked for: unparseable, an id
    /// not of [`ProviderId`]'s form, or other money than asked.
    Malformed,
    /// The operation outlived the provider's memory of its key, so no call was made.
    KeyRetentionPassed,
    /// What the operation stored at acceptance no longer reads as its kind's job, so no
    /// call was made.
    InputUnreadable,
    /// The provider's definite answer could not be written: the store refused the end twice
    /// the same way, so it would refuse it on every attempt.
    CompletionFailed,
}

impl AttemptError {
    pub const ALL: [Self; 8] = [
        Self::Timeout,
        Self::Transport,
        Self::ProviderStatus,
        Self::Refused,
        Self::Malformed,
        Self::KeyRetentionPassed,
        Self::InputUnreadable,
        Self::CompletionFailed,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Timeout => "timeout",
            Self::Transport => "transport",
            Self::ProviderStatus => "provider_status",
            Self::Refused => "refused",
            Self::Malformed => "malformed",
            Self::KeyRetentionPassed => "key_retention_passed",
            Self::InputUnreadable => "input_unreadable",
            Self::CompletionFailed => "completion_failed",
        }
    }

    /// `None` for a name this version does not know (written by a newer one).
    #[must_use]
    pub fn from_stored(raw: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|class| class.as_str() == raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_provider_id_keeps_its_text_and_each_action_has_its_audit_name() {
        let charge = ProviderId::parse("ch_1").unwrap();
        assert_eq!(charge.as_str(), "ch_1");
        let names = [
            OperatorAction::Resolve(Resolution::Succeeded(charge)).name(),
            OperatorAction::Resolve(Resolution::Declined).name(),
            OperatorAction::Retry.name(),
            OperatorAction::Cancel.name(),
        ];
        assert_eq!(
            names,
            [
                "operation.resolve",
                "operation.resolve",
                "operation.retry",
                "operation.cancel"
            ]
        );
    }

    #[test]
    fn resolving_and_retrying_leave_review_and_cancelling_leaves_pending() {
        let charge = ProviderId::parse("ch_1").unwrap();
        let cases = [
            (
                OperatorAction::Resolve(Resolution::Succeeded(charge)),
                OperationState::NeedsReview,
                OperationState::Succeeded,
            ),
            (
                OperatorAction::Resolve(Resolution::Declined),
                OperationState::NeedsReview,
                OperationState::Declined,
            ),
            (
                OperatorAction::Retry,
                OperationState::NeedsReview,
                OperationState::Pending,
            ),
            (
                OperatorAction::Cancel,
                OperationState::Pending,
                OperationState::Cancelled,
            ),
        ];
        for (action, from, to) in cases {
            assert_eq!((action.applies_to(), action.ends_in()), (from, to));
            assert_ne!(from, to, "{action:?} changes the state");
        }
    }

    #[test]
    fn charge_ids_are_token_text_of_at_most_128_characters() {
        assert!(ProviderId::parse("ch_0123abcdef-X").is_ok());
        assert!(ProviderId::parse(&"c".repeat(128)).is_ok());
        for bad in ["", "ch 1", "ch/1", "ch\u{e9}"] {
            assert!(ProviderId::parse(bad).is_err(), "{bad:?}");
        }
        assert!(ProviderId::parse(&"c".repeat(129)).is_err());
    }

    #[test]
    fn error_classes_round_trip_through_their_stored_names() {
        for class in AttemptError::ALL {
            assert_eq!(AttemptError::from_stored(class.as_str()), Some(class));
        }
        assert_eq!(AttemptError::from_stored("Timeout"), None);
    }
}
