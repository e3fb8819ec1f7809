//! The embedded store: bundled SQLite through diesel-async's `SyncConnectionWrapper`, with
//! the ports and guarantees of [`crate::mysql`] (`docs/storage.md#the-embedded-store`).
//! The SQL is shared (`crate::sql`); here are the pool, pragmas, error texts, `IMMEDIATE`
//! transactions and migrations.

pub mod classify;
mod insert_id;
mod lane;
mod migrate;
mod private_files;
mod purge;
mod relay;
mod store;
mod transaction;
mod writer;

pub use migrate::MigrateError;
pub use private_files::private_dir;
pub use relay::SqliteClaim;
pub use store::{OpenError, SqliteConfig, SqliteStore};
pub use transaction::SqliteTx;
