//! The purge use case: bounded batches until a short batch or the budget.

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use application::ports::{Clock, RecordPurger, StoreError};
use application::{PurgeSettings, purge_expired};
use chrono::{DateTime, Utc};

use crate::support::{FixedClock, t0};

/// Deletes from a pretend backlog of expired records, recording each call; the first
/// `deadlocks` calls are rolled back as deadlock victims instead.
struct Backlog {
    remaining: Mutex<u64>,
    calls: Mutex<Vec<(DateTime<Utc>, u32)>>,
    deadlocks: Mutex<u32>,
}

impl RecordPurger for Backlog {
    fn purge_expired_batch(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send {
        self.calls.lock().unwrap().push((now, limit));
        let mut deadlocks = self.deadlocks.lock().unwrap();
        if *deadlocks > 0 {
            *deadlocks -= 1;
            return std::future::ready(Err(StoreError::Deadlock));
        }
        let mut remaining = self.remaining.lock().unwrap();
        let deleted = (*remaining).min(u64::from(limit));
        *remaining -= deleted;
        std::future::ready(Ok(deleted))
    }
}

/// Purges `purger` in batches of 10, at most `max_batches`.
async fn purge(purger: &Backlog, max_batches: u32) -> Result<u64, StoreError> {
    let settings = PurgeSettings {
        batch_size: 10,
        max_batches,
    };
    purge_expired(purger, &FixedClock(t0()), settings).await
}

fn backlog(n: u64) -> Backlog {
    Backlog {
        remaining: Mutex::new(n),
        calls: Mutex::new(Vec::new()),
        deadlocks: Mutex::new(0),
    }
}

#[tokio::test]
async fn purge_deletes_in_batches_until_a_short_batch() {
    let purger = backlog(25);
    let deleted = purge(&purger, 100).await.unwrap();

    assert_eq!(deleted, 25);
    let calls = purger.calls.lock().unwrap();
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|&(now, limit)| now == t0() && limit == 10));
}

#[tokio::test]
async fn purge_stops_at_the_batch_budget() {
    let purger = backlog(1_000);
    let deleted = purge(&purger, 4).await.unwrap();

    assert_eq!(deleted, 40);
    assert_eq!(*purger.remaining.lock().unwrap(), 960);
}

#[tokio::test]
async fn a_batch_rolled_back_as_a_deadlock_victim_is_run_again_after_a_growing_pause() {
    let purger = backlog(25);
    *purger.deadlocks.lock().unwrap() = 2;
    let clock = PauseLog(Mutex::new(Vec::new()));
    let settings = PurgeSettings {
        batch_size: 10,
        max_batches: 100,
    };
    let deleted = purge_expired(&purger, &clock, settings).await.unwrap();

    assert_eq!(deleted, 25, "nothing lost to the two deadlocks");
    assert_eq!(purger.calls.lock().unwrap().len(), 5);
    assert_eq!(
        *clock.0.lock().unwrap(),
        [Duration::from_millis(5), Duration::from_millis(10)],
        "a short pause before each rerun, longer each time"
    );
}

/// A clock at `t0` that records the pauses asked of it and makes none.
struct PauseLog(Mutex<Vec<Duration>>);

impl Clock for PauseLog {
    fn now(&self) -> DateTime<Utc> {
        t0()
    }

    fn pause(&self, duration: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.0.lock().unwrap().push(duration);
        Box::pin(std::future::ready(()))
    }
}

#[tokio::test]
async fn deadlocks_on_every_batch_end_within_the_budget_with_the_error() {
    let purger = backlog(25);
    *purger.deadlocks.lock().unwrap() = 1_000;
    let result = purge(&purger, 4).await;

    assert!(matches!(result, Err(StoreError::Deadlock)), "{result:?}");
    assert_eq!(purger.calls.lock().unwrap().len(), 4);
}
