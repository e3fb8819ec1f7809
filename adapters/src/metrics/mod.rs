//! Prometheus metrics (`docs/http-api.md#metrics`): idempotent outcomes, request latency,
//! the outbox relay, and the capture workers (in `operations`).

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use application::Outcome;
use application::RelayPass;

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

mod batches;
mod connection_errors;
mod operations;
mod outcome_label;
mod shared_count;

pub use connection_errors::{count_connection_error, is_connection_error};
pub use outcome_label::outcome_label;

use self::batches::BatchMetrics;
use self::operations::OperationMetrics;
use self::shared_count::SharedCount;

pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct OutcomeLabels {
    operation: &'static str,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    method: &'static str,
    route: String,
    status: u16,
}

type LatencyFamily = Family<RouteLabels, Histogram, fn() -> Histogram>;

/// `type` is a subject's type, and the stream takes only the declared ones: a closed set.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct IgnoredLabels {
    consumer: &'static str,
    r#type: String,
}

/// The service's metrics, shared by every worker.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    outcomes: Family<OutcomeLabels, Counter>,
    latency: LatencyFamily,
    outbox: OutboxMetrics,
    operations: OperationMetrics,
    batches: BatchMetrics,
    transaction_retries: Counter<u64, SharedCount>,
    replay_cache_hits: Counter<u64, SharedCount>,
    same_key_waits: Counter<u64, SharedCount>,
    jwks_refresh_failures: Counter,
    events_ignored: Family<IgnoredLabels, Counter>,
}

