//! The replay cache's bounds: time, expiry, entries and bytes.

#![allow(clippy::unwrap_used)]

use chrono::TimeDelta;

use super::*;
use domain::{
    ActorId, Completion, Fingerprint, FingerprintVersion, Operation, RecordId, RetentionPolicy,
    StoredResponse, TenantId,
};

fn scope() -> Scope {
    Scope {
        tenant: TenantId::parse(1).unwrap(),
        actor: ActorId::parse(2).unwrap(),
        operation: Operation::parse("orders.create.v1").unwrap(),
    }
}

fn key(n: usize) -> IdempotencyKey {
    IdempotencyKey::parse(&format!("key-{n}")).unwrap()
}

fn t0() -> DateTime<Utc> {
    DateTime::from_timestamp(1_800_000_000, 0).unwrap()
}

/// Completed at `t0`, kept `retention_secs`.
fn completed(retention_secs: u64, body: usize) -> ExistingRecord {
    let response =
        StoredResponse::new(201, "application/json".into(), None, vec![b' '; body]).unwrap();
    let policy = RetentionPolicy::from_secs(retention_secs).unwrap();
    ExistingRecord {
        id: RecordId(1),
        fingerprint: Fingerprint::from_parts(FingerprintVersion(1), [7; 32]),
        state: RecordState::Completed(Completion::new(response, t0(), policy).unwrap()),
    }
}

fn cache(ttl_secs: u64, max_entries: usize, max_bytes: usize) -> ReplayCache {
    ReplayCache::new(ReplayCacheSettings {
        ttl: Duration::from_secs(ttl_secs),
        max_entries,
        max_bytes,
    })
    .unwrap()
}

/// A monotonic reading `millis` after the start.
fn at(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

#[test]
fn a_copy_serves_until_its_time_to_live_or_its_record_s_expiry_whichever_is_first() {
    let cache = cache(2, 100, 1 << 20);
    let seconds = |s| t0() + TimeDelta::seconds(s);
    cache.remember(&scope(), &key(1), &completed(86_400, 10), t0(), at(0));
    cache.remember(&scope(), &key(2), &completed(1, 10), t0(), at(0));

    assert!(
        cache
            .get(&scope(), &key(1), seconds(1), at(1_000))
            .is_some()
    );
    assert!(cache.get(&scope(), &key(2), t0(), at(1_000)).is_some());
    assert!(
        cache
            .get(&scope(), &key(2), seconds(1), at(1_000))
            .is_none(),
        "expiry"
    );
    assert!(
        cache
            .get(&scope(), &key(1), seconds(2), at(2_000))
            .is_none(),
        "ttl"
    );
    assert!(cache.is_empty(), "an outdated copy is dropped when met");
}

#[test]
fn a_wall_clock_stepped_back_does_not_stretch_the_time_to_live() {
    let cache = cache(2, 100, 1 << 20);
    cache.remember(&scope(), &key(1), &completed(86_400, 10), t0(), at(0));
    // Two seconds pass, while the wall clock is set an hour back.
    let stepped_back = t0() - TimeDelta::hours(1);
    assert!(
        cache
            .get(&scope(), &key(1), stepped_back, at(2_000))
            .is_none()
    );
}

#[test]
fn an_expired_or_running_record_is_not_kept_and_a_forgotten_one_is_gone() {
    let cache = cache(2, 100, 1 << 20);
    let running = ExistingRecord {
        state: RecordState::Processing,
        ..completed(60, 10)
    };
    cache.remember(&scope(), &key(1), &running, t0(), at(0));
    cache.remember(
        &scope(),
        &key(2),
        &completed(1, 10),
        t0() + TimeDelta::seconds(1),
        at(0),
    );
    assert!(cache.is_empty());

    cache.remember(&scope(), &key(3), &completed(60, 10), t0(), at(0));
    cache.forget(&scope(), &key(3));
    assert!(cache.get(&scope(), &key(3), t0(), at(0)).is_none());
}

#[test]
fn entries_and_bytes_are_both_bounded() {
    let few = cache(2, 50, 1 << 20);
    for n in 0..500 {
        few.remember(&scope(), &key(n), &completed(60, 10), t0(), at(0));
    }
    // Full, near its bound (50 here), not empty: the bound, not an eviction of everything.
    assert!((40..=50).contains(&few.len()), "{} entries", few.len());

    let small = cache(2, 10_000, 64 * 1024);
    for n in 0..500 {
        small.remember(&scope(), &key(n), &completed(60, 4096), t0(), at(0));
    }
    assert!(
        small.len() <= 16,
        "{} bodies of 4 KiB in 64 KiB",
        small.len()
    );
    // Each copy weighs its body and headers: about half the bytes stay filled (8 here).
    assert!(small.len() >= 4, "{} bodies kept", small.len());
}

#[test]
fn zero_turns_it_off() {
    for (ttl, entries, bytes) in [(0, 10, 10), (1, 0, 10), (1, 10, 0)] {
        let settings = ReplayCacheSettings {
            ttl: Duration::from_secs(ttl),
            max_entries: entries,
            max_bytes: bytes,
        };
        assert!(ReplayCache::new(settings).is_none());
    }
}

/// A copy answers only its own scope and key: a tenant, an actor or an operation next to
/// the one that stored it, or a neighbouring key, finds nothing.
#[test]
fn a_copy_is_found_only_under_its_own_scope_and_key() {
    let cache = cache(60, 100, 1 << 20);
    let own = scope();
    cache.remember(&own, &key(1), &completed(86_400, 10), t0(), at(0));
    let neighbours = [
        Scope {
            tenant: TenantId::parse(2).unwrap(),
            ..own.clone()
        },
        Scope {
            actor: ActorId::parse(3).unwrap(),
            ..own.clone()
        },
        Scope {
            operation: Operation::parse("orders.cancel.v1").unwrap(),
            ..own.clone()
        },
    ];
    for neighbour in &neighbours {
        assert!(
            cache.get(neighbour, &key(1), t0(), at(0)).is_none(),
            "found under {neighbour:?}"
        );
    }
    assert!(
        cache.get(&own, &key(2), t0(), at(0)).is_none(),
        "another key"
    );
    assert!(cache.get(&own, &key(1), t0(), at(0)).is_some(), "its own");
}
