//! A retry storm over few keys: 1 000 clients retrying 100 completed keys, on the main
//! server (replay cache on, the default) and on a second one with `REPLAY_CACHE_TTL_SECS=0`,
//! in the same run, so the cache's saving is read from one run's figures.

use tests::{Service, ServiceOptions};

use crate::report::Scenario;
use crate::scenarios::{Bench, Target};

const KEYS: usize = 100;
const CLIENTS: usize = 1_000;

pub(crate) fn run(bench: &Bench, options: &ServiceOptions) -> Vec<Scenario> {
    let cached = Target {
        base: &bench.base,
        bearer: &bench.bearer,
        pid: bench.server_pid,
    };
    let with_cache = bench.retries("retries-cache", &cached, KEYS, CLIENTS, false);

    let mut options = options.clone();
    options
        .env
        .push(("REPLAY_CACHE_TTL_SECS".into(), "0".into()));
    options.log_file = options
        .log_file
        .map(|log| log.with_file_name("no-cache-server.log"));
    let service = Service::start(&options);
    let uncached = Target {
        base: service.base_url(),
        bearer: &bench.bearer,
        pid: service.pid(),
    };
    let without = bench.retries("retries-no-cache", &uncached, KEYS, CLIENTS, false);
    vec![with_cache, without]
}
