//! MySQL / MariaDB (InnoDB) through diesel-async on a deadpool pool. The SQL is shared with
//! SQLite (`crate::sql`); here is what is MySQL's own: session setup, deadlines, insert
//! ids, error texts, transactions and migrations.

mod causal;
pub mod classify;
mod deadline;
mod free_ids;
mod insert_id;
mod migrate;
mod nodes;
mod order_ids;
mod probes;
mod purge;
mod relay;
mod session;
mod store;
mod transaction;

pub use insert_id::InsertIds;
pub use migrate::MigrateError;
pub use nodes::node_urls;
pub use probes::ServerInfo;
pub use relay::MysqlClaim;
pub use store::{BATCH_LOCK_WAIT_SECS, ConnectError, MysqlConfig, MysqlStore};
pub use transaction::MysqlTx;
