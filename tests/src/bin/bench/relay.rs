//! The relay scenario: creates at c=32 through a process that also relays to a private
//! nats-server, with the outbox watched from the side. It reports the create rate, the
//! relay's sustained publish rate over the same span, the most events ever pending, and
//! the lag from an event's write to its marking (after JetStream's ack).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant};

use diesel::QueryableByName;
use diesel::sql_types::BigInt;
use diesel_async::{AsyncConnection, AsyncMysqlConnection, RunQueryDsl};
use serde::{Deserialize, Serialize};
use tests::{PrivateNats, Service, ServiceOptions, TestDb};

use crate::load;

/// The relay scenario's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RelayFigures {
    pub(crate) concurrency: usize,
    pub(crate) creates: usize,
    /// Answers other than 201, or none: each fails the run.
    pub(crate) errors: usize,
    pub(crate) creates_per_s: f64,
    /// Events of the phase published, divided by the time from the phase's start to the
    /// last of them marked published.
    pub(crate) published_per_s: f64,
    pub(crate) max_pending: i64,
    pub(crate) lag_p50_ms: f64,
    pub(crate) lag_p99_ms: f64,
}

/// The events not yet published.
const PENDING: &str = "SELECT CAST(COUNT(*) AS SIGNED) AS n FROM outbox WHERE published_at IS NULL";

#[derive(QueryableByName)]
struct N {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

async fn scalar(conn: &mut AsyncMysqlConnection, sql: &str) -> i64 {
    diesel::sql_query(sql)
        .get_result::<N>(conn)
        .await
        .expect(sql)
        .n
}

/// Runs the scenario for `duration` on a database of its own, so no row of the earlier
/// scenarios is in the outbox it drains (marking them published beforehand left
/// thousands of delete-marked index entries for the claim to walk past until InnoDB's
/// purge caught up, which measured the purge, not the relay). The server runs from
/// `options` with that database.
pub(crate) async fn run(options: &ServiceOptions, duration: Duration) -> RelayFigures {
    let db = TestDb::create().await;
    let mut conn = AsyncMysqlConnection::establish(db.url())
        .await
        .expect("connect");
    let nats = PrivateNats::start();
    let mut options = options.clone();
    options.database_url = db.url().to_owned();
    options.env.push(("NATS_URL".into(), nats.url()));
    let service = Service::start(&options);
    let bearer = tests::token(1, 1, tests::ALL_PERMISSIONS);

    let most = Arc::new(AtomicI64::new(0));
    let running = Arc::new(AtomicBool::new(true));
    let watcher = {
        let (most, running, url) = (Arc::clone(&most), Arc::clone(&running), db.url().to_owned());
        tokio::spawn(async move {
            let mut conn = AsyncMysqlConnection::establish(&url)
                .await
                .expect("connect");
            while AtomicBool::load(&running, Ordering::Relaxed) {
                let pending = scalar(&mut conn, PENDING).await;
                most.fetch_max(pending, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        })
    };
    let started = Instant::now();
    let run = load::for_duration(
        service.base_url(),
        &bearer,
        32,
        duration,
        Arc::new(|w, i| load::Request::create(format!("relay-{w}-{i}"))),
    )
    .await;
    let creates = run.samples.iter().filter(|s| s.status == 201).count();
    let drain_deadline = Instant::now() + Duration::from_secs(120);
    while scalar(&mut conn, PENDING).await > 0 {
        assert!(Instant::now() < drain_deadline, "the relay never caught up");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let drained = started.elapsed();
    running.store(false, Ordering::Relaxed);
    let _ = watcher.await;

    let events = scalar(
        &mut conn,
        "SELECT CAST(COUNT(*) AS SIGNED) AS n FROM outbox",
    )
    .await;
    let lags: Vec<N> = diesel::sql_query(
        "SELECT CAST(TIMESTAMPDIFF(MICROSECOND, created_at, published_at) AS SIGNED) AS n \
         FROM outbox ORDER BY n",
    )
    .load(&mut conn)
    .await
    .expect("lags");
    let lag_ms = |q: f64| {
        let index = ((lags.len() as f64 - 1.0) * q).round() as usize;
        lags.get(index).map_or(0.0, |l| l.n as f64 / 1000.0)
    };
    drop(service);
    drop(conn);
    db.drop_database().await;
    RelayFigures {
        concurrency: 32,
        creates,
        errors: run.samples.len() - creates,
        creates_per_s: creates as f64 / run.elapsed.as_secs_f64(),
        published_per_s: events as f64 / drained.as_secs_f64(),
        max_pending: AtomicI64::load(&most, Ordering::Relaxed),
        lag_p50_ms: lag_ms(0.5),
        lag_p99_ms: lag_ms(0.99),
    }
}
