//! The benchmark: the real server (release build) over real HTTP on a real
//! MySQL-compatible database, each scenario set against the database's own ceiling for
//! the same SQL work, measured in the same run. Run it with `scripts/bench`.
//!
//! Environment: `TEST_DATABASE_URL` (the server, no database; `scripts/bench` sets it),
//! `SERVER_BIN` (the release binary), `BENCH_SECONDS` (per measured phase, default 5),
//! `BENCH_SCENARIOS` (a comma list to run only some, for profiling), `BENCH_SERVER_LOG`
//! (the server's `RUST_LOG`, default `info` as in production), `BENCH_DB_PID` (the database
//! server's PID, for its CPU time; `scripts/bench` sets it for its private server),
//! `GALERA_URLS` (adds the Galera run; `BENCH_GALERA=1 scripts/bench` starts a cluster),
//! `BENCH_DATABASE=private` (the database server is the run's own: `scripts/bench` says so
//! when it started it).
//!
//! `bench readme` runs nothing: it writes the last run's figures
//! (`target/bench/latest.json`) into the README's figures section.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod ceiling;
mod cost;
mod galera;
mod load;
mod relay;
mod render;
mod report;
mod run_info;
mod seed;
mod wire;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use ceiling::Work;
use cost::{Client, Cost, Meter};
use diesel_async::AsyncMysqlConnection;
use diesel_async::pooled_connection::deadpool::Pool;
use load::{Request, Run};
use report::{Measured, Report, Scenario};
use tests::{ALL_PERMISSIONS, Api, Service, ServiceOptions, TestDb, token};
use tokio::runtime::Runtime;

const REPLAY_KEYS: usize = 500;
const STORM_KEYS: usize = 200;
const STORM_WIDTH: usize = 64;
/// The ceiling's connections: as many as its largest concurrency.
const CEILING_CONNECTIONS: usize = 32;
/// Orders written for the cancel scenario: more than it can cancel in its phase.
const CANCEL_ORDERS: u64 = 60_000;
const CANCEL_CONCURRENCY: usize = 32;

fn distinct_keys(run: &Run) -> usize {
    run.samples
        .iter()
        .filter(|s| matches!(s.status, 200 | 201))
        .map(|s| s.key.as_str())
        .collect::<HashSet<_>>()
        .len()
}

/// Everything a scenario needs.
struct Bench {
    runtime: Runtime,
    db: TestDb,
    base: String,
    bearer: String,
    pool: Pool<AsyncMysqlConnection>,
    duration: Duration,
    meter: Meter,
    server_pid: u32,
}

impl Bench {
    fn orders(&self, prefix: &str) -> usize {
        usize::try_from(
            self.runtime
                .block_on(self.db.orders_with_ref_prefix(1, prefix)),
        )
        .unwrap_or(0)
    }

    /// The ceiling's throughput and its cost per unit of work.
    fn ceiling(&self, label: &str, work: Work, concurrency: usize, keys: Vec<String>) -> Measured {
        let phase = ceiling::measure(
            &self.pool,
            label,
            work,
            concurrency,
            self.duration,
            Arc::new(keys),
        );
        let ((_, rps), cost) = self.runtime.block_on(self.meter.measure(
            Client::Bench,
            phase,
            |(units, _)| *units,
        ));
        Measured { rps, cost }
    }

    /// Runs an HTTP phase on the benchmark's runtime, with its cost per request.
    fn http(&self, phase: impl Future<Output = Run>) -> (Run, Cost) {
        self.runtime.block_on(
            self.meter
                .measure(Client::Service(self.server_pid), phase, |run| {
                    run.samples.len() as u64
                }),
        )
    }

    /// Runs the HTTP load of one scenario on the benchmark's runtime.
    fn load(
        &self,
        concurrency: usize,
        duration: Duration,
        next: impl Fn(usize, usize) -> Request + Send + Sync + 'static,
    ) -> (Run, Cost) {
        self.http(load::for_duration(
            &self.base,
            &self.bearer,
            concurrency,
            duration,
            Arc::new(next),
        ))
    }

    fn warm_up(&self) {
        let _ = self.load(8, Duration::from_secs(1), |w, i| {
            Request::create(format!("warm-{w}-{i}"))
        });
        let _ = self.runtime.block_on(ceiling::measure(
            &self.pool,
            "ceil-warm",
            Work::Create,
            8,
            Duration::from_secs(1),
            Arc::new(Vec::new()),
        ));
    }

    /// Every request a new key.
    fn create(&self, concurrency: usize) -> Scenario {
        let prefix = format!("create{concurrency}-");
        let key_prefix = prefix.clone();
        let (run, cost) = self.load(concurrency, self.duration, move |w, i| {
            Request::create(format!("{key_prefix}{w}-{i}"))
        });
        let made = self.orders(&prefix);
        let roof = self.ceiling(
            &format!("ceil-create{concurrency}"),
            Work::Create,
            concurrency,
            Vec::new(),
        );
        let keys = distinct_keys(&run);
        report::scenario("create", concurrency, &run, keys, made, cost, Some(roof))
    }

