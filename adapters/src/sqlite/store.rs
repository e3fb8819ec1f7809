//! The pool of SQLite connections on one database file.

use std::path::PathBuf;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use application::ports::StoreError;
use diesel::SqliteConnection;
use diesel::deserialize::FromSqlRow;
use diesel::expression::QueryMetadata;
use diesel::query_builder::{Query, QueryFragment, QueryId};
use diesel::query_dsl::CompatibleType;
use diesel::sqlite::Sqlite;
use diesel_async::SimpleAsyncConnection;
use diesel_async::pooled_connection::deadpool::{BuildError, Object, Pool, PoolError};
use diesel_async::pooled_connection::{
    AsyncDieselConnectionManager, ManagerConfig, RecyclingMethod,
};

use tracing::Instrument;

use super::classify::store_error;
use super::lane::{Connection, Lane};
use super::private_files::{private_dir, private_file};
use super::writer::{Waiting, Writer};
use crate::sql::tx_connection::Detach;
use crate::telemetry::statement_span;

pub(super) type PooledConnection = Object<Connection>;

impl Detach for PooledConnection {
    fn detach(self) {
        drop(Self::take(self));
    }
}

#[derive(Debug, Clone)]
pub struct SqliteConfig {
    /// Its directory is created when missing.
    pub path: PathBuf,
    /// How long a writer waits for another writer's transaction before "in progress".
    pub busy_timeout: Duration,
    /// The most reading connections the store opens (at most 4); every store of a file in
    /// a process shares one writing connection besides.
    pub max_connections: usize,
}

