//! MySQL / MariaDB (InnoDB) through diesel-async on a deadpool pool.
//!
//! `schema` and the row types stay inside this module; the rest of the workspace sees
//! only the ports.

// First: its column-list macros are used by the modules below.
#[macro_use]
mod schema;

pub mod classify;
mod deadline;
mod insert_id;
mod migrate;
mod orders;
mod purge;
mod reader;
mod records;
mod store;
mod transaction;

pub use insert_id::InsertIds;
pub use migrate::MigrateError;
pub use store::{ConnectError, MysqlConfig, MysqlStore, ServerInfo};
pub use transaction::MysqlTx;
