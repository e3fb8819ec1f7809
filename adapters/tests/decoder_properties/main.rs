//! Properties of the HTTP edge's decoders, for any input: the `Idempotency-Key` header
//! parser and the strict `POST /api/orders` body decoder
//! (`docs/http-api.md#the-idempotency-key-header`, `docs/http-api.md#request-bodies`).
//!
//! Generators aim at the interesting space rather than only at random bytes: the key and
//! text alphabets at the length bounds (1, 64, 128 and just beyond), optional whitespace
//! and RFC 8941 quoting, JSON with shuffled members, odd whitespace and `\uXXXX` escapes in
//! names and values (`"\u0071uantity"`), duplicate and unknown members, and JSON-ish token
//! soup. Failing cases are saved under `adapters/proptest-regressions/` (committed, so
//! every run replays them first).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed assertion

mod body;
mod body_inputs;
mod key_header;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

/// The default budget (256 cases, or `PROPTEST_CASES`), failures saved to
/// `proptest-regressions/decoder_properties.txt` in this crate (proptest's default place
/// is found from `src/` only: for a file in `tests/` it warns and writes beside the file).
fn config() -> ProptestConfig {
    ProptestConfig {
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/decoder_properties.txt",
        ))),
        ..ProptestConfig::default()
    }
}

const KEY_ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Text of the key alphabet, `len` characters long.
fn token_text(len: impl Strategy<Value = usize>) -> impl Strategy<Value = String> {
    len.prop_flat_map(|len| {
        proptest::collection::vec(select(KEY_ALPHABET), len)
            .prop_map(|bytes| bytes.into_iter().map(char::from).collect())
    })
}

/// A length of `1..=max`, at the bounds a quarter of the time each.
fn valid_len(max: usize) -> impl Strategy<Value = usize> {
    prop_oneof![2 => 1..=max, 1 => Just(1), 1 => Just(max)]
}
