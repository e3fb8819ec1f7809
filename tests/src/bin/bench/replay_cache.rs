//! The replay cache's saving, read from one run's figures: the replay scenario again on a
//! server with `REPLAY_CACHE_TTL_SECS=0` (the database path, against the same point read as
//! its ceiling: like for like), and a retry storm over few keys (1 000 clients retrying 100
//! completed keys) on a server with the cache and on one without. Each server is a fresh
//! one: a thousand connections would otherwise count in the main server's peak memory.

use tests::{Service, ServiceOptions};

use crate::report::Scenario;
use crate::scenarios::{Bench, Target};

const KEYS: usize = 100;
const CLIENTS: usize = 1_000;

/// The retry storm, with the cache and without.
pub(crate) fn run(bench: &Bench, options: &ServiceOptions) -> Vec<Scenario> {
    [("retries-cache", true), ("retries-no-cache", false)]
        .into_iter()
        .map(|(name, cache)| {
            let service = Service::start(&server_options(options, name, cache));
            bench.retries(name, &target(bench, &service), KEYS, CLIENTS, false)
        })
        .collect()
}

/// `replay-no-cache`: the replay scenario's load on a server that answers every replay from
/// the database. Its point-read ceiling is a reference, not equal work: the service's path
/// is the insert that meets the key, its rollback, then the read.
pub(crate) fn replay_without_cache(bench: &Bench, options: &ServiceOptions) -> Scenario {
    let name = "replay-no-cache";
    let service = Service::start(&server_options(options, name, false));
    bench.replay_on(name, &target(bench, &service), true)
}

fn server_options(options: &ServiceOptions, name: &str, cache: bool) -> ServiceOptions {
    let mut options = options.clone();
    if !cache {
        options
            .env
            .push(("REPLAY_CACHE_TTL_SECS".into(), "0".into()));
    }
    options.log_file = options
        .log_file
        .map(|log| log.with_file_name(format!("{name}-server.log")));
    options
}

fn target<'a>(bench: &'a Bench, service: &'a Service) -> Target<'a> {
    Target {
        base: service.base_url(),
        bearer: &bench.bearer,
        pid: service.pid(),
    }
}
