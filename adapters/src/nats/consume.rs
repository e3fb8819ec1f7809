//! A consumer's loop over a durable pull consumer: each message goes through the inbox,
//! then is settled (`docs/events.md#consumers-and-the-inbox`).

use std::time::Duration;

use application::ports::{FlowHooks, InboxTx, UnitOfWork};
use application::{ErrorChain, HandleError, Handled, InboxConsumer, handle_delivery};
use tokio::sync::watch;
use tracing::Instrument;

use super::{Delivery, NatsError, PullConsumer, fetch};
use crate::metrics::Metrics;
use crate::telemetry;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConsumeStats {
    pub applied: u64,
    /// Recorded without a change: a newer event of the same thing came first.
    pub outdated: u64,
    /// Recorded without a change the consumer's state refused (logged at `warn`).
    pub left_alone: u64,
    pub duplicates: u64,
    /// Of a type the consumer does not handle: acknowledged, nothing written.
    pub ignored: u64,
    pub terminated: u64,
    /// Naked after a database failure.
    pub retried: u64,
}

/// How long one fetch waits for messages, and the pause after a failed fetch.
const FETCH_WAIT: Duration = Duration::from_secs(1);

/// Consumes until `stop` turns true. A failed fetch is logged and retried after a pause,
/// so a broker outage only pauses the loop.
pub async fn consume<U, C, H>(
    consumer: &PullConsumer,
    store: &U,
    handler: &C,
    hooks: &H,
    metrics: Option<&Metrics>,
    batch: usize,
    mut stop: watch::Receiver<bool>,
) -> ConsumeStats
where
    U: UnitOfWork<Tx: InboxTx>,
    C: InboxConsumer<U::Tx>,
    H: FlowHooks,
{
    let mut stats = ConsumeStats::default();
    while !*stop.borrow() {
        let deliveries = tokio::select! {
            fetched = fetch(consumer, batch, FETCH_WAIT) => fetched,
            _ = stop.changed() => break,
        };
        let deliveries = match deliveries {
            Ok(deliveries) => deliveries,
            Err(error) => {
                tracing::warn!(error = %ErrorChain(&error), "fetch failed; trying again");
                tokio::time::sleep(FETCH_WAIT).await;
                continue;
            }
        };
        for delivery in deliveries {
            let span = consumer_span(&delivery, handler.name());
            settle(&delivery, store, handler, hooks, metrics, &mut stats)
                .instrument(span)
                .await;
        }
    }
    stats
}

/// A delivery's handling continues the trace of the relay's publish that sent it (its
/// `traceparent` header); without one it starts its own.
fn consumer_span(delivery: &Delivery, consumer: &str) -> tracing::Span {
    let span = tracing::info_span!(
        target: "spans",
        "consume",
        otel.name = %format_args!("process {consumer}"),
        otel.kind = "consumer",
        messaging.system = "nats",
        messaging.operation.type = "process",
        messaging.consumer.group.name = consumer,
        messaging.message.id = delivery.msg_id().unwrap_or_default(),
    );
    telemetry::continue_from_headers(&span, |name| delivery.header(name));
    span
}

async fn settle<U, C, H>(
    delivery: &Delivery,
    store: &U,
    handler: &C,
    hooks: &H,
    metrics: Option<&Metrics>,
    stats: &mut ConsumeStats,
) where
    U: UnitOfWork<Tx: InboxTx>,
    C: InboxConsumer<U::Tx>,
    H: FlowHooks,
{
    let now = chrono::Utc::now();
    let handled = handle_delivery(store, handler, hooks, delivery.payload(), now)
        .instrument(tracing::info_span!(target: "spans", "inbox transaction"))
        .await;
    let msg_id = delivery.msg_id().unwrap_or("-");
    let settled: Result<(), NatsError> = match handled {
        Ok(Handled::Applied) => {
            stats.applied += 1;
            delivery.ack().await
        }
        Ok(Handled::Outdated) => {
            stats.outdated += 1;
            tracing::info!(
                msg_id,
                "an older event than one already applied; nothing changed"
            );
            delivery.ack().await
        }
        Ok(Handled::LeftAlone(why)) => {
            stats.left_alone += 1;
            tracing::warn!(msg_id, why, "event left without effect");
            delivery.ack().await
        }
        Ok(Handled::Ignored) => {
            stats.ignored += 1;
            let event_type = delivery
                .subject()
                .rsplit_once('.')
                .map_or("unknown", |(event_type, _tenant)| event_type);
            tracing::debug!(
                msg_id,
                event_type,
                "an event type this consumer does not handle; acknowledged"
            );
            if let Some(metrics) = metrics {
                metrics.count_event_ignored(handler.name(), event_type);
            }
            delivery.ack().await
        }
        Ok(Handled::Duplicate) => {
            stats.duplicates += 1;
            tracing::info!(msg_id, "duplicate delivery acknowledged; nothing changed");
            delivery.ack().await
        }
        Err(HandleError::Poison(reason)) => {
            stats.terminated += 1;
            tracing::warn!(msg_id, %reason, "poison message terminated");
            delivery.term().await
        }
        Err(HandleError::Retry(error)) => {
            stats.retried += 1;
            tracing::warn!(msg_id, error = %ErrorChain(&error), "delivery failed; left for redelivery");
            delivery.nak().await
        }
    };
    if let Err(error) = settled {
        // Unsettled, it comes back after the ack wait; the inbox absorbs it.
        tracing::warn!(msg_id, error = %ErrorChain(&error), "settling a delivery failed");
    }
}
