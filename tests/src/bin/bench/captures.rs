//! Captures end to end: accepted through the service at c=32, charged at the provider
//! stand-in by the same process's workers, completed, and their events published by its
//! relay to a private nats-server, on a database of its own. Its figures are captures
//! completed per second from the phase's start to the last event published, and what
//! the whole of that cost the database per completed capture.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tests::{Api, PrivateNats, ProviderStandIn, Service, ServiceOptions, TestDb};

use crate::ceiling;
use crate::cost::{Client, Cost};
use crate::load::{self, Request};
use crate::scenarios::Bench;
use crate::seed;

const CONCURRENCY: usize = 32;
/// Orders seeded: more than the phase can accept.
const ORDERS: u64 = 60_000;
/// Worker tasks in the process: what bounds the completions.
pub(crate) const WORKERS: usize = 8;
/// How often the drain is checked; each check is one statement, taken off the figure.
const POLL: Duration = Duration::from_millis(100);
/// Operations not yet ended plus events not yet published: zero once drained.
const UNFINISHED: &str = "SELECT CAST((SELECT COUNT(*) FROM operations WHERE state = 'PENDING') \
     + (SELECT COUNT(*) FROM outbox WHERE published_at IS NULL) AS SIGNED) AS n";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CaptureFigures {
    pub(crate) concurrency: usize,
    pub(crate) workers: usize,
    pub(crate) accepted: usize,
    /// Answers other than 202, and accepted captures that did not succeed: each fails the
    /// run.
    pub(crate) errors: usize,
    pub(crate) accepted_per_s: f64,
    /// Succeeded captures over the time from the phase's start to the last event
    /// published.
    pub(crate) completed_per_s: f64,
    /// Claims the workers made per completed capture: won (one per attempt) and lost (to
    /// another worker task that read the same due operation).
    #[serde(default)]
    pub(crate) claims_won: f64,
    #[serde(default)]
    pub(crate) claims_lost: f64,
    /// Over that whole span (acceptance, claims, calls, ends, relaying), per completed
    /// capture; the client CPU is the service process's.
    pub(crate) cost: Cost,
}

pub(crate) fn run(bench: &Bench, options: &ServiceOptions) -> CaptureFigures {
    bench.runtime.block_on(async {
        let db = TestDb::create().await;
        let pool = ceiling::pool(db.url(), 2);
        let orders = Arc::new(seed::active_orders_published(&pool, "e2e-", ORDERS).await);
        drop(pool);
        let nats = PrivateNats::start();
        let provider = ProviderStandIn::start();
        let mut options = options.clone();
        options.database_url = db.url().to_owned();
        options.log_file = options
            .log_file
            .as_ref()
            .map(|log| log.with_file_name("captures-server.log"));
        let workers = WORKERS.to_string();
        options.env.extend(
            [
                ("NATS_URL", nats.url().as_str()),
                ("PAYMENT_PROVIDER_URL", provider.url()),
                ("WORKER_CONCURRENCY", workers.as_str()),
            ]
            .map(|(k, v)| (k.to_owned(), v.to_owned())),
        );
        let service = Service::start(&options);
        let started = Instant::now();
        let phase = async {
            let run = load::for_duration(
                service.base_url(),
                &bench.bearer,
                CONCURRENCY,
                bench.duration,
                Arc::new(move |w, i| {
                    Request::capture(orders[(i * CONCURRENCY + w) % orders.len()])
                }),
            )
            .await;
            let mut polls = 0_u64;
            let deadline = Instant::now() + Duration::from_secs(300);
            while db.count(UNFINISHED).await > 0 {
                polls += 1;
                assert!(Instant::now() < deadline, "the captures never drained");
                tokio::time::sleep(POLL).await;
            }
            let drained = started.elapsed();
            let succeeded = db
                .count("SELECT COUNT(*) AS n FROM operations WHERE state = 'SUCCEEDED'")
                .await;
            (
                run,
                drained,
                usize::try_from(succeeded).unwrap_or(0),
                polls + 2,
            )
        };
        let ((run, drained, succeeded, statements), mut cost) = bench
            .meter
            .measure(Client::Service(service.pid()), phase, |(_, _, n, _)| {
                *n as u64
            })
            .await;
        cost.db_commands -= statements as f64 / succeeded.max(1) as f64;
        let accepted = run.samples.iter().filter(|s| s.status == 202).count();
        let claims = |result: &str| {
            Api::new(service.base_url())
                .labelled_metric("operation_claims_total", &format!(r#"result="{result}""#))
                .unwrap_or(0.0)
                / succeeded.max(1) as f64
        };
        let (claims_won, claims_lost) = (claims("won"), claims("lost"));
        drop(service);
        drop((provider, nats));
        db.drop_database().await;
        CaptureFigures {
            concurrency: CONCURRENCY,
            workers: WORKERS,
            accepted,
            errors: (run.samples.len() - accepted) + accepted.abs_diff(succeeded),
            accepted_per_s: run.rps(),
            completed_per_s: succeeded as f64 / drained.as_secs_f64(),
            claims_won,
            claims_lost,
            cost,
        }
    })
}
