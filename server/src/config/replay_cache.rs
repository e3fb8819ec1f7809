//! The replay cache's bounds (`docs/storage.md#the-replay-cache`).

use std::time::Duration;

use application::ReplayCacheSettings;

use crate::config::{ConfigError, Lookup, integer};

/// `REPLAY_CACHE_TTL_SECS` (default 2, `0` turns the cache off), `REPLAY_CACHE_ENTRIES`
/// (10 000) and `REPLAY_CACHE_BYTES` (16 MiB).
pub(crate) fn replay_cache(lookup: Lookup<'_>) -> Result<ReplayCacheSettings, ConfigError> {
    let defaults = ReplayCacheSettings::default();
    let ttl = integer(
        lookup,
        "REPLAY_CACHE_TTL_SECS",
        0..=3600,
        defaults.ttl.as_secs(),
    )?;
    let entries = integer(lookup, "REPLAY_CACHE_ENTRIES", 1..=10_000_000, 10_000)?;
    let bytes = integer(lookup, "REPLAY_CACHE_BYTES", 1..=1 << 40, 16 * 1024 * 1024)?;
    Ok(ReplayCacheSettings {
        ttl: Duration::from_secs(ttl),
        max_entries: usize::try_from(entries).unwrap_or(defaults.max_entries),
        max_bytes: usize::try_from(bytes).unwrap_or(defaults.max_bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_vars;

    #[test]
    fn the_defaults_are_the_documented_ones_and_zero_turns_it_off() {
        assert_eq!(
            parse_vars(&[], replay_cache).unwrap(),
            ReplayCacheSettings::default()
        );
        let off = parse_vars(&[("REPLAY_CACHE_TTL_SECS", "0")], replay_cache).unwrap();
        assert!(application::ReplayCache::new(off).is_none());
    }

    #[test]
    fn a_bad_bound_names_its_variable() {
        for (variable, value) in [
            ("REPLAY_CACHE_TTL_SECS", "3601"),
            ("REPLAY_CACHE_TTL_SECS", "two"),
            ("REPLAY_CACHE_ENTRIES", "0"),
            ("REPLAY_CACHE_BYTES", "0"),
        ] {
            let error = parse_vars(&[(variable, value)], replay_cache).unwrap_err();
            assert_eq!(error.variable, variable);
        }
    }
}
