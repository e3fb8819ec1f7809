//! A consumer's loop over a durable pull consumer: each message is handled through the
//! inbox and settled after that: acked once its transaction committed (or it was a
//! duplicate), terminated when it can never be applied, naked when the database failed
//! (JetStream delivers it again).

use std::time::Duration;

use application::ports::{FlowHooks, InboxTx, UnitOfWork};
use application::{HandleError, Handled, InboxConsumer, handle_delivery};
use tokio::sync::watch;

use super::{Delivery, NatsError, PullConsumer, fetch};

/// What a consumer did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConsumeStats {
    /// Events applied.
    pub applied: u64,
    /// Deliveries of events already applied.
    pub duplicates: u64,
    /// Poison messages terminated.
    pub terminated: u64,
    /// Deliveries left to be redelivered after a database failure.
    pub retried: u64,
}

/// How long one fetch waits for messages before the loop looks at its stop signal.
const FETCH_WAIT: Duration = Duration::from_secs(1);

/// Consumes until `stop` turns true: fetch up to `batch`, handle each, settle each.
///
/// # Errors
/// Never for one message (each is settled or left to its ack wait); a fetch that fails
/// is logged and tried again after a pause, so a broker outage only pauses the loop.
pub async fn consume<U, C, H>(
    consumer: &PullConsumer,
    store: &U,
    handler: &C,
    hooks: &H,
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
                tracing::warn!(%error, "fetch failed; trying again");
                tokio::time::sleep(FETCH_WAIT).await;
                continue;
            }
        };
        for delivery in deliveries {
            settle(&delivery, store, handler, hooks, &mut stats).await;
        }
    }
    stats
}

/// Handles one delivery and settles it.
async fn settle<U, C, H>(
    delivery: &Delivery,
    store: &U,
    handler: &C,
    hooks: &H,
    stats: &mut ConsumeStats,
) where
    U: UnitOfWork<Tx: InboxTx>,
    C: InboxConsumer<U::Tx>,
    H: FlowHooks,
{
    let now = chrono::Utc::now();
    let handled = handle_delivery(store, handler, hooks, delivery.payload(), now).await;
    let msg_id = delivery.msg_id().unwrap_or("-");
    let settled: Result<(), NatsError> = match handled {
        Ok(Handled::Applied) => {
            stats.applied += 1;
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
            tracing::warn!(msg_id, %error, "delivery failed; left for redelivery");
            delivery.nak().await
        }
    };
    if let Err(error) = settled {
        // Unsettled, it comes back after the ack wait; the inbox absorbs it.
        tracing::warn!(msg_id, %error, "settling a delivery failed");
    }
}
