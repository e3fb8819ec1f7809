//! Purging expired records, and what a late retry meets afterwards.

use std::sync::Arc;

use adapters::SystemClock;
use application::ports::Clock;
use application::{CreateOrder, CreateRefusal, Outcome, PurgeSettings, purge_expired};
use chrono::{DateTime, TimeDelta, Utc};
use tests::{BatchLog, TestDb, caller, key, new_order};

struct TwoDaysAgo;

impl Clock for TwoDaysAgo {
    fn now(&self) -> DateTime<Utc> {
        SystemClock.now() - TimeDelta::days(2)
    }
}

#[tokio::test]
async fn purge_removes_only_expired_completed_records_in_batches() {
    let db = TestDb::create().await;
    let old = db.coordinator().with_clock(Arc::new(TwoDaysAgo));
    let fresh = db.coordinator();
    let who = caller(1, 1);
    for i in 0..5 {
        let outcome = old
            .run(
                &CreateOrder,
                &who,
                &key(&format!("old-{i}")),
                &new_order(&format!("OLD-{i}"), 1),
            )
            .await;
        assert!(matches!(outcome, Outcome::Executed { .. }), "{outcome:?}");
    }
    let kept = fresh
        .run(&CreateOrder, &who, &key("fresh"), &new_order("FRESH", 1))
        .await;
    assert!(matches!(kept, Outcome::Executed { .. }), "{kept:?}");
    // A PROCESSING row, even one carrying a past expiry, is never purged.
    db.run_sql(
        "INSERT INTO api_idempotency (tenant_id, actor_id, operation, idempotency_key, \
         fingerprint_version, request_hash, state, created_at, expires_at) VALUES \
         (1, 1, 'orders.create.v1', 'stuck', 1, REPEAT('a', 32), 'PROCESSING', \
         '2000-01-01 00:00:00', '2000-01-02 00:00:00')",
    )
    .await;

    let settings = PurgeSettings {
        batch_size: 2,
        max_batches: 100,
    };
    let log = BatchLog::new(db.store());
    let deleted = purge_expired(&log, &SystemClock, settings).await.unwrap();

    assert_eq!(deleted, 5, "({})", db.context());
    assert_eq!(log.batches(), [2, 2, 1], "at most two rows per batch");
    assert_eq!(
        db.total_records().await,
        2,
        "the fresh and the processing record stay"
    );
    assert_eq!(db.records(&who, &key("stuck")).await[0].state, "PROCESSING");
    assert_eq!(db.total_orders().await, 6, "purge never touches orders");
    db.drop_database().await;
}

#[tokio::test]
async fn after_a_purge_the_same_key_and_body_meet_the_client_order_ref_conflict() {
    let db = TestDb::create().await;
    let old = db.coordinator().with_clock(Arc::new(TwoDaysAgo));
    let (who, k, order) = (caller(1, 1), key("late"), new_order("REF-LATE", 2));
    let first = old.run(&CreateOrder, &who, &k, &order).await;
    assert!(matches!(first, Outcome::Executed { .. }), "{first:?}");
    let deleted = purge_expired(db.store(), &SystemClock, PurgeSettings::default())
        .await
        .unwrap();
    assert_eq!(deleted, 1);

    let late = db.coordinator().run(&CreateOrder, &who, &k, &order).await;

    assert_eq!(
        late,
        Outcome::Rejected(CreateRefusal::ClientOrderRefConflict)
    );
    assert_eq!(
        db.order_ids(1, "REF-LATE").await.len(),
        1,
        "no second order, ever"
    );
    assert!(
        db.records(&who, &k).await.is_empty(),
        "the refused retry stored nothing"
    );
    db.drop_database().await;
}
