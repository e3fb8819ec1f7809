//! The purge use case: delete expired completed records in bounded batches.

use domain::RetentionPolicy;

use crate::ports::{Clock, OutboxRelayStore, RecordPurger, StoreError};

/// How a purge run is bounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurgeSettings {
    /// Rows per DELETE: small enough to keep each transaction and its locks short.
    pub batch_size: u32,
    /// Batches per run, so one run never holds the database for long.
    pub max_batches: u32,
}

impl Default for PurgeSettings {
    fn default() -> Self {
        Self {
            batch_size: 500,
            max_batches: 100,
        }
    }
}

/// Deletes expired `COMPLETED` records, batch by batch, until a batch comes back short or
/// the batch budget is spent. Returns how many records were deleted.
///
/// # Errors
/// The first [`StoreError`]; batches already deleted stay deleted.
pub async fn purge_expired<P: RecordPurger>(
    purger: &P,
    clock: &dyn Clock,
    settings: PurgeSettings,
) -> Result<u64, StoreError> {
    let now = clock.now();
    let mut total = 0;
    for _ in 0..settings.max_batches {
        let deleted = purger.purge_expired_batch(now, settings.batch_size).await?;
        total += deleted;
        if deleted < u64::from(settings.batch_size) {
            break;
        }
    }
    Ok(total)
}

/// Deletes events published more than the retention ago, batch by batch like
/// [`purge_expired`]; pending events are never deleted. Returns how many went.
///
/// # Errors
/// The first [`StoreError`]; batches already deleted stay deleted.
pub async fn purge_published_events<S: OutboxRelayStore>(
    store: &S,
    clock: &dyn Clock,
    retention: RetentionPolicy,
    settings: PurgeSettings,
) -> Result<u64, StoreError> {
    let cutoff = clock.now() - retention.period();
    let mut total = 0;
    for _ in 0..settings.max_batches {
        let deleted = store
            .purge_published_batch(cutoff, settings.batch_size)
            .await?;
        total += deleted;
        if deleted < u64::from(settings.batch_size) {
            break;
        }
    }
    Ok(total)
}
