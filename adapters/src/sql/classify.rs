//! Error classification rules shared by both stores; only the texts differ, read by each
//! store's `classify` (`docs/storage.md#errors-and-how-they-are-classified`).

use application::ports::{InsertRecordError, StoreError};
use application::{Refusal, StepError};
use diesel::backend::Backend;
use diesel::result::Error;

/// A unique constraint whose violation answers the caller rather than failing, named as
/// each store reports it. Each operation defines its own beside its SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unique {
    /// The index's name in `migrations/mysql`.
    pub(crate) index: &'static str,
    /// SQLite's whole message for a violation (`UNIQUE constraint failed: t.a, t.b`).
    pub(crate) sqlite_message: &'static str,
}

/// `(tenant, actor, operation, key)`: the key is already registered.
pub(crate) const SCOPE_KEY: Unique = Unique {
    index: "uq_api_idempotency_scope_key",
    sqlite_message: "UNIQUE constraint failed: api_idempotency.tenant_id, \
        api_idempotency.actor_id, api_idempotency.operation, api_idempotency.idempotency_key",
};

pub(crate) trait Classify: Backend + 'static {
    /// Whether `error` is a violation of exactly `unique`, and of no other constraint.
    fn violates(error: &Error, unique: Unique) -> bool;

    fn store_error(error: Error) -> StoreError;
}

pub(crate) fn record_insert_error<B: Classify>(error: Error) -> InsertRecordError {
    if B::violates(&error, SCOPE_KEY) {
        InsertRecordError::KeyAlreadyRegistered
    } else {
        InsertRecordError::Store(B::store_error(error))
    }
}

/// `refusal` for a violation of `unique`; any other error classified.
pub(crate) fn refused_on<B: Classify, R: Refusal>(
    error: Error,
    unique: Unique,
    refusal: R,
) -> StepError<R> {
    if B::violates(&error, unique) {
        StepError::Rejected(refusal)
    } else {
        StepError::Store(B::store_error(error))
    }
}
