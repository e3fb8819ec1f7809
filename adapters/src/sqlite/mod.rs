//! The embedded store: SQLite (bundled) through diesel, wrapped for async use by
//! diesel-async's `SyncConnectionWrapper` (each statement runs on a blocking thread).
//!
//! Same ports, same guarantees as [`crate::mysql`]: the unique constraint decides races,
//! one transaction holds record, order and response. Write transactions begin
//! `IMMEDIATE`, so a transaction never fails upgrading a read lock; the busy timeout
//! bounds how long a writer waits, and running out of it is "in progress". For local
//! runs, demos and single-node use; several hosts need MySQL.
//!
//! The SQL itself is shared with MySQL (`crate::sql`); what is SQLite's own is here: the
//! pool and pragmas, error texts, `IMMEDIATE` transactions and migrations.

pub mod classify;
mod insert_id;
mod migrate;
mod purge;
mod relay;
mod store;
mod transaction;

pub use migrate::MigrateError;
pub use relay::SqliteClaim;
pub use store::{SqliteConfig, SqliteStore};
pub use transaction::SqliteTx;
