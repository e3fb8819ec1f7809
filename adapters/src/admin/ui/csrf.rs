//! CSRF tokens without server state: the HMAC of the session's bearer token under a key
//! of the process. A page from another site cannot read one (the cookie is `HttpOnly`, the
//! pages are same-origin only), so a form it forges cannot carry one.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use sha2_hmac::Sha256;

/// What binds a token to its use here, so a MAC of the token for anything else is no CSRF
/// token.
const PURPOSE: &[u8] = b"admin-ui csrf v1\0";

/// The key CSRF tokens are made with: drawn at random when the process starts, so forms
/// drawn by an earlier process (or another instance) are refused once and drawn again.
#[derive(Clone)]
pub struct CsrfKey {
    mac: Hmac<Sha256>,
}

impl std::fmt::Debug for CsrfKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CsrfKey(hidden)")
    }
}

impl CsrfKey {
    /// 64 bytes from four version-4 UUIDs (488 random bits from the thread's CSPRNG).
    #[must_use]
    pub fn random() -> Self {
        let mut key = [0_u8; 64];
        for chunk in key.chunks_mut(16) {
            chunk.copy_from_slice(uuid::Uuid::new_v4().as_bytes());
        }
        Self::from_bytes(key)
    }

    fn from_bytes(key: [u8; 64]) -> Self {
        Self {
            mac: Hmac::<Sha256>::new(&key.into()),
        }
    }

    fn mac_of(&self, session_token: &str) -> Hmac<Sha256> {
        let mut mac = self.mac.clone();
        mac.update(PURPOSE);
        mac.update(session_token.as_bytes());
        mac
    }

    /// The hidden field every changing form of this session carries.
    pub(super) fn token(&self, session_token: &str) -> String {
        URL_SAFE_NO_PAD.encode(self.mac_of(session_token).finalize().into_bytes())
    }

    /// Whether `presented` is this session's token (compared in constant time).
    pub(super) fn verifies(&self, session_token: &str, presented: &str) -> bool {
        URL_SAFE_NO_PAD
            .decode(presented)
            .is_ok_and(|bytes| self.mac_of(session_token).verify_slice(&bytes).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_verifies_only_for_its_session_and_its_key() {
        let key = CsrfKey::from_bytes([7; 64]);
        let token = key.token("a.b.c");
        assert!(key.verifies("a.b.c", &token));
        assert!(!key.verifies("a.b.d", &token));
        assert!(!key.verifies("a.b.c", ""));
        assert!(!key.verifies("a.b.c", "not base64!"));
        assert!(!CsrfKey::from_bytes([8; 64]).verifies("a.b.c", &token));
        assert!(!CsrfKey::random().verifies("a.b.c", &token));
    }
}
