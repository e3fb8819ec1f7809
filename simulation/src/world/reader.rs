//! The fresh read: committed rows only, as a transaction of its own sees them.

use std::sync::Arc;

use application::ports::{RecordReader, StoreError};
use domain::{ExistingRecord, IdempotencyKey, RecordId, Scope};

use super::World;
use super::tx::{lost, record_key};
use crate::executor::interleave;

#[derive(Debug, Clone)]
pub(crate) struct SimReader(pub(crate) Arc<World>);

impl RecordReader for SimReader {
    async fn find(
        &self,
        scope: &Scope,
        key: &IdempotencyKey,
    ) -> Result<Option<ExistingRecord>, StoreError> {
        interleave().await;
        if self.0.fails(|f| f.read_fails) {
            return Err(if self.0.choice().chance(500) {
                StoreError::Timeout
            } else {
                lost()
            });
        }
        let db = self.0.db();
        Ok(db
            .records
            .get(&record_key(scope, key))
            .map(|row| ExistingRecord {
                id: RecordId(row.id),
                fingerprint: row.fingerprint,
                state: row.state.clone(),
            }))
    }
}
