//! Purging expired idempotency records: once (`server purge`) or on a timer.

use std::time::Duration;

use application::ports::{RecordPurger, SystemClock};
use application::{PurgeSettings, purge_expired};
use tokio::sync::watch;

/// Purges once and logs how many records went.
pub(crate) async fn purge_once<S: RecordPurger>(store: &S) -> anyhow::Result<u64> {
    let deleted = purge_expired(store, &SystemClock, PurgeSettings::default()).await?;
    if deleted > 0 {
        tracing::info!(deleted, "purged expired idempotency records");
    } else {
        tracing::debug!("no expired idempotency records to purge");
    }
    Ok(deleted)
}

/// Purges every `interval` until `stop` changes. Every process may run this: the delete
/// is bounded and idempotent, so concurrent purges only share the work.
pub(crate) async fn purge_every<S: RecordPurger>(
    store: S,
    interval: Duration,
    mut stop: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {
                if let Err(error) = purge_once(&store).await {
                    tracing::warn!(%error, "purge failed; trying again next interval");
                }
            }
            _ = stop.changed() => return,
        }
    }
}
