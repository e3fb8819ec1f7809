//! Sorting SQLite errors into the ports' variants: what SQLite's texts say. Which unique
//! constraint means which answer is decided once for both stores (`crate::sql::classify`).
//!
//! SQLite names the columns of a violated unique constraint, never the constraint, and
//! never the values: the message is compared in full against each constraint's columns.

use application::ports::StoreError;
use diesel::result::{DatabaseErrorKind, Error};
use diesel::sqlite::Sqlite;

use crate::sql::classify::{Classify, Unique};

/// The message of a violation of `uq_api_idempotency_scope_key`, and only of it.
pub const SCOPE_KEY_VIOLATION: &str = "UNIQUE constraint failed: api_idempotency.tenant_id, \
     api_idempotency.actor_id, api_idempotency.operation, api_idempotency.idempotency_key";

/// The message of a violation of `uq_orders_tenant_client_order_ref`.
pub const CLIENT_ORDER_REF_VIOLATION: &str =
    "UNIQUE constraint failed: orders.tenant_id, orders.client_order_ref";

/// The message of a violation of `uq_operations_active_order` (a partial index: only
/// pending and succeeded captures take part).
pub const ACTIVE_CAPTURE_VIOLATION: &str =
    "UNIQUE constraint failed: operations.tenant_id, operations.order_id";

impl Classify for Sqlite {
    /// The message names the constraint's columns: compared in full.
    fn violates(error: &Error, unique: Unique) -> bool {
        let message = match unique {
            Unique::ScopeKey => SCOPE_KEY_VIOLATION,
            Unique::ClientOrderRef => CLIENT_ORDER_REF_VIOLATION,
            Unique::ActiveCapture => ACTIVE_CAPTURE_VIOLATION,
        };
        matches!(
            error,
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
                if info.message() == message
        )
    }

    fn store_error(error: Error) -> StoreError {
        store_error(error)
    }
}

/// Classifies any other error. `database is locked` after the busy timeout means another
/// writer held the database all that time: "in progress", like MySQL's lock wait timeout.
#[must_use]
pub fn store_error(error: Error) -> StoreError {
    match &error {
        Error::DatabaseError(_, info)
            if info.message().starts_with("database is locked")
                || info.message().starts_with("database table is locked") =>
        {
            StoreError::LockWaitTimeout
        }
        Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _)
        | Error::BrokenTransactionManager => StoreError::ConnectionLost,
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
            StoreError::Other("unexpected unique violation".to_owned())
        }
        other => StoreError::Other(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use application::ports::{InsertOrderError, InsertRecordError};
    use diesel::result::DatabaseErrorInformation;

    use super::*;
    use crate::sql::classify::{order_insert_error, record_insert_error};

    #[derive(Debug)]
    struct Info(&'static str);

    impl DatabaseErrorInformation for Info {
        fn message(&self) -> &str {
            self.0
        }
        fn details(&self) -> Option<&str> {
            None
        }
        fn hint(&self) -> Option<&str> {
            None
        }
        fn table_name(&self) -> Option<&str> {
            None
        }
        fn column_name(&self) -> Option<&str> {
            None
        }
        fn constraint_name(&self) -> Option<&str> {
            None
        }
        fn statement_position(&self) -> Option<i32> {
            None
        }
    }

    fn error(kind: DatabaseErrorKind, message: &'static str) -> Error {
        Error::DatabaseError(kind, Box::new(Info(message)))
    }

    #[test]
    fn only_the_scope_key_columns_mean_key_already_registered() {
        assert!(matches!(
            record_insert_error::<Sqlite>(error(
                DatabaseErrorKind::UniqueViolation,
                SCOPE_KEY_VIOLATION
            )),
            InsertRecordError::KeyAlreadyRegistered
        ));
        assert!(matches!(
            record_insert_error::<Sqlite>(error(
                DatabaseErrorKind::UniqueViolation,
                "UNIQUE constraint failed: api_idempotency.id"
            )),
            InsertRecordError::Store(StoreError::Other(_))
        ));
    }

    #[test]
    fn the_client_order_ref_columns_mean_taken() {
        assert!(matches!(
            order_insert_error::<Sqlite>(error(
                DatabaseErrorKind::UniqueViolation,
                CLIENT_ORDER_REF_VIOLATION
            )),
            InsertOrderError::ClientOrderRefTaken
        ));
    }

    #[test]
    fn a_busy_database_is_a_lock_wait_timeout() {
        assert!(matches!(
            store_error(error(DatabaseErrorKind::Unknown, "database is locked")),
            StoreError::LockWaitTimeout
        ));
    }
}
