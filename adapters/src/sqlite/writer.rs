//! One writer connection per database file in a process, taken in turn
//! (`docs/storage.md#the-embedded-store`).
//!
//! SQLite lets one transaction write at a time; its busy handler makes the others sleep and
//! retry in no order, so under load some wait many times over. Queued here instead, behind
//! the one connection's pool (a FIFO semaphore), writers go in the order they came; only a
//! write lock held by another connection (another process, this one's background writes)
//! is still waited for, by the begin's own retries (`transaction.rs`). The WAL is
//! checkpointed beside the writer, on a connection of its own, so no commit waits for a
//! checkpoint.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};

use diesel_async::SimpleAsyncConnection;
use diesel_async::pooled_connection::deadpool::{BuildError, Pool};
use tokio::sync::mpsc;

use super::lane::Connection;

/// Commits between checkpoints: a few hundred WAL pages.
const COMMITS_PER_CHECKPOINT: u64 = 64;

/// The process's writers, by canonical file path; gone with the last store of a file.
static WRITERS: LazyLock<Mutex<HashMap<PathBuf, Weak<Writer>>>> = LazyLock::new(Mutex::default);

pub(super) struct Writer {
    pub(super) pool: Pool<Connection>,
    waiting: AtomicUsize,
    commits: AtomicU64,
    /// Wakes the checkpointer, which ends when this is dropped.
    checkpoint: mpsc::Sender<()>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("pool", &self.pool.status())
            .field("waiting", &self.waiting())
            .finish_non_exhaustive()
    }
}

impl Writer {
    /// The file's writer, shared with every other store of it in this process; `make`
    /// builds the writing and the checkpointing one-connection pools when there is none
    /// yet. Needs a Tokio runtime, for the checkpointer's task.
    pub(super) fn for_file(
        path: &Path,
        make: impl FnOnce() -> Result<(Pool<Connection>, Pool<Connection>), BuildError>,
    ) -> Result<Arc<Self>, BuildError> {
        let mut writers = WRITERS.lock().unwrap_or_else(PoisonError::into_inner);
        writers.retain(|_, writer| writer.strong_count() > 0);
        if let Some(writer) = writers.get(path).and_then(Weak::upgrade) {
            return Ok(writer);
        }
        let (pool, checkpointing) = make()?;
        let (checkpoint, wanted) = mpsc::channel(1);
        tokio::spawn(checkpoints(checkpointing, wanted));
        let writer = Arc::new(Self {
            pool,
            waiting: AtomicUsize::new(0),
            commits: AtomicU64::new(0),
            checkpoint,
        });
        writers.insert(path.to_owned(), Arc::downgrade(&writer));
        Ok(writer)
    }

    /// Counts a commit; every so many, asks for a checkpoint (one asked and not yet run
    /// is enough).
    pub(super) fn committed(&self) {
        if self
            .commits
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(COMMITS_PER_CHECKPOINT)
        {
            let _ = self.checkpoint.try_send(());
        }
    }

    /// Transactions waiting for the connection or for `BEGIN`.
    pub(super) fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    pub(super) fn wait(self: &Arc<Self>) -> Waiting {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        Waiting(Arc::clone(self))
    }
}

/// Counts one writer as waiting until dropped.
pub(super) struct Waiting(Arc<Writer>);

impl Drop for Waiting {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Copies committed WAL pages into the database file while the writer goes on; `PASSIVE`
/// never waits for a reader or the writer. A failed one leaves the WAL longer until the
/// next.
async fn checkpoints(pool: Pool<Connection>, mut wanted: mpsc::Receiver<()>) {
    while wanted.recv().await.is_some() {
        match pool.get().await {
            Ok(mut conn) => {
                if let Err(error) = conn.batch_execute("PRAGMA wal_checkpoint(PASSIVE);").await {
                    tracing::debug!(%error, "WAL checkpoint failed; the next one catches up");
                }
            }
            Err(error) => {
                tracing::debug!(%error, "no connection for a WAL checkpoint");
            }
        }
    }
}
