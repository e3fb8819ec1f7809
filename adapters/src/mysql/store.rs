//! The MySQL store: a connection pool and what it implements.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use application::ports::StoreError;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::mysql::Mysql;
use diesel::query_builder::{Query, QueryFragment, QueryId};
use diesel::query_dsl::CompatibleType;
use diesel::sql_types::{BigInt, Text};
use diesel::{OptionalExtension, QueryableByName};
use diesel_async::pooled_connection::deadpool::{Object, Pool, PoolError};
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};
use diesel_async::{AsyncMysqlConnection, RunQueryDsl, SimpleAsyncConnection};
use tokio::time::Instant;

use super::causal::CausalRead;
use super::classify::store_error;
use super::deadline::{bounded, timed_out};
use super::insert_id::InsertIds;
use super::nodes::{first_answering_node, is_galera_node, node_urls};
use crate::sql::tx_connection::Detach;

/// A pooled connection.
pub(super) type PooledConnection = Object<AsyncMysqlConnection>;

impl Detach for PooledConnection {
    fn detach(self) {
        drop(Self::take(self));
    }
}

/// How to reach MySQL.
#[derive(Debug, Clone)]
pub struct MysqlConfig {
    /// `mysql://user:pass@host:port/db?opts`; driver options pass through unchanged.
    pub url: String,
    /// `innodb_lock_wait_timeout` for every connection: how long a follower waits on a
    /// same-key insert held by an open transaction before it hears "in progress".
    pub lock_wait_timeout_secs: u32,
    /// The most connections the pool opens.
    pub max_connections: usize,
    /// The deadline of every database call (checkout and connect included, then each
    /// statement, `BEGIN`, `COMMIT` and `ROLLBACK`): past it the connection is discarded
    /// and the call fails with [`StoreError::Timeout`]. Must exceed the lock wait.
    pub database_timeout: Duration,
    /// The deadline of a whole migration run, which may legitimately take minutes.
    pub migration_timeout: Duration,
}

/// Why the store could not start.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// Occurs when the pool cannot be built from the configuration.
    #[error("invalid pool configuration: {0}")]
    Pool(String),
    /// Occurs when no connection can be opened (the URL's password is never printed).
    #[error("cannot connect to MySQL: {0}")]
    Unreachable(String),
}

#[derive(QueryableByName)]
struct Version {
    #[diesel(sql_type = Text)]
    version: String,
}

/// What the tests record about the server they ran against.
#[derive(Debug, Clone, QueryableByName)]
pub struct ServerInfo {
    /// `VERSION()`.
    #[diesel(sql_type = Text)]
    pub version: String,
    /// The session's transaction isolation level.
    #[diesel(sql_type = Text)]
    pub isolation: String,
    /// The session's `innodb_lock_wait_timeout` in seconds.
    #[diesel(sql_type = BigInt)]
    pub lock_wait_timeout_secs: i64,
}

/// MySQL behind every port: unit of work, fresh reads, order reads, purge.
///
/// Cloning is cheap (the pool is shared).
#[derive(Clone)]
pub struct MysqlStore {
    pool: Pool<AsyncMysqlConnection>,
    insert_ids: Arc<OnceLock<InsertIds>>,
    galera: Arc<OnceLock<bool>>,
    database_timeout: Duration,
    migration_timeout: Duration,
}

impl std::fmt::Debug for MysqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlStore")
            .field("pool", &self.pool.status())
            .finish()
    }
}

impl MysqlStore {
    /// Builds the pool and opens one connection to prove the configuration.
    ///
    /// # Errors
    /// [`ConnectError`] when the pool cannot be built or the server cannot be reached.
    pub async fn connect(config: &MysqlConfig) -> Result<Self, ConnectError> {
        let store = Self::lazy(config)?;
        match tokio::time::timeout(store.database_timeout, store.pool.get()).await {
            Ok(Ok(conn)) => drop(conn),
            Ok(Err(error)) => return Err(ConnectError::Unreachable(error.to_string())),
            Err(_elapsed) => {
                return Err(ConnectError::Unreachable(
                    "no answer within DATABASE_TIMEOUT_SECS".to_owned(),
                ));
            }
        }
        Ok(store)
    }

    /// Builds the pool without connecting: connections open on first use, so a database
    /// that is down right now only fails the requests that need it.
    ///
    /// # Errors
    /// [`ConnectError::Pool`] when the pool cannot be built from the configuration.
    pub fn lazy(config: &MysqlConfig) -> Result<Self, ConnectError> {
        let lock_wait = config.lock_wait_timeout_secs;
        let insert_ids = Arc::new(OnceLock::new());
        let learn_insert_ids = Arc::clone(&insert_ids);
        let galera = Arc::new(OnceLock::new());
        let learn_galera = Arc::clone(&galera);
        let mut manager_config = ManagerConfig::<AsyncMysqlConnection>::default();
        // Connections come back to the pool only outside a transaction (the manager checks
        // the transaction state); a test query on every checkout would cost a round trip.
        manager_config.recycling_method = RecyclingMethod::Fast;
        let nodes = Arc::new(node_urls(&config.url));
        manager_config.custom_setup = Box::new(move |_url| {
            let nodes = Arc::clone(&nodes);
            let learn_insert_ids = Arc::clone(&learn_insert_ids);
            let learn_galera = Arc::clone(&learn_galera);
            Box::pin(async move {
                let mut conn = first_answering_node(&nodes, lock_wait).await?;
                if learn_insert_ids.get().is_none() {
                    let version: Version = diesel::sql_query("SELECT VERSION() AS version")
                        .get_result(&mut conn)
                        .await
                        .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                    let _ = learn_insert_ids.set(InsertIds::for_version(&version.version));
                }
                if learn_galera.get().is_none() {
                    let galera = is_galera_node(&mut conn)
                        .await
                        .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
                    let _ = learn_galera.set(galera);
                }
                Ok(conn)
            })
        });
        let manager = AsyncDieselConnectionManager::<AsyncMysqlConnection>::new_with_config(
            &config.url,
            manager_config,
        );
        let pool = Pool::builder(manager)
            .max_size(config.max_connections)
            .build()
            .map_err(|e| ConnectError::Pool(e.to_string()))?;
        Ok(Self {
            pool,
            insert_ids,
            galera,
            database_timeout: config.database_timeout,
            migration_timeout: config.migration_timeout,
        })
    }

