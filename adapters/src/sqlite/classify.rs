//! What SQLite's error texts mean. A unique violation names its columns, never the
//! constraint or the values, so the message is compared in full.

use application::ports::StoreError;
use diesel::result::{DatabaseErrorKind, Error};
use diesel::sqlite::Sqlite;

use crate::sql::classify::{Classify, Unique};

impl Classify for Sqlite {
    fn violates(error: &Error, unique: Unique) -> bool {
        matches!(
            error,
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
                if info.message() == unique.sqlite_message
        )
    }

    fn store_error(error: Error) -> StoreError {
        store_error(error)
    }
}

/// `database is locked` after the busy timeout means another writer held the database all
/// that time: "in progress", like MySQL's lock wait timeout.
#[must_use]
pub fn store_error(error: Error) -> StoreError {
    match error {
        Error::DatabaseError(_, ref info)
            if info.message().starts_with("database is locked")
                || info.message().starts_with("database table is locked") =>
        {
            StoreError::LockWaitTimeout
        }
        error @ (Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _)
        | Error::BrokenTransactionManager) => StoreError::ConnectionLost(Box::new(error)),
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, _) => {
            StoreError::Other("unexpected unique violation".into())
        }
        other => StoreError::Other(Box::new(other)),
    }
}

#[cfg(test)]
mod tests {
    use application::ports::InsertRecordError;
    use diesel::result::DatabaseErrorInformation;

    use super::*;
    use crate::sql::classify::{SCOPE_KEY, record_insert_error};

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
                SCOPE_KEY.sqlite_message
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
    fn a_busy_database_is_a_lock_wait_timeout() {
        assert!(matches!(
            store_error(error(DatabaseErrorKind::Unknown, "database is locked")),
            StoreError::LockWaitTimeout
        ));
    }
}
