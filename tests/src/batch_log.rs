//! A purger that remembers what each batch deleted, so a test can prove the store honours
//! the batch limit (a store that ignored it would still delete the right total).

use std::sync::Mutex;

use application::ports::{RecordPurger, StoreError};
use chrono::{DateTime, Utc};

/// Wraps a store's purger and logs the row count of every batch, in order.
#[derive(Debug)]
pub struct BatchLog<'a, P> {
    inner: &'a P,
    batches: Mutex<Vec<u64>>,
}

impl<'a, P: RecordPurger> BatchLog<'a, P> {
    /// Logs the batches of `inner`.
    #[must_use]
    pub fn new(inner: &'a P) -> Self {
        Self {
            inner,
            batches: Mutex::new(Vec::new()),
        }
    }

    /// How many rows each batch deleted, in order.
    #[must_use]
    pub fn batches(&self) -> Vec<u64> {
        self.batches.lock().unwrap().clone()
    }
}

impl<P: RecordPurger> RecordPurger for BatchLog<'_, P> {
    async fn purge_expired_batch(&self, now: DateTime<Utc>, limit: u32) -> Result<u64, StoreError> {
        let deleted = self.inner.purge_expired_batch(now, limit).await?;
        self.batches.lock().unwrap().push(deleted);
        Ok(deleted)
    }
}
