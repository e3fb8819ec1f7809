//! The benchmark: the real server (release build) over real HTTP on a real
//! MySQL-compatible database, each scenario set against the database's own ceiling for
//! the same SQL work, measured in the same run. Run it with `scripts/bench`.
//!
//! Environment: `TEST_DATABASE_URL` (the server, no database; `scripts/bench` sets it),
//! `SERVER_BIN` (the release binary), `BENCH_SECONDS` (per measured phase, default 5).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

mod ceiling;
mod load;
mod report;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use ceiling::Work;
use load::{Request, Run};
use report::{Report, Scenario};
use tests::{ALL_PERMISSIONS, Api, Service, ServiceOptions, TestDb, order_json, token};

const REPLAY_KEYS: usize = 500;
const STORM_KEYS: usize = 200;
const STORM_WIDTH: usize = 64;

fn request(key: String) -> Request {
    let body = order_json(&key, "SKU-1", 1);
    Request { key, body }
}

fn distinct_keys(run: &Run) -> usize {
    run.samples
        .iter()
        .filter(|s| s.status == 201)
        .map(|s| s.key.as_str())
        .collect::<HashSet<_>>()
        .len()
}

fn main() {
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let seconds: u64 = std::env::var("BENCH_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let duration = Duration::from_secs(seconds);
    let db = runtime.block_on(TestDb::create());
    let service = Service::start(&ServiceOptions {
        env: vec![("DATABASE_MAX_CONNECTIONS".into(), "32".into())],
        ..ServiceOptions::new(db.url())
    });
    let base = service.base_url().to_owned();
    let bearer = token(1, 1, ALL_PERMISSIONS);
    let pool = ceiling::pool(db.url(), STORM_WIDTH);
    let orders = |prefix: &str| -> usize {
        usize::try_from(runtime.block_on(db.orders_with_ref_prefix(1, prefix))).unwrap_or(0)
    };
    let ceiling = |label: &str, work: Work, c: usize, keys: Vec<String>| -> f64 {
        runtime.block_on(ceiling::measure(
            &pool,
            label,
            work,
            c,
            duration,
            Arc::new(keys),
        ))
    };
    let mut scenarios: Vec<Scenario> = Vec::new();

    // Warm both paths so the first scenario does not pay for cold caches.
    let _ = load::for_duration(&base, &bearer, 8, Duration::from_secs(1), &|w, i| {
        request(format!("warm-{w}-{i}"))
    });
    let _ = ceiling("ceil-warm", Work::Create, 8, Vec::new());

    for c in [1, 8, 32] {
        let prefix = format!("create{c}-");
        let run = load::for_duration(&base, &bearer, c, duration, &|w, i| {
            request(format!("{prefix}{w}-{i}"))
        });
        let made = orders(&prefix);
        let roof = ceiling(&format!("ceil-create{c}"), Work::Create, c, Vec::new());
        scenarios.push(report::scenario(
            "create",
            c,
            &run,
            distinct_keys(&run),
            made,
            roof,
        ));
    }

    let seeds: Vec<Request> = (0..REPLAY_KEYS)
        .map(|k| request(format!("replay-{k}")))
        .collect();
    let seeder = Api::new(&base);
    for seed in &seeds {
        assert_eq!(seeder.create(&bearer, &seed.key, &seed.body).status, 201);
    }
    let run = load::for_duration(&base, &bearer, 32, duration, &|w, i| {
        seeds[(w * 7919 + i) % REPLAY_KEYS].clone()
    });
    let made = orders("replay-");
    let read_keys = runtime.block_on(ceiling::seed(&pool, "ceil-replay", REPLAY_KEYS));
    let roof = ceiling("ceil-replay", Work::Read, 32, read_keys);
    scenarios.push(report::scenario(
        "replay",
        32,
        &run,
        REPLAY_KEYS,
        made,
        roof,
    ));

    let rounds: Vec<Vec<Request>> = (0..STORM_KEYS)
        .map(|k| vec![request(format!("storm-{k}")); STORM_WIDTH])
        .collect();
    let run = load::in_rounds(&base, &bearer, &rounds);
    let made = orders("storm-");
    let roof = ceiling("ceil-storm", Work::Storm, STORM_WIDTH, Vec::new());
    scenarios.push(report::scenario(
        "storm",
        STORM_WIDTH,
        &run,
        STORM_KEYS,
        made,
        roof,
    ));

    let run = load::for_duration(&base, &bearer, 32, duration, &|w, i| {
        // Every fifth request retries the request before it: a recent, completed key.
        let n = if i % 5 == 4 { i - 1 } else { i };
        request(format!("mixed-{w}-{n}"))
    });
    let made = orders("mixed-");
    let roof = ceiling("ceil-mixed", Work::Mixed, 32, Vec::new());
    scenarios.push(report::scenario(
        "mixed",
        32,
        &run,
        distinct_keys(&run),
        made,
        roof,
    ));

    let report = Report {
        scenarios,
        server_peak_rss_bytes: service.peak_rss_bytes().unwrap_or(0),
        database: db.server_version().to_owned(),
    };
    report::print(&report);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../target/bench");
    std::fs::create_dir_all(dir).expect("target/bench");
    std::fs::write(
        format!("{dir}/latest.json"),
        serde_json::to_vec_pretty(&report).expect("report JSON"),
    )
    .expect("write target/bench/latest.json");

    let wrong: Vec<&Scenario> = report
        .scenarios
        .iter()
        .filter(|s| s.errors > 0 || s.duplicates > 0)
        .collect();
    report::print_targets(&report);
    drop(service);
    runtime.block_on(db.drop_database());
    if !wrong.is_empty() {
        println!(
            "FAILED: errors or duplicates in {:?}",
            wrong.iter().map(|s| &s.name).collect::<Vec<_>>()
        );
        std::process::exit(1);
    }
}
