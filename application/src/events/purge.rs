//! Deleting published events once the retention has passed; pending ones never go.

use domain::RetentionPolicy;

use crate::idempotency::{PurgeSettings, in_batches};
use crate::ports::{Clock, OutboxRelayStore, StoreError};

/// Batches deleted before an error stay deleted.
pub async fn purge_published_events<S: OutboxRelayStore>(
    store: &S,
    clock: &dyn Clock,
    retention: RetentionPolicy,
    settings: PurgeSettings,
) -> Result<u64, StoreError> {
    let cutoff = clock.now() - retention.period();
    in_batches(clock, settings, |limit| {
        store.purge_published_batch(cutoff, limit)
    })
    .await
}
