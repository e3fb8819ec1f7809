//! A caller's reason for a change (a cancel, a refund), kept with it and shown wherever the
//! change is.

/// The longest reason, in characters.
pub const MAX_REASON_CHARS: usize = 200;

/// Why the caller cancels or refunds: 1 to 200 characters, none of them a control character (so a
/// reason is one line wherever it is shown, and its fingerprint field is unambiguous).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reason(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ReasonError {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most 200 characters")]
    TooLong,
    #[error("must not contain control characters")]
    ControlCharacter,
}

impl Reason {
    /// # Errors
    /// The first rule `raw` breaks.
    pub fn parse(raw: &str) -> Result<Self, ReasonError> {
        if raw.is_empty() {
            Err(ReasonError::Empty)
        } else if raw.chars().count() > MAX_REASON_CHARS {
            Err(ReasonError::TooLong)
        } else if raw.chars().any(char::is_control) {
            Err(ReasonError::ControlCharacter)
        } else {
            Ok(Self(raw.to_owned()))
        }
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reason_is_one_to_two_hundred_characters_and_no_control_character() {
        assert_eq!(
            Reason::parse("x").map(|r| r.as_str().to_owned()),
            Ok("x".to_owned())
        );
        assert!(
            Reason::parse(&"é".repeat(200)).is_ok(),
            "characters, not bytes"
        );
        assert_eq!(Reason::parse(""), Err(ReasonError::Empty));
        assert_eq!(Reason::parse(&"x".repeat(201)), Err(ReasonError::TooLong));
        for bad in ["a\nb", "tab\there", "\u{7f}", "\u{85}"] {
            assert_eq!(
                Reason::parse(bad),
                Err(ReasonError::ControlCharacter),
                "{bad:?}"
            );
        }
    }
}
