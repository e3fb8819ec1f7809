//! The purge use case: delete expired completed records in bounded batches.

use crate::ports::{Clock, RecordPurger, StoreError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PurgeSettings {
    /// Rows per `DELETE`: few enough to keep each transaction and its locks short.
    pub batch_size: u32,
    /// Per run, so that one run never holds the database for long.
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

/// Batches deleted before an error stay deleted.
pub async fn purge_expired<P: RecordPurger>(
    purger: &P,
    clock: &dyn Clock,
    settings: PurgeSettings,
) -> Result<u64, StoreError> {
    let now = clock.now();
    in_batches(clock, settings, |limit| {
        purger.purge_expired_batch(now, limit)
    })
    .await
}

/// A deadlock victim (two purges on Galera certify against each other) deleted nothing: it
/// runs again after a short pause, within the same budget.
pub(crate) async fn in_batches<F, Fut>(
    clock: &dyn Clock,
    settings: PurgeSettings,
    mut batch: F,
) -> Result<u64, StoreError>
where
    F: FnMut(u32) -> Fut,
    Fut: std::future::Future<Output = Result<u64, StoreError>>,
{
    let mut total = 0;
    for run in 0..settings.max_batches {
        let deleted = match batch(settings.batch_size).await {
            Ok(deleted) => deleted,
            Err(StoreError::Deadlock) if run + 1 < settings.max_batches => {
                clock
                    .pause(std::time::Duration::from_millis(
                        5 + u64::from(run % 10) * 5,
                    ))
                    .await;
                continue;
            }
            Err(error) => return Err(error),
        };
        total += deleted;
        if deleted < u64::from(settings.batch_size) {
            break;
        }
    }
    Ok(total)
}
