//! Completed records kept in memory, so a retry of a finished request reads nothing
//! (`docs/storage.md#the-replay-cache`).
//!
//! Only what the database would answer is kept: a COMPLETED record never changes until it
//! expires or an operator evicts it, so a copy is as good as a read while it is young. The
//! coordinator still compares the fingerprint and asks for the caller's permission on every
//! hit, exactly as after a read.

use std::hash::{Hash, Hasher};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::{DateTime, Utc};
use domain::{ExistingRecord, IdempotencyKey, RecordState, Scope};
use quick_cache::{Equivalent, Weighter};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayCacheSettings {
    /// The longest a copy serves, on the monotonic clock: how late an eviction by another
    /// process is seen.
    pub ttl: Duration,
    pub max_entries: usize,
    /// Keys and response bodies together, estimated.
    pub max_bytes: usize,
}

impl Default for ReplayCacheSettings {
    fn default() -> Self {
        Self {
            ttl: Duration::from_secs(2),
            max_entries: 10_000,
            max_bytes: 16 * 1024 * 1024,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct CacheKey {
    scope: Scope,
    key: IdempotencyKey,
}

/// The lookup form of [`CacheKey`]: a hit costs no allocation.
struct Lookup<'a> {
    scope: &'a Scope,
    key: &'a IdempotencyKey,
}

impl Hash for Lookup<'_> {
    // Must hash exactly as the derived `Hash` of `CacheKey` does.
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.scope.hash(state);
        self.key.hash(state);
    }
}

impl Equivalent<CacheKey> for Lookup<'_> {
    fn equivalent(&self, stored: &CacheKey) -> bool {
        *self.scope == stored.scope && *self.key == stored.key
    }
}

#[derive(Debug)]
struct Entry {
    record: ExistingRecord,
    /// The record's own expiry, a date the database keeps: on the wall clock.
    expires_at: DateTime<Utc>,
    /// The end of the time to live, on the clock's monotonic reading: a step of the wall
    /// clock (back, or forward) neither stretches nor cuts how late another process's
    /// eviction is seen.
    fresh_until: Duration,
    weight: u64,
}

/// A hit: the entry itself, which the cache may drop meanwhile without harm.
pub(crate) struct Cached(Arc<Entry>);

impl Cached {
    pub(crate) fn record(&self) -> &ExistingRecord {
        &self.0.record
    }
}

/// Each entry weighs at least `max_bytes / max_entries`, so one weight budget bounds both
/// the bytes and the number of entries.
#[derive(Debug, Clone, Copy)]
struct ByBytes {
    least: u64,
}

impl Weighter<CacheKey, Arc<Entry>> for ByBytes {
    fn weight(&self, _key: &CacheKey, entry: &Arc<Entry>) -> u64 {
        entry.weight.max(self.least)
    }
}

/// Shared by every worker of a process; cloning an `Arc` of it shares the entries.
pub struct ReplayCache {
    entries: quick_cache::sync::Cache<CacheKey, Arc<Entry>, ByBytes>,
    ttl: Duration,
    hits: Arc<AtomicU64>,
}

impl std::fmt::Debug for ReplayCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReplayCache")
            .field("entries", &self.entries.len())
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl ReplayCache {
    /// `None` when the time to live, the entries or the bytes are zero: the cache is off.
    #[must_use]
    pub fn new(settings: ReplayCacheSettings) -> Option<Self> {
        let ttl = settings.ttl;
        if ttl.is_zero() || settings.max_entries == 0 || settings.max_bytes == 0 {
            return None;
        }
        let budget = u64::try_from(settings.max_bytes).unwrap_or(u64::MAX);
        let entries = u64::try_from(settings.max_entries).unwrap_or(u64::MAX);
        let least = (budget / entries).max(1);
        Some(Self {
            entries: quick_cache::sync::Cache::with_weighter(
                settings.max_entries,
                budget,
                ByBytes { least },
            ),
            ttl,
            hits: Arc::default(),
        })
    }

    /// Counts the answers served from a copy (a metric's value).
    #[must_use]
    pub fn with_hit_counter(mut self, hits: Arc<AtomicU64>) -> Self {
        self.hits = hits;
        self
    }

    /// A copy still valid at `now` (and at the clock's `monotonic` reading), shared rather
    /// than copied; an outdated one is dropped on the way.
    pub(crate) fn get(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
        now: DateTime<Utc>,
        monotonic: Duration,
    ) -> Option<Cached> {
        let lookup = Lookup { scope, key };
        let entry = self.entries.get(&lookup)?;
        if now < entry.expires_at && monotonic < entry.fresh_until {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Some(Cached(entry));
        }
        self.entries.remove(&lookup);
        None
    }

    /// Keeps `record` if it is COMPLETED and not yet expired at `now`; anything else is
    /// ignored, as it may still change.
    pub(crate) fn remember(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
        record: &ExistingRecord,
        now: DateTime<Utc>,
        monotonic: Duration,
    ) {
        let RecordState::Completed(completion) = &record.state else {
            return;
        };
        // A time to live past what the clock can count keeps nothing rather than panicking.
        let Some(fresh_until) = monotonic.checked_add(self.ttl) else {
            return;
        };
        if completion.expires_at <= now {
            return;
        }
        let response = &completion.response;
        let bytes = key.as_str().len()
            + response.body().len()
            + response.content_type().len()
            + response.location().map_or(0, str::len)
            + std::mem::size_of::<Entry>();
        let entry = Entry {
            record: record.clone(),
            expires_at: completion.expires_at,
            fresh_until,
            weight: u64::try_from(bytes).unwrap_or(u64::MAX),
        };
        self.entries.insert(
            CacheKey {
                scope: scope.clone(),
                key: key.clone(),
            },
            Arc::new(entry),
        );
    }

    /// An operator's eviction: this process answers from the database at once.
    pub fn forget(&self, scope: &Scope, key: &IdempotencyKey) {
        self.entries.remove(&Lookup { scope, key });
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests;