    /// Retries of completed keys.
    fn replay(&self) -> Scenario {
        let seeds: Vec<Request> = (0..REPLAY_KEYS)
            .map(|k| Request::create(format!("replay-{k}")))
            .collect();
        let seeder = Api::new(&self.base);
        for seed in &seeds {
            assert_eq!(
                seeder.create(&self.bearer, &seed.key, &seed.body).status,
                201
            );
        }
        let replays = Arc::new(seeds);
        let (run, cost) = self.load(32, self.duration, move |w, i| {
            replays[(w * 7919 + i) % REPLAY_KEYS].clone()
        });
        let made = self.orders("replay-");
        let read_keys =
            self.runtime
                .block_on(ceiling::seed(&self.pool, "ceil-replay", REPLAY_KEYS));
        let roof = self.ceiling("ceil-replay", Work::Read, 32, read_keys);
        report::scenario("replay", 32, &run, REPLAY_KEYS, made, cost, Some(roof))
    }

    /// 64 simultaneous requests on each key, key after key. No ceiling: the database's
    /// side of the storm is 64 contending transactions on one key per round, which no
    /// contention-free SQL loop reproduces, so a ratio against one would mislead.
    fn storm(&self) -> Scenario {
        let rounds: Vec<Vec<Request>> = (0..STORM_KEYS)
            .map(|k| vec![Request::create(format!("storm-{k}")); STORM_WIDTH])
            .collect();
        let (run, cost) = self.http(load::in_rounds(&self.base, &self.bearer, Arc::new(rounds)));
        let made = self.orders("storm-");
        report::scenario("storm", STORM_WIDTH, &run, STORM_KEYS, made, cost, None)
    }

    /// Cancels of active orders, each order once, under a key of its own. The orders (with
    /// their created events) are written by SQL beforehand; no ceiling of its own.
    fn cancel(&self) -> Scenario {
        let orders = Arc::new(self.runtime.block_on(seed::active_orders(
            &self.pool,
            "cancel-",
            CANCEL_ORDERS,
        )));
        let (run, cost) = self.load(CANCEL_CONCURRENCY, self.duration, move |w, i| {
            Request::cancel(orders[(i * CANCEL_CONCURRENCY + w) % orders.len()])
        });
        let cancelled = usize::try_from(self.runtime.block_on(self.db.count(
            "SELECT COUNT(*) AS n FROM orders WHERE status = 'CANCELLED' \
                 AND client_order_ref LIKE 'cancel-%'",
        )))
        .unwrap_or(0);
        let keys = distinct_keys(&run);
        report::scenario(
            "cancel",
            CANCEL_CONCURRENCY,
            &run,
            keys,
            cancelled,
            cost,
            None,
        )
    }

    /// 80% new keys, 20% retries of the request just before.
    fn mixed(&self) -> Scenario {
        let (run, cost) = self.load(32, self.duration, |w, i| {
            let n = if i % 5 == 4 { i - 1 } else { i };
            Request::create(format!("mixed-{w}-{n}"))
        });
        let made = self.orders("mixed-");
        let roof = self.ceiling("ceil-mixed", Work::Mixed, 32, Vec::new());
        let keys = distinct_keys(&run);
        report::scenario("mixed", 32, &run, keys, made, cost, Some(roof))
    }
}

/// The last run's report.
const LATEST: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/bench/latest.json");
const README: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");

/// `bench readme`: the README's figures section from the last run.
fn readme() -> Result<(), String> {
    let json = std::fs::read(LATEST).map_err(|e| format!("{LATEST}: {e}; run scripts/bench"))?;
    let report: Report = serde_json::from_slice(&json).map_err(|e| format!("{LATEST}: {e}"))?;
    let old = std::fs::read_to_string(README).map_err(|e| format!("{README}: {e}"))?;
    let new = render::into_readme(&old, &report)?;
    std::fs::write(README, new).map_err(|e| format!("{README}: {e}"))?;
    println!(
        "README.md: figures of the run of {} ({})",
        report.run.date, report.run.commit
    );
    Ok(())
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("readme") {
        if let Err(e) = readme() {
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
    let options = ServiceOptions {
        env: vec![
            ("DATABASE_MAX_CONNECTIONS".into(), "32".into()),
            (
                "RUST_LOG".into(),
                std::env::var("BENCH_SERVER_LOG").unwrap_or_else(|_| "info".into()),
            ),
        ],
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
    }
    if wanted("replay") {
        scenarios.push(bench.replay());
    }
    if wanted("storm") {
        scenarios.push(bench.storm());
    }
    if wanted("mixed") {
        scenarios.push(bench.mixed());
    }
    if wanted("cancel") {
        scenarios.push(bench.cancel());
    }

    let relay = wanted("relay").then(|| {
        let mut options = options.clone();
        options.log_file = Some(format!("{log_dir}/relay-server.log").into());
        bench.runtime.block_on(relay::run(&options, bench.duration))
    });

    let galera = std::env::var_os("GALERA_URLS")
        .map(|_| bench.runtime.block_on(galera::run(bench.duration)));

    let report = Report {
        run: run_info::RunInfo::now(),
        scenarios,
        relay,
        galera,
        server_peak_rss_bytes: service.peak_rss_bytes().unwrap_or(0),
        database: bench.db.server_version().to_owned(),
        database_cpu_measured: bench.meter.measures_database_cpu(),
    };
    println!("{}", render::render(&report));
    std::fs::write(
        LATEST,
        serde_json::to_vec_pretty(&report).expect("report JSON"),
    )
    .expect("write target/bench/latest.json");

    drop(service);
    let Bench { runtime, db, .. } = bench;
    runtime.block_on(db.drop_database());
    let wrong = report.failures();
    if !wrong.is_empty() {
        println!("FAILED: errors or duplicates in {wrong:?}");
        std::process::exit(1);
    }
}
