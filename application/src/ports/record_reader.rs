//! The fresh read of a stored record, after "key already registered" or a deadlock, and
//! a batch's read of its members' records before it writes.

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

    /// The records of many keys, in their order (`None` where there is none), read as
    /// [`RecordReader::find`] reads one: a store that can reads them in one statement
    /// (`docs/storage.md#a-batchs-read-of-its-keys`).
    ///
    /// # Errors
    /// As [`RecordReader::find`].
    fn find_many(
        &self,
        keys: &[(&Scope, &IdempotencyKey)],
    ) -> impl Future<Output = Result<Vec<Option<ExistingRecord>>, StoreError>> + Send {
        async move {
            let mut found = Vec::with_capacity(keys.len());
            for (scope, key) in keys {
                found.push(self.find(scope, key).await?);
            }
            Ok(found)
        }
    }
}
