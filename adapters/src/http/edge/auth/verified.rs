//! Tokens already verified, remembered by their exact text: a client sends the same token
//! on every request, and checking its signature again each time (RS256 costs about
//! 100 µs) would decide nothing new (`docs/http-api.md#verified-tokens`). A remembered
//! token serves only within its `nbf`/`exp` window, with the same leeway as the first
//! check, and only while the key set that verified it is the one in use. Tokens that
//! fail are never remembered.

use std::sync::{Arc, LazyLock, Weak};

use application::Caller;
use prometheus_client::metrics::counter::Counter;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

use super::jwks::key_set::KeySet;

/// Tokens remembered at most, and the bytes they and their callers may take.
const MAX_TOKENS: usize = 10_000;
const MAX_BYTES: u64 = 8 * 1024 * 1024;
/// An entry's weight beside its token's bytes: the caller and the bookkeeping.
const ENTRY_OVERHEAD: u64 = 256;

/// Requests served from a remembered token, process-wide
/// (`auth_verified_token_hits_total`): what the signature checks saved.
static HITS: LazyLock<Counter> = LazyLock::new(Counter::default);

/// The same counter, for the registry.
pub(crate) fn verified_token_hits() -> Counter {
    HITS.clone()
}

/// Unix seconds in which a token verifies, leeway included: `nbf - leeway` to
/// `exp + leeway`, as `jsonwebtoken` decides them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Usable {
    pub(crate) from: u64,
    pub(crate) until: u64,
    /// `exp` itself, without the leeway: what a session may last to (the on-call page's
    /// cookie, `docs/admin.md#the-on-call-page`).
    pub(crate) expires: u64,
}

impl Usable {
    /// A window no time is in.
    pub(crate) const NEVER: Self = Self {
        from: 1,
        until: 0,
        expires: 0,
    };

    pub(crate) fn new(nbf: Option<i64>, exp: i64, leeway: u64) -> Self {
        let seconds = |t: i64| u64::try_from(t).unwrap_or(0);
        Self {
            from: nbf.map_or(0, |nbf| seconds(nbf).saturating_sub(leeway)),
            until: seconds(exp).saturating_add(leeway),
            expires: seconds(exp),
        }
    }

    fn contains(self, now: u64) -> bool {
        (self.from..=self.until).contains(&now)
    }
}

/// What one verification found.
#[derive(Debug, Clone)]
pub(crate) struct Verified {
    pub(crate) caller: Caller,
    pub(crate) usable: Usable,
    /// The identity provider's set that verified it; `None` for the shared secret, which
    /// never changes while the process runs. Weak, so a replaced set's address is never
    /// reused while an entry names it.
    pub(crate) keys: Option<Weak<KeySet>>,
}

#[derive(Debug, Clone, Copy)]
struct ByBytes;

impl Weighter<Box<str>, Arc<Verified>> for ByBytes {
    fn weight(&self, token: &Box<str>, _: &Arc<Verified>) -> u64 {
        u64::try_from(token.len()).unwrap_or(u64::MAX) + ENTRY_OVERHEAD
    }
}

/// Shared by every worker of a process.
pub(crate) struct VerifiedTokens {
    entries: Cache<Box<str>, Arc<Verified>, ByBytes>,
}

impl std::fmt::Debug for VerifiedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerifiedTokens")
            .field("entries", &self.entries.len())
            .finish_non_exhaustive()
    }
}

impl Default for VerifiedTokens {
    fn default() -> Self {
        Self {
            entries: Cache::with_weighter(MAX_TOKENS, MAX_BYTES, ByBytes),
        }
    }
}

impl VerifiedTokens {
    /// The caller of `token` if it was verified with `keys` (the set in use, `None` for the
    /// shared secret) and `now` is inside its window.
    #[cfg(test)]
    pub(crate) fn get(&self, token: &str, now: u64, keys: Option<&Arc<KeySet>>) -> Option<Caller> {
        self.get_usable(token, now, keys).map(|(caller, _)| caller)
    }

