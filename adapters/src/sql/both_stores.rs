//! A port implemented once for both stores. The orphan rule keeps a generic impl of an
//! application trait out of reach, so these macros write the one body for each store's
//! type, and the compiler checks it against each: both offer the same helpers
//! (`run` on a transaction, `with_connection` and `find_one` on a store).

/// `impl $port for MysqlTx` and `for SqliteTx`, with one body.
macro_rules! for_both_transactions {
    (impl $port:path { $($body:tt)* }) => {
        impl $port for $crate::mysql::MysqlTx {
            $($body)*
        }
        impl $port for $crate::sqlite::SqliteTx {
            $($body)*
        }
    };
}

/// `impl $port for MysqlStore` and `for SqliteStore`, with one body.
macro_rules! for_both_stores {
    (impl $port:path { $($body:tt)* }) => {
        impl $port for $crate::mysql::MysqlStore {
            $($body)*
        }
        impl $port for $crate::sqlite::SqliteStore {
            $($body)*
        }
    };
}

pub(crate) use {for_both_stores, for_both_transactions};
