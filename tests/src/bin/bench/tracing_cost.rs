//! What tracing costs the server: CPU per create and per replay with the `otel` feature
//! built in and no endpoint (off), against a build without the feature, and with every
//! span exported to a receiver in this process. Each build serves the same phases in
//! turn, round after round in a rotating order, so a drift of the machine spreads over
//! all three; the figures are the medians.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tests::otlp::OtlpReceiver;
use tests::{Api, Service, ServiceOptions};

use crate::cost::Client;
use crate::load::{self, Request};
use crate::scenarios::Bench;

const ROUNDS: usize = 3;
const REPLAY_KEYS: usize = 500;
const CONCURRENCY: usize = 32;

/// Server CPU per request, µs.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct PerRequest {
    pub(crate) create_us: f64,
    pub(crate) replay_us: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct TracingFigures {
    pub(crate) rounds: usize,
    pub(crate) phase_seconds: u64,
    /// Built without the `otel` feature.
    pub(crate) without_feature: PerRequest,
    /// Built in, no `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub(crate) off: PerRequest,
    /// Every span exported (sampler always on) to a receiver that keeps them.
    pub(crate) exporting: PerRequest,
    /// Spans the exporting server made per request (created spans the receiver got,
    /// plus any it dropped), creates and replays together.
    pub(crate) spans_per_request: f64,
    /// Spans the exporting server dropped (`tracing_spans_dropped_total`), all rounds.
    pub(crate) spans_dropped: f64,
    /// Answers other than 201: each fails the run.
    pub(crate) errors: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Build {
    WithoutFeature,
    Off,
    Exporting,
}

/// `None` when the build without the feature is not named (`SERVER_WITHOUT_OTEL_BIN`,
/// which `scripts/bench` builds).
pub(crate) fn run(bench: &Bench, options: &ServiceOptions) -> Option<TracingFigures> {
    let without = PathBuf::from(std::env::var_os("SERVER_WITHOUT_OTEL_BIN")?);
    let receiver = OtlpReceiver::start_counting().expect("the OTLP receiver");
    let seeds: Arc<Vec<Request>> = Arc::new(
        (0..REPLAY_KEYS)
            .map(|k| Request::create(format!("tracing-replay-{k}")))
            .collect(),
    );
    let seeder = Api::new(&bench.base);
    for seed in seeds.iter() {
        assert_eq!(
            seeder.create(&bench.bearer, &seed.key, &seed.body).status,
            201
        );
    }
    let builds = [Build::WithoutFeature, Build::Off, Build::Exporting];
    let mut samples: Vec<(Build, f64, f64)> = Vec::new();
    let (mut errors, mut exported_requests, mut dropped) = (0, 0, 0.0);
    for round in 0..ROUNDS {
        for turn in 0..builds.len() {
            let build = builds[(round + turn) % builds.len()];
            let service = Service::start(&options_for(build, options, &without, &receiver));
            let (creates, create_us) = phase(bench, &service, move |w, i| {
                Request::create(format!("tracing-{round}-{turn}-{w}-{i}"))
            });
            let seeds = Arc::clone(&seeds);
            let (replays, replay_us) = phase(bench, &service, move |w, i| {
                seeds[(w * 7919 + i) % REPLAY_KEYS].clone()
            });
            errors += creates.errors + replays.errors;
            if build == Build::Exporting {
                exported_requests += creates.count + replays.count;
                dropped += spans_dropped(&service);
            }
            samples.push((build, create_us, replay_us));
            // Its queued spans are sent when it stops.
            drop(service);
        }
    }
    let median_of = |build: Build| {
        let mut creates: Vec<f64> = samples
            .iter()
            .filter(|s| s.0 == build)
            .map(|s| s.1)
            .collect();
        let mut replays: Vec<f64> = samples
            .iter()
            .filter(|s| s.0 == build)
            .map(|s| s.2)
            .collect();
        PerRequest {
            create_us: median(&mut creates),
            replay_us: median(&mut replays),
        }
    };
    let received = receiver.received();
    Some(TracingFigures {
        rounds: ROUNDS,
        phase_seconds: bench.duration.as_secs(),
        without_feature: median_of(Build::WithoutFeature),
        off: median_of(Build::Off),
        exporting: median_of(Build::Exporting),
        spans_per_request: (received as f64 + dropped) / exported_requests.max(1) as f64,
        spans_dropped: dropped,
        errors,
    })
}

struct Answered {
    count: usize,
    errors: usize,
}

/// One phase at c=32 on `service`: what it answered and its server CPU per request.
fn phase(
    bench: &Bench,
    service: &Service,
    next: impl Fn(usize, usize) -> Request + Send + Sync + 'static,
) -> (Answered, f64) {
    let load = load::for_duration(
        service.base_url(),
        &bench.bearer,
        CONCURRENCY,
        bench.duration,
        Arc::new(next),
    );
    let (run, cost) = bench.runtime.block_on(bench.meter.measure(
        Client::Service(service.pid()),
        load,
        |run| run.samples.len() as u64,
    ));
    let answered = Answered {
        count: run.samples.len(),
        errors: run.samples.iter().filter(|s| s.status != 201).count(),
    };
    (answered, cost.client_cpu_us.unwrap_or(f64::NAN))
}

fn options_for(
    build: Build,
    options: &ServiceOptions,
    without: &Path,
    receiver: &OtlpReceiver,
) -> ServiceOptions {
    let mut options = options.clone();
    options.log_file = options
        .log_file
        .map(|log| log.with_file_name("tracing-server.log"));
    match build {
        Build::WithoutFeature => options.binary = Some(without.to_path_buf()),
        Build::Off => {}
        Build::Exporting => options.env.extend(
            [
                ("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint()),
                ("OTEL_TRACES_SAMPLER", "always_on".to_owned()),
            ]
            .map(|(name, value)| (name.to_owned(), value)),
        ),
    }
    options
}

fn spans_dropped(service: &Service) -> f64 {
    let api = Api::new(service.base_url());
    ["queue_full", "export_failed"]
        .iter()
        .filter_map(|reason| {
            api.labelled_metric(
                "tracing_spans_dropped_total",
                &format!(r#"reason="{reason}""#),
            )
        })
        .sum()
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(f64::NAN)
}
