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

/// A session variable read back as a number.
#[derive(QueryableByName)]
struct Seconds {
    #[diesel(sql_type = BigInt)]
    seconds: i64,
}

impl MysqlStore {
    /// `innodb_lock_wait_timeout` as a batch's transaction sees it: how long one member's
    /// lock wait can hold the batch (`docs/storage.md#batched-operations`).
    pub async fn batch_lock_wait_secs(&self) -> Result<i64, StoreError> {
        let mut tx = self.begin_with(None, true).await?;
        let read = tx
            .run("batch lock wait", async |conn, _| {
                diesel::sql_query(
                    "SELECT CAST(@@SESSION.innodb_lock_wait_timeout AS SIGNED) AS seconds",
                )
                .get_result::<Seconds>(conn)
                .await
                .map_err(store_error)
            })
            .await;
        let _ = application::ports::RecordTx::rollback(tx).await;
        read.map(|row| row.seconds)
    }
}
