//! What MySQL's error texts mean (`docs/storage.md#errors-and-how-they-are-classified`).
//! diesel-async keeps only the message, not the error number. A duplicate's index is read
//! from the END: the caller-controlled value comes first and may contain `for key '...'`.

use application::ports::{CommitError, StoreError};
use diesel::mysql::Mysql;
use diesel::result::{DatabaseErrorKind, Error};

use crate::sql::classify::{Classify, Unique};

impl Classify for Mysql {
    fn violates(error: &Error, unique: Unique) -> bool {
        matches!(
            error,
            Error::DatabaseError(DatabaseErrorKind::UniqueViolation, info)
                if duplicate_key_index(info.message()) == Some(unique.index)
        )
    }

    fn store_error(error: Error) -> StoreError {
        store_error(error)
    }
}

/// Without a `table.` prefix: MySQL 8.0.19+ writes `'table.index'`, MariaDB and older
/// MySQL `'index'`.
#[must_use]
pub fn duplicate_key_index(message: &str) -> Option<&str> {
    const MARKER: &str = " for key '";
    let body = message.strip_suffix('\'')?;
    let start = body.rfind(MARKER)? + MARKER.len();
    let name = &body[start..];
    Some(name.rsplit_once('.').map_or(name, |(_, index)| index))
}

/// `Other` keeps the server's texts about our statements, except a duplicate-entry text,
/// which would echo request values.
#[must_use]
pub fn store_error(error: Error) -> StoreError {
    match error {
        Error::DatabaseError(DatabaseErrorKind::UniqueViolation, ref info) => {
            StoreError::Other(Box::new(UnexpectedDuplicate(
                duplicate_key_index(info.message())
                    .unwrap_or("?")
                    .to_owned(),
            )))
        }
        error @ (Error::DatabaseError(DatabaseErrorKind::ClosedConnection, _)
        | Error::BrokenTransactionManager) => StoreError::ConnectionLost(Box::new(error)),
        Error::DatabaseError(_, ref info) => match classify_message(info.message()) {
            Some(Class::LockWaitTimeout) => StoreError::LockWaitTimeout,
            Some(Class::Deadlock) => StoreError::Deadlock,
            Some(Class::ConnectionLost) => StoreError::ConnectionLost(Box::new(error)),
            None => StoreError::Other(Box::new(error)),
        },
        other => StoreError::Other(Box::new(other)),
    }
}

/// Only the index is kept: the server's text quotes the duplicate values.
#[derive(Debug, thiserror::Error)]
#[error("unexpected duplicate on index {0}")]
struct UnexpectedDuplicate(String);

/// A deadlock at COMMIT (1213: Galera certification, never plain InnoDB) means nothing
/// committed and the unit may run again; anything else leaves the outcome unknown. In
/// `RollbackErrorOnCommit` the commit's own error decides.
#[must_use]
pub fn commit_error(error: Error) -> CommitError {
    let error = match error {
        Error::RollbackErrorOnCommit { commit_error, .. } => *commit_error,
        other => other,
    };
    match store_error(error) {
        StoreError::Deadlock => CommitError::RolledBack,
        other => CommitError::CommitOutcomeUnknown(Box::new(other)),
    }
}

/// What a server's error text says, for the errors that are not about our statement.
enum Class {
    LockWaitTimeout,
    Deadlock,
    ConnectionLost,
}

