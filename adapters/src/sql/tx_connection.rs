//! A transaction's connection, closed rather than pooled when the transaction does not
//! end cleanly (`docs/storage.md#one-transaction-per-request`).

use std::ops::DerefMut;

use application::ports::StoreError;

/// A statement sent after its transaction ended (a bug, never a race), or a commit after
/// a statement's deadline discarded the connection.
#[derive(Debug, thiserror::Error)]
#[error("transaction already finished")]
pub(crate) struct Finished;

pub(crate) trait Detach: DerefMut + Sized {
    /// Takes the connection out of the pool for good and closes it, which ends any open
    /// transaction on the server's side.
    fn detach(self);
}

/// Without a clean COMMIT or ROLLBACK (dropped, or either failed) the connection is
/// closed: the server rolls back, and no later caller inherits an unknown transaction. A
/// future dropped while a statement is on the wire (a client that hung up) drops this with
/// it, so the connection is closed rather than pooled with its answer unread: neither
/// pool tests a connection it takes back (`RecyclingMethod::Fast`), and diesel's own
/// transaction state never sees the statements sent here.
pub(crate) struct TxConnection<P: Detach>(Option<P>);

impl<P: Detach> TxConnection<P> {
    pub(crate) fn new(conn: P) -> Self {
        Self(Some(conn))
    }

    pub(crate) fn get(&mut self) -> Result<&mut P::Target, StoreError> {
        self.0
            .as_deref_mut()
            .ok_or_else(|| StoreError::Other(Box::new(Finished)))
    }

    /// Back to the pool: only once its last statement answered, so nothing unread is
    /// left on it and no transaction is open.
    pub(crate) fn give_back(&mut self) {
        drop(self.0.take());
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
