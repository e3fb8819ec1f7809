//! The embedded store, as a newcomer first runs it: a server with no `DATABASE_URL` (SQLite
//! under `./data/` in a directory of its own), creates at c=32. Its figures are the
//! latency tail (writers wait for their turn in the process) and the server's memory.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tests::{Service, ServiceOptions, TempDir};

use crate::cost::Client;
use crate::load::{self, Request};
use crate::scenarios::Bench;

const CONCURRENCY: usize = 32;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct EmbeddedFigures {
    pub(crate) concurrency: usize,
    pub(crate) creates: usize,
    /// Answers other than 201: each fails the run.
    pub(crate) errors: usize,
    pub(crate) creates_per_s: f64,
    pub(crate) p50_ms: f64,
    pub(crate) p99_ms: f64,
    pub(crate) max_ms: f64,
    /// User plus system CPU of the server per create, µs.
    pub(crate) server_cpu_us: Option<f64>,
    pub(crate) server_peak_rss_bytes: u64,
}

pub(crate) fn run(bench: &Bench, options: &ServiceOptions) -> EmbeddedFigures {
    let dir = TempDir::new("bench-embedded");
    let options = ServiceOptions {
        database_url: String::new(),
        current_dir: Some(dir.path().to_owned()),
        log_file: options
            .log_file
            .as_ref()
            .map(|log| log.with_file_name("embedded-server.log")),
        ..options.clone()
    };
    let service = Service::start(&options);
    let phase =
        |name: &'static str, duration| {
            let load = load::for_duration(
                service.base_url(),
                &bench.bearer,
                CONCURRENCY,
                duration,
                Arc::new(move |w, i| Request::create(format!("{name}-{w}-{i}"))),
            );
            bench.runtime.block_on(bench.meter.measure(
                Client::Service(service.pid()),
                load,
                |run| run.samples.len() as u64,
            ))
        };
    let _ = phase("embedded-warm", std::time::Duration::from_secs(1));
    let (run, cost) = phase("embedded", bench.duration);
    EmbeddedFigures {
        concurrency: CONCURRENCY,
        creates: run.samples.len(),
        errors: run.samples.iter().filter(|s| s.status != 201).count(),
        creates_per_s: run.rps(),
        p50_ms: run.latency_ms(0.50),
        p99_ms: run.latency_ms(0.99),
        max_ms: run.latency_ms(1.0),
        server_cpu_us: cost.client_cpu_us,
        server_peak_rss_bytes: service.peak_rss_bytes().unwrap_or(0),
    }
}
