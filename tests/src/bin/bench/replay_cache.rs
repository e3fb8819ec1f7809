//! A retry storm over few keys: 1 000 clients retrying 100 completed keys, on a server with
//! the replay cache on (the default) and on one with `REPLAY_CACHE_TTL_SECS=0`, in the same
//! run, so the cache's saving is read from one run's figures. Both servers are fresh ones:
//! a thousand connections would otherwise count in the main server's peak memory.

use tests::{Service, ServiceOptions};

use crate::report::Scenario;
use crate::scenarios::{Bench, Target};

const KEYS: usize = 100;
const CLIENTS: usize = 1_000;

pub(crate) fn run(bench: &Bench, options: &ServiceOptions) -> Vec<Scenario> {
    [("retries-cache", None), ("retries-no-cache", Some("0"))]
        .into_iter()
        .map(|(name, ttl)| {
            let mut options = options.clone();
            if let Some(ttl) = ttl {
                options
                    .env
                    .push(("REPLAY_CACHE_TTL_SECS".into(), ttl.into()));
            }
            options.log_file = options
                .log_file
                .map(|log| log.with_file_name(format!("{name}-server.log")));
            let service = Service::start(&options);
            let target = Target {
                base: service.base_url(),
                bearer: &bench.bearer,
                pid: service.pid(),
            };
            bench.retries(name, &target, KEYS, CLIENTS, false)
        })
        .collect()
}
