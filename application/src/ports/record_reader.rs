//! The fresh read of a stored record, after "key already registered" or a deadlock.

use std::future::Future;

use domain::{ExistingRecord, IdempotencyKey, Scope};

use super::StoreError;

/// Reads the committed record for a scope and key, in a transaction of its own on a
/// connection of its own: never on the transaction that just failed. It sees every write
/// committed anywhere before it starts (on Galera it waits for causality).
pub trait RecordReader: Send + Sync {
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<ExistingRecord>, StoreError>> + Send;
}
