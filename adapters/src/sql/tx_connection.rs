//! The connection an open transaction holds, and what becomes of it when the transaction
//! does not end cleanly.

use std::ops::DerefMut;

use application::ports::StoreError;

/// The cause of a statement sent after its transaction ended: a bug, never a race.
#[derive(Debug, thiserror::Error)]
#[error("transaction already finished")]
struct Finished;

/// A pooled connection that can leave its pool for good.
pub(crate) trait Detach: DerefMut + Sized {
    /// Takes the connection out of the pool and closes it; closing ends any open
    /// transaction on the server's side.
    fn detach(self);
}

/// The connection of an open transaction. When the transaction ends without a clean
/// COMMIT or ROLLBACK (dropped, or either statement failed), the connection is detached
/// from the pool and closed, so the server rolls back and no later caller ever inherits
/// a transaction in an unknown state.
pub(crate) struct TxConnection<P: Detach>(Option<P>);

impl<P: Detach> TxConnection<P> {
    /// Holds `conn`, on which a transaction has just begun.
    pub(crate) fn new(conn: P) -> Self {
        Self(Some(conn))
    }

    /// The connection, while the transaction is open.
    pub(crate) fn get(&mut self) -> Result<&mut P::Target, StoreError> {
        self.0
            .as_deref_mut()
            .ok_or_else(|| StoreError::Other(Box::new(Finished)))
    }

    /// The connection, to end the transaction on it; `None` once it has ended.
    pub(crate) fn take(&mut self) -> Option<P> {
        self.0.take()
    }

    /// Ends the transaction now by closing its connection.
    pub(crate) fn discard(&mut self) {
        if let Some(conn) = self.0.take() {
            conn.detach();
        }
    }
}

impl<P: Detach> Drop for TxConnection<P> {
    fn drop(&mut self) {
        self.discard();
    }
}

impl<P: Detach> std::fmt::Debug for TxConnection<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TxConnection")
            .field("open", &self.0.is_some())
            .finish()
    }
}
