//! The `Idempotency-Key` header as HTTP delivers it: zero, one or several field values.

use domain::{IdempotencyKey, KeyError};

/// Exactly one field: HTTP would combine two into a list, which no key can be. Only HTTP's
/// optional whitespace (space, tab) around the value is removed.
///
/// # Errors
/// [`KeyError::Missing`] without a field; [`KeyError::BadCharacter`] for several fields or
/// bytes outside the key alphabet; [`KeyError::Empty`] or [`KeyError::TooLong`].
pub fn parse_key_header(values: &[&[u8]]) -> Result<IdempotencyKey, KeyError> {
    match values {
        [] => Err(KeyError::Missing),
        [value] => {
            let text = std::str::from_utf8(value).map_err(|_| KeyError::BadCharacter)?;
            IdempotencyKey::parse(text.trim_matches([' ', '\t']))
        }
        _ => Err(KeyError::BadCharacter),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_field_with_optional_whitespace_is_the_key() {
        let key = parse_key_header(&[b" \tabc-123 "]).unwrap();
        assert_eq!(key.as_str(), "abc-123");
    }

    #[test]
    fn no_field_is_missing() {
        assert_eq!(parse_key_header(&[]), Err(KeyError::Missing));
    }

    #[test]
    fn two_fields_are_invalid_even_when_equal() {
        assert_eq!(
            parse_key_header(&[b"abc", b"abc"]),
            Err(KeyError::BadCharacter)
        );
    }

    #[test]
    fn a_comma_list_in_one_field_is_invalid() {
        assert_eq!(parse_key_header(&[b"a, b"]), Err(KeyError::BadCharacter));
    }

    #[test]
    fn non_ascii_bytes_are_invalid() {
        assert_eq!(parse_key_header(&[b"\xff"]), Err(KeyError::BadCharacter));
        assert_eq!(
            parse_key_header(&["cl\u{e9}".as_bytes()]),
            Err(KeyError::BadCharacter)
        );
    }

    #[test]
    fn an_empty_field_is_empty() {
        assert_eq!(parse_key_header(&[b"  "]), Err(KeyError::Empty));
    }

    #[test]
    fn the_quoted_form_names_the_same_key() {
        assert_eq!(parse_key_header(&[b"\"abc\""]), parse_key_header(&[b"abc"]));
    }
}
