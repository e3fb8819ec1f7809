//! Ending a transaction whose writes were conditional: kept only if they went through.

use application::ports::{RecordTx, StoreError};

/// Commits when `changed`, else rolls back; answers `changed`. A commit whose outcome is
/// not known is reported as a lost connection (its error kept as the cause): the caller
/// reads again to learn it.
pub(crate) async fn commit_if<T: RecordTx + Send>(
    tx: T,
    changed: bool,
) -> Result<bool, StoreError> {
    if changed {
        tx.commit().await.map(|()| true).map_err(StoreError::from)
    } else {
        tx.rollback().await.map(|()| false)
    }
}