fn classify_message(message: &str) -> Option<Class> {
    const CONNECTION_LOST: [&str; 7] = [
        "Input/output error",
        "Connection to the server is closed",
        "Driver error",
        "Connection was killed",
        "Server shutdown in progress",
        "Lost connection",
        // 1047: a Galera node joining or outside the primary component. Discarded, so the
        // next connection goes to another node.
        "WSREP has not yet prepared node for application use",
    ];
    if message.starts_with("Lock wait timeout exceeded") {
        Some(Class::LockWaitTimeout)
    } else if message.starts_with("Deadlock found when trying to get lock") {
        Some(Class::Deadlock)
    } else if CONNECTION_LOST.iter().any(|text| message.contains(text)) {
        Some(Class::ConnectionLost)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use application::ports::InsertRecordError;

    use super::*;
    use crate::sql::classify::record_insert_error;

    fn db_error(kind: DatabaseErrorKind, message: &str) -> Error {
        Error::DatabaseError(kind, Box::new(message.to_owned()))
    }

    fn unique(message: &str) -> Error {
        db_error(DatabaseErrorKind::UniqueViolation, message)
    }

    #[test]
    fn the_mariadb_duplicate_text_on_the_scope_key_is_key_already_registered() {
        let error = unique(
            "Duplicate entry '1-2-orders.create.v1-k1' for key 'uq_api_idempotency_scope_key'",
        );
        assert!(matches!(
            record_insert_error::<Mysql>(error),
            InsertRecordError::KeyAlreadyRegistered
        ));
    }

    #[test]
    fn the_mysql_8_table_qualified_text_is_key_already_registered() {
        let error = unique(
            "Duplicate entry '1-2-orders.create.v1-k1' for key 'api_idempotency.uq_api_idempotency_scope_key'",
        );
        assert!(matches!(
            record_insert_error::<Mysql>(error),
            InsertRecordError::KeyAlreadyRegistered
        ));
    }

    #[test]
    fn a_duplicate_value_that_mimics_the_key_name_is_not_taken_for_it() {
        let error =
            unique("Duplicate entry 'x' for key 'uq_api_idempotency_scope_key' for key 'PRIMARY'");
        assert!(matches!(
            record_insert_error::<Mysql>(error),
            InsertRecordError::Store(StoreError::Other(_))
        ));
    }

    #[test]
    fn a_duplicate_on_another_index_is_never_key_already_registered() {
        let error = unique("Duplicate entry '5' for key 'PRIMARY'");
        assert!(matches!(
            record_insert_error::<Mysql>(error),
            InsertRecordError::Store(StoreError::Other(_))
        ));
    }

    #[test]
    fn an_unexpected_duplicate_does_not_echo_the_duplicate_value() {
        let StoreError::Other(cause) =
            store_error(unique("Duplicate entry 'SECRET' for key 'PRIMARY'"))
        else {
            panic!("expected Other");
        };
        let text = application::ErrorChain(cause.as_ref()).to_string();
        assert!(!text.contains("SECRET"), "{text}");
    }

    #[test]
    fn lock_wait_timeout_deadlock_and_lost_connections_are_told_apart() {
        let unknown = |m: &str| store_error(db_error(DatabaseErrorKind::Unknown, m));
        assert!(matches!(
            unknown("Lock wait timeout exceeded; try restarting transaction"),
            StoreError::LockWaitTimeout
        ));
        assert!(matches!(
            unknown("Deadlock found when trying to get lock; try restarting transaction"),
            StoreError::Deadlock
        ));
        assert!(matches!(
            unknown("Input/output error: broken pipe"),
            StoreError::ConnectionLost(_)
        ));
        assert!(matches!(
            unknown("Driver error: `Connection to the server is closed.'"),
            StoreError::ConnectionLost(_)
        ));
        assert!(matches!(
            unknown("Connection was killed"),
            StoreError::ConnectionLost(_)
        ));
        assert!(matches!(
            unknown("WSREP has not yet prepared node for application use"),
            StoreError::ConnectionLost(_)
        ));
        assert!(matches!(
            unknown("Data too long for column 'sku' at row 1"),
            StoreError::Other(_)
        ));
    }

    #[test]
    fn a_deadlock_at_commit_is_a_rollback_and_anything_else_is_unknown() {
        let at_commit = |m: &str| commit_error(db_error(DatabaseErrorKind::Unknown, m));
        assert!(matches!(
            at_commit("Deadlock found when trying to get lock; try restarting transaction"),
            CommitError::RolledBack
        ));
        assert!(matches!(
            at_commit("Lost connection to MySQL server during query"),
            CommitError::CommitOutcomeUnknown(_)
        ));
        assert!(matches!(
            at_commit("Lock wait timeout exceeded; try restarting transaction"),
            CommitError::CommitOutcomeUnknown(_)
        ));
        let wrapped = Error::RollbackErrorOnCommit {
            rollback_error: Box::new(Error::BrokenTransactionManager),
            commit_error: Box::new(db_error(
                DatabaseErrorKind::Unknown,
                "Deadlock found when trying to get lock; try restarting transaction",
            )),
        };
        assert!(matches!(commit_error(wrapped), CommitError::RolledBack));
    }

    #[test]
    fn a_message_without_the_closing_quote_names_no_index() {
        assert_eq!(duplicate_key_index("Duplicate entry 'a' for key 'x"), None);
        assert_eq!(duplicate_key_index("something else'"), None);
    }
}
