//! The relay loop: in every `serve` process when `NATS_URL` is set, or alone as
//! `server relay`. Creates the `ORDERS` stream if missing, then relays until stopped.

use std::sync::Arc;
use std::time::Duration;

use adapters::SystemClock;
use adapters::api::event_stream;
use adapters::metrics::Metrics;
use adapters::nats::{NatsPublisher, connect, ensure_stream};
use application::ports::{Clock, OutboxRelayStore};
use application::{ErrorChain, Relay, RelayPacing};
use tokio::sync::watch;

use crate::config::events::EventsConfig;

/// The longest wait between passes while publishes or the database fail.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

const PENDING_EVERY: Duration = Duration::from_secs(1);

pub(crate) async fn relay_until<S: OutboxRelayStore>(
    store: S,
    url: &str,
    events: &EventsConfig,
    metrics: Option<Arc<Metrics>>,
    mut stop: watch::Receiver<bool>,
) -> anyhow::Result<()> {
    let js = connect(url).await?;
    let spec = event_stream(events.duplicate_window).with_replicas(events.stream_replicas);
    // The broker may be down at start: creates go on meanwhile, events wait.
    let mut wait = events.poll;
    while let Err(error) = ensure_stream(&js, &spec).await {
        tracing::warn!(
            error = %ErrorChain(&error),
            "the ORDERS stream is not available yet; relay waiting"
        );
        wait = (wait * 2).min(MAX_BACKOFF);
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            _ = stop.changed() => return Ok(()),
        }
    }
    let hooks = events.hooks();
    let relay = Relay::new(
        store,
        NatsPublisher::new(js, events.ack_timeout),
        hooks,
        events.batch,
    );
    let pacing = RelayPacing {
        poll: events.poll,
        max_backoff: MAX_BACKOFF,
    };
    tracing::info!(batch = relay.batch(), "relay started");
    let mut failures_in_a_row = 0;
    let mut last_pending = tokio::time::Instant::now() - PENDING_EVERY;
    while !*stop.borrow() {
        let pass = relay.run_once(&SystemClock).await;
        match &pass {
            Ok(pass) if pass.failed == 0 => failures_in_a_row = 0,
            Ok(pass) => {
                failures_in_a_row += 1;
                tracing::warn!(
                    published = pass.published,
                    failed = pass.failed,
                    "publishes failed; those events stay pending"
                );
            }
            Err(error) => {
                failures_in_a_row += 1;
                tracing::warn!(error = %ErrorChain(&error), "relay pass failed; its events stay pending");
            }
        }
        if let (Some(metrics), Ok(pass)) = (&metrics, &pass) {
            metrics.count_relay_pass(pass);
        }
        if last_pending.elapsed() >= PENDING_EVERY {
            last_pending = tokio::time::Instant::now();
            report_pending(relay.store(), metrics.as_deref()).await;
        }
        let wait = pacing.wait(&pass, relay.batch(), failures_in_a_row);
        if !wait.is_zero() {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                _ = stop.changed() => {}
            }
        }
    }
    tracing::info!("relay stopped");
    Ok(())
}

async fn report_pending<S: OutboxRelayStore>(store: &S, metrics: Option<&Metrics>) {
    match store.pending().await {
        Ok(summary) => {
            let age = summary.oldest.map_or(0.0, |oldest| {
                (SystemClock.now() - oldest).as_seconds_f64().max(0.0)
            });
            if let Some(metrics) = metrics {
                metrics.set_outbox_pending(summary.count, age);
            }
            tracing::debug!(pending = summary.count, oldest_age_secs = age, "outbox");
        }
        Err(error) => {
            tracing::warn!(error = %ErrorChain(&error), "cannot read the outbox's pending events");
        }
    }
}
