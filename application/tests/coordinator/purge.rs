//! The purge use case: bounded batches until a short batch or the budget.

use std::future::Future;
use std::sync::Mutex;

use application::ports::{RecordPurger, StoreError};
use application::{PurgeSettings, purge_expired};
use chrono::{DateTime, Utc};

use crate::support::{FixedClock, t0};

/// Deletes from a pretend backlog of expired records, recording each call.
struct Backlog {
    remaining: Mutex<u64>,
    calls: Mutex<Vec<(DateTime<Utc>, u32)>>,
}

impl RecordPurger for Backlog {
    fn purge_expired_batch(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send {
        self.calls.lock().unwrap().push((now, limit));
        let mut remaining = self.remaining.lock().unwrap();
        let deleted = (*remaining).min(u64::from(limit));
        *remaining -= deleted;
        std::future::ready(Ok(deleted))
    }
}

fn backlog(n: u64) -> Backlog {
    Backlog {
        remaining: Mutex::new(n),
        calls: Mutex::new(Vec::new()),
    }
}

#[tokio::test]
async fn purge_deletes_in_batches_until_a_short_batch() {
    let purger = backlog(25);
    let settings = PurgeSettings {
        batch_size: 10,
        max_batches: 100,
    };

    let deleted = purge_expired(&purger, &FixedClock(t0()), settings)
        .await
        .unwrap();

    assert_eq!(deleted, 25);
    let calls = purger.calls.lock().unwrap();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|&(now, limit)| now == t0() && limit == 10));
}

#[tokio::test]
async fn purge_stops_at_the_batch_budget() {
    let purger = backlog(1_000);
    let settings = PurgeSettings {
        batch_size: 10,
        max_batches: 4,
    };

    let deleted = purge_expired(&purger, &FixedClock(t0()), settings)
        .await
        .unwrap();

    assert_eq!(deleted, 40);
    assert_eq!(*purger.remaining.lock().unwrap(), 960);
}
