//! Purging expired idempotency records and events published before the retention: once
//! (`server purge`) or on a timer.

use std::time::Duration;

use adapters::SystemClock;
use application::ports::{OutboxRelayStore, RecordPurger};
use application::{PurgeSettings, purge_expired, purge_published_events};
use domain::RetentionPolicy;
use tokio::sync::watch;

pub(crate) async fn purge_once<S: RecordPurger + OutboxRelayStore>(
    store: &S,
    retention: RetentionPolicy,
) -> anyhow::Result<u64> {
    let deleted = purge_expired(store, &SystemClock, PurgeSettings::default()).await?;
    let events =
        purge_published_events(store, &SystemClock, retention, PurgeSettings::default()).await?;
    if deleted > 0 || events > 0 {
        tracing::info!(
            deleted,
            events,
            "purged expired records and published events"
        );
    } else {
        tracing::debug!("nothing expired to purge");
    }
    Ok(deleted + events)
}

/// Purges every `interval` until `stop` changes. Every process may run this: the delete
/// is bounded and idempotent, so concurrent purges only share the work.
pub(crate) async fn purge_every<S: RecordPurger + OutboxRelayStore>(
    store: S,
    interval: Duration,
    retention: RetentionPolicy,
    mut stop: watch::Receiver<bool>,
) {
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            _ = ticks.tick() => {
                if let Err(error) = purge_once(&store, retention).await {
                    tracing::warn!(error = %format!("{error:#}"), "purge failed; trying again next interval");
                }
            }
            _ = stop.changed() => return,
        }
    }
}
