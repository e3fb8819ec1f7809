//! The MySQL store: a connection pool and what it implements.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use application::BatchSettings;
use application::ports::StoreError;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::mysql::Mysql;
use diesel::query_builder::{Query, QueryFragment, QueryId};
use diesel::query_dsl::CompatibleType;
use diesel_async::pooled_connection::AsyncDieselConnectionManager;
use diesel_async::pooled_connection::deadpool::{BuildError, Object, Pool, PoolError};
use diesel_async::{AsyncMysqlConnection, RunQueryDsl};
use tokio::time::Instant;
use tracing::Instrument;

use super::causal::CausalRead;
use super::classify::store_error;
use super::deadline::{bounded, timed_out};
use super::free_ids::FreeIds;
use super::insert_id::InsertIds;
use super::nodes::{node_urls, retire_after};
use super::session::{Learnt, SessionMode, manager_config};
use crate::sql::tx_connection::{Detach, TxConnection};
use crate::telemetry::statement_span;

pub(super) type PooledConnection = Object<AsyncMysqlConnection>;

impl Detach for PooledConnection {
    fn detach(self) {
        drop(Self::take(self));
    }
}

/// How long a batch's statement waits on a lock another transaction holds
/// (`docs/storage.md#batched-operations`): one member waiting on another request's key or
/// row holds the batch's other members at most this long, then the batch runs its members
/// alone, each with the full lock wait. MySQL's smallest `innodb_lock_wait_timeout`.
pub const BATCH_LOCK_WAIT_SECS: u32 = 1;

#[derive(Debug, Clone)]
pub struct MysqlConfig {
    /// `mysql://user:pass@host:port/db?opts`, several `host:port` allowed (see
    /// [`node_urls`]); driver options pass through unchanged.
    pub url: String,
    /// `innodb_lock_wait_timeout`: how long a same-key insert waits on an open
    /// transaction before it is answered "in progress".
    pub lock_wait_timeout_secs: u32,
    pub max_connections: usize,
    /// Bounds every call, checkout and connect included; past it the connection is
    /// discarded ([`StoreError::Timeout`]). Must exceed the lock wait.
    pub database_timeout: Duration,
    /// Bounds a whole migration run, which may take minutes.
    pub migration_timeout: Duration,
    /// With several nodes in the URL, how long a pooled connection serves before it is
    /// replaced by one to the first node that answers: how soon a process returns to its
    /// own node after it rejoined. Unused with one node.
    pub node_return: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    #[error("invalid pool configuration")]
    Pool(#[source] BuildError),
    /// The URL's password is never printed.
    #[error("cannot connect to MySQL")]
    Unreachable(#[source] PoolError),
    #[error("cannot connect to MySQL: no answer within DATABASE_TIMEOUT_SECS")]
    TimedOut,
}

/// MySQL behind every port. Cloning shares the pools.
///
/// Two pools: single statements run on connections in autocommit mode; transactions on
/// connections whose session has autocommit off, so a transaction begins with its first
/// statement and costs no `BEGIN` round trip (`docs/storage.md#statements-per-create`).
#[derive(Clone)]
pub struct MysqlStore {
    pool: Pool<AsyncMysqlConnection>,
    transactions: Pool<AsyncMysqlConnection>,
    /// Batches of requests take their transactions here (`docs/storage.md#batched-operations`):
    /// a connection prepares each multi-row statement once per size and keeps it, so a few
    /// connections hold those statements instead of every connection of the process.
    batches: Pool<AsyncMysqlConnection>,
    learnt: Learnt,
    database_timeout: Duration,
    migration_timeout: Duration,
    free_order_ids: FreeIds,
}

impl std::fmt::Debug for MysqlStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlStore")
            .field("pool", &self.pool.status())
            .field("transactions", &self.transactions.status())
            .finish()
    }
}

impl MysqlStore {
    /// Builds the pool and opens one connection to prove the configuration.
    pub async fn connect(config: &MysqlConfig) -> Result<Self, ConnectError> {
        let store = Self::lazy(config)?;
        match tokio::time::timeout(store.database_timeout, store.pool.get()).await {
            Ok(Ok(conn)) => drop(conn),
            Ok(Err(error)) => return Err(ConnectError::Unreachable(error)),
            Err(_elapsed) => return Err(ConnectError::TimedOut),
        }
        Ok(store)
    }

    /// Connections open on first use, so a database that is down right now fails only
    /// the requests that need it.
    pub fn lazy(config: &MysqlConfig) -> Result<Self, ConnectError> {
        let learnt = Learnt::default();
        let nodes = Arc::new(node_urls(&config.url));
        let lock_wait = config.lock_wait_timeout_secs;
        let pool = |mode: SessionMode, lock_wait: u32, max_size: usize| {
            let manager = AsyncDieselConnectionManager::<AsyncMysqlConnection>::new_with_config(
                &config.url,
                manager_config(Arc::clone(&nodes), lock_wait, learnt.clone(), mode),
            );
            let mut pool = Pool::builder(manager).max_size(max_size);
            if nodes.len() > 1 {
                pool = pool.post_recycle(retire_after(config.node_return));
            }
            pool.build().map_err(ConnectError::Pool)
        };
        Ok(Self {
            pool: pool(SessionMode::Autocommit, lock_wait, config.max_connections)?,
            transactions: pool(SessionMode::Transactions, lock_wait, config.max_connections)?,
            // As many as batches in flight by default, until told otherwise.
            batches: pool(
                SessionMode::Transactions,
                lock_wait.min(BATCH_LOCK_WAIT_SECS),
                BatchSettings::default().max_in_flight,
            )?,
            learnt,
            database_timeout: config.database_timeout,
            migration_timeout: config.migration_timeout,
            free_order_ids: FreeIds::default(),
        })
    }

