//! Deleting expired records.

use std::future::Future;

use chrono::{DateTime, Utc};

use super::StoreError;

pub trait RecordPurger: Send + Sync {
    /// Only `COMPLETED` records with `expires_at <= now`, never `PROCESSING`; returns the count.
    fn purge_expired_batch(
        &self,
        now: DateTime<Utc>,
        limit: u32,
    ) -> impl Future<Output = Result<u64, StoreError>> + Send;
}
