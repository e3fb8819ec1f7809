//! The `Idempotency-Key` header parser, for any header fields.

use adapters::http::parse_key_header;
use domain::KeyError;
use proptest::prelude::*;
use proptest::sample::select;

use super::{KEY_ALPHABET, config, token_text, valid_len};

fn in_alphabet(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// HTTP's optional whitespace, as a client might send it around a value.
fn ows() -> impl Strategy<Value = String> {
    proptest::collection::vec(select(&[" ", "\t"][..]), 0..3).prop_map(|parts| parts.concat())
}

/// A character the key alphabet does not hold: ASCII punctuation, controls, quotes,
/// backslash, whitespace, or any Unicode scalar.
fn bad_char() -> impl Strategy<Value = char> {
    prop_oneof![
        select(
            &[
                ' ', '\t', '"', '\\', ',', ';', '=', '.', '/', '\0', '\u{7f}', 'é'
            ][..]
        ),
        any::<char>(),
    ]
    .prop_filter("outside the alphabet", |c| !in_alphabet(*c))
}

/// Bytes a key may not hold, but a header value might: quotes, whitespace, a comma, a
/// backslash, non-ASCII (valid and invalid UTF-8), a carriage return.
const ODD_HEADER_BYTES: &[&[u8]] = &[b"\"", b" ", b"\t", b",", b"\\", b"\xc3\xa9", b"\xff", b"\r"];

/// Header-ish field values: mostly alphabet characters, with quotes, whitespace, commas,
/// backslashes and non-ASCII mixed in, at lengths around the 128 bound.
fn header_ish_field() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        8 => select(KEY_ALPHABET).prop_map(|b| vec![b]),
        1 => select(ODD_HEADER_BYTES).prop_map(<[u8]>::to_vec),
    ];
    proptest::collection::vec(piece, 0..140).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_header_fields_of_any_bytes_never_panic_and_only_a_single_field_can_hold_a_key(
        fields in proptest::collection::vec(
            prop_oneof![proptest::collection::vec(any::<u8>(), 0..160), header_ish_field()],
            0..4,
        ),
    ) {
        let views: Vec<&[u8]> = fields.iter().map(Vec::as_slice).collect();
        let result = parse_key_header(&views);
        prop_assert_eq!(views.is_empty(), result == Err(KeyError::Missing));
        if views.len() > 1 {
            prop_assert_eq!(result, Err(KeyError::BadCharacter));
        }
    }

    #[test]
    fn a_key_accepted_from_any_field_is_accepted_again_bare_and_as_an_rfc_8941_string(
        field in header_ish_field(),
    ) {
        if let Ok(key) = parse_key_header(&[&field]) {
            let bare = key.as_str();
            prop_assert!((1..=128).contains(&bare.len()));
            prop_assert!(bare.chars().all(in_alphabet));
            let quoted = format!("\"{bare}\"");
            prop_assert_eq!(parse_key_header(&[bare.as_bytes()]), Ok(key.clone()));
            prop_assert_eq!(parse_key_header(&[quoted.as_bytes()]), Ok(key));
        }
    }

    #[test]
    fn every_key_of_1_to_128_allowed_characters_is_accepted_bare_or_quoted_within_optional_whitespace(
        text in token_text(valid_len(128)),
        quoted in any::<bool>(),
        before in ows(),
        after in ows(),
    ) {
        let value = if quoted { format!("\"{text}\"") } else { text.clone() };
        let field = format!("{before}{value}{after}");
        let key = parse_key_header(&[field.as_bytes()]);
        prop_assert_eq!(key.as_ref().map(|k| k.as_str()), Ok(text.as_str()));
    }

    #[test]
    fn a_key_over_128_characters_is_too_long_bare_or_quoted(
        text in token_text(129..400usize),
        quoted in any::<bool>(),
    ) {
        let value = if quoted { format!("\"{text}\"") } else { text };
        prop_assert_eq!(parse_key_header(&[value.as_bytes()]), Err(KeyError::TooLong));
    }

    #[test]
    fn a_key_with_any_character_outside_the_alphabet_inside_it_is_refused(
        before in token_text(valid_len(63)),
        bad in bad_char(),
        after in token_text(valid_len(64)),
        quoted in any::<bool>(),
    ) {
        let text = format!("{before}{bad}{after}");
        let value = if quoted { format!("\"{text}\"") } else { text };
        prop_assert_eq!(parse_key_header(&[value.as_bytes()]), Err(KeyError::BadCharacter));
    }

    #[test]
    fn two_or_more_fields_are_refused_even_when_each_is_a_valid_key(
        keys in proptest::collection::vec(token_text(valid_len(128)), 2..5),
    ) {
        let views: Vec<&[u8]> = keys.iter().map(String::as_bytes).collect();
        prop_assert_eq!(parse_key_header(&views), Err(KeyError::BadCharacter));
    }
}
