//! `parse_key_header` on arbitrary header fields. The input is split at `\n` (a byte no
//! header value can carry) into the fields of one request; the empty input is no field.
//! It never panics; an accepted key came from exactly one field that is the key, bare or
//! as an RFC 8941 string, with only HTTP's optional whitespace around it; and both
//! spellings of an accepted key parse back to it.
#![no_main]

use adapters::http::parse_key_header;
use domain::KeyError;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let fields: Vec<&[u8]> = if data.is_empty() {
        Vec::new()
    } else {
        data.split(|&b| b == b'\n').collect()
    };
    let result = parse_key_header(&fields);
    assert_eq!(fields.is_empty(), result == Err(KeyError::Missing));
    let Ok(key) = result else { return };

    let [field] = fields[..] else {
        panic!("accepted {} fields", fields.len())
    };
    let text = key.as_str();
    assert!((1..=128).contains(&text.len()), "length {}", text.len());
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
        "accepted a character outside the key alphabet"
    );
    let value = std::str::from_utf8(field)
        .expect("accepted invalid UTF-8")
        .trim_matches([' ', '\t']);
    assert!(
        value == text || value == format!("\"{text}\""),
        "the key is not the whole field: {value:?}"
    );

    let quoted = format!("\"{text}\"");
    assert_eq!(parse_key_header(&[text.as_bytes()]).as_ref(), Ok(&key));
    assert_eq!(parse_key_header(&[quoted.as_bytes()]).as_ref(), Ok(&key));
});
