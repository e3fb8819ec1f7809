//! The one character rule shared by keys, order references and SKUs.

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TokenTextError {
    #[error("must not be empty")]
    Empty,
    #[error("must be at most {max} characters")]
    TooLong { max: usize },
    #[error("may contain only A-Z, a-z, 0-9, '-' and '_'")]
    BadCharacter,
}

/// Nothing is trimmed or case-folded: the caller's bytes are the value.
pub(crate) fn check_token_text(text: &str, max: usize) -> Result<(), TokenTextError> {
    if text.is_empty() {
        return Err(TokenTextError::Empty);
    }
    if !text
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    {
        return Err(TokenTextError::BadCharacter);
    }
    // Only ASCII is left, so bytes and characters agree.
    if text.len() > max {
        return Err(TokenTextError::TooLong { max });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_digits_dash_and_underscore_are_accepted() {
        assert_eq!(check_token_text("aZ09-_", 64), Ok(()));
    }

    #[test]
    fn a_space_is_a_bad_character() {
        assert_eq!(
            check_token_text("a b", 64),
            Err(TokenTextError::BadCharacter)
        );
    }

    #[test]
    fn non_ascii_letters_are_bad_characters_even_when_short() {
        assert_eq!(check_token_text("é", 64), Err(TokenTextError::BadCharacter));
    }

    #[test]
    fn the_length_limit_is_inclusive() {
        assert_eq!(check_token_text(&"a".repeat(3), 3), Ok(()));
        assert_eq!(
            check_token_text(&"a".repeat(4), 3),
            Err(TokenTextError::TooLong { max: 3 })
        );
    }
}
