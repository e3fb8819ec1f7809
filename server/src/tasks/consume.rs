//! `server consume shipments`: the shipped inbox consumer, a durable JetStream pull
//! consumer `shipments` on every event of the stream; it applies the order events and
//! acknowledges the others (`docs/events.md#the-shipped-consumer`).

use std::sync::Arc;

use adapters::api::event_stream;
use adapters::metrics::Metrics;
use adapters::nats::{ConsumerSpec, EVERY_EVENT, connect, consume, ensure_stream, pull_consumer};
use application::ports::{InboxTx, ShipmentRepository, UnitOfWork};
use application::{RequestShipments, SHIPMENTS_CONSUMER};
use tokio::sync::watch;

use crate::config::events::EventsConfig;
use crate::tasks::metrics_listener::serve_metrics;

const FETCH_BATCH: usize = 64;

pub(crate) async fn consume_shipments<S>(
    store: S,
    events: &EventsConfig,
    stop: watch::Receiver<bool>,
) -> anyhow::Result<()>
where
    S: UnitOfWork<Tx: InboxTx + ShipmentRepository>,
{
    let js = connect(events.required_url()?).await?;
    let spec = event_stream(events.duplicate_window).with_replicas(events.stream_replicas);
    ensure_stream(&js, &spec).await?;
    let consumer = pull_consumer(
        &js,
        &ConsumerSpec {
            stream: spec.name.clone(),
            durable_name: SHIPMENTS_CONSUMER.to_owned(),
            filter_subject: EVERY_EVENT.to_owned(),
            ack_wait: events.consumer_ack_wait,
            max_deliver: None,
        },
    )
    .await?;
    let hooks = events.hooks();
    let metrics = Arc::new(Metrics::new());
    let listener = events
        .metrics_addr
        .map(|address| serve_metrics(address, Arc::clone(&metrics)))
        .transpose()?;
    tracing::info!(consumer = SHIPMENTS_CONSUMER, "consumer started");
    let stats = consume(
        &consumer,
        &store,
        &RequestShipments,
        &hooks,
        Some(&metrics),
        FETCH_BATCH,
        stop,
    )
    .await;
    if let Some(listener) = listener {
        listener.stop(true).await;
    }
    tracing::info!(
        applied = stats.applied,
        outdated = stats.outdated,
        left_alone = stats.left_alone,
        duplicates = stats.duplicates,
        ignored = stats.ignored,
        terminated = stats.terminated,
        retried = stats.retried,
        "consumer stopped"
    );
    Ok(())
}
