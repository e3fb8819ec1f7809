//! The fresh read of a stored record, after "key already registered".

use std::future::Future;

use domain::{ExistingRecord, IdempotencyKey, Scope};

use super::StoreError;

/// Reads the committed record for a scope and key, in a transaction of its own on a
/// connection of its own, from the primary: never on the transaction that just failed.
pub trait RecordReader: Send + Sync {
    /// # Errors
    /// `ConnectionLost`, `Timeout` or `Other`.
    fn find(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<ExistingRecord>, StoreError>> + Send;

    /// Sees every write committed anywhere before it starts. One server already does (the
    /// default); Galera makes it wait for causality.
    fn find_causal(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<ExistingRecord>, StoreError>> + Send {
        self.find(scope, key)
    }
}
