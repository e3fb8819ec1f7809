//! Sorting errors into the ports' variants: the rules are the same for both stores, only
//! the texts that say which error it was differ (each store's `classify` reads them).

use application::ports::{InsertOrderError, InsertRecordError, StoreError};
use diesel::backend::Backend;
use diesel::result::Error;

/// The unique constraints whose violation is an answer to the caller, not a failure. Both
/// stores' migrations give each the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unique {
    /// `(tenant, actor, operation, key)`: the key is already registered.
    ScopeKey,
    /// `(tenant, clientOrderRef)`: one order per client reference.
    ClientOrderRef,
    /// `(tenant, order)` while a capture is pending or succeeded: one such per order.
    ActiveCapture,
}

impl Unique {
    /// The constraint's name in both stores' migrations.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Self::ScopeKey => "uq_api_idempotency_scope_key",
            Self::ClientOrderRef => "uq_orders_tenant_client_order_ref",
            Self::ActiveCapture => "uq_operations_active_order",
        }
    }
}

/// How a backend's errors read: implemented by each store for its diesel backend.
pub(crate) trait Classify: Backend + 'static {
    /// Whether `error` is a violation of exactly `unique`, and of no other constraint.
    fn violates(error: &Error, unique: Unique) -> bool;

    /// Classifies any error that is not an answer to the caller.
    fn store_error(error: Error) -> StoreError;
}

/// Classifies an error of the record insert.
pub(crate) fn record_insert_error<B: Classify>(error: Error) -> InsertRecordError {
    if B::violates(&error, Unique::ScopeKey) {
        InsertRecordError::KeyAlreadyRegistered
    } else {
        InsertRecordError::Store(B::store_error(error))
    }
}

/// Classifies an error of the order insert.
pub(crate) fn order_insert_error<B: Classify>(error: Error) -> InsertOrderError {
    if B::violates(&error, Unique::ClientOrderRef) {
        InsertOrderError::ClientOrderRefTaken
    } else {
        InsertOrderError::Store(B::store_error(error))
    }
}