    /// How this server gives insert ids back, learnt at the pool's first connection (a
    /// transaction always begins on a connection, so it is known by then).
    pub fn insert_ids(&self) -> InsertIds {
        self.insert_ids
            .get()
            .copied()
            .unwrap_or(InsertIds::LastInsertId)
    }

    /// Whether reads that must see every committed write wait for causality: true on a
    /// Galera node (learnt at the pool's first connection), where a read right after
    /// another node's commit can miss it otherwise.
    pub fn causal_reads(&self) -> bool {
        self.galera.get().copied().unwrap_or(false)
    }

    /// This store with insert ids obtained as `ids` says, whatever the server's version
    /// (for tests of the other way, and for a server whose version string misleads).
    #[must_use]
    pub fn with_insert_ids(mut self, ids: InsertIds) -> Self {
        self.insert_ids = Arc::new(OnceLock::from(ids));
        self
    }

    /// When a database call starting now must be done.
    pub(super) fn deadline(&self) -> Instant {
        Instant::now() + self.database_timeout
    }

    /// How long one database call may take.
    pub(super) fn database_timeout(&self) -> Duration {
        self.database_timeout
    }

    /// How long a whole migration run may take.
    pub(super) fn migration_timeout(&self) -> Duration {
        self.migration_timeout
    }

    /// A connection from the pool by `deadline`: waiting for a free one and opening a new
    /// one (connect, handshake, session setup) count against the call's deadline.
    pub(super) async fn connection(
        &self,
        deadline: Instant,
    ) -> Result<PooledConnection, StoreError> {
        match tokio::time::timeout_at(deadline, self.pool.get()).await {
            Ok(got) => got.map_err(pool_error),
            Err(_elapsed) => Err(timed_out("connection checkout")),
        }
    }

    /// Runs `work` on a connection checked out under one deadline (`statement` names it in
    /// the log), then gives the connection back, or discards it when its state is unknown
    /// (the deadline passed, or it broke).
    pub(crate) async fn with_connection<T>(
        &self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut AsyncMysqlConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let deadline = self.deadline();
        let mut conn = self.connection(deadline).await?;
        let result = bounded(deadline, statement, work(&mut conn)).await;
        release(conn, &result);
        result
    }

    /// The row `query` finds, converted by `convert`; on a Galera node the read first
    /// waits for every write set committed in the cluster, so a row committed through
    /// another node a moment ago is found.
    pub(crate) async fn find_one<Q, Row, V, ST>(
        &self,
        statement: &'static str,
        query: Q,
        convert: fn(Row) -> Result<V, StoreError>,
    ) -> Result<Option<V>, StoreError>
    where
        Q: Query + QueryFragment<Mysql> + QueryId + Send,
        Q::SqlType: CompatibleType<Row, Mysql, SqlType = ST>,
        Mysql: QueryMetadata<Q::SqlType>,
        Row: FromSqlRow<ST, Mysql> + Send + 'static,
        ST: 'static,
    {
        let causal = self.causal_reads();
        self.with_connection(statement, async |conn| {
            let row: Option<Row> = if causal {
                CausalRead(query).get_result(conn).await
            } else {
                query.get_result(conn).await
            }
            .optional()
            .map_err(store_error)?;
            row.map(convert).transpose()
        })
        .await
    }

    /// Version, isolation level and lock wait setting, as a connection of this pool sees them.
    ///
    /// # Errors
    /// Any [`StoreError`].
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

    /// Whether the database answers a trivial query (for readiness).
    pub async fn ping(&self) -> bool {
        self.with_connection("readiness probe", async |conn| {
            conn.batch_execute("SELECT 1").await.map_err(store_error)
        })
        .await
        .is_ok()
    }
}

/// Keeps a connection that lost its server, or whose call ran out of time, out of the
/// pool, so the next checkout opens a fresh one instead of failing on the same dead socket
/// (fast recycling does not test idle connections) or reading a late answer meant for
/// another statement.
fn release<T>(conn: PooledConnection, result: &Result<T, StoreError>) {
    if matches!(
        result,
        Err(StoreError::ConnectionLost | StoreError::Timeout)
    ) {
        conn.detach();
    }
}

/// A pool that cannot hand out a connection means the database is unavailable.
fn pool_error(_error: PoolError) -> StoreError {
    StoreError::ConnectionLost
}