    /// As many connections for batches as the process runs batches at once
    /// (`BATCH_IN_FLIGHT`); a further batch waits for one.
    #[must_use]
    pub fn with_batch_connections(self, connections: usize) -> Self {
        self.batches.resize(connections.max(1));
        self
    }

    /// Learnt at the pool's first connection, so known before any transaction begins.
    pub fn insert_ids(&self) -> InsertIds {
        self.learnt
            .insert_ids
            .get()
            .copied()
            .unwrap_or(InsertIds::LastInsertId)
    }

    /// `mariadb` or `mysql`, as the spans' `db.system.name` says it (learnt at the first
    /// connection).
    pub(super) fn system(&self) -> &'static str {
        self.learnt.system.get().copied().unwrap_or("mysql")
    }

    /// True on a Galera node (learnt at the first connection), where a read right after
    /// another node's commit can miss it unless it waits for causality.
    pub fn causal_reads(&self) -> bool {
        self.learnt.galera.get().copied().unwrap_or(false)
    }

    /// Overrides the version's choice: for tests of the other way, or a misleading version.
    #[must_use]
    pub fn with_insert_ids(mut self, ids: InsertIds) -> Self {
        self.learnt.insert_ids = Arc::new(OnceLock::from(ids));
        self
    }

    pub(super) fn deadline(&self) -> Instant {
        Instant::now() + self.database_timeout
    }

    pub(super) fn database_timeout(&self) -> Duration {
        self.database_timeout
    }

    pub(super) fn migration_timeout(&self) -> Duration {
        self.migration_timeout
    }

    /// Shared by the store's clones: one block at a time per process.
    pub(super) fn free_order_ids(&self) -> &FreeIds {
        &self.free_order_ids
    }

    /// Waiting for a free connection and opening one (connect, handshake, session setup)
    /// count against `deadline`.
    pub(super) async fn connection(
        &self,
        deadline: Instant,
    ) -> Result<PooledConnection, StoreError> {
        checkout(&self.pool, deadline).await
    }

    /// As [`Self::connection`], from the pool whose sessions have autocommit off (or its
    /// batches' share of them).
    pub(super) async fn transaction_connection(
        &self,
        deadline: Instant,
        for_batch: bool,
    ) -> Result<PooledConnection, StoreError> {
        let pool = if for_batch {
            &self.batches
        } else {
            &self.transactions
        };
        checkout(pool, deadline).await
    }

    /// One deadline for checkout and `work` (`statement` names it in the log); a
    /// connection whose state is then unknown is discarded, and so is one whose caller
    /// dropped this while `work` ran ([`TxConnection`]): its answer may still be unread.
    pub(crate) async fn with_connection<T>(
        &self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut AsyncMysqlConnection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let span = statement_span(self.system(), statement);
        let deadline = self.deadline();
        let mut conn = TxConnection::new(self.connection(deadline).await?);
        let result = bounded(deadline, statement, work(conn.get()?))
            .instrument(span)
            .await;
        release(conn, &result);
        result
    }

    /// On a Galera node the read first waits for every write set committed in the
    /// cluster, so a row committed through another node a moment ago is found.
    pub(crate) async fn find_all<Q, Row, V, ST>(
        &self,
        statement: &'static str,
        query: Q,
        convert: impl Fn(Row) -> Result<V, StoreError> + Send,
    ) -> Result<Vec<V>, StoreError>
    where
        Q: Query + QueryFragment<Mysql> + QueryId + Send,
        Q::SqlType: CompatibleType<Row, Mysql, SqlType = ST>,
        Mysql: QueryMetadata<Q::SqlType>,
        Row: FromSqlRow<ST, Mysql> + Send + 'static,
        ST: 'static,
    {
        let causal = self.causal_reads();
        self.with_connection(statement, async |conn| {
            let rows: Vec<Row> = if causal {
                CausalRead(query).load(conn).await
            } else {
                query.load(conn).await
            }
            .map_err(store_error)?;
            rows.into_iter().map(convert).collect()
        })
        .await
    }

    /// The first row [`Self::find_all`] finds: for a query of at most one.
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
        let found = self.find_all(statement, query, convert).await?;
        Ok(found.into_iter().next())
    }
}

async fn checkout(
    pool: &Pool<AsyncMysqlConnection>,
    deadline: Instant,
) -> Result<PooledConnection, StoreError> {
    match tokio::time::timeout_at(deadline, pool.get()).await {
        Ok(got) => got.map_err(pool_error),
        Err(_elapsed) => Err(timed_out("connection checkout")),
    }
}

/// Drops a connection that lost its server or ran out of time: fast recycling does not
/// test idle connections, and a late answer must never meet the next statement.
fn release<T>(mut conn: TxConnection<PooledConnection>, result: &Result<T, StoreError>) {
    if matches!(
        result,
        Err(StoreError::ConnectionLost(_) | StoreError::Timeout)
    ) {
        conn.discard();
    } else {
        conn.give_back();
    }
}

/// No connection to be had means the database is unavailable; the pool says why.
fn pool_error(error: PoolError) -> StoreError {
    StoreError::ConnectionLost(Box::new(error))
}
