//! Ports implemented once for both stores: the orphan rule forbids a generic impl of an
//! application trait, so these macros paste one body into each store's impl. Both offer
//! the same helpers (`run` on a transaction, `with_connection` and `find_one` on a store).

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