#[derive(Debug, Default)]
struct OutboxMetrics {
    pending: Gauge,
    oldest_pending_age_seconds: Gauge<f64, std::sync::atomic::AtomicU64>,
    published: Counter,
    publish_duplicates: Counter,
    publish_failures: Counter,
    deferred: Counter,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let outcomes = Family::<OutcomeLabels, Counter>::default();
        registry.register(
            "idempotent_outcomes",
            "Idempotent requests by operation and outcome",
            outcomes.clone(),
        );
        let latency: LatencyFamily =
            Family::new_with_constructor(|| Histogram::new(exponential_buckets(0.0005, 2.0, 16)));
        registry.register(
            "http_request_duration_seconds",
            "Time from request head to response, by route",
            latency.clone(),
        );
        let outbox = OutboxMetrics::default();
        registry.register(
            "outbox_pending",
            "Events in the outbox not yet acknowledged by the broker",
            outbox.pending.clone(),
        );
        registry.register(
            "outbox_oldest_pending_age_seconds",
            "Age of the oldest event waiting in the outbox (0 when none waits)",
            outbox.oldest_pending_age_seconds.clone(),
        );
        registry.register(
            "outbox_published",
            "Events the relay published and marked",
            outbox.published.clone(),
        );
        registry.register(
            "outbox_publish_duplicates",
            "Of the published events, those the broker acknowledged as a copy of one already \
             in the stream (another publish of it went first)",
            outbox.publish_duplicates.clone(),
        );
        registry.register(
            "outbox_publish_failures",
            "Publishes that failed or timed out (the event stays pending)",
            outbox.publish_failures.clone(),
        );
        registry.register(
            "outbox_deferred",
            "Events a relay read and left for a later pass, because an earlier event of \
             their order was still pending (held by another relay, or failed)",
            outbox.deferred.clone(),
        );
        let operations = OperationMetrics::default();
        operations.register(&mut registry);
        let batches = BatchMetrics::default();
        batches.register(&mut registry);
        let transaction_retries = Counter::<u64, SharedCount>::default();
        registry.register(
            "idempotent_transaction_retries",
            "Transactions the database rolled back as deadlock victims or, on a Galera \
             cluster, certification failures (1213), counted when they were run again",
            transaction_retries.clone(),
        );
        let replay_cache_hits = Counter::<u64, SharedCount>::default();
        registry.register(
            "idempotent_replay_cache_hits",
            "Requests answered from this process's copy of a completed record, without a \
             database read (REPLAY_CACHE_TTL_SECS)",
            replay_cache_hits.clone(),
        );
        let same_key_waits = Counter::<u64, SharedCount>::default();
        registry.register(
            "idempotent_same_key_waits",
            "Requests that waited in memory for another request of this process with the same \
             key, instead of on the database's lock",
            same_key_waits.clone(),
        );
        let jwks_refresh_failures = Counter::default();
        registry.register(
            "auth_jwks_refresh_failures",
            "Loads of the identity provider's key set that failed (the last good set stays)",
            jwks_refresh_failures.clone(),
        );
        registry.register(
            "tracing_spans_dropped",
            "Spans never exported, by reason: queue_full (the export queue, \
             OTEL_BSP_MAX_QUEUE_SIZE, was full) or export_failed (the collector did not take \
             the batch)",
            crate::telemetry::dropped_spans(),
        );
        registry.register(
            "auth_verified_token_hits",
            "Requests whose token was one this process had verified, served from memory \
             without checking its signature again",
            crate::http::edge::auth::verified_token_hits(),
        );
        registry.register(
            "http_connection_errors",
            "Connections the HTTP/1 layer ended in an error before any route ran (a \
             malformed request head, a body cut off); counted, not logged",
            connection_errors::connection_errors(),
        );
        let events_ignored = Family::<IgnoredLabels, Counter>::default();
        registry.register(
            "events_ignored",
            "Events a consumer acknowledged without reading them, of a type it does not \
             handle, by consumer and type",
            events_ignored.clone(),
        );
        Self {
            registry,
            events_ignored,
            outcomes,
            latency,
            outbox,
            operations,
            batches,
            transaction_retries,
            replay_cache_hits,
            same_key_waits,
            jwks_refresh_failures,
        }
    }

    pub fn count_event_ignored(&self, consumer: &'static str, event_type: &str) {
        self.events_ignored
            .get_or_create(&IgnoredLabels {
                consumer,
                r#type: event_type.to_owned(),
            })
            .inc();
    }

    /// For [`crate::http::JwksVerifier::with_failure_counter`].
    #[must_use]
    pub fn jwks_refresh_failures(&self) -> Counter {
        self.jwks_refresh_failures.clone()
    }

    /// For [`application::Coordinator::with_deadlock_counter`].
    #[must_use]
    pub fn transaction_retries(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.transaction_retries.inner().0)
    }

    /// For [`application::ReplayCache::with_hit_counter`].
    #[must_use]
    pub fn replay_cache_hits(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.replay_cache_hits.inner().0)
    }

    /// For [`application::InFlight::with_wait_counter`].
    #[must_use]
    pub fn same_key_waits(&self) -> Arc<AtomicU64> {
        Arc::clone(&self.same_key_waits.inner().0)
    }

    pub fn count_relay_pass(&self, pass: &RelayPass) {
        self.outbox.published.inc_by(pass.published as u64);
        self.outbox
            .publish_duplicates
            .inc_by(pass.duplicates as u64);
        self.outbox.publish_failures.inc_by(pass.failed as u64);
        self.outbox.deferred.inc_by(pass.deferred as u64);
    }

    pub fn set_outbox_pending(&self, count: u64, oldest_age_seconds: f64) {
        self.outbox
            .pending
            .set(i64::try_from(count).unwrap_or(i64::MAX));
        self.outbox
            .oldest_pending_age_seconds
            .set(oldest_age_seconds);
    }

    /// Operation names are constants (`Op::NAME`): the labels cost no allocation.
    pub fn count_outcome<R>(&self, operation: &'static str, outcome: &Outcome<R>) {
        self.outcomes
            .get_or_create(&OutcomeLabels {
                operation,
                outcome: outcome_label(outcome),
            })
            .inc();
    }

    /// `method` is a closed set (`GET`, `POST`, `DELETE`, `other`), `route` a served pattern or
    /// `unmatched`: what a client sends cannot add a series.
    pub fn observe_request(&self, method: &'static str, route: &str, status: u16, seconds: f64) {
        self.latency
            .get_or_create(&RouteLabels {
                method,
                route: route.to_owned(),
                status,
            })
            .observe(seconds);
    }

    #[must_use]
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests;