    /// As [`Self::get`], with the window the token was verified for.
    pub(crate) fn get_usable(
        &self,
        token: &str,
        now: u64,
        keys: Option<&Arc<KeySet>>,
    ) -> Option<(Caller, Usable)> {
        let found = self.entries.get(token)?;
        let same_keys = match (&found.keys, keys) {
            (None, None) => true,
            (Some(verified_with), Some(in_use)) => {
                Weak::ptr_eq(verified_with, &Arc::downgrade(in_use))
            }
            _ => false,
        };
        let served =
            (same_keys && found.usable.contains(now)).then(|| (found.caller.clone(), found.usable));
        if served.is_some() {
            HITS.inc();
        }
        served
    }

    pub(crate) fn remember(&self, token: &str, verified: Verified) {
        self.entries.insert(token.into(), Arc::new(verified));
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use domain::{ActorId, TenantId};

    use super::*;

    fn caller() -> Caller {
        Caller::new(
            TenantId::parse(7).unwrap(),
            ActorId::parse(42).unwrap(),
            "orders:create",
        )
    }

    fn verified(keys: Option<&Arc<KeySet>>) -> Verified {
        Verified {
            caller: caller(),
            usable: Usable::new(Some(1_000), 2_000, 30),
            keys: keys.map(Arc::downgrade),
        }
    }

    #[test]
    fn a_remembered_token_serves_only_inside_its_window_with_the_leeway() {
        let tokens = VerifiedTokens::default();
        tokens.remember("a.b.c", verified(None));

        for (now, served) in [(969, false), (970, true), (2_030, true), (2_031, false)] {
            assert_eq!(tokens.get("a.b.c", now, None).is_some(), served, "{now}");
        }
        assert_eq!(tokens.get("a.b.c", 1_500, None), Some(caller()));
        assert_eq!(tokens.get("a.b.d", 1_500, None), None, "another token");
    }

    #[test]
    fn a_token_verified_with_a_key_set_serves_only_while_that_set_is_in_use() {
        let first = Arc::new(KeySet::default());
        let next = Arc::new(KeySet::default());
        let tokens = VerifiedTokens::default();
        tokens.remember("a.b.c", verified(Some(&first)));

        assert!(tokens.get("a.b.c", 1_500, Some(&first)).is_some());
        assert!(tokens.get("a.b.c", 1_500, Some(&next)).is_none());
        assert!(tokens.get("a.b.c", 1_500, None).is_none());
    }

    #[test]
    fn each_token_served_from_memory_is_counted() {
        let tokens = VerifiedTokens::default();
        tokens.remember("a.b.c", verified(None));
        let before = verified_token_hits().get();
        assert!(tokens.get("a.b.c", 1_500, None).is_some());
        assert!(tokens.get("a.b.d", 1_500, None).is_none());
        // Process-wide: other tests in this process may count meanwhile.
        assert!(verified_token_hits().get() > before);
    }

    #[test]
    fn long_tokens_are_bounded_by_their_bytes_before_their_count() {
        // 8 MiB over 1 KiB tokens and their overhead: about 6 500 of them, not 10 000.
        let tokens = VerifiedTokens::default();
        for n in 0..MAX_TOKENS {
            tokens.remember(&format!("{n:01024}"), verified(None));
        }
        let kept = tokens.len();
        assert!((5_000..9_000).contains(&kept), "{kept} kept");
    }

    #[test]
    fn a_window_without_nbf_starts_at_once_and_times_before_1970_end_at_once() {
        assert_eq!(
            Usable::new(None, 100, 30),
            Usable {
                from: 0,
                until: 130,
                expires: 100
            }
        );
        assert_eq!(
            Usable::new(Some(-5), -5, 30),
            Usable {
                from: 0,
                until: 30,
                expires: 0
            }
        );
        assert!(!Usable::NEVER.contains(0) && !Usable::NEVER.contains(u64::MAX));
    }
}
