//! The optional Galera run (`GALERA_URLS` set; `BENCH_GALERA=1 scripts/bench` starts a
//! private 3-node cluster): three server processes, one per node (each given every node,
//! its own first), c=32 spread over them. Creates/s, replays/s, their p99, and the
//! transactions rerun after a 1213 per 1 000 creates, with the batches' size and those
//! rolled back at their commit (a certification failure) and run again member by member.
//! No target: on a 2-core machine that
//! also hosts the three nodes these figures are for comparison with the single-node ones
//! of the same run.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tests::{ALL_PERMISSIONS, Api, GaleraCluster, Service, ServiceOptions, token};

use crate::load::{self, Request};

/// The Galera run's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct GaleraFigures {
    pub(crate) concurrency: usize,
    pub(crate) creates: usize,
    pub(crate) creates_per_s: f64,
    pub(crate) create_p99_ms: f64,
    /// Answers other than 201, or none: each fails the run.
    pub(crate) create_errors: usize,
    pub(crate) replays_per_s: f64,
    /// Replays answered other than 201 (or not at all): each fails the run.
    pub(crate) replay_errors: usize,
    pub(crate) replay_p99_ms: f64,
    pub(crate) retries_per_1000_creates: f64,
    /// Requests per batch of two or more, over the three processes.
    #[serde(default)]
    pub(crate) mean_batch_size: f64,
    /// Batches whose commit the cluster rolled back, run again member by member.
    #[serde(default)]
    pub(crate) batches_rerun_per_1000_creates: f64,
}

/// Runs creates then replays for `duration` each.
pub(crate) async fn run(duration: Duration) -> GaleraFigures {
    let cluster = GaleraCluster::from_env();
    let db = cluster.database().await;
    let services: Vec<Service> = (1..=3)
        .map(|n| {
            let mut options = ServiceOptions::new(&cluster.url_list_on(n, &db));
            options
                .env
                .push(("DATABASE_MAX_CONNECTIONS".into(), "12".into()));
            Service::start(&options)
        })
        .collect();
    let urls: Vec<String> = services.iter().map(|s| s.base_url().to_owned()).collect();
    let bearer = token(1, 1, ALL_PERMISSIONS);

    let creates = load::for_duration_over(
        &urls,
        &bearer,
        32,
        duration,
        Arc::new(|w, i| Request::create(format!("galera-{w}-{i}"))),
    )
    .await;
    let created = creates.samples.iter().filter(|s| s.status == 201).count();
    let retries: f64 = urls
        .iter()
        .map(|u| Api::new(u).metric("idempotent_transaction_retries_total"))
        .sum();
    // Not `sum()`: over no series at all it gives -0.0, printed as "-0.0".
    let summed = |name: &str, labels: &str| -> f64 {
        urls.iter()
            .filter_map(|u| Api::new(u).labelled_metric(name, labels))
            .fold(0.0, |sum, value| sum + value)
    };
    const CREATES: &str = r#"operation="orders.create.v1""#;
    let batches = summed("batch_size_count", CREATES);
    let batched_members = summed("batch_size_sum", CREATES);
    let batches_rerun = summed(
        "batch_reruns_total",
        r#"operation="orders.create.v1",cause="rolled_back_at_commit""#,
    );

    // Each worker replays the first eight keys it created, round and round.
    let replays = load::for_duration_over(
        &urls,
        &bearer,
        32,
        duration,
        Arc::new(|w, i| Request::create(format!("galera-{w}-{}", i % 8))),
    )
    .await;
    drop(services);
    db.drop_database().await;
    GaleraFigures {
        concurrency: 32,
        creates: created,
        creates_per_s: creates.rps(),
        create_p99_ms: creates.latency_ms(0.99),
        create_errors: creates.samples.len() - created,
        replays_per_s: replays.rps(),
        replay_errors: replays.samples.iter().filter(|s| s.status != 201).count(),
        replay_p99_ms: replays.latency_ms(0.99),
        retries_per_1000_creates: per_1000(retries, created),
        mean_batch_size: if batches > 0.0 {
            batched_members / batches
        } else {
            0.0
        },
        batches_rerun_per_1000_creates: per_1000(batches_rerun, created),
    }
}

fn per_1000(count: f64, creates: usize) -> f64 {
    if creates > 0 {
        count * 1000.0 / creates as f64
    } else {
        0.0
    }
}
