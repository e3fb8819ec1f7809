//! A JWKS document read into the keys tokens may be verified with: each key by its `kid`,
//! with the algorithms it may verify. A key this service must not use is left out: one for
//! encryption, one whose `alg` is not RS256, PS256, ES256 or EdDSA, an RSA key under 2048
//! bits, a key without `kid`.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

/// The algorithms a token verified with a key set may use: never HS256 (the public key
/// would be the secret) and never `none`.
pub(crate) const ACCEPTED: [Algorithm; 4] = [
    Algorithm::RS256,
    Algorithm::PS256,
    Algorithm::ES256,
    Algorithm::EdDSA,
];

pub(crate) const MIN_RSA_BITS: usize = 2048;

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum KeySetError {
    #[error("the key set is not a JSON object with a keys array")]
    NotAKeySet,
    /// Replacing a good set with an empty one would refuse every token.
    #[error("the key set holds no key this service can verify with")]
    NoUsableKey,
}

#[derive(Deserialize)]
struct Document {
    keys: Vec<serde_json::Value>,
}

/// The usable keys, by `kid`.
#[derive(Clone, Default)]
pub(crate) struct KeySet {
    keys: HashMap<String, Vec<(Algorithm, DecodingKey)>>,
}

impl std::fmt::Debug for KeySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeySet")
            .field("kids", &self.keys.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl KeySet {
    /// # Errors
    /// [`KeySetError`] for a document that is not a key set or holds no usable key.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, KeySetError> {
        let document: Document =
            serde_json::from_slice(bytes).map_err(|_| KeySetError::NotAKeySet)?;
        let mut keys: HashMap<String, Vec<(Algorithm, DecodingKey)>> = HashMap::new();
        for value in document.keys {
            // A key of a kind this version cannot read is skipped, not fatal: providers
            // publish encryption keys and new key types beside their signing keys.
            let Ok(jwk) = serde_json::from_value::<Jwk>(value) else {
                continue;
            };
            let Some(kid) = jwk.common.key_id.clone() else {
                continue;
            };
            if !usable_for_signatures(&jwk) || rsa_too_short(&jwk) {
                continue;
            }
            let Ok(key) = DecodingKey::from_jwk(&jwk) else {
                continue;
            };
            for algorithm in algorithms(&jwk) {
                keys.entry(kid.clone())
                    .or_default()
                    .push((algorithm, key.clone()));
            }
        }
        if keys.is_empty() {
            return Err(KeySetError::NoUsableKey);
        }
        Ok(Self { keys })
    }

    pub(crate) fn knows(&self, kid: &str) -> bool {
        self.keys.contains_key(kid)
    }

    /// The key `kid` if it may verify `algorithm`.
    pub(crate) fn find(&self, kid: &str, algorithm: Algorithm) -> Option<&DecodingKey> {
        self.keys
            .get(kid)?
            .iter()
            .find(|(allowed, _)| *allowed == algorithm)
            .map(|(_, key)| key)
    }
}

fn usable_for_signatures(jwk: &Jwk) -> bool {
    let use_ok = matches!(
        jwk.common.public_key_use,
        None | Some(PublicKeyUse::Signature)
    );
    let ops_ok = jwk
        .common
        .key_operations
        .as_ref()
        .is_none_or(|ops| ops.iter().any(|op| matches!(op, KeyOperations::Verify)));
    use_ok && ops_ok
}

fn rsa_too_short(jwk: &Jwk) -> bool {
    let AlgorithmParameters::RSA(rsa) = &jwk.algorithm else {
        return false;
    };
    let Ok(modulus) = URL_SAFE_NO_PAD.decode(rsa.n.trim_end_matches('=')) else {
        return true;
    };
    let significant: Vec<u8> = modulus.into_iter().skip_while(|b| *b == 0).collect();
    let bits = significant.first().map_or(0, |first| {
        significant.len() * 8 - first.leading_zeros() as usize
    });
    bits < MIN_RSA_BITS
}

