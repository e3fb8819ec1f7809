//! How a pooled connection's session is set up, and what the first one learns of the server.

use std::sync::{Arc, OnceLock};

use diesel::QueryableByName;
use diesel::sql_types::Text;
use diesel_async::pooled_connection::{ManagerConfig, RecyclingMethod};
use diesel_async::{AsyncConnection, AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};

use super::insert_id::InsertIds;
use super::nodes::{first_answering_node, is_galera_node};
use crate::telemetry::{self, QueryText};

/// Which pool a connection serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SessionMode {
    /// Single statements, each its own transaction.
    Autocommit,
    /// `autocommit = 0`: a transaction begins with its first statement and ends with an
    /// explicit `COMMIT` or `ROLLBACK`, so no `BEGIN` is sent.
    Transactions,
}

/// Learnt at the first connection of either pool, so known before any transaction begins.
#[derive(Debug, Clone, Default)]
pub(super) struct Learnt {
    pub(super) insert_ids: Arc<OnceLock<InsertIds>>,
    pub(super) galera: Arc<OnceLock<bool>>,
    pub(super) system: Arc<OnceLock<&'static str>>,
}

#[derive(QueryableByName)]
struct Version {
    #[diesel(sql_type = Text)]
    version: String,
}

pub(super) fn manager_config(
    nodes: Arc<Vec<String>>,
    lock_wait: u32,
    learnt: Learnt,
    mode: SessionMode,
) -> ManagerConfig<AsyncMysqlConnection> {
    let mut config = ManagerConfig::<AsyncMysqlConnection>::default();
    // The manager pools a connection only outside a transaction; a test query on every
    // checkout would cost a round trip.
    config.recycling_method = RecyclingMethod::Fast;
    config.custom_setup = Box::new(move |_url| {
        let (nodes, learnt) = (Arc::clone(&nodes), learnt.clone());
        Box::pin(async move {
            let mut conn = first_answering_node(&nodes, lock_wait).await?;
            if telemetry::is_on() {
                conn.set_instrumentation(QueryText::default());
            }
            learn(&mut conn, &learnt)
                .await
                .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
            // Last: every statement after it is inside a transaction.
            if mode == SessionMode::Transactions {
                conn.batch_execute("SET SESSION autocommit = 0")
                    .await
                    .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
            }
            Ok(conn)
        })
    });
    config
}

async fn learn(conn: &mut AsyncMysqlConnection, learnt: &Learnt) -> diesel::QueryResult<()> {
    if learnt.insert_ids.get().is_none() {
        let version: Version = diesel::sql_query("SELECT VERSION() AS version")
            .get_result(conn)
            .await?;
        let _ = learnt
            .insert_ids
            .set(InsertIds::for_version(&version.version));
        let _ = learnt.system.set(if version.version.contains("MariaDB") {
            "mariadb"
        } else {
            "mysql"
        });
    }
    if learnt.galera.get().is_none() {
        let _ = learnt.galera.set(is_galera_node(conn).await?);
    }
    Ok(())
}
