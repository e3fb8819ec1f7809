//! Deleting expired records.

use std::future::Future;

use chrono::{DateTime, Utc};

use super::StoreError;

/// Deletes expired completed records, one bounded batch at a time.
pub trait RecordPurger: Send + Sync {
    /// Deletes at most `limit` records that are `COMPLETED` with `expires_at <= now`, and
    /// never a `PROCESSING` one. Returns how many were deleted.
    ///
    /// # Errors
    /// Any [`StoreError`].
    fn purge_expired_batch(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}