/// What the key declares (`alg`), else what its type allows.
fn algorithms(jwk: &Jwk) -> Vec<Algorithm> {
    let by_type: &[Algorithm] = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => &[Algorithm::RS256, Algorithm::PS256],
        AlgorithmParameters::EllipticCurve(ec) if ec.curve == EllipticCurve::P256 => {
            &[Algorithm::ES256]
        }
        AlgorithmParameters::OctetKeyPair(okp) if okp.curve == EllipticCurve::Ed25519 => {
            &[Algorithm::EdDSA]
        }
        _ => &[],
    };
    match jwk.common.key_algorithm {
        None => by_type.to_vec(),
        Some(declared) => declared_algorithm(declared)
            .filter(|algorithm| by_type.contains(algorithm))
            .into_iter()
            .collect(),
    }
}

fn declared_algorithm(declared: KeyAlgorithm) -> Option<Algorithm> {
    match declared {
        KeyAlgorithm::RS256 => Some(Algorithm::RS256),
        KeyAlgorithm::PS256 => Some(Algorithm::PS256),
        KeyAlgorithm::ES256 => Some(Algorithm::ES256),
        KeyAlgorithm::EdDSA => Some(Algorithm::EdDSA),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    /// An RSA public key of `bits` (the modulus's top bit set), as a JWK.
    fn rsa(kid: &str, bits: usize, extra: Value) -> Value {
        let mut modulus = vec![0xAB_u8; bits / 8];
        modulus[0] = 0x80;
        let mut key =
            json!({"kty": "RSA", "kid": kid, "e": "AQAB", "n": URL_SAFE_NO_PAD.encode(modulus)});
        key.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        key
    }

    fn set(keys: &[Value]) -> Result<KeySet, KeySetError> {
        KeySet::parse(json!({ "keys": keys }).to_string().as_bytes())
    }

    #[test]
    fn a_key_verifies_what_its_alg_or_else_its_type_allows() {
        let okp = json!({"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": URL_SAFE_NO_PAD.encode([7_u8; 32])});
        let keys = set(&[
            rsa("any", 2048, json!({})),
            rsa("pss", 2048, json!({"alg": "PS256"})),
            okp,
        ])
        .unwrap();
        assert!(keys.find("any", Algorithm::RS256).is_some());
        assert!(keys.find("any", Algorithm::PS256).is_some());
        assert!(keys.find("pss", Algorithm::RS256).is_none());
        assert!(keys.find("pss", Algorithm::PS256).is_some());
        assert!(keys.find("ed", Algorithm::EdDSA).is_some());
        assert!(keys.find("ed", Algorithm::RS256).is_none());
        assert!(!keys.knows("other"));
    }

    #[test]
    fn short_rsa_keys_encryption_keys_hmac_keys_and_keys_without_kid_are_left_out() {
        let keys = set(&[
            rsa("good", 2048, json!({})),
            rsa("short", 2047, json!({})),
            rsa("enc", 2048, json!({"use": "enc"})),
            rsa("wrap", 2048, json!({"key_ops": ["encrypt"]})),
            rsa("hs", 2048, json!({"alg": "HS256"})),
            json!({"kty": "oct", "kid": "secret", "k": "c2VjcmV0"}),
            json!({"kty": "RSA", "e": "AQAB", "n": "AQAB"}),
            json!({"kty": "future", "kid": "new"}),
        ])
        .unwrap();
        assert!(keys.knows("good"));
        for kid in ["short", "enc", "wrap", "hs", "secret", "new"] {
            assert!(!keys.knows(kid), "{kid}");
        }
    }

    #[test]
    fn a_document_without_usable_keys_is_refused_rather_than_installed() {
        assert_eq!(
            set(&[rsa("short", 1024, json!({}))]).unwrap_err(),
            KeySetError::NoUsableKey
        );
        assert_eq!(KeySet::parse(b"[]").unwrap_err(), KeySetError::NotAKeySet);
        assert_eq!(
            KeySet::parse(b"{\"keys\":{}}").unwrap_err(),
            KeySetError::NotAKeySet
        );
    }
}
