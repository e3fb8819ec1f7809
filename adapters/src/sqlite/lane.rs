//! Where a SQLite connection's calls run (`docs/storage.md#the-embedded-store`).
//!
//! Readers and the checkpointer hand each call to Tokio's blocking pool: a read may wait in
//! the busy handler, a checkpoint syncs the file. The file's one writer runs its calls
//! where they are made. It waits for nothing there: its busy timeout is zero (a write lock
//! held by another connection is waited for asleep, by `UnitOfWork::begin`), readers never
//! block a WAL writer, and its commits do not sync (`synchronous = NORMAL`). What is left
//! is a few pages copied and tens of microseconds of CPU, less than a hand-off to a thread
//! and back costs (measured: `docs/performance.md`).

use std::error::Error;

use diesel::SqliteConnection;
use diesel_async::sync_connection_wrapper::{SpawnBlocking, SyncConnectionWrapper};
use futures_util::FutureExt;
use futures_util::future::{BoxFuture, ready};

/// A connection of the embedded store, its calls run on its lane.
pub(super) type Connection = SyncConnectionWrapper<SqliteConnection, Lane>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lane {
    /// Tokio's blocking pool.
    Pool,
    /// The calling task, for a connection whose calls never wait.
    InPlace,
}

impl SpawnBlocking for Lane {
    fn spawn_blocking<'a, R>(
        &mut self,
        task: impl FnOnce() -> R + Send + 'static,
    ) -> BoxFuture<'a, Result<R, Box<dyn Error + Send + Sync + 'static>>>
    where
        R: Send + 'static,
    {
        match self {
            Self::Pool => tokio::task::spawn_blocking(task)
                .map(|joined| joined.map_err(Into::into))
                .boxed(),
            Self::InPlace => ready(Ok(task())).boxed(),
        }
    }

    /// Connections opened by `establish` use the pool.
    fn get_runtime() -> Self {
        Self::Pool
    }
}