/// Why the database file could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    #[error("cannot create the database file's directory")]
    Directory(#[source] std::io::Error),
    #[error("cannot create the database file")]
    File(#[source] std::io::Error),
    #[error("the database file's path is not UTF-8")]
    PathNotUtf8,
    #[error("invalid pool configuration")]
    Pool(#[source] BuildError),
    #[error("cannot open the database file")]
    Connect(#[source] PoolError),
    #[error("cannot switch the database file to WAL")]
    Wal(#[source] diesel::result::Error),
}

/// Cloning shares the pool.
#[derive(Clone)]
pub struct SqliteStore {
    pool: Pool<Connection>,
    writer: Arc<Writer>,
    path: PathBuf,
    busy_timeout: Duration,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .field("pool", &self.pool.status())
            .field("writer", &self.writer.pool.status())
            .finish()
    }
}

impl SqliteStore {
    /// Switches the file to WAL once (a property of the file, not of a connection). Does
    /// not migrate: see [`SqliteStore::migrate`].
    pub async fn open(config: &SqliteConfig) -> Result<Self, OpenError> {
        if let Some(dir) = config.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            private_dir(dir).map_err(OpenError::Directory)?;
        }
        private_file(&config.path).map_err(OpenError::File)?;
        let url = config
            .path
            .to_str()
            .ok_or(OpenError::PathNotUtf8)?
            .to_owned();
        let busy_ms = config.busy_timeout.as_millis();
        let pool = |size: usize, role: Role| {
            Pool::builder(manager(&url, busy_ms, role))
                .max_size(size)
                .build()
        };
        let canonical = std::fs::canonicalize(&config.path).map_err(OpenError::File)?;
        let store = Self {
            pool: pool(config.max_connections.min(MAX_READERS), Role::Reader)
                .map_err(OpenError::Pool)?,
            writer: Writer::for_file(&canonical, || {
                Ok((pool(1, Role::Writer)?, pool(1, Role::Reader)?))
            })
            .map_err(OpenError::Pool)?,
            path: config.path.clone(),
            busy_timeout: config.busy_timeout,
        };
        let mut conn = store.pool.get().await.map_err(OpenError::Connect)?;
        conn.batch_execute("PRAGMA journal_mode = WAL;")
            .await
            .map_err(OpenError::Wal)?;
        Ok(store)
    }

    #[must_use]
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Write transactions of this process waiting to begin on the file: tests use it to
    /// know a follower is queued behind a leader; it also shows write contention.
    #[must_use]
    pub fn writers_waiting(&self) -> usize {
        self.writer.waiting()
    }

    pub(super) fn busy_timeout(&self) -> Duration {
        self.busy_timeout
    }

    pub(super) fn shared_writer(&self) -> Arc<Writer> {
        Arc::clone(&self.writer)
    }

    /// The file's one writing connection, in turn; waiting longer than the busy timeout
    /// is the lock wait running out, as it would be in SQLite's busy handler.
    ///
    /// A writer is counted as waiting only once its first poll has put it in the pool's
    /// queue: counted earlier, a count of n could include one not yet in line, and the
    /// order the count shows would not be the order the writers go in.
    pub(super) async fn writer(&self) -> Result<(PooledConnection, Waiting), StoreError> {
        let mut get = std::pin::pin!(tokio::time::timeout(
            self.busy_timeout,
            self.writer.pool.get()
        ));
        let first = std::future::poll_fn(|cx| Poll::Ready(get.as_mut().poll(cx))).await;
        let waiting = self.writer.wait();
        let got = match first {
            Poll::Ready(got) => got,
            Poll::Pending => get.await,
        };
        match got {
            Ok(Ok(conn)) => Ok((conn, waiting)),
            Ok(Err(error)) => Err(pool_error(error)),
            Err(_elapsed) => Err(StoreError::LockWaitTimeout),
        }
    }

    pub(super) async fn connection(&self) -> Result<PooledConnection, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }

    /// No deadline: `statement` names the span (MySQL's call also logs it on a timeout).
    pub(crate) async fn with_connection<T>(
        &self,
        statement: &'static str,
        work: impl AsyncFnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let span = statement_span("sqlite", statement);
        let mut conn = self.connection().await?;
        work(&mut conn).instrument(span).await
    }

    /// Never needs a causal wait: one file, one writer.
    pub(crate) async fn find_all<Q, Row, V, ST>(
        &self,
        statement: &'static str,
        query: Q,
        convert: impl Fn(Row) -> Result<V, StoreError> + Send,
    ) -> Result<Vec<V>, StoreError>
    where
        Q: Query + QueryFragment<Sqlite> + QueryId + Send,
        Q::SqlType: CompatibleType<Row, Sqlite, SqlType = ST>,
        Sqlite: QueryMetadata<Q::SqlType>,
        Row: FromSqlRow<ST, Sqlite> + Send + 'static,
        ST: 'static,
    {
        use diesel_async::RunQueryDsl;
        self.with_connection(statement, async |conn| {
            let rows: Vec<Row> = query.load(conn).await.map_err(store_error)?;
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
        Q: Query + QueryFragment<Sqlite> + QueryId + Send,
        Q::SqlType: CompatibleType<Row, Sqlite, SqlType = ST>,
        Sqlite: QueryMetadata<Q::SqlType>,
        Row: FromSqlRow<ST, Sqlite> + Send + 'static,
        ST: 'static,
    {
        let found = self.find_all(statement, query, convert).await?;
        Ok(found.into_iter().next())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Reader,
    Writer,
}

/// Readers per store: more than a few only contend for the WAL's read marks and hold a
/// page cache each (measured: `docs/performance.md`).
const MAX_READERS: usize = 4;

/// Connections with the store's pragmas.
fn manager(url: &str, busy_ms: u128, role: Role) -> AsyncDieselConnectionManager<Connection> {
    let mut manager_config = ManagerConfig::<Connection>::default();
    manager_config.recycling_method = RecyclingMethod::Fast;
    manager_config.custom_setup = Box::new(move |url| {
        let url = url.to_owned();
        Box::pin(async move {
            // The writer never sleeps in SQLite's busy handler (`Lane::InPlace`), and
            // checkpoints run beside it (`Writer`): in a commit they would hold every
            // queued writer behind a copy and an fsync.
            let (lane, waits) = match role {
                Role::Reader => (Lane::Pool, format!("PRAGMA busy_timeout = {busy_ms};")),
                Role::Writer => (
                    Lane::InPlace,
                    "PRAGMA busy_timeout = 0; PRAGMA wal_autocheckpoint = 0;".to_owned(),
                ),
            };
            let mut conn = establish(url, lane).await?;
            // NORMAL in WAL survives a process crash; a power loss may drop the newest
            // commits, each whole, never half of one.
            conn.batch_execute(&format!(
                "{waits} PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;"
            ))
            .await
            .map_err(diesel::ConnectionError::CouldntSetupConfiguration)?;
            Ok(conn)
        })
    });
    AsyncDieselConnectionManager::new_with_config(url, manager_config)
}

/// Opening the file may wait on the disk: always on the blocking pool.
async fn establish(url: String, lane: Lane) -> diesel::ConnectionResult<Connection> {
    use diesel::Connection as _;
    let opened = tokio::task::spawn_blocking(move || SqliteConnection::establish(&url))
        .await
        .map_err(|gone| diesel::ConnectionError::BadConnection(gone.to_string()))??;
    Ok(Connection::with_runtime(opened, lane))
}

fn pool_error(error: PoolError) -> StoreError {
    StoreError::Other(Box::new(error))
}
