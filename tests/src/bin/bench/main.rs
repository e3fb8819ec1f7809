//! The benchmark: the real server (release build) over real HTTP on a real
//! MySQL-compatible database, each scenario set against the database's own ceiling for
//! the same SQL work, measured in the same run. Run it with `scripts/bench`.
//!
//! Environment: `TEST_DATABASE_URL` (the server, no database; `scripts/bench` sets it),
//! `SERVER_BIN` (the release binary), `BENCH_SECONDS` (per measured phase, default 5),
//! `BENCH_SCENARIOS` (a comma list to run only some, for profiling), `SCHEMATHESIS` (the
//! venv whose python mints the RS256 scenario's token; `scripts/bench` sets it), `BENCH_SERVER_LOG`
//! (the server's `RUST_LOG`, default `info` as in production), `BENCH_DB_PID` (the database
//! server's PID, for its CPU time; `scripts/bench` sets it for its private server),
//! `GALERA_URLS` (adds the Galera run; `BENCH_GALERA=1 scripts/bench` starts a cluster),
//! `BENCH_DATABASE=private` (the database server is the run's own: `scripts/bench` says so
//! when it started it), `SERVER_WITHOUT_OTEL_BIN` (the server built without its `otel`
//! feature, for the tracing scenario; `scripts/bench` builds it).
//!
//! `bench readme` runs nothing: it writes the last run's figures
//! (`target/bench/latest.json`) into the README's figures section.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod cancel_ceiling;
mod capture_ceiling;
mod captures;
mod ceiling;
mod conflicting;
mod cost;
mod embedded;
mod floor;
mod galera;
mod load;
mod order_ids;
mod readme;
mod refund_ceiling;
mod relay;
mod render;
mod replay_cache;
mod report;
mod rs256;
mod run_info;
mod scenarios;
mod seed;
mod statement;
mod targets;
mod tracing_cost;
mod wire;

use std::time::Duration;

use cost::Meter;
use report::Report;
use scenarios::{Bench, CEILING_CONNECTIONS};
use tests::{ALL_PERMISSIONS, Service, ServiceOptions, TestDb, token};
use tokio::runtime::Runtime;

/// The last run's report.
const LATEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/bench/latest.json");

fn main() {
    if std::env::args().nth(1).as_deref() == Some("readme") {
        if let Err(e) = readme::write_readme(LATEST) {
            eprintln!("bench readme: {e}");
            std::process::exit(1);
        }
        return;
    }
    let runtime = Runtime::new().expect("runtime");
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let only = std::env::var("BENCH_SCENARIOS").unwrap_or_default();
    let wanted = |name: &str| only.is_empty() || only.split(',').any(|n| n == name);
    let db = runtime.block_on(TestDb::create());
    let log_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/bench");
    std::fs::create_dir_all(log_dir).expect("target/bench");
    // The batching bounds pass through, to measure others than the defaults.
    let batching = ["BATCH_MAX_SIZE", "BATCH_IN_FLIGHT"]
        .into_iter()
        .filter_map(|name| Some((name.to_owned(), std::env::var(name).ok()?)));
    let options = ServiceOptions {
        env: [
            ("DATABASE_MAX_CONNECTIONS".into(), "32".into()),
            (
                "RUST_LOG".into(),
                std::env::var("BENCH_SERVER_LOG").unwrap_or_else(|_| "info".into()),
            ),
        ]
        .into_iter()
        .chain(batching)
        .collect(),
        log_file: Some(format!("{log_dir}/server.log").into()),
        ..ServiceOptions::new(db.url())
    };
    let service = Service::start(&options);
    let meter = runtime.block_on(Meter::connect(db.url()));
    let bench = Bench {
        pool: ceiling::pool(db.url(), CEILING_CONNECTIONS),
        meter,
        server_pid: service.pid(),
        base: service.base_url().to_owned(),
        bearer: token(1, 1, ALL_PERMISSIONS),
        duration: Duration::from_secs(seconds),
        runtime,
        db,
    };
    bench.warm_up();

    let mut scenarios = Vec::new();
    if wanted("create") {
        for concurrency in [1, 8, 32] {
            scenarios.push(bench.create(concurrency));
        }
        scenarios.push(bench.floor(32));
    }
    if wanted("replay") {
        scenarios.push(bench.replay());
        scenarios.push(replay_cache::replay_without_cache(&bench, &options));
    }
    if wanted("retries") {
        scenarios.extend(replay_cache::run(&bench, &options));
    }
    if wanted("replay-rs256") {
        scenarios.push(rs256::replay(&bench, &options));
    }
    if wanted("storm") {
        scenarios.push(bench.storm());
    }
    if wanted("mixed") {
        scenarios.push(bench.mixed());
    }
    if wanted("conflicting") {
        scenarios.push(bench.conflicting());
    }
    if wanted("cancel") {
        scenarios.push(bench.cancel());
    }
    if wanted("capture") {
        scenarios.push(bench.capture());
    }
    if wanted("refund") {
        scenarios.push(bench.refund());
    }

    let relay = wanted("relay").then(|| {
        let mut options = options.clone();
        options.log_file = Some(format!("{log_dir}/relay-server.log").into());
        bench.runtime.block_on(relay::run(&options, bench.duration))
    });

    let captures = wanted("captures").then(|| captures::run(&bench, &options));

    let embedded = wanted("embedded").then(|| embedded::run(&bench, &options));

    let tracing = wanted("tracing")
        .then(|| tracing_cost::run(&bench, &options))
        .flatten();

    let galera = std::env::var_os("GALERA_URLS")
        .map(|_| bench.runtime.block_on(galera::run(bench.duration)));

    // The main server's batches of creates, over every scenario it served.
    let created = |name: &str| {
        tests::Api::new(service.base_url())
            .labelled_metric(name, r#"operation="orders.create.v1""#)
            .unwrap_or(0.0)
    };
    let (batches, batched) = (created("batch_size_count"), created("batch_size_sum"));
    let report = Report {
        run: run_info::RunInfo::now(),
        create_batches: (batches > 0.0).then(|| report::Batches {
            batches,
            mean_size: batched / batches,
        }),
        scenarios,
        relay,
        captures,
        embedded,
        tracing,
        galera,
        server_peak_rss_bytes: service.peak_rss_bytes().unwrap_or(0),
        database: bench.db.server_version().to_owned(),
        database_cpu_measured: bench.meter.measures_database_cpu(),
    };
    println!("{}", render::render(&report));
    drop(service);
    let Bench { runtime, db, .. } = bench;
    runtime.block_on(db.drop_database());
    // A failed run leaves no figures: not its own, and not an older run's to be taken for it.
    let wrong = report.failures();
    if !wrong.is_empty() {
        let _ = std::fs::remove_file(LATEST);
        println!("FAILED: errors or duplicates in {wrong:?}; no figures written");
        std::process::exit(1);
    }
    std::fs::write(
        LATEST,
        serde_json::to_vec_pretty(&report).expect("report JSON"),
    )
    .expect("write target/bench/latest.json");
}
