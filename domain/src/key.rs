//! The `Idempotency-Key` value: parsed once at the edge, trusted everywhere after.

use crate::token_chars::{TokenTextError, check_token_text};

const MAX_KEY_LEN: usize = 128;

/// Exactly as sent: never trimmed, case-folded or truncated; equal only byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(String);

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("the Idempotency-Key header is required")]
    Missing,
    #[error("the Idempotency-Key must not be empty")]
    Empty,
    #[error("the Idempotency-Key must be at most {MAX_KEY_LEN} characters")]
    TooLong,
    /// Also what a comma list or malformed quoting gets.
    #[error("the Idempotency-Key may contain only A-Z, a-z, 0-9, '-' and '_'")]
    BadCharacter,
}

impl IdempotencyKey {
    pub fn parse_optional(raw: Option<&str>) -> Result<Self, KeyError> {
        raw.map_or(Err(KeyError::Missing), Self::parse)
    }

    /// Accepts the RFC 8941 string form (`"abc"`) as the same key as `abc`. The caller strips
    /// only what HTTP itself strips (surrounding whitespace).
    pub fn parse(raw: &str) -> Result<Self, KeyError> {
        let bare = unquote(raw);
        check_token_text(bare, MAX_KEY_LEN).map_err(|e| match e {
            TokenTextError::Empty => KeyError::Empty,
            TokenTextError::TooLong { .. } => KeyError::TooLong,
            TokenTextError::BadCharacter => KeyError::BadCharacter,
        })?;
        Ok(Self(bare.to_owned()))
    }

    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Escapes stay in place and are refused afterwards: neither `\` nor `"` is a key character.
fn unquote(raw: &str) -> &str {
    raw.strip_prefix('"')
        .and_then(|s| s.strip_suffix('"'))
        .unwrap_or(raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_of_allowed_characters_keeps_its_exact_bytes() {
        let key = IdempotencyKey::parse("Order-2026_abc").unwrap();
        assert_eq!(key.as_str(), "Order-2026_abc");
    }

    #[test]
    fn the_quoted_form_names_the_same_key() {
        assert_eq!(
            IdempotencyKey::parse("\"abc-123\"").unwrap(),
            IdempotencyKey::parse("abc-123").unwrap()
        );
    }

    #[test]
    fn keys_differing_only_in_case_are_different_keys() {
        assert_ne!(
            IdempotencyKey::parse("abc").unwrap(),
            IdempotencyKey::parse("ABC").unwrap()
        );
    }

    #[test]
    fn a_missing_key_is_reported_as_missing() {
        assert_eq!(IdempotencyKey::parse_optional(None), Err(KeyError::Missing));
    }

    #[test]
    fn an_empty_key_and_an_empty_quoted_key_are_empty() {
        assert_eq!(IdempotencyKey::parse(""), Err(KeyError::Empty));
        assert_eq!(IdempotencyKey::parse("\"\""), Err(KeyError::Empty));
    }

    #[test]
    fn a_key_of_128_characters_is_accepted() {
        assert!(IdempotencyKey::parse(&"k".repeat(128)).is_ok());
    }

    #[test]
    fn a_key_longer_than_128_characters_is_rejected() {
        assert_eq!(
            IdempotencyKey::parse(&"k".repeat(129)),
            Err(KeyError::TooLong)
        );
        let quoted = format!("\"{}\"", "k".repeat(129));
        assert_eq!(IdempotencyKey::parse(&quoted), Err(KeyError::TooLong));
    }

    #[test]
    fn a_comma_list_is_rejected() {
        assert_eq!(IdempotencyKey::parse("a,b"), Err(KeyError::BadCharacter));
        assert_eq!(IdempotencyKey::parse("a, b"), Err(KeyError::BadCharacter));
    }

    #[test]
    fn inner_whitespace_is_rejected_not_trimmed() {
        assert_eq!(IdempotencyKey::parse("a b"), Err(KeyError::BadCharacter));
        assert_eq!(IdempotencyKey::parse(" abc"), Err(KeyError::BadCharacter));
    }

    #[test]
    fn malformed_quoting_is_rejected() {
        for raw in ["\"abc", "abc\"", "\"", "\"a\\\"b\"", "\"a\"b\""] {
            assert_eq!(
                IdempotencyKey::parse(raw),
                Err(KeyError::BadCharacter),
                "{raw}"
            );
        }
    }
}
