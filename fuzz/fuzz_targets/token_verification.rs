//! `TokenKeys::verify_header` and `TokenKeys::verify` on arbitrary input. They never
//! panic, and whatever they accept is checked by an oracle independent of `jsonwebtoken`:
//! three base64url parts, an HS256 header, a signature that is the HMAC-SHA256 of the
//! signing input under the secret, an `exp` not past (with the leeway), and the tenant and
//! actor of the claims. Mutations cannot forge a MAC, so the only tokens that may pass are
//! the ones minted with [`SECRET`] (see the seeds in `corpus/token_verification/`).
#![no_main]

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use adapters::http::{EXP_LEEWAY_SECS, TokenKeys};
use application::Caller;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use sha2::Sha256;

/// The fuzzing secret; the seed tokens are minted with it (`fuzz/README.md`).
const SECRET: &[u8] = b"fuzz-only-secret-0123456789abcdef-0123456789";

fn check_accepted(token: &str, caller: &Caller) {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        panic!("accepted a token that is not three parts: {token:?}")
    };
    let json = |part: &str| -> Value {
        let bytes = URL_SAFE_NO_PAD
            .decode(part)
            .expect("accepted a part that is not base64url");
        serde_json::from_slice(&bytes).expect("accepted a part that is not JSON")
    };
    assert_eq!(json(header)["alg"], "HS256", "accepted another algorithm");

    let mut mac = Hmac::<Sha256>::new_from_slice(SECRET).expect("HMAC takes any key length");
    mac.update(format!("{header}.{payload}").as_bytes());
    let signature = URL_SAFE_NO_PAD
        .decode(signature)
        .expect("accepted a signature that is not base64url");
    mac.verify_slice(&signature)
        .expect("accepted a token not signed with the secret");

    let claims = json(payload);
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs();
    let exp = claims["exp"]
        .as_i64()
        .expect("accepted a token without a numeric exp");
    assert!(
        exp + EXP_LEEWAY_SECS as i64 >= now as i64,
        "accepted an expired token"
    );
    assert_eq!(claims["tid"].as_u64(), Some(caller.tenant.get()));
    assert_eq!(
        claims["sub"].as_str(),
        Some(caller.actor.get().to_string().as_str())
    );
}

fuzz_target!(|data: &[u8]| {
    static KEYS: OnceLock<TokenKeys> = OnceLock::new();
    let keys = KEYS.get_or_init(|| TokenKeys::hs256(SECRET).expect("the secret is long enough"));
    if let Ok(caller) = keys.verify_header(Some(data)) {
        let text = std::str::from_utf8(data).expect("accepted invalid UTF-8");
        let (_, token) = text
            .trim()
            .split_once(' ')
            .expect("accepted a header without a scheme");
        check_accepted(token.trim_start(), &caller);
    }
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(caller) = keys.verify(text)
    {
        check_accepted(text, &caller);
    }
});
