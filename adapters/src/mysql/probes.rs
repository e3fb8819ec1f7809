//! What a connection of the pool says about its server: the facts the tests record.

use application::ports::StoreError;
use diesel::QueryableByName;
use diesel::sql_types::{BigInt, Text};
use diesel_async::RunQueryDsl;

use super::classify::store_error;
use super::store::MysqlStore;

/// What the tests record about the server they ran against.
#[derive(Debug, Clone, QueryableByName)]
pub struct ServerInfo {
    #[diesel(sql_type = Text)]
    pub version: String,
    #[diesel(sql_type = Text)]
    pub isolation: String,
    #[diesel(sql_type = BigInt)]
    pub lock_wait_timeout_secs: i64,
}

impl MysqlStore {
    /// Version, isolation level and lock wait, as a connection of this pool sees them.
    pub async fn server_info(&self) -> Result<ServerInfo, StoreError> {
        let ask = |variable: &str| {
            diesel::sql_query(format!(
                "SELECT VERSION() AS version, @@SESSION.{variable} AS isolation, \
                 CAST(@@SESSION.innodb_lock_wait_timeout AS SIGNED) AS lock_wait_timeout_secs"
            ))
        };
        self.with_connection("server info", async |conn| {
            // MySQL 8 and MariaDB 11.1+ name the variable `transaction_isolation`; older
            // MariaDB only `tx_isolation`.
            match ask("transaction_isolation").get_result(conn).await {
                Ok(info) => Ok(info),
                Err(_) => ask("tx_isolation")
                    .get_result(conn)
                    .await
                    .map_err(store_error),
            }
        })
        .await
    }
}
