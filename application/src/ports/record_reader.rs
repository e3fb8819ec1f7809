//! The fresh read of a stored record, after "key already registered".

use std::future::Future;

use domain::{ExistingRecord, IdempotencyKey, Scope};

use super::StoreError;

/// Reads the committed record for a scope and key, in a transaction of its own on a
/// connection of its own, from the primary: never on the transaction that just failed.
pub trait RecordReader: Send + Sync {
    /// The committed record, if any.
    ///
    /// # Errors
    /// `ConnectionLost` or `Other`; the coordinator answers "outcome unknown" to both.
    fn find(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<ExistingRecord>, StoreError>> + Send;

    /// [`RecordReader::find`] that sees every write committed anywhere before it starts:
    /// for the reads that decide after a lost race (a fresh read, the read before a
    /// rerun). On one server every read is that already (the default); a multi-primary
    /// cluster (Galera) makes it wait for causality.
    ///
    /// # Errors
    /// As [`RecordReader::find`].
    fn find_causal(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> impl Future<Output = Result<Option<ExistingRecord>, StoreError>> + Send {
        self.find(scope, key)
    }
}
