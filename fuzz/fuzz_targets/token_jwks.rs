//! `TokenVerifier::verify_header` with an identity provider's key set (one Ed25519 key,
//! `kid` "fuzz"), on arbitrary input, as an `Authorization` value and as a bare token. It
//! never panics, and whatever it accepts passes an oracle independent of `jsonwebtoken`:
//! three base64url parts, an EdDSA header naming "fuzz", a signature `ring` verifies under
//! the key, the issuer, an audience holding "fuzz", an `exp` not past (with the leeway),
//! and the tenant and actor of the claims. Mutations cannot forge a signature, so only the
//! seeds minted with the key may pass (`corpus/token_jwks/`, `fuzz/README.md`).
#![no_main]

use std::sync::{Arc, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use adapters::http::{
    ClaimNames, JwksSettings, JwksSource, JwksVerifier, TokenVerifier,
};
use application::Caller;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use libfuzzer_sys::fuzz_target;
use ring::signature::{ED25519, UnparsedPublicKey};
use serde_json::Value;
use tokio::runtime::Runtime;

/// The public half of the Ed25519 key whose seed is 32 bytes of 0x21.
const PUBLIC_KEY: &str = "iEuIV_TqoWE8YVBNs01L6vNGUXoOMd483dTZtCAdnQs";
const ISSUER: &str = "https://fuzz.idp/";
const AUDIENCE: &str = "fuzz";
const LEEWAY_SECS: u64 = 30;

fn check_accepted(token: &str, caller: &Caller) {
    let mut parts = token.split('.');
    let (Some(header), Some(payload), Some(signature), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        panic!("accepted a token that is not three parts: {token:?}")
    };
    let decode = |part: &str| {
        URL_SAFE_NO_PAD
            .decode(part)
            .expect("accepted a part that is not base64url")
    };
    let json = |part: &str| -> Value {
        serde_json::from_slice(&decode(part)).expect("accepted a part that is not JSON")
    };
    let header_json = json(header);
    assert_eq!(header_json["alg"], "EdDSA", "accepted another algorithm");
    assert_eq!(header_json["kid"], "fuzz", "accepted another key");
    let public = URL_SAFE_NO_PAD.decode(PUBLIC_KEY).expect("the key is base64url");
    UnparsedPublicKey::new(&ED25519, public)
        .verify(format!("{header}.{payload}").as_bytes(), &decode(signature))
        .expect("accepted a token the key did not sign");

    let claims = json(payload);
    assert_eq!(claims["iss"], ISSUER, "accepted another issuer");
    let audience_ok = match &claims["aud"] {
        Value::String(aud) => aud == AUDIENCE,
        Value::Array(auds) => auds.iter().any(|aud| aud == AUDIENCE),
        _ => false,
    };
    assert!(audience_ok, "accepted another audience");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs();
    let exp = claims["exp"].as_u64().expect("accepted a token without a numeric exp");
    assert!(exp + LEEWAY_SECS >= now, "accepted an expired token");
    let tenant = match &claims["tid"] {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.parse().ok(),
        _ => None,
    };
    assert_eq!(tenant, Some(caller.tenant.get()));
    assert_eq!(
        claims["sub"].as_str(),
        Some(caller.actor.get().to_string().as_str())
    );
}

struct Fixture {
    runtime: Runtime,
    verifier: TokenVerifier,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let path = std::env::temp_dir().join(format!("fuzz-jwks-{}.json", std::process::id()));
        let document = serde_json::json!({"keys": [{
            "kty": "OKP", "crv": "Ed25519", "kid": "fuzz", "use": "sig", "x": PUBLIC_KEY,
        }]});
        std::fs::write(&path, document.to_string()).expect("the key set is written");
        let settings = JwksSettings {
            issuer: ISSUER.to_owned(),
            audience: AUDIENCE.to_owned(),
            leeway_secs: LEEWAY_SECS,
            claims: ClaimNames::default(),
            // An unknown kid reads the file again at most once an hour.
            min_refresh: Duration::from_secs(3600),
            max_lifetime_secs: None,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let key_set = Arc::new(JwksVerifier::new(JwksSource::file(path), settings));
        runtime
            .block_on(key_set.load())
            .expect("the key set loads");
        Fixture {
            runtime,
            verifier: TokenVerifier::KeySet(key_set),
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Fixture { runtime, verifier } = fixture();
    if let Ok(caller) = runtime.block_on(verifier.verify_header(Some(data))) {
        let text = std::str::from_utf8(data).expect("accepted invalid UTF-8");
        let (_, token) = text
            .trim()
            .split_once(' ')
            .expect("accepted a header without a scheme");
        check_accepted(token.trim_start(), &caller);
    }
    let bearer = [b"Bearer ".as_slice(), data].concat();
    if let Ok(caller) = runtime.block_on(verifier.verify_header(Some(&bearer))) {
        let text = std::str::from_utf8(data).expect("accepted invalid UTF-8");
        check_accepted(text.trim_start(), &caller);
    }
});
