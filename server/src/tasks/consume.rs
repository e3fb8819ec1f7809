//! `server consume shipments`: the shipped inbox consumer, a durable JetStream pull
//! consumer `shipments` on `orders.*.v1.>` (`docs/events.md#the-shipped-consumer`).

use adapters::nats::{
    ConsumerSpec, ORDER_EVENTS, StreamSpec, connect, consume, ensure_stream, pull_consumer,
};
use application::ports::{InboxTx, ShipmentRepository, UnitOfWork};
use application::{RequestShipments, SHIPMENTS_CONSUMER};
use tokio::sync::watch;

use crate::config::events::EventsConfig;

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
    let spec = StreamSpec::orders(events.duplicate_window);
    ensure_stream(&js, &spec).await?;
    let consumer = pull_consumer(
        &js,
        &ConsumerSpec {
            stream: spec.name.clone(),
            durable_name: SHIPMENTS_CONSUMER.to_owned(),
            filter_subject: ORDER_EVENTS.to_owned(),
            ack_wait: events.consumer_ack_wait,
            max_deliver: None,
        },
    )
    .await?;
    let hooks = events.hooks();
    tracing::info!(consumer = SHIPMENTS_CONSUMER, "consumer started");
    let stats = consume(
        &consumer,
        &store,
        &RequestShipments,
        &hooks,
        FETCH_BATCH,
        stop,
    )
    .await;
    tracing::info!(
        applied = stats.applied,
        outdated = stats.outdated,
        left_alone = stats.left_alone,
        duplicates = stats.duplicates,
        terminated = stats.terminated,
        retried = stats.retried,
        "consumer stopped"
    );
    Ok(())
}
